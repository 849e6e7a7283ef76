//go:build js && wasm

// Package jsapi is what RetryLab's two WebAssembly modules (the engine's,
// package wasm, and the converters', wasm/convert) share to answer
// JavaScript: every function they expose answers with a Promise, is
// rejected with an Error on failure, and recovers from panics, so that
// nothing can kill a module.
package jsapi

import (
	"encoding/json"
	"fmt"
	"syscall/js"
)

// Promise wraps f as a JavaScript function that returns a Promise of f's
// result encoded as a JSON string, rejected with an Error when f fails or
// panics; what names the module in a panic's message.
func Promise(what string, f func(args []js.Value) (any, error)) js.Func {
	return js.FuncOf(func(this js.Value, args []js.Value) any {
		var result any
		var err error
		func() {
			defer func() {
				if r := recover(); r != nil {
					err = fmt.Errorf("%s panic: %v", what, r)
				}
			}()
			result, err = f(args)
		}()
		if err != nil {
			return js.Global().Get("Promise").Call("reject", js.Global().Get("Error").New(err.Error()))
		}
		b, merr := json.Marshal(result)
		if merr != nil {
			return js.Global().Get("Promise").Call("reject", js.Global().Get("Error").New(merr.Error()))
		}
		return js.Global().Get("Promise").Call("resolve", string(b))
	})
}

// String returns args[i], which must be a string; name says what it is
// in the error.
func String(args []js.Value, i int, name string) (string, error) {
	if len(args) <= i || args[i].Type() != js.TypeString {
		return "", fmt.Errorf("%s must be a string", name)
	}
	return args[i].String(), nil
}
