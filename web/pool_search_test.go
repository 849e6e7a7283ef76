//go:build !nosearch

package web_test

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// withWorkers sets the pool's size for the next run or probe, as
// ?workers=N does, and forgets the batches relayed so far.
func withWorkers(n int) string {
	return fmt.Sprintf(`(() => { const root = document.getElementById("playground"); root.dataset.workers = "%d"; delete root.dataset.batches; return ""; })()`, n)
}

// batches is how many batches of simulations a search or a probe handed
// to the page since withWorkers.
const batches = `document.getElementById("playground").dataset.batches || "0"`

// TestPoolSearch (#28): the one-click search from C on E03-B (its
// default search, every value ticked) on two workers, its rounds handed
// out over both, gives the result of one worker, byte for byte, its
// recommendation and frontier among it, and shows its progress.
func TestPoolSearch(t *testing.T) {
	ctx, base := setup(t)
	do(t, ctx, chromedp.Navigate(fmt.Sprintf("%s/?s=%s&workers=1", base, e03b)), ran(1))
	results := map[int]string{}
	recommendations := map[int]string{}
	for i, workers := range []int{1, 2} {
		text(ctx, t, withWorkers(workers))
		if i > 0 {
			// Run again: the search is in the scenario now.
			do(t, ctx, chromedp.Click(`#run`), ran(2+i))
		} else {
			do(t, ctx, shipOpen(2), chromedp.Click(`[data-testid=ship-run]`), ran(2))
		}
		do(t, ctx, until(`document.querySelector("#search-result [data-testid=search-recommendation]") !== null`))
		results[workers] = text(ctx, t, `window.retrylabLast`)
		recommendations[workers] = text(ctx, t, `document.querySelector("#search-result [data-testid=search-recommendation]").textContent`)
		status := text(ctx, t, `document.getElementById("status").textContent`)
		n := text(ctx, t, batches)
		if workers == 1 && n != "0" || workers > 1 && (n == "0" || !strings.Contains(status, fmt.Sprintf("on %d workers", workers))) {
			t.Errorf("%d workers: %s batches relayed, status %q", workers, n, status)
		}
	}
	if !strings.Contains(results[1], `"search":{`) || results[1] != results[2] {
		t.Errorf("the search on two workers (%d bytes) differs from one's (%d bytes)", len(results[2]), len(results[1]))
	}
	if recommendations[1] == "" || recommendations[1] != recommendations[2] {
		t.Errorf("recommendations: one worker %q, two %q", recommendations[1], recommendations[2])
	}
	// Cancel, once rounds are being handed out, ends every worker; the
	// next run starts afresh and gives the same result.
	text(ctx, t, withWorkers(2))
	do(t, ctx, chromedp.Click(`#run`), until(`Number(`+batches+`) > 0 && document.getElementById("status").textContent.includes(" simulations (Cancel stops it)")`))
	if got := text(ctx, t, `(() => {
		if (Number(document.getElementById("playground").dataset.ran) > 3) return "the search ended before Cancel";
		document.getElementById("cancel").click();
		return ""; })()`); got != "" {
		t.Fatal(got)
	}
	if got := text(ctx, t, `document.getElementById("status").textContent`); got != "Cancelled." {
		t.Errorf("after Cancel, the status says %q", got)
	}
	do(t, ctx, chromedp.Click(`#run`), ran(4))
	if got := text(ctx, t, `window.retrylabLast`); got != results[1] {
		t.Errorf("the search after Cancel (%d bytes) differs from one worker's (%d bytes)", len(got), len(results[1]))
	}
}

// TestPoolProbe (#28): the probe of runaway-cascade's textbook on two
// workers, each step's seeds handed out over both, shows the view of one
// worker's, byte for byte, and its progress.
func TestPoolProbe(t *testing.T) {
	ctx, base := setup(t)
	do(t, ctx, chromedp.Navigate(base+"/?s=runaway-cascade&workers=1"), ran(1),
		until(`document.querySelector("[data-probe=textbook]") !== null`),
		until(`(window.probeStatuses = [], new MutationObserver(() => probeStatuses.push(document.querySelector("[data-testid=probe-status]").textContent)).observe(document.querySelector("[data-testid=probe-status]"), {childList: true, characterData: true, subtree: true}), true)`))
	views := map[int]string{}
	for _, workers := range []int{1, 2} {
		text(ctx, t, withWorkers(workers)+`, window.retrylabProbeView = null, window.probeStatuses = [], ""`)
		do(t, ctx, chromedp.Click(`[data-probe=textbook]`), until(`window.retrylabProbeView != null`))
		views[workers] = text(ctx, t, `JSON.stringify(window.retrylabProbeView)`)
		if n := text(ctx, t, batches); workers == 1 && n != "0" || workers > 1 && n == "0" {
			t.Errorf("%d workers: %s batches relayed", workers, n)
		}
		if shown := text(ctx, t, `probeStatuses.join("\n")`); !regexp.MustCompile(`Probing textbook: \d+ of at most \d+ simulations`).MatchString(shown) {
			t.Errorf("%d workers: the probe showed no progress of its simulations:\n%s", workers, shown)
		}
	}
	if !strings.Contains(views[1], `"summary":"textbook is unstable`) || views[1] != views[2] {
		t.Errorf("the probe's view on two workers differs from one's:\n%s\n%s", views[1], views[2])
	}
	// Cancel, once steps are being handed out, ends the probe's workers;
	// it can be run again.
	text(ctx, t, withWorkers(2))
	do(t, ctx, probeUnderWay("textbook"), until(`Number(`+batches+`) > 0`))
	if got := text(ctx, t, `(() => {
		if (document.querySelector("[data-testid=probe-summary]")) return "the probe ended before Cancel";
		document.querySelector("[data-testid=probe-cancel]").click();
		return ""; })()`); got != "" {
		t.Fatal(got)
	}
	if st := text(ctx, t, probeState); st != "Cancelled: the probe was stopped before it found anything.|true|0|none" {
		t.Errorf("after Cancel: %q", st)
	}
	do(t, ctx, probeUnderWay("textbook"))
}

