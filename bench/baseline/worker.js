// The ids-only peer: the seeds' recipe taken literally, in plain JavaScript, as the benchmark's
// baseline. Verify the Standard Webhooks signature with WebCrypto, route to one Durable
// Object per entity, then in that object: INSERT … ON CONFLICT DO NOTHING into
// processed_events; if it wrote a row, overwrite the entity's state. No staleness check:
// a late, older event overwrites newer state. That difference is what the comparison shows.
//
// It answers like hookonce (200, `Hookonce-Outcome`, JSON with `rows_written`) so that one
// load generator measures every worker. The code it shares with the body-keeping peer
// (bench/baseline-bodies) is in recipe.js.

import { DurableObject } from "cloudflare:workers";
import { STATE_SCHEMA, accept, record } from "./recipe.js";

export default {
  async fetch(request, env) {
    const accepted = await accept(request, env);
    if (accepted instanceof Response) return accepted;
    const { event, entity } = accepted;
    const stub = env.ENTITY.get(env.ENTITY.idFromName(entity));
    return stub.process(event.id, JSON.stringify(event.data.object));
  },
};

export class EntityObject extends DurableObject {
  constructor(ctx, env) {
    super(ctx, env);
    this.sql = ctx.storage.sql;
    this.sql.exec("CREATE TABLE IF NOT EXISTS processed_events (event_id TEXT PRIMARY KEY)");
    this.sql.exec(STATE_SCHEMA);
  }

  process(eventId, object) {
    return record(
      this.sql,
      object,
      "INSERT INTO processed_events (event_id) VALUES (?) ON CONFLICT DO NOTHING",
      eventId,
    );
  }
}

export { KeyObject, FeedObject, GateObject } from "./recipe.js";
