package web_test

import (
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/retrylab/retrylab/server"
)

// TestPlaygroundShowsTheServersResultFirst: the playground page carries
// the result of the built-in it opens with, drawn by the server, and shows
// it before its engine has loaded: with engine.wasm blocked, the verdict,
// the table and the charts are there all the same. With the engine, its
// first run shows exactly the same view (the same figures' SVG, byte for
// byte).
func TestPlaygroundShowsTheServersResultFirst(t *testing.T) {
	srv, err := server.New(slowMachine(server.Config{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}))
	if err != nil {
		t.Fatal(err)
	}
	var blocked atomic.Bool // engine.wasm answers 503 while set
	blocked.Store(true)
	ctx, base := setupHandler(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if blocked.Load() && strings.HasPrefix(r.URL.Path, "/static/engine.") {
			http.Error(w, "blocked by the test", http.StatusServiceUnavailable)
			return
		}
		srv.ServeHTTP(w, r)
	}))
	do(t, ctx, chromedp.Navigate(base+"/?s=e03a-transient-failures"),
		until(`document.querySelectorAll("#charts svg, #charts img").length > 0`))
	cols := text(ctx, t, `[...document.querySelectorAll("[data-testid=results] thead th")].map(th => th.textContent).join(",")`)
	if cols != "metric,A,B,C,D" {
		t.Errorf("without the engine the table's columns are %q, want E03-A's strategies", cols)
	}
	if v := text(ctx, t, `document.getElementById("verdict").textContent`); !strings.HasPrefix(v, "Verdict: ") {
		t.Errorf("verdict %q", v)
	}
	if title := text(ctx, t, `document.getElementById("pg-title").textContent`); !strings.HasPrefix(title, "E03-A") {
		t.Errorf("title %q, want E03-A's", title)
	}
	if got := text(ctx, t, `String(typeof window.retrylabFirstResultMs)`); got != "number" {
		t.Errorf("the first result was not recorded as shown (%s)", got)
	}
	do(t, ctx, until(`document.getElementById("status").textContent.startsWith("The engine did not load")`))

	// With the engine: its first run of the default built-in.
	blocked.Store(false)
	do(t, ctx, chromedp.Navigate(base+"/"), ran(1))
	if got := text(ctx, t, `window.retrylabFirstView === undefined ? "none" : JSON.stringify(window.retrylabFirstView) === JSON.stringify(window.retrylabView) ? "same" : "different"`); got != "same" {
		t.Errorf("the engine's first run shows a view %s from the server's", got)
	}
}

// TestPhoneShowsTheServersResultFirst (#29): on a phone too (results
// narrower than 760 px) the page shows the server's verdict and table
// before its engine has loaded (a phone waited for the engine for all of
// it), without the server's wide charts, whose text a phone would shrink
// to a few pixels: the engine's run draws them for the screen.
func TestPhoneShowsTheServersResultFirst(t *testing.T) {
	srv, err := server.New(slowMachine(server.Config{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}))
	if err != nil {
		t.Fatal(err)
	}
	var blocked atomic.Bool
	blocked.Store(true)
	ctx, base := setupHandler(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if blocked.Load() && strings.HasPrefix(r.URL.Path, "/static/engine.") {
			http.Error(w, "blocked by the test", http.StatusServiceUnavailable)
			return
		}
		srv.ServeHTTP(w, r)
	}))
	do(t, ctx, chromedp.EmulateViewport(390, 844), chromedp.Navigate(base+"/?s=e03a-transient-failures"),
		until(`document.getElementById("verdict").textContent.startsWith("Verdict: ")`))
	if cols := text(ctx, t, `[...document.querySelectorAll("[data-testid=results] thead th")].map(th => th.textContent).join(",")`); cols != "metric,A,B,C,D" {
		t.Errorf("on a phone, without the engine, the table's columns are %q", cols)
	}
	if n := text(ctx, t, `String(document.querySelectorAll("#charts img").length)`); n != "0" {
		t.Errorf("on a phone the server's %s wide charts are shown", n)
	}
	blocked.Store(false)
	do(t, ctx, chromedp.Navigate(base+"/"), ran(1), until(`document.querySelectorAll("#charts img").length > 0`))
}

// TestPhoneLeadsToRunAndShare (#29): on a phone the results come first
// and Run and Share thousands of pixels below them; a link on the first
// screen leads to the toolbar, and following it brings Run into view.
func TestPhoneLeadsToRunAndShare(t *testing.T) {
	ctx, base := setup(t)
	do(t, ctx, chromedp.EmulateViewport(390, 844), chromedp.Navigate(base+"/"), ran(1))
	top := text(ctx, t, `String(Math.round(document.querySelector("[data-testid=jump-edit]").getBoundingClientRect().top))`)
	if n, _ := strconv.Atoi(top); n <= 0 || n > 844 {
		t.Errorf("the link to the editor is at %s px, not on the first screen", top)
	}
	do(t, ctx, click(`[data-testid=jump-edit]`), until(`(() => { const r = document.getElementById("run").getBoundingClientRect(); return r.top >= 0 && r.bottom <= innerHeight; })()`))
	do(t, ctx, chromedp.EmulateViewport(1280, 900), until(`getComputedStyle(document.querySelector(".jump-edit")).display === "none"`))
}
