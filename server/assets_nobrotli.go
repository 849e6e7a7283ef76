//go:build nobrotli

// See assets_brotli.go.

package server

// compressBrotli: without brotli, static files are served gzip-compressed.
func compressBrotli([]byte) []byte { return nil }
