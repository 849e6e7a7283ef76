//go:build !nobrotli

// Brotli for static files; the Worker build (-tags nobrotli) leaves it out,
// since Cloudflare serves the static files there (assets_nobrotli.go).

package server

import (
	"bytes"

	"github.com/andybalholm/brotli"
)

// compressBrotli compresses a static file. The best brotli level takes seconds
// on the engine's WebAssembly: large files get a level that takes a fraction
// of one.
func compressBrotli(body []byte) []byte {
	var br bytes.Buffer
	level := brotli.BestCompression
	if len(body) > 1<<20 {
		level = 9
	}
	bw := brotli.NewWriterLevel(&br, level)
	bw.Write(body)
	bw.Close()
	return br.Bytes()
}
