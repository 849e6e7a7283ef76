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
		out, err := answer(what, f, args)
		if err != nil {
			return js.Global().Get("Promise").Call("reject", js.Global().Get("Error").New(err.Error()))
		}
		return js.Global().Get("Promise").Call("resolve", out)
	})
}

// answer calls f with args and returns its result as a JSON string, or the
// error f returned, its panic (what names the module) or the encoding's.
func answer(what string, f func(args []js.Value) (any, error), args []js.Value) (out string, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%s panic: %v", what, r)
		}
	}()
	result, err := f(args)
	if err != nil {
		return "", err
	}
	b, err := json.Marshal(result)
	return string(b), err
}

// String returns args[i], which must be a string; name says what it is
// in the error.
func String(args []js.Value, i int, name string) (string, error) {
	if len(args) <= i || args[i].Type() != js.TypeString {
		return "", fmt.Errorf("%s must be a string", name)
	}
	return args[i].String(), nil
}

// Async is Promise for a function that may block (on an answer that
// JavaScript posts later): f runs on a goroutine of its own, so that
// JavaScript's event loop goes on while it waits. A function wrapped by
// Promise runs on the event loop's goroutine, and blocking there would
// stop the loop, and with it the answer.
func Async(what string, f func(args []js.Value) (any, error)) js.Func {
	return js.FuncOf(func(this js.Value, args []js.Value) any {
		var executor js.Func
		executor = js.FuncOf(func(this js.Value, ps []js.Value) any {
			resolve, reject := ps[0], ps[1]
			go func() {
				defer executor.Release()
				out, err := answer(what, f, args)
				if err != nil {
					reject.Invoke(js.Global().Get("Error").New(err.Error()))
					return
				}
				resolve.Invoke(out)
			}()
			return nil
		})
		return js.Global().Get("Promise").New(executor)
	})
}
