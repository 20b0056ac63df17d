// What every inspector driver does: Debian's chromium with a fresh profile, GET /inspect,
// the token entered as a person would (and kept in sessionStorage only), then the
// driver's own steps. Prints one JSON line per step; on the first failure, a screenshot
// (failure.png) and what the page showed, and exit status 1.
// Input (env): HOOKONCE_URL, HOOKONCE_ADMIN_TOKEN, SOURCE, SCREENSHOTS (a directory).
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium } from "playwright-core";

export const env = (k) => {
  const v = process.env[k];
  if (!v) throw new Error(`${k} is not set`);
  return v;
};

// Runs `steps`, each `[name, async ({ page, shot }) => extra]`, after logging in.
export async function run(steps) {
  const [base, token, source, shots] = ["HOOKONCE_URL", "HOOKONCE_ADMIN_TOKEN", "SOURCE", "SCREENSHOTS"].map(env);
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

    for (const [name, body] of steps) {
      step = name;
      say(step, (await body({ page, shot })) || {});
    }
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
}
