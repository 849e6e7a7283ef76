package web_test

// Browser tests of the playground's pool of workers: ?workers=N sets its
// size, so that these tests run several workers whatever the machine has.

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

const e03b = "e03b-synchronized-recovery" // ten seeds of four strategies

// serverResult is the server's result JSON for a built-in, as the page
// fetches it.
const serverResult = `(async () => JSON.stringify(await (await fetch("/api/scenarios/` + e03b + `/result")).json()))()`

// setRuns rewrites the JSON editor's runs, without the input event that
// would re-run it: the next Run runs it.
func setRuns(n int) string {
	return fmt.Sprintf(`(() => { const j = document.getElementById("json"); const sc = JSON.parse(j.value); sc.runs = %d; j.value = JSON.stringify(sc, null, 2); return ""; })()`, n)
}

// recordStatus keeps every text of the status line in window.statusLog,
// in order.
const recordStatus = `(() => { window.statusLog = []; const s = document.getElementById("status");
	new MutationObserver((rs) => rs.forEach((r) => r.addedNodes.forEach((n) => window.statusLog.push(n.textContent))))
		.observe(s, {childList: true}); return ""; })()`

// TestPoolMatchesServer checks that the playground's result for E03-B is
// the server's, byte for byte, with one worker (the whole run in one, as
// before the pool) and with several sharing it.
func TestPoolMatchesServer(t *testing.T) {
	for _, workers := range []int{1, 2, 4} {
		t.Run(fmt.Sprintf("workers=%d", workers), func(t *testing.T) {
			ctx, base := setup(t)
			do(t, ctx, chromedp.Navigate(fmt.Sprintf("%s/?s=%s&workers=%d", base, e03b, workers)), ran(1))
			browser, server := text(ctx, t, `window.retrylabLast`), text(ctx, t, serverResult)
			if browser == "" || browser != server {
				t.Errorf("the browser's result (%d bytes) differs from the server's (%d bytes)", len(browser), len(server))
			}
			status := text(ctx, t, `document.getElementById("status").textContent`)
			if on := fmt.Sprintf("on %d workers", workers); (workers > 1) != strings.Contains(status, on) {
				t.Errorf("status %q; with %d workers, want %q in it only when there are several", status, workers, on)
			}
		})
	}
}

// TestPoolShowsTheFirstSeedsEarly checks that a run of many seeds shows
// the result of its first seed before it ends, then refines it with more
// seeds, and ends with the whole run's. ?early=always shows early results
// however soon the run would end, so that the test does not depend on the
// machine's speed.
func TestPoolShowsTheFirstSeedsEarly(t *testing.T) {
	ctx, base := setup(t)
	do(t, ctx, chromedp.Navigate(fmt.Sprintf("%s/?s=%s&workers=2&early=always", base, e03b)), ran(1))
	text(ctx, t, setRuns(200))
	text(ctx, t, recordStatus)
	do(t, ctx, chromedp.Click(`#run`), ran(2))
	log := strings.Split(text(ctx, t, `window.statusLog.join("\n")`), "\n")
	first, refined, last := -1, 0, -1
	seeds := 0
	for i, s := range log {
		var j, of int
		if _, err := fmt.Sscanf(s, "%d of %d seeds — refining…", &j, &of); err == nil {
			if first < 0 {
				first = i
				if j != 1 || of != 200 {
					t.Errorf("the first early result is of %d of %d seeds, want 1 of 200", j, of)
				}
			}
			if j < seeds {
				t.Errorf("%q after %d seeds were shown", s, seeds)
			}
			if j > seeds {
				refined++
			}
			seeds = j
		}
		if strings.HasPrefix(s, "Ran in") {
			last = i
		}
	}
	if first < 0 || last < first || last != len(log)-1 {
		t.Errorf("status lines (the first early result at %d, the end at %d):\n%s", first, last, strings.Join(log, "\n"))
	}
	t.Logf("%d early results shown, the last of %d seeds", refined, seeds)
	if n := text(ctx, t, `String(JSON.parse(window.retrylabLast).seeds.length)`); n != "200" {
		t.Errorf("the final result has %s seeds, want 200", n)
	}
}

