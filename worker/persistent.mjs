// The Worker's entry point: it starts the Go program (build/app.wasm, from
// cmd/worker) once per isolate and hands it every request, where
// syumai/workers' worker.mjs would start a fresh Go program for each one.
import "./build/wasm_exec.js";
import mod from "./build/app.wasm";

let starting;

async function start(env, ctx) {
  const go = new Go();
  let ready;
  const readyPromise = new Promise((resolve) => { ready = resolve; });
  const binding = {};
  const instance = new WebAssembly.Instance(mod, {
    ...go.importObject,
    workers: { ready: () => ready() },
  });
  go.run(instance, { env, ctx, binding });
  await readyPromise;
  return binding;
}

globalThis.tryCatch = (fn) => {
  try { return { result: fn() }; } catch (e) { return { error: e }; }
};

export default {
  async fetch(req, env, ctx) {
    // Go cannot start at module load (its scheduler needs timers, which
    // global scope does not run): the first request of an isolate starts it.
    starting ??= start(env, ctx);
    const binding = await starting;
    return binding.handleRequest(req);
  },
};
