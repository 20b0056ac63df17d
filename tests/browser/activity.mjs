// Drives GET /inspect in headless Chromium for
// tests/tests/the_inspector_charts_the_last_hour_and_the_destinations_health_in_a_browser.rs:
//   1. load the page, enter the token (session.mjs); 2. read the last hour's chart: its
//   bars, summed per outcome, and its legend are the counts the test sent; 3. read the
//   destinations' health, a row each: its name, target, pending rows, oldest pending age
//   and dead letters.
// Input (env): session.mjs's, and EXPECT_TOTALS ({"applied": n, …}), EXPECT_HEALTH
// ([{"destination", "target", "pending", "dead"}, …], in the page's order).
import { env, run } from "./session.mjs";

const totals = JSON.parse(env("EXPECT_TOTALS"));
const health = JSON.parse(env("EXPECT_HEALTH"));

// What the chart shows: each outcome's bars summed, and the legend's figure.
const shown = () => {
  const bars = {};
  for (const r of document.querySelectorAll("#chart svg rect.bar")) {
    bars[r.dataset.outcome] = (bars[r.dataset.outcome] || 0) + Number(r.dataset.count);
  }
  const legend = {};
  for (const t of document.querySelectorAll("#legend .total")) legend[t.dataset.outcome] = Number(t.querySelector("strong").textContent);
  return { bars, legend, minutes: new Set([...document.querySelectorAll("#chart svg rect.bar")].map((r) => r.dataset.at)).size };
};

await run([
  ["2 read the last hour's chart: the counts sent", async ({ page, shot }) => {
    const order = (o) => JSON.stringify({ applied: o.applied || 0, duplicate: o.duplicate || 0, stale: o.stale || 0, rejected: o.rejected || 0 });
    const want = order(totals);
    // The page refreshes every 2 s; the test waited for the API to hold every count.
    let seen = null;
    for (const deadline = Date.now() + 15_000; ;) {
      seen = await page.evaluate(shown);
      if (order(seen.bars) === want && order(seen.legend) === want) break;
      if (Date.now() > deadline) throw new Error(`the chart shows ${JSON.stringify(seen)}, not ${want}`);
      await page.waitForTimeout(250);
    }
    await page.locator("#chart-panel").screenshot({ path: `${env("SCREENSHOTS")}/6-activity-chart.png` });
    await shot("6-activity.png");
    return { bars: seen.bars, legend: seen.legend, minutes: seen.minutes };
  }],
  ["3 read the destinations' health", async ({ page }) => {
    // The rows shown; given `want`, whether they are it (the age left out).
    const rows = (want) => {
      const seen = [...document.querySelectorAll("#health-rows tr.health-row")].map((r) => ({
        destination: r.querySelector(".name").textContent, target: r.querySelector(".target").textContent,
        pending: r.querySelector(".pending").textContent, dead: r.querySelector(".dead").textContent,
        oldest: r.querySelector(".oldest").textContent,
      }));
      return want === undefined ? seen : JSON.stringify(seen.map(({ oldest, ...rest }) => rest)) === want;
    };
    const want = JSON.stringify(health.map((d) => ({ destination: d.destination, target: d.target, pending: String(d.pending), dead: String(d.dead) })));
    await page.waitForFunction(rows, want, { timeout: 15_000 });
    const shown = await page.evaluate(rows);
    // The first row has a row pending: its age shows.
    if (!/^\d+ (s|min|h)$/.test(shown[0].oldest)) throw new Error(`oldest pending age shown: ${shown[0].oldest}`);
    await page.locator("#health").screenshot({ path: `${env("SCREENSHOTS")}/7-destination-health.png` });
    return { rows: shown.map(({ oldest, ...rest }) => rest), oldest: shown[0].oldest };
  }],
]);
