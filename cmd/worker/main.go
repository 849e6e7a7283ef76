//go:build js && wasm

// Command worker serves RetryLab's web app on Cloudflare Workers through
// github.com/syumai/workers: the same Echo app as `retrylab serve`, storing
// scenarios in D1 (binding "DB", schema by `wrangler d1 migrations` from
// server/sqlite/migrations), its static files served by Workers Static Assets
// under the names in manifest.json (written by cmd/worker-assets). The entry
// point worker/persistent.mjs starts this program once per isolate, so its
// caches and rate limiter last as long as the isolate.
package main

import (
	"context"
	"database/sql"
	_ "embed"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"os"
	"time"

	"github.com/syumai/workers"
	"github.com/syumai/workers/cloudflare/d1"

	"github.com/retrylab/retrylab/server"
)

//go:embed manifest.json
var manifest []byte

func main() {
	log := slog.New(slog.NewJSONHandler(os.Stderr, nil))
	var names map[string]string
	if err := json.Unmarshal(manifest, &names); err != nil {
		panic("worker: manifest.json: " + err.Error())
	}
	c, err := d1.OpenConnector("DB")
	if err != nil {
		panic("worker: D1 binding DB: " + err.Error())
	}
	srv, err := server.New(server.Config{
		Store:          d1Store{sql.OpenDB(c)},
		Logger:         log,
		StaticManifest: names,
		// Go under WebAssembly runs the engine at about 2 M events/s, and a
		// timer cannot interrupt a run there: the event budget is the guard.
		MaxEvents: 5_000_000,
		MaxRuns:   1,
		CacheSize: 32,
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

// d1Store is server.Store on D1, with the SQLite store's queries.
type d1Store struct{ db *sql.DB }

func (s d1Store) PutScenario(ctx context.Context, id string, body []byte) error {
	if body == nil {
		body = []byte{}
	}
	_, err := s.db.ExecContext(ctx,
		`INSERT INTO scenarios(id, body, created_at) VALUES(?, ?, ?) ON CONFLICT(id) DO NOTHING`,
		id, body, time.Now().Unix())
	return err
}

func (s d1Store) GetScenario(ctx context.Context, id string) ([]byte, error) {
	var body []byte
	err := s.db.QueryRowContext(ctx, `SELECT body FROM scenarios WHERE id = ?`, id).Scan(&body)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, &fs.PathError{Op: "get", Path: id, Err: fs.ErrNotExist}
	}
	return body, err
}
