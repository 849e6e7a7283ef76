// The engine runs in this worker, off the page's thread, so the page never
// freezes; the page runs several to use several cores. Messages: {id, op:
// "init", exec, wasm, module} loads Go's loader and the engine (module, the
// page's compiled engine.wasm, when it sends one: then nothing is fetched
// or compiled again); {id, op, args} calls globalThis.retrylab[op](...args).
// Answers: {id, value} or {id, error}. A search or a probe posts {batch,
// batchId} when it hands simulations off to the page, and goes on with
// the page's batchAnswer calls (its goroutine waits meanwhile, and this
// worker answers other calls). The page ends a run early by ending the
// worker.
let ready = null;

self.onmessage = async (e) => {
  const { id, op, args, exec, wasm, module } = e.data;
  try {
    if (op === "init") {
      ready = (async () => {
        importScripts(exec);
        const go = new Go();
        const instance = module
          ? await WebAssembly.instantiate(module, go.importObject)
          : (await WebAssembly.instantiateStreaming(fetch(wasm), go.importObject)).instance;
        go.run(instance);
        return self.retrylab;
      })();
      const api = await ready;
      self.postMessage({ id, value: api.engineVersion });
      return;
    }
    const api = await ready;
    if (!api || typeof api[op] !== "function") throw new Error("no engine operation " + op);
    self.postMessage({ id, value: await api[op](...(args || [])) });
  } catch (err) {
    self.postMessage({ id, error: String((err && err.message) || err) });
  }
};
