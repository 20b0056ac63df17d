// The body-keeping peer: the first peer's recipe (bench/baseline/worker.js, with the code
// both share in bench/baseline/recipe.js) plus what hookonce keeps by default and the first
// peer does not: each event's raw body, stored with its id by the claim itself, so that the
// claim and the body are one statement and one transaction. Like hookonce, it keeps the body of every
// event it records; unlike hookonce, it never prunes (a bench run is far shorter than
// hookonce's 30 days) and has no staleness check.

import { DurableObject } from "cloudflare:workers";
import { STATE_SCHEMA, accept, record } from "./recipe.js";

export default {
  async fetch(request, env) {
    const accepted = await accept(request, env);
    if (accepted instanceof Response) return accepted;
    const { event, entity, body } = accepted;
    const stub = env.ENTITY.get(env.ENTITY.idFromName(entity));
    return stub.process(event.id, JSON.stringify(event.data.object), body);
  },
};

export class EntityObject extends DurableObject {
  constructor(ctx, env) {
    super(ctx, env);
    this.sql = ctx.storage.sql;
    this.sql.exec("CREATE TABLE IF NOT EXISTS processed_events (event_id TEXT PRIMARY KEY, body BLOB NOT NULL)");
    this.sql.exec(STATE_SCHEMA);
  }

  process(eventId, object, body) {
    return record(
      this.sql,
      object,
      "INSERT INTO processed_events (event_id, body) VALUES (?, ?) ON CONFLICT DO NOTHING",
      eventId,
      body,
    );
  }
}

// Bound as KEYS and FEED so that every worker runs under one config shape; never called.
export { KeyObject, FeedObject, GateObject } from "./recipe.js";
