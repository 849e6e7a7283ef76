package web_test

import (
	"context"
	"io"
	"log/slog"
	"net/http/httptest"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/retrylab/retrylab/server"
	"github.com/retrylab/retrylab/web"
)

// BenchmarkColdStart measures what a visitor waits for: the time from
// navigation to the playground's first result (app.js records it as
// window.retrylabFirstResultMs: the result the server drew, shown before
// the engine has loaded), and to the end of the engine's own first run in
// the page (window.retrylabFirstRunMs, the *-run-ms figures), on a first visit (a new browser profile:
// nothing cached) and on a second visit in the same browser (engine.wasm
// from the HTTP cache), with the machine quiet and with two busy loops
// beside it. Each iteration starts a new Chromium; run it with a small
// -benchtime, e.g.
//
//	go test ./web/ -run '^$' -bench ColdStart -benchtime 5x
func BenchmarkColdStart(b *testing.B) {
	if _, err := web.Static.Open("static/engine.wasm"); err != nil {
		b.Skip("web/static/engine.wasm is not built: run make wasm")
	}
	chromium := browserPath(b)
	srv, err := server.New(server.Config{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		b.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	defer ts.Close()

	for _, load := range []struct {
		name  string
		loops int
	}{{"quiet", 0}, {"loaded", 2}} {
		b.Run(load.name, func(b *testing.B) {
			stop := busyLoops(load.loops)
			defer stop()
			var first, second, firstRun, secondRun float64
			for b.Loop() {
				f, s, fr, sr := visitTwice(b, chromium, ts.URL)
				first += f
				second += s
				firstRun += fr
				secondRun += sr
			}
			b.ReportMetric(first/float64(b.N), "first-ms")
			b.ReportMetric(second/float64(b.N), "revisit-ms")
			b.ReportMetric(firstRun/float64(b.N), "first-run-ms")
			b.ReportMetric(secondRun/float64(b.N), "revisit-run-ms")
			b.ReportMetric(0, "ns/op") // the browser's start-up, not what a visitor waits for
		})
	}
}

// busyLoops keeps n cores busy until the returned function is called.
func busyLoops(n int) (stop func()) {
	prev := runtime.GOMAXPROCS(max(runtime.GOMAXPROCS(0), n+1))
	var done atomic.Bool
	for range n {
		go func() {
			for x := 0; !done.Load(); x++ {
			}
		}()
	}
	return func() {
		done.Store(true)
		runtime.GOMAXPROCS(prev)
	}
}

// visitTwice opens the playground in a new browser, waits for its first
// result, then opens it again in the same browser, and returns both times
// from navigation to first result in milliseconds, and the times to the
// end of the engine's first run in the page.
func visitTwice(b *testing.B, chromium, base string) (first, second, firstRun, secondRun float64) {
	b.Helper()
	actx, cancel := chromedp.NewExecAllocator(context.Background(), browserOptions(chromium, b.TempDir())...)
	defer cancel()
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	ctx, cancel = context.WithTimeout(ctx, 5*time.Minute) // a bound for a hung browser
	defer cancel()
	// The browser's own start-up is not part of the visit.
	if err := chromedp.Do(ctx, chromedp.Navigate("about:blank")); err != nil {
		b.Fatal(err)
	}
	visit := func() (shown, ran float64) {
		if err := chromedp.Do(ctx, chromedp.Navigate(base+"/")); err != nil {
			b.Fatal(err)
		}
		ms, err := chromedp.Run(ctx, chromedp.Poll[string](`document.getElementById("playground").dataset.ran && window.retrylabFirstResultMs + " " + window.retrylabFirstRunMs`,
			chromedp.WithPollingTimeout(3*time.Minute)))
		if err != nil {
			b.Fatal(err)
		}
		a, c, _ := strings.Cut(ms, " ")
		shown, err1 := strconv.ParseFloat(a, 64)
		ran, err2 := strconv.ParseFloat(c, 64)
		if err1 != nil || err2 != nil {
			b.Fatalf("first result and first run times %q", ms)
		}
		return shown, ran
	}
	first, firstRun = visit()
	if err := chromedp.Do(ctx, chromedp.Navigate("about:blank")); err != nil {
		b.Fatal(err)
	}
	second, secondRun = visit()
	return first, second, firstRun, secondRun
}
