// The peer: the seeds' recipe taken literally, in plain JavaScript, as the benchmark's
// baseline. Verify the Standard Webhooks signature with WebCrypto, route to one Durable
// Object per entity, then in that object: INSERT … ON CONFLICT DO NOTHING into
// processed_events; if it wrote a row, overwrite the entity's state. No staleness check:
// a late, older event overwrites newer state. That difference is what the comparison shows.
//
// It answers like hookonce (200, `Hookonce-Outcome`, JSON with `rows_written`) so that one
// load generator measures both.

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

export default {
  async fetch(request, env) {
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
    const stub = env.ENTITY.get(env.ENTITY.idFromName(entity));
    return stub.process(event.id, JSON.stringify(event.data.object));
  },
};

export class EntityObject extends DurableObject {
  constructor(ctx, env) {
    super(ctx, env);
    this.sql = ctx.storage.sql;
    this.sql.exec("CREATE TABLE IF NOT EXISTS processed_events (event_id TEXT PRIMARY KEY)");
    this.sql.exec("CREATE TABLE IF NOT EXISTS state (id INTEGER PRIMARY KEY CHECK (id = 1), object TEXT NOT NULL)");
  }

  // Synchronous from the first statement to the last: one turn, one implicit transaction.
  process(eventId, object) {
    const claim = this.sql.exec(
      "INSERT INTO processed_events (event_id) VALUES (?) ON CONFLICT DO NOTHING",
      eventId,
    );
    claim.toArray();
    if (claim.rowsWritten === 0) return answer("duplicate", 0);
    const write = this.sql.exec("INSERT OR REPLACE INTO state (id, object) VALUES (1, ?)", object);
    write.toArray();
    return answer("applied", claim.rowsWritten + write.rowsWritten);
  }
}

function answer(outcome, rowsWritten) {
  return Response.json(
    { outcome, rows_written: rowsWritten },
    { headers: { "Hookonce-Outcome": outcome } },
  );
}

// Bound as KEYS so that both workers run under one config shape; the baseline never calls it.
export class KeyObject extends DurableObject {}
export class FeedObject extends DurableObject {}
