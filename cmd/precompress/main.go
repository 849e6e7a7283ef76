// Command precompress writes the build-time gzip and brotli encodings of the
// large static files in a directory (make wasm runs it on web/static for
// engine.wasm), so that the server need not compress them while their first
// visitor waits. Each encoding's name carries the hash of the file it
// encodes (engine.wasm.3f2a1c9b0d.br): the server ignores one left from an
// older build, and this command removes it. A file whose encodings are up to
// date is not compressed again.
package main

import (
	"bytes"
	"compress/gzip"
	"flag"
	"log"
	"os"
	"path/filepath"
	"strings"

	"github.com/andybalholm/brotli"

	"github.com/retrylab/retrylab/server"
)

func main() {
	quality := flag.Int("brotli", 9, "brotli quality, 0 to 11 (11 is about 12% smaller for engine.wasm and takes ten times as long, ~40 s)")
	minSize := flag.Int64("min", 64<<10, "smallest file to precompress, in bytes (the server compresses smaller ones itself)")
	flag.Parse()
	if flag.NArg() != 1 {
		log.Fatal("usage: precompress [-brotli quality] [-min bytes] dir")
	}
	if err := precompress(flag.Arg(0), *quality, *minSize); err != nil {
		log.Fatal(err)
	}
}

func precompress(dir string, quality int, minSize int64) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	keep := map[string]bool{}
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || isEncoding(name) {
			continue
		}
		info, err := e.Info()
		if err != nil {
			return err
		}
		if info.Size() < minSize {
			continue
		}
		body, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			return err
		}
		hash := server.ContentHash(body)
		for enc, compress := range map[string]func([]byte) []byte{"gz": gzipped, "br": func(b []byte) []byte { return brotlied(b, quality) }} {
			out := server.PrecompressedName(name, hash, enc)
			keep[out] = true
			if _, err := os.Stat(filepath.Join(dir, out)); err == nil {
				continue
			}
			z := compress(body)
			if err := os.WriteFile(filepath.Join(dir, out), z, 0o644); err != nil {
				return err
			}
			log.Printf("%s: %d bytes, %s %d bytes", name, len(body), enc, len(z))
		}
	}
	for _, e := range entries {
		if isEncoding(e.Name()) && !keep[e.Name()] {
			if err := os.Remove(filepath.Join(dir, e.Name())); err != nil {
				return err
			}
		}
	}
	return nil
}

func isEncoding(name string) bool {
	return strings.HasSuffix(name, ".gz") || strings.HasSuffix(name, ".br")
}

func gzipped(body []byte) []byte {
	var b bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
	zw.Write(body)
	zw.Close()
	return b.Bytes()
}

func brotlied(body []byte, quality int) []byte {
	var b bytes.Buffer
	bw := brotli.NewWriterLevel(&b, quality)
	bw.Write(body)
	bw.Close()
	return b.Bytes()
}
