// The floor: a JS Worker whose Durable Object answers at once. It reads the body, finds the
// entity as the peer does (JSON.parse, `data.object.id`), calls that entity's object with
// `fetch` and returns its answer; the object writes nothing and verifies nothing. No design
// that routes each event to its entity's object can serve more on the same machine, so the
// benchmark reports hookonce and the peer as fractions of it.
//
// It answers in hookonce's shape (200, `Hookonce-Outcome`, JSON with `rows_written`) so that
// the same load generator drives it.

import { DurableObject } from "cloudflare:workers";

export default {
  async fetch(request, env) {
    const body = await request.arrayBuffer();
    let entity;
    try {
      entity = JSON.parse(new TextDecoder().decode(body))?.data?.object?.id;
    } catch {
      return new Response("not json", { status: 400 });
    }
    if (typeof entity !== "string") return new Response("no data.object.id", { status: 400 });
    const stub = env.ENTITY.get(env.ENTITY.idFromName(entity));
    return stub.fetch("https://entity.floor/", { method: "POST", body });
  },
};

export class EntityObject extends DurableObject {
  fetch() {
    return Response.json(
      { outcome: "applied", rows_written: 0 },
      { headers: { "Hookonce-Outcome": "applied" } },
    );
  }
}

// The same namespaces as the other two workers, so all three run under one config shape.
export class KeyObject extends DurableObject {}
export class FeedObject extends DurableObject {}
export class GateObject extends DurableObject {}
