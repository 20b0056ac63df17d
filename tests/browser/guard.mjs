// Drives GET /inspect in headless Chromium for
// tests/tests/the_inspector_pauses_and_resumes_a_destination_in_a_browser.rs:
//   1. load the page, enter the token (session.mjs); 2. the destination's health row shows
//   its guard `closed`: press Pause, see `paused`, and read the status the admin API gives;
//   3. press Resume, see `closed`, and read it again.
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
]);
