"""schemathesis hooks for the contract test
(tests/tests/the_running_worker_matches_its_openapi_description.rs).

A generated delivery can't carry a valid signature, so each one to the `cockpit` source is
signed as its Standard Webhooks provider would sign it, three bodies in four (chosen by the
body's hash, so a run is reproducible: hypothesis reseeds `random` for every case): those
reach hookonce's parsing and deciding, and the rest its verifier. The secret comes from the
environment (COCKPIT_SECRET, from .dev.vars.example).
"""

import base64
import hashlib
import hmac
import json
import os
import time

import schemathesis

# Sign a body unless the first byte of its SHA-256 is below this: three in four.
UNSIGNED_BELOW = 64


def _sign(secret: str, msg_id: str, ts: int, body: bytes) -> str:
    key = base64.b64decode(secret.removeprefix("whsec_"))
    mac = hmac.new(key, f"{msg_id}.{ts}.".encode() + body, hashlib.sha256).digest()
    return "v1," + base64.b64encode(mac).decode()


@schemathesis.hook
def before_call(context, case, kwargs):
    if case.path != "/webhooks/{source}" or case.path_parameters.get("source") != "cockpit":
        return
    # The bytes sent are the bytes signed: schemathesis sends a bytes body as it is.
    body = case.body if isinstance(case.body, bytes) else json.dumps(case.body).encode()
    if hashlib.sha256(body).digest()[0] < UNSIGNED_BELOW:
        return
    case.body = body
    msg_id = _printable_id(body) or "msg_" + hashlib.sha256(body).hexdigest()[:16]
    ts = int(time.time())
    headers = dict(case.headers or {})
    headers.update(
        {
            "webhook-id": msg_id,
            "webhook-timestamp": str(ts),
            "webhook-signature": _sign(os.environ["COCKPIT_SECRET"], msg_id, ts, body),
        }
    )
    case.headers = headers


def _printable_id(body: bytes):
    """The event's own `id`, if it is one a header can carry."""
    try:
        value = json.loads(body).get("id")
    except (ValueError, AttributeError):
        return None
    if isinstance(value, str) and 0 < len(value) <= 255 and all(33 <= ord(c) < 127 for c in value):
        return value
    return None
