// Drives GET /inspect in headless Chromium for
// tests/tests/the_inspector_pauses_resumes_and_requeues_a_destination_in_a_browser.rs:
//   1. load the page, enter the token (session.mjs); 2. the destination's health row shows
//   its guard `closed`: press Pause, see `paused`, and read the status the admin API gives;
//   3. press Resume, see `closed`, and read it again; 4. the row counts dead letters: press
//   its Re-queue, read the answer the page gives, and wait until the row counts none.
// Input (env): session.mjs's.
import { env, run } from "./session.mjs";

const source = env("SOURCE");

// The state the row shows, once it is `want`.
async function shows(page, want) {
  await page.waitForFunction((w) => {
    const cell = document.querySelector("#health-rows tr.health-row .state");
    return cell && cell.textContent === w;
  }, want, { timeout: 15_000 });
}

// What the admin API says, asked from the page with the tab's token.
const api = (page) => page.evaluate(async (s) => {
  const token = JSON.parse(sessionStorage.getItem("hookonce-inspector")).token;
  const r = await fetch(`/sources/${encodeURIComponent(s)}/destinations/default/status`,
    { headers: { authorization: "Bearer " + token } });
  return (await r.json()).state;
}, source);

await run([
  ["2 pause the destination", async ({ page, shot }) => {
    await shows(page, "closed");
    await page.click("#health-rows tr.health-row button.pause");
    await shows(page, "paused");
    await page.locator("#health").screenshot({ path: `${env("SCREENSHOTS")}/8-destination-paused.png` });
    await shot("8-paused.png");
    return { shown: "paused", api: await api(page) };
  }],
  ["3 resume it", async ({ page }) => {
    await page.click("#health-rows tr.health-row button.resume");
    await shows(page, "closed");
    return { shown: "closed", api: await api(page) };
  }],
  ["4 re-queue its dead letters", async ({ page }) => {
    const dead = () => page.textContent("#health-rows tr.health-row .dead");
    await page.waitForFunction(() => {
      const cell = document.querySelector("#health-rows tr.health-row .dead");
      return cell && cell.textContent !== "0";
    }, null, { timeout: 15_000 });
    const before = await dead();
    await page.locator("#health").screenshot({ path: `${env("SCREENSHOTS")}/9-destination-dead-letters.png` });
    await page.click("#health-rows tr.health-row button.requeue-destination");
    await page.waitForSelector("#health-answer:not(.hidden)", { timeout: 15_000 });
    const answer = await page.textContent("#health-answer");
    await page.waitForFunction(() => {
      const row = document.querySelector("#health-rows tr.health-row");
      return row && row.querySelector(".dead").textContent === "0"
        && !row.querySelector("button.requeue-destination");
    }, null, { timeout: 15_000 });
    return { before, answer, after: await dead() };
  }],
]);
