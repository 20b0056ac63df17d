// Rewrites the entry of a worker-build 0.8.7 bundle (built with NO_MINIFY=1) so that a
// request costs no `Proxy`, then minifies it:
//
//   node scripts/lean-shim.mjs BUILD_DIR/index.js
//
// worker-build wraps the Worker's entry class and every Durable Object class in a `Proxy`
// whose traps make a new `Proxy` per object and per method read, and the Worker's entry is
// a `WorkerEntrypoint` constructed for every request. In interleaved A/B rounds that cost
// hookonce 4–12% of its CPU per event in `unique` (bench/README.md). The rewrite keeps what
// the wrapper is for, recovery after a panic: every entry first runs worker-build's
// `checkReinitialize()` (which resets the wasm instance after a critical error), an object
// made before a reset is made again before its next call, and a trap thrown by a call marks
// the instance critical (`handleMaybeCritical`). What changes is how: one plain class per
// Durable Object class and a plain object for the Worker's handlers.
//
// The bundle's text is worker-build's own template, so each anchor below must match exactly
// once; if a new worker-build changes it, the build fails here rather than ship a bundle
// this script did not understand.
import { readFileSync, writeFileSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const path = process.argv[2];
if (!path) {
  console.error("usage: node scripts/lean-shim.mjs BUILD_DIR/index.js");
  process.exit(2);
}
let js = readFileSync(path, "utf8");

function fail(what) {
  console.error(`lean-shim: ${path}: ${what} (built with NO_MINIFY=1 by worker-build 0.8.7?)`);
  process.exit(1);
}
function once(re, what) {
  const all = [...js.matchAll(new RegExp(re.source, re.flags.includes("g") ? re.flags : re.flags + "g"))];
  if (all.length !== 1) fail(`expected one ${what}, found ${all.length}`);
  return all[0];
}

// The template's pieces this rewrite relies on.
for (const anchor of [
  "function checkReinitialize() {",
  "function handleMaybeCritical(e) {",
  "var initState = __worker_init_state();",
]) {
  if (js.split(anchor).length !== 2) fail(`expected one \`${anchor}\``);
}

// The Worker's handlers: `Entrypoint.prototype.NAME = function NAME2(arg) { return
// NAME.call(this, arg, this.env, this.ctx); };`. The only other member allowed is `start`
// (`= start;`), wasm-bindgen's start function, which is no handler and is dropped.
const handlers = [
  ...js.matchAll(
    /^Entrypoint\.prototype\.(\w+) = function \w+\(arg\) \{\n  return (\w+)\.call\(this, arg, this\.env, this\.ctx\);\n\};$/gm,
  ),
].map(([, name, target]) => ({ name, target }));
if (!handlers.some((h) => h.name === "fetch")) fail("no fetch handler on Entrypoint");
const other = [...js.matchAll(/^Entrypoint\.prototype\.(\w+) = (?!function)/gm)].map((m) => m[1]);
if (other.some((n) => n !== "start")) fail(`unexpected Entrypoint members: ${other.join(", ")}`);

// From the proxy hooks to the end: the wrappers and the export list.
const start = once(/^var instanceProxyHooks = \{$/m, "instanceProxyHooks").index;
const tail = js.slice(start);
const wrapped = [...tail.matchAll(/^var (\w+) = new Proxy\((\w+), classProxyHooks\);$/gm)];
const exportList = once(/^export \{\n([\s\S]*?)\n\};\n?$/m, "export list");
const exported = exportList[1]
  .split(",")
  .map((l) => l.trim())
  .filter(Boolean)
  .map((l) => l.split(" as "));
const proxyOf = new Map(wrapped.map(([, proxy, cls]) => [proxy, cls]));
const defaultProxy = exported.find(([, as]) => as === "default");
if (!defaultProxy || proxyOf.get(defaultProxy[0]) !== "Entrypoint") fail("default export is not the proxied Entrypoint");

const lean = `// hookonce (scripts/lean-shim.mjs): worker-build's recovery after a panic, without a Proxy.
function leanClass(ctor) {
  const Lean = class {
    constructor(...args) {
      try {
        checkReinitialize();
        this.args = args;
        this.instanceId = initState.instanceId;
        this.instance = new ctor(...args);
      } catch (e) {
        initState.criticalError = true;
        throw e;
      }
    }
  };
  // Re-creates the object if it was made before the last reset.
  const current = (self) => {
    if (self.instanceId !== initState.instanceId) {
      self.instance = new ctor(...self.args);
      self.instanceId = initState.instanceId;
    }
    return self.instance;
  };
  for (const name of Object.getOwnPropertyNames(ctor.prototype)) {
    if (name === "constructor" || name === "free" || name.startsWith("__")) continue;
    const d = Object.getOwnPropertyDescriptor(ctor.prototype, name);
    if (typeof d.value !== "function") {
      // An accessor (wasm-bindgen's struct fields): read and written through.
      Object.defineProperty(Lean.prototype, name, {
        get() {
          return current(this)[name];
        },
        set(v) {
          current(this)[name] = v;
        },
      });
      continue;
    }
    Lean.prototype[name] = function (...argArray) {
      checkReinitialize();
      const instance = current(this);
      try {
        return instance[name](...argArray);
      } catch (e) {
        handleMaybeCritical(e);
        throw e;
      }
    };
  }
  return Lean;
}
function leanHandler(handler) {
  return function (arg, env, ctx) {
    checkReinitialize();
    try {
      return handler(arg, env, ctx);
    } catch (e) {
      handleMaybeCritical(e);
      throw e;
    }
  };
}
var hookonce_default = {
${handlers.map((h) => `  ${h.name}: leanHandler(${h.target}),`).join("\n")}
};
${exported
  .filter(([, as]) => as !== "default")
  .map(([proxy, as]) => {
    const cls = proxyOf.get(proxy);
    if (!cls) fail(`export ${as} is not a proxied class`);
    return `var ${proxy} = leanClass(${cls});`;
  })
  .join("\n")}
export {
${exported.map(([v, as]) => (as === "default" ? "  hookonce_default as default" : `  ${v} as ${as}`)).join(",\n")}
};
`;
js = js.slice(0, start) + lean;
writeFileSync(path, js);

// Minify as worker-build would have: esbuild, keeping the wasm and runtime imports.
const esbuild = join(root, "node_modules", ".bin", "esbuild");
execFileSync(esbuild, [path, "--minify", "--format=esm", `--outfile=${path}`, "--allow-overwrite", "--log-level=warning"], {
  stdio: "inherit",
});
