// Command wasm is RetryLab's engine for the browser: built with GOOS=js
// GOARCH=wasm into web/static/engine.wasm, it runs inside a Web Worker and
// exposes globalThis.retrylab with validate, run, builtins and presets.
// The bridge is main_js.go; main_other.go only says how to build it.
package main
