//go:build !nosearch

package web_test

import (
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
}
