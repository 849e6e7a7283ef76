// Command convert is the playground's converters for the browser: built
// with GOOS=js GOARCH=wasm into web/static/convert.wasm, a second module
// beside engine.wasm, loaded only when the user opens the Import panel or
// asks for an export, so that the engine every visitor waits for stays
// without them. It runs in its own Web Worker (worker.js) and exposes
// globalThis.retrylab with formats, import and export (package
// shared/convert). The bridge is main_js.go; main_other.go only says how to
// build it.
package main
