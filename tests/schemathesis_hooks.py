"""schemathesis hooks for the contract test
(tests/tests/the_running_worker_matches_its_openapi_description.rs).

A generated delivery can't carry a valid signature, so each one to the `cockpit` source is
signed with the published `standardwebhooks` package (as tests/src/oracle.rs uses it), three
bodies in four (chosen by the body's hash, so a run is reproducible: hypothesis reseeds
`random` for every case): those reach hookonce's parsing and deciding, and the rest its
verifier. The secret comes from the environment (COCKPIT_SECRET, from .dev.vars.example).
"""

import datetime
import hashlib
import json
import os

import schemathesis
from standardwebhooks.webhooks import Webhook

# Sign a body unless the first byte of its SHA-256 is below this: three in four.
UNSIGNED_BELOW = 64


@schemathesis.hook
def before_call(context, case, kwargs):
    if case.path != "/webhooks/{source}" or case.path_parameters.get("source") != "cockpit":
        return
    # The bytes sent are the bytes signed: schemathesis sends a bytes body as it is.
    body = case.body if isinstance(case.body, bytes) else json.dumps(case.body).encode()
    digest = hashlib.sha256(body)
    if digest.digest()[0] < UNSIGNED_BELOW:
        return
    case.body = body
    msg_id = _printable_id(body) or "msg_" + digest.hexdigest()[:16]
    now = datetime.datetime.now(tz=datetime.timezone.utc)
    headers = dict(case.headers or {})
    headers.update(
        {
            "webhook-id": msg_id,
            "webhook-timestamp": str(int(now.timestamp())),
            "webhook-signature": Webhook(os.environ["COCKPIT_SECRET"]).sign(msg_id, now, body),
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
