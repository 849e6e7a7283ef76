//go:build js && wasm

// Command worker serves RetryLab's web app on Cloudflare Workers through
// github.com/syumai/workers: the same Echo app as `retrylab serve`, storing
// scenarios in D1 (binding "DB", schema by `wrangler d1 migrations` from
// server/sqlite/migrations, through server/d1 with server/sqlstore's
// statements), its static files served by Workers Static Assets
// under the names in manifest.json (written by cmd/worker-assets). The entry
// point worker/persistent.mjs starts this program once per isolate, so its
// caches and rate limiter last as long as the isolate.
package main

import (
	_ "embed"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"os"

	"github.com/syumai/workers"

	"github.com/retrylab/retrylab/server"
	"github.com/retrylab/retrylab/server/d1"
)

//go:embed manifest.json
var manifest []byte

func main() {
	log := slog.New(slog.NewJSONHandler(os.Stderr, nil))
	var names map[string]string
	if err := json.Unmarshal(manifest, &names); err != nil {
		panic("worker: manifest.json: " + err.Error())
	}
	store, err := d1.Open("DB")
	if err != nil {
		panic("worker: " + err.Error())
	}
	srv, err := server.New(server.Config{
		Store:          store,
		Logger:         log,
		StaticManifest: names,
		// Go under WebAssembly runs the engine at about 2 M events/s, and a
		// timer cannot interrupt a run there: the event budget is the guard.
		MaxEvents: 5_000_000,
		MaxRuns:   1,
		// No result drawn on the playground page: that would be a run per
		// isolate on the most visited page; the browser runs it.
		NoFirstResult: true,
		CacheSize:     32,
		// An isolate has 128 MB: a quarter of the native server's bytes.
		CacheBytes: 8 << 20,
		// syumai/workers puts Cf-Connecting-Ip in RemoteAddr.
		TrustProxy: false,
	})
	if err != nil {
		panic(err)
	}
	workers.ServeNonBlock(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.RequestURI = r.URL.RequestURI() // syumai/workers leaves it empty; the logs read it
		srv.ServeHTTP(w, r)
		if r.Body != nil {
			// An unread body (a 413) stalls the next request in workerd.
			io.Copy(io.Discard, io.LimitReader(r.Body, 1<<20))
		}
	}))
	workers.Ready()
	select {}
}
