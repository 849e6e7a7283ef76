// Package jsapi is what RetryLab's two WebAssembly modules share to answer
// JavaScript (Promise, String); it has code only under GOOS=js GOARCH=wasm.
package jsapi
