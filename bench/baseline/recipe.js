// The seeds' recipe, shared by both JavaScript peers (bench/baseline keeps event ids only,
// bench/baseline-bodies each raw body with its id too): the Worker's side (route, verify,
// parse) and the object's (claim, then state), each peer adding only its claim statement.
// A module of its own because a Worker's main module may export only handlers and classes.

import { DurableObject } from "cloudflare:workers";

const TOLERANCE_SECS = 300;
const enc = new TextEncoder();
const keys = new Map(); // secret -> CryptoKey, imported once per isolate

async function hmacKey(secret) {
  let key = keys.get(secret);
  if (!key) {
    const raw = Uint8Array.from(atob(secret.replace(/^whsec_/, "")), (c) => c.charCodeAt(0));
    key = await crypto.subtle.importKey("raw", raw, { name: "HMAC", hash: "SHA-256" }, false, ["verify"]);
    keys.set(secret, key);
  }
  return key;
}

// Standard Webhooks: HMAC-SHA256 over `{id}.{timestamp}.{body}`, `v1,<base64>` entries.
async function verify(secret, headers, body) {
  const id = headers.get("webhook-id");
  const ts = headers.get("webhook-timestamp");
  const sigs = headers.get("webhook-signature");
  if (!id || !ts || !sigs || !/^\d+$/.test(ts)) return false;
  if (Math.abs(Date.now() / 1000 - Number(ts)) > TOLERANCE_SECS) return false;
  const key = await hmacKey(secret);
  const signed = new Uint8Array([...enc.encode(`${id}.${ts}.`), ...body]);
  for (const entry of sigs.split(" ")) {
    const [version, b64] = entry.split(",");
    if (version !== "v1" || !b64) continue;
    let tag;
    try {
      tag = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
    } catch {
      continue;
    }
    // crypto.subtle.verify compares in constant time.
    if (await crypto.subtle.verify("HMAC", key, tag, signed)) return true;
  }
  return false;
}

// The Worker's side: the route, the signature, the parse. A refusal as a Response, else the event, its entity and its raw
// body.
export async function accept(request, env) {
  const url = new URL(request.url);
  if (request.method !== "POST" || url.pathname !== "/webhooks/cockpit") {
    return new Response("not found", { status: 404 });
  }
  const body = new Uint8Array(await request.arrayBuffer());
  if (!(await verify(env.COCKPIT_SECRET, request.headers, body))) {
    return new Response("invalid signature", { status: 401 });
  }
  let event;
  try {
    event = JSON.parse(new TextDecoder().decode(body));
  } catch {
    return new Response("not json", { status: 400 });
  }
  const entity = event?.data?.object?.id;
  if (typeof event?.id !== "string" || typeof entity !== "string") {
    return new Response("missing id or data.object.id", { status: 400 });
  }
  return { event, entity, body };
}

export const STATE_SCHEMA =
  "CREATE TABLE IF NOT EXISTS state (id INTEGER PRIMARY KEY CHECK (id = 1), object TEXT NOT NULL)";

// The object's side: the claim (a statement and its
// arguments); if it wrote a row, the entity's state overwritten. Synchronous from the first
// statement to the last: one turn, one implicit transaction.
export function record(sql, object, ...claimStatement) {
  const claim = sql.exec(...claimStatement);
  claim.toArray();
  if (claim.rowsWritten === 0) return answer("duplicate", 0);
  const write = sql.exec("INSERT OR REPLACE INTO state (id, object) VALUES (1, ?)", object);
  write.toArray();
  return answer("applied", claim.rowsWritten + write.rowsWritten);
}

function answer(outcome, rowsWritten) {
  return Response.json(
    { outcome, rows_written: rowsWritten },
    { headers: { "Hookonce-Outcome": outcome } },
  );
}

// Bound as KEYS, FEED and GATE so that every worker runs under one config shape; never called.
export class KeyObject extends DurableObject {}
export class FeedObject extends DurableObject {}
export class GateObject extends DurableObject {}
