// Command wasm is RetryLab's engine for the browser: built with GOOS=js
// GOARCH=wasm into web/static/engine.wasm, it runs inside Web Workers and
// exposes globalThis.retrylab with validate, run, runPart, merge, probe,
// builtins, presets, vocabulary and limits: the playground runs a scenario
// in one worker (run), or shares its simulations among several (runPart)
// and merges their parts into the same result (merge), and runs a
// metastability probe in a worker of its own (probe). The bridge is
// main_js.go; main_other.go only says how to build it.
package main
