// Drives GET /inspect in headless Chromium, as a person would, for
// tests/tests/the_inspector_shows_the_feed_replays_and_requeues_in_a_browser.rs:
//   1. load the page, enter the token; 2. see a just-delivered event in the feed;
//   3. open its entity's timeline; 4. press Replay, read "Nothing changed";
//   5. re-queue a dead letter and see it delivered.
// Input (env): HOOKONCE_URL, HOOKONCE_ADMIN_TOKEN, SOURCE, EVENT, ENTITY, DEAD_ENTITY,
// SCREENSHOTS (a directory). Prints one JSON line per step; exits 1 on the first failure.
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium } from "playwright-core";

const env = (k) => {
  const v = process.env[k];
  if (!v) throw new Error(`${k} is not set`);
  return v;
};
const [base, token, source, event, entity, deadEntity, shots] = [
  "HOOKONCE_URL", "HOOKONCE_ADMIN_TOKEN", "SOURCE", "EVENT", "ENTITY", "DEAD_ENTITY", "SCREENSHOTS",
].map(env);
mkdirSync(shots, { recursive: true });
rmSync(join(shots, "failure.png"), { force: true });
const profile = mkdtempSync(join(tmpdir(), "hookonce-chromium-"));

// A fresh profile each run: playwright passes it as --user-data-dir.
const browser = await chromium.launchPersistentContext(profile, {
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  headless: true,
  viewport: { width: 1400, height: 900 },
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync"],
});
let step = "start";
let page = null;
const errors = [];
const say = (what, extra = {}) => console.log(JSON.stringify({ step: what, ok: true, ...extra }));
try {
  page = browser.pages()[0] || (await browser.newPage());
  page.on("console", (m) => m.type() === "error" && errors.push(m.text()));
  page.on("pageerror", (e) => errors.push(String(e)));
  const shot = (name) => page.screenshot({ path: join(shots, name), fullPage: true });

  step = "1 load the page and enter the token";
  await page.goto(`${base}/inspect`);
  await page.fill("#token", token);
  await page.fill("#source", source);
  await page.click("#connect");
  await page.waitForSelector("#app:not(.hidden)", { timeout: 10_000 });
  const stored = await page.evaluate(() => ({
    session: sessionStorage.getItem("hookonce-inspector") || "",
    local: JSON.stringify(localStorage),
    cookie: document.cookie,
  }));
  if (!stored.session.includes(token) || stored.local.includes(token) || stored.cookie.includes(token)) {
    throw new Error(`the token must live in sessionStorage only: ${JSON.stringify(stored)}`);
  }
  say(step);

  step = "2 see the just-delivered event in the feed";
  const row = `#feed-rows tr.feed-row[data-event-id="${event}"]`;
  await page.waitForSelector(row, { timeout: 15_000 });
  await shot("1-feed.png");
  say(step);

  step = "3 open its entity's timeline";
  await page.click(`${row} a.entity-link`);
  await page.waitForSelector(`#timeline-events tr.timeline-event[data-event-id="${event}"]`, { timeout: 10_000 });
  await page.waitForSelector(`#timeline-outbox tr.outbox-row[data-event-id="${event}"]`, { timeout: 10_000 });
  await shot("2-timeline.png");
  say(step);

  step = "4 press Replay and read nothing changed";
  await page.click(`#timeline-events tr.timeline-event[data-event-id="${event}"] a.event-link`);
  await page.waitForSelector("#replay:not(.hidden)");
  await page.click("#replay");
  await page.waitForSelector("#replay-answer:not(.hidden)", { timeout: 10_000 });
  const answer = await page.textContent("#replay-answer");
  if (!/Nothing changed/.test(answer) || !/changed: false/.test(answer)) throw new Error(`replay said: ${answer}`);
  await shot("3-replay.png");
  say(step, { answer });

  step = "5 re-queue a dead letter and see it delivered";
  const dead = `#dead-rows button.requeue[data-entity="${deadEntity}"]`;
  await page.waitForSelector(dead, { timeout: 15_000 });
  await shot("4-dead-letter.png");
  await page.click(dead);
  await page.waitForFunction((e) => document.querySelector("#timeline-entity")?.textContent.includes(e), deadEntity);
  // The open timeline refreshes with the feed (every 2 s): wait for the row to go out.
  await page.waitForSelector(`#timeline-outbox tr.outbox-row[data-status="delivered"]`, { timeout: 20_000 });
  await page.waitForFunction((e) => !document.querySelector(`#dead-rows button.requeue[data-entity="${e}"]`), deadEntity, { timeout: 10_000 });
  await shot("5-requeued.png");
  say(step);

  if (errors.length) throw new Error(`page errors: ${errors.join("; ")}`);
} catch (e) {
  const shown = page ? await page.textContent("body").catch(() => "") : "";
  if (page) await page.screenshot({ path: join(shots, "failure.png"), fullPage: true }).catch(() => {});
  console.log(JSON.stringify({ step, ok: false, error: String(e && e.message || e), errors, page: shown.replace(/\s+/g, " ").slice(0, 3000) }));
  process.exitCode = 1;
} finally {
  await browser.close();
  rmSync(profile, { recursive: true, force: true });
}
