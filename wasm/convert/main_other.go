//go:build !(js && wasm)

// The converters' browser bridge needs syscall/js; on other platforms this
// command only explains how to build it.

package main

import (
	"fmt"
	"os"
)

func main() {
	fmt.Fprintln(os.Stderr, "wasm/convert: build with GOOS=js GOARCH=wasm (make wasm); this is the browser's converters")
	os.Exit(2)
}
