//go:build !(js && wasm)

// The engine's browser bridge needs syscall/js; on other platforms this
// command only explains how to build it.

package main

import (
	"fmt"
	"os"
)

func main() {
	fmt.Fprintln(os.Stderr, "wasm: build with GOOS=js GOARCH=wasm (make wasm); this is the browser's engine")
	os.Exit(2)
}
