package web_test

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestWorstSeedLinkOpensThatRun: the scenario page names each strategy's
// worst seed for the focus metric with a link to the playground; the link
// runs the built-in on that seed alone, and the playground's result is the
// server's run of the same scenario with "seed" that seed and "runs" 1,
// byte for byte.
func TestWorstSeedLinkOpensThatRun(t *testing.T) {
	ctx, base := setup(t)
	do(t, ctx, chromedp.Navigate(base+"/s/e03b-synchronized-recovery"))
	href := text(ctx, t, `document.querySelector("[data-testid=worst-seed] a").getAttribute("href")`)
	seed := text(ctx, t, `document.querySelector("[data-testid=worst-seed] a").dataset.seed`)
	if want := "/?s=e03b-synchronized-recovery&seed=" + seed + "&runs=1"; href != want {
		t.Fatalf("the worst seed's link is %q, want %q", href, want)
	}
	if seed == "0" {
		t.Fatal("the worst seed is the first of the built-in's seeds, 0: the test would not tell a seed that was ignored")
	}
	do(t, ctx, chromedp.Navigate(base+href), ran(1))
	browser := text(ctx, t, `window.retrylabLast`)
	server := text(ctx, t, `(async () => {
		const sc = await (await fetch("/api/scenarios/e03b-synchronized-recovery")).json();
		sc.seed = `+seed+`;
		sc.runs = 1;
		delete sc.seeds;
		const r = await fetch("/api/scenarios", {method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify(sc)});
		const {id} = await r.json();
		return JSON.stringify(await (await fetch("/api/scenarios/" + id + "/result")).json());
	})()`)
	if browser == "" || browser != server {
		t.Errorf("the playground's run of the worst seed (%d bytes) differs from the server's (%d bytes)", len(browser), len(server))
	}
	if !strings.Contains(browser, `"seeds":[`+seed+`]`) {
		t.Errorf("the playground did not run seed %s alone: %.200s", seed, browser)
	}
}

// TestTailMarksComparePercentiles: from 20 seeds the marks compare the
// ranges the cells show, the 5th to 95th percentiles, in the playground as
// on the page. E03-B on 20 seeds: A's highest success rate is above C's
// lowest, but its 95th percentile is below C's 5th, so B and C alone are
// marked best (by the lowest and highest, A would be too).
func TestTailMarksComparePercentiles(t *testing.T) {
	ctx, base := setup(t)
	const want = ",best,best,worst"
	marks := `[...document.querySelectorAll('#results tr[data-metric="success_rate"] td, table [data-metric="success_rate"] td')].map(td => td.className).join(",")`
	do(t, ctx, chromedp.Navigate(base+"/?s=e03b-synchronized-recovery&runs=20"), ran(1))
	if got := text(ctx, t, `document.getElementById("means").textContent`); !strings.Contains(got, "Means over 20 seeds; the range under each value is its 5th to 95th percentile over the seeds, which the marks and the verdict compare.") {
		t.Errorf("the playground's means say %q", got)
	}
	if got := text(ctx, t, marks); got != want {
		t.Errorf("the playground marks the success rates %q, want %q", got, want)
	}
	id := text(ctx, t, `(async () => {
		const sc = await (await fetch("/api/scenarios/e03b-synchronized-recovery")).json();
		sc.runs = 20;
		delete sc.seeds;
		const r = await fetch("/api/scenarios", {method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify(sc)});
		return (await r.json()).id;
	})()`)
	do(t, ctx, chromedp.Navigate(base+"/s/"+id))
	if got := text(ctx, t, marks); got != want {
		t.Errorf("the page marks the success rates %q, want %q", got, want)
	}
	if got := text(ctx, t, `document.querySelector("[data-testid=verdict]").textContent`); !strings.HasSuffix(got, "Means over 20 seeds; on peak calls in 100 ms their 5th to 95th percentiles do not overlap.") {
		t.Errorf("the page's verdict: %q", got)
	}
}
