// Command worker-assets prepares the static files for Cloudflare Workers
// Static Assets: it writes them under their content-hashed names into
// DIR/static with a _headers file that caches them for a year, and the
// manifest of names to paths that the Worker build embeds
// (cmd/worker/manifest.json).
package main

import (
	"encoding/json"
	"flag"
	"log"
	"os"
	"path/filepath"

	"github.com/retrylab/retrylab/server"
)

func main() {
	dir := flag.String("o", "worker/build/public", "output directory")
	manifest := flag.String("manifest", "cmd/worker/manifest.json", "manifest to write")
	flag.Parse()
	if err := os.RemoveAll(*dir); err != nil {
		log.Fatal(err)
	}
	names, err := server.ExportStatic(*dir)
	if err != nil {
		log.Fatal(err)
	}
	b, _ := json.MarshalIndent(names, "", "  ")
	if err := os.WriteFile(*manifest, append(b, '\n'), 0o644); err != nil {
		log.Fatal(err)
	}
	headers := "/static/*\n  Cache-Control: public, max-age=31536000, immutable\n  X-Content-Type-Options: nosniff\n"
	if err := os.WriteFile(filepath.Join(*dir, "_headers"), []byte(headers), 0o644); err != nil {
		log.Fatal(err)
	}
}
