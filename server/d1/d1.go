//go:build js && wasm

// Package d1 stores shared scenarios in Cloudflare D1 for the Worker
// (cmd/worker), through the binding's own API (prepare, bind, run, first)
// rather than database/sql, which would cost the Worker about 57 KB
// gzipped. The statements are package server/sqlstore's (PutSQL,
// GetSQL), so D1 and SQLite store alike; the schema is
// server/sqlite/migrations, applied by `wrangler d1 migrations apply`. Its
// test is make worker-test, which shares and reads scenarios through the
// Worker on workerd with a local D1.
package d1

import (
	"context"
	"fmt"
	"io/fs"
	"syscall/js"
	"time"

	"github.com/syumai/workers/cloudflare"

	"github.com/retrylab/retrylab/server/sqlstore"
)

// A Store keeps shared scenarios in a D1 database. It keeps the contract of
// server.Store: Put is idempotent and keeps the first body; Get reports a
// missing ID with an error wrapping fs.ErrNotExist.
type Store struct {
	db js.Value // the D1Database binding
}

// Open returns the store of the D1 database bound to the Worker as binding.
func Open(binding string) (*Store, error) {
	db := cloudflare.GetBinding(binding)
	if db.IsUndefined() || db.IsNull() {
		return nil, fmt.Errorf("d1: the Worker has no binding %q (wrangler.toml's d1_databases)", binding)
	}
	return &Store{db: db}, nil
}

// PutScenario stores body under id unless id is stored already.
func (s *Store) PutScenario(ctx context.Context, id string, body []byte) error {
	bytes := js.Global().Get("Uint8Array").New(len(body))
	js.CopyBytesToJS(bytes, body)
	_, err := await(ctx, s.db.Call("prepare", sqlstore.PutSQL).Call("bind", id, bytes, time.Now().Unix()).Call("run"))
	return writeError(err)
}

// GetScenario returns the body stored under id.
func (s *Store) GetScenario(ctx context.Context, id string) ([]byte, error) {
	v, err := await(ctx, s.db.Call("prepare", sqlstore.GetSQL).Call("bind", id).Call("first", "body"))
	if err != nil {
		return nil, err
	}
	if v.IsNull() || v.IsUndefined() {
		return nil, &fs.PathError{Op: "get", Path: id, Err: fs.ErrNotExist}
	}
	return blob(v, id)
}

// blob reads a body as D1 returns it: a BLOB as an ArrayBuffer (an array
// of bytes from older D1 versions, a typed array from some tools), TEXT
// (a row written by hand with wrangler d1 execute) as a string.
func blob(v js.Value, id string) ([]byte, error) {
	if v.Type() == js.TypeString {
		return []byte(v.String()), nil
	}
	g := js.Global()
	if v.Type() != js.TypeObject || !(v.InstanceOf(g.Get("ArrayBuffer")) || g.Get("ArrayBuffer").Call("isView", v).Bool() || g.Get("Array").Call("isArray", v).Bool()) {
		return nil, fmt.Errorf("d1: the body of %s is %s, not a BLOB or TEXT", id, g.Get("String").Invoke(v).String())
	}
	b := g.Get("Uint8Array").New(v)
	body := make([]byte, b.Length())
	js.CopyBytesToGo(body, b)
	return body, nil
}

// await waits for promise, or for ctx to end (the promise then settles
// unheard).
func await(ctx context.Context, promise js.Value) (js.Value, error) {
	if err := ctx.Err(); err != nil {
		return js.Value{}, err
	}
	type settled struct {
		v   js.Value
		err error
	}
	ch := make(chan settled, 1)
	var then, catch js.Func
	then = js.FuncOf(func(_ js.Value, args []js.Value) any {
		then.Release()
		catch.Release()
		v := js.Undefined()
		if len(args) > 0 {
			v = args[0]
		}
		ch <- settled{v: v}
		return nil
	})
	catch = js.FuncOf(func(_ js.Value, args []js.Value) any {
		then.Release()
		catch.Release()
		reason := js.Undefined()
		if len(args) > 0 {
			reason = args[0]
		}
		// String(), not reason.toString(): a promise may reject with
		// undefined or null, and a panic here would end the isolate.
		ch <- settled{err: fmt.Errorf("d1: %s", js.Global().Get("String").Invoke(reason).String())}
		return nil
	})
	promise.Call("then", then, catch)
	select {
	case r := <-ch:
		return r.v, r.err
	case <-ctx.Done():
		return js.Value{}, ctx.Err()
	}
}
