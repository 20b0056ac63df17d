// Drives GET /inspect in headless Chromium, as a person would, for
// tests/tests/the_inspector_shows_the_feed_replays_and_requeues_in_a_browser.rs:
//   1. load the page, enter the token (session.mjs); 2. see a just-delivered event in the
//   feed; 3. open its entity's timeline; 4. press Replay, read "Nothing changed";
//   5. re-queue a dead letter and see it delivered.
// Input (env): session.mjs's, and EVENT, ENTITY, DEAD_ENTITY.
import { env, run } from "./session.mjs";

const [event, deadEntity] = ["EVENT", "DEAD_ENTITY"].map(env);
const row = `#feed-rows tr.feed-row[data-event-id="${event}"]`;

await run([
  ["2 see the just-delivered event in the feed", async ({ page, shot }) => {
    await page.waitForSelector(row, { timeout: 15_000 });
    await shot("1-feed.png");
  }],
  ["3 open its entity's timeline", async ({ page, shot }) => {
    await page.click(`${row} a.entity-link`);
    await page.waitForSelector(`#timeline-events tr.timeline-event[data-event-id="${event}"]`, { timeout: 10_000 });
    await page.waitForSelector(`#timeline-outbox tr.outbox-row[data-event-id="${event}"]`, { timeout: 10_000 });
    await shot("2-timeline.png");
  }],
  ["4 press Replay and read nothing changed", async ({ page, shot }) => {
    await page.click(`#timeline-events tr.timeline-event[data-event-id="${event}"] a.event-link`);
    await page.waitForSelector("#replay:not(.hidden)");
    await page.click("#replay");
    await page.waitForSelector("#replay-answer:not(.hidden)", { timeout: 10_000 });
    const answer = await page.textContent("#replay-answer");
    if (!/Nothing changed/.test(answer) || !/changed: false/.test(answer)) throw new Error(`replay said: ${answer}`);
    await shot("3-replay.png");
    return { answer };
  }],
  ["5 re-queue a dead letter and see it delivered", async ({ page, shot }) => {
    const dead = `#dead-rows button.requeue[data-entity="${deadEntity}"]`;
    await page.waitForSelector(dead, { timeout: 15_000 });
    await shot("4-dead-letter.png");
    await page.click(dead);
    await page.waitForFunction((e) => document.querySelector("#timeline-entity")?.textContent.includes(e), deadEntity);
    // The open timeline refreshes with the feed (every 2 s): wait for the row to go out.
    await page.waitForSelector(`#timeline-outbox tr.outbox-row[data-status="delivered"]`, { timeout: 20_000 });
    await page.waitForFunction((e) => !document.querySelector(`#dead-rows button.requeue[data-entity="${e}"]`), deadEntity, { timeout: 10_000 });
    await shot("5-requeued.png");
  }],
]);
