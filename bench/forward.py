#!/usr/bin/env python3
"""One forwarding run for bench/forward.sh: serves the origin on ORIGIN_PORT (204 to every
POST), posts EVENTS notify events spread over ENTITIES entities to the worker at URL
(signed Standard Webhooks, CONCURRENCY at a time), and waits until the origin has received
every event once. Prints one JSON line: events, seconds from the first post to the last
receipt, forward attempts per second, and whether the origin saw every key.

    python3 bench/forward.py URL ORIGIN_PORT [ENTITIES EVENTS CONCURRENCY]
"""
import base64, hashlib, hmac, json, sys, threading, time, urllib.request
from concurrent.futures import ThreadPoolExecutor
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

SECRET = base64.b64decode("MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")
url, origin_port = sys.argv[1], int(sys.argv[2])
entities, events, concurrency = (int(a) for a in (sys.argv[3:] + ["50", "1000", "16"][len(sys.argv) - 3:]))

received, lock, done = {}, threading.Lock(), threading.Event()
attempts = [0]


class Origin(BaseHTTPRequestHandler):
    def do_POST(self):
        self.rfile.read(int(self.headers.get("content-length", 0)))
        key = self.headers.get("idempotency-key")
        with lock:
            attempts[0] += 1
            received.setdefault(key, time.monotonic())
            if len(received) >= events:
                done.set()
        self.send_response(204)
        self.end_headers()

    def log_message(self, *_):
        pass


server = ThreadingHTTPServer(("127.0.0.1", origin_port), Origin)
threading.Thread(target=server.serve_forever, daemon=True).start()


def post(i):
    entity, n = f"ch_{i % entities}", i // entities
    eid = f"evt_{entity}_{n}"
    ts = int(time.time())
    body = json.dumps({
        "id": eid, "type": "cardholder.noted", "created_at": ts,
        "data": {"object": {"id": entity, "n": n}},
    }).encode()
    sig = base64.b64encode(hmac.new(SECRET, f"{eid}.{ts}.".encode() + body, hashlib.sha256).digest())
    req = urllib.request.Request(f"{url}/webhooks/cockpit", data=body, method="POST", headers={
        "content-type": "application/json", "webhook-id": eid, "webhook-timestamp": str(ts),
        "webhook-signature": "v1," + sig.decode(),
    })
    with urllib.request.urlopen(req, timeout=30) as r:
        assert r.status == 200, r.status


start = time.monotonic()
with ThreadPoolExecutor(concurrency) as pool:
    list(pool.map(post, range(events)))
posted = time.monotonic() - start
complete = done.wait(300)
last = max(received.values(), default=start)
secs = last - start
print(json.dumps({
    "events": events, "entities": entities, "posted_secs": round(posted, 2),
    "secs": round(secs, 2), "forwards_per_sec": round(len(received) / secs, 1) if secs else 0,
    "attempts": attempts[0], "complete": complete,
}))
server.shutdown()
