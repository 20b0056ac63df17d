// A second Worker for the end-to-end tests (tests/src/peers.rs), run in the same
// `wrangler dev` as hookonce. It receives what hookonce forwards through a service binding
// (fetch) or a queue (queue), and relays each to the test's recording origin (env.ORIGIN),
// whose answer decides: the status goes back through the binding; a queue message is acked
// on a 2xx and retried otherwise.

export default {
  async fetch(request, env) {
    const headers = new Headers(request.headers);
    headers.set("x-peer-via", "service");
    headers.set("x-peer-url", request.url);
    const answer = await fetch(`${env.ORIGIN}/service`, {
      method: request.method,
      headers,
      body: await request.arrayBuffer(),
    });
    const back = new Headers();
    const retryAfter = answer.headers.get("retry-after");
    if (retryAfter !== null) back.set("retry-after", retryAfter);
    return new Response(null, { status: answer.status, headers: back });
  },

  async queue(batch, env) {
    // In order, one at a time: the origin sees the batch as the queue delivered it.
    for (const message of batch.messages) {
      const answer = await fetch(`${env.ORIGIN}/queue`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "x-peer-via": "queue",
          "x-queue-name": batch.queue,
          "x-queue-message-id": message.id,
          "x-queue-attempts": String(message.attempts),
        },
        body: JSON.stringify(message.body),
      });
      if (answer.ok) message.ack();
      else message.retry();
    }
  },
};