// TestPoolCancel cancels a run shared by several workers mid-run: the page
// says so and stays usable, and the next run gives the server's result.
func TestPoolCancel(t *testing.T) {
	ctx, base := setup(t)
	do(t, ctx, chromedp.Navigate(fmt.Sprintf("%s/?s=%s&workers=2", base, e03b)), ran(1))
	text(ctx, t, setRuns(1000))
	// Cancel is pressed as the status first counts the run's simulations,
	// in the same task, so that the run cannot end between the two.
	got := text(ctx, t, `new Promise((resolve) => {
		const s = document.getElementById("status");
		new MutationObserver((_, o) => {
			if (!/ of 4000 simulations/.test(s.textContent)) return;
			o.disconnect();
			document.getElementById("cancel").click();
			resolve(s.textContent + (document.getElementById("cancel").hidden ? "" : " (cancel shown)"));
		}).observe(s, {childList: true, characterData: true, subtree: true});
		document.getElementById("run").click();
	})`)
	if got != "Cancelled." {
		t.Errorf("status after cancel %q, want Cancelled.", got)
	}
	// The built-in again, from the picker: a new run on a new pool.
	text(ctx, t, `(() => { const p = document.getElementById("builtin"); p.value = "`+e03b+`"; p.dispatchEvent(new Event("change")); return ""; })()`)
	do(t, ctx, ran(2))
	if browser, server := text(ctx, t, `window.retrylabLast`), text(ctx, t, serverResult); browser != server {
		t.Errorf("after a cancel, the browser's result (%d bytes) differs from the server's (%d bytes)", len(browser), len(server))
	}
}

// BenchmarkPlaygroundE03B measures a warm run of E03-B (ten seeds) in the
// playground with 1, 2 and 4 workers, taking turns in one page so that a
// busy machine slows each alike: w1-ms/op is the time from the click on
// Run to the result on screen with one worker, as the page measures it,
// and w2-first-ms/op the time to the first result shown with two (the
// first seeds', when the run shows them early).
func BenchmarkPlaygroundE03B(b *testing.B) {
	ctx, base := setup(b)
	do(b, ctx, chromedp.Navigate(fmt.Sprintf("%s/?s=%s", base, e03b)), ran(1))
	run := func(workers int) []float64 {
		ms, err := chromedp.Run(ctx, chromedp.Evaluate[[]float64](fmt.Sprintf(`new Promise((resolve) => {
			const root = document.getElementById("playground"), n = Number(root.dataset.ran || 0);
			root.dataset.workers = "%d";
			const t0 = performance.now();
			let first = 0;
			const shown = new MutationObserver(() => { first ||= performance.now() - t0; shown.disconnect(); });
			shown.observe(document.getElementById("results"), {childList: true});
			new MutationObserver((_, o) => { if (Number(root.dataset.ran) > n) { o.disconnect(); resolve([performance.now() - t0, first]); } })
				.observe(root, {attributes: true, attributeFilter: ["data-ran"]});
			document.getElementById("run").click();
		})`, workers), chromedp.EvalAwaitPromise))
		if err != nil {
			b.Fatal(err)
		}
		return ms
	}
	pools := []int{1, 2, 4}
	for _, w := range pools { // warm: every worker started and its code compiled
		run(w)
		run(w)
	}
	total, first := map[int]float64{}, map[int]float64{}
	i := 0
	for b.Loop() {
		for j := range pools {
			w := pools[(i+j)%len(pools)] // each goes first in turn
			ms := run(w)
			total[w] += ms[0]
			first[w] += ms[1]
		}
		i++
	}
	for _, w := range pools {
		b.ReportMetric(total[w]/float64(b.N), fmt.Sprintf("w%d-ms/op", w))
		if w > 1 {
			b.ReportMetric(first[w]/float64(b.N), fmt.Sprintf("w%d-first-ms/op", w))
		}
	}
}