// measureMs evaluates js, a promise of the milliseconds something took.
func measureMs(b *testing.B, ctx context.Context, js string) float64 {
	b.Helper()
	ms, err := chromedp.Run(ctx, chromedp.Evaluate[float64](js, chromedp.EvalAwaitPromise))
	if err != nil {
		b.Fatal(err)
	}
	return ms
}

// BenchmarkPlaygroundOneClickSearch measures the one-click search from C
// on E03-B (its default search, 192 candidates over ten seeds), run with
// 1, 2 and 4 workers taking turns in one page, so that a busy machine
// slows each alike: wN-ms/op is the time from the click on Run to the
// result on screen with N workers, warm.
func BenchmarkPlaygroundOneClickSearch(b *testing.B) {
	ctx, base := setup(b)
	search := func(workers int) float64 {
		return measureMs(b, ctx, fmt.Sprintf(`new Promise((resolve) => {
			const root = document.getElementById("playground"), n = Number(root.dataset.ran || 0);
			root.dataset.workers = "%d";
			const t0 = performance.now();
			new MutationObserver((_, o) => { if (Number(root.dataset.ran) > n) { o.disconnect(); resolve(performance.now() - t0); } })
				.observe(root, {attributes: true, attributeFilter: ["data-ran"]});
			document.getElementById("run").click();
		})`, workers))
	}
	pools := []int{1, 2, 4}
	do(b, ctx, chromedp.Navigate(fmt.Sprintf("%s/?s=%s&workers=1", base, e03b)), ran(1),
		shipOpen(2), chromedp.Click(`[data-testid=ship-run]`), ran(2),
		until(`document.querySelector("#search-result [data-testid=search-recommendation]") !== null`))
	for _, w := range pools { // warm: every worker started and its code compiled
		search(w)
	}
	total := map[int]float64{}
	i := 0
	for b.Loop() {
		for j := range pools {
			w := pools[(i+j)%len(pools)] // each goes first in turn
			total[w] += search(w)
		}
		i++
	}
	for _, w := range pools {
		b.ReportMetric(total[w]/float64(b.N), fmt.Sprintf("w%d-ms/op", w))
	}
}

// BenchmarkPlaygroundProbe measures the probe of runaway-cascade's
// textbook with 1, 2 and 4 workers taking turns in one page: wN-ms/op is
// the time from the click to its view on screen, its workers started
// (from the compiled module) included.
func BenchmarkPlaygroundProbe(b *testing.B) {
	ctx, base := setup(b)
	probe := func(workers int) float64 {
		return measureMs(b, ctx, fmt.Sprintf(`new Promise((resolve) => {
			document.getElementById("playground").dataset.workers = "%d";
			window.retrylabProbeView = null;
			const t0 = performance.now();
			const poll = setInterval(() => { if (window.retrylabProbeView) { clearInterval(poll); resolve(performance.now() - t0); } }, 20);
			document.querySelector("[data-probe=textbook]").click();
		})`, workers))
	}
	pools := []int{1, 2, 4}
	do(b, ctx, chromedp.Navigate(base+"/?s=runaway-cascade&workers=1"), ran(1),
		until(`document.querySelector("[data-probe=textbook]") !== null`))
	total := map[int]float64{}
	i := 0
	for b.Loop() {
		for j := range pools {
			w := pools[(i+j)%len(pools)] // each goes first in turn
			total[w] += probe(w)
		}
		i++
	}
	for _, w := range pools {
		b.ReportMetric(total[w]/float64(b.N), fmt.Sprintf("w%d-ms/op", w))
	}
}
