package web_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/retrylab/retrylab/shared/engine"
)

// TestPlaygroundRunsASearch: a scenario with a search block runs in the
// playground; the view shows the search's summary, recommendation,
// frontier picture and table; "Add as strategy" on the recommended row
// adds its candidate as a new column, under a name of its own, with the
// numbers the search found for it (the same seeds, the same luck). With
// two workers the search still runs whole, on one of them.
func TestPlaygroundRunsASearch(t *testing.T) {
	for _, workers := range []string{"1", "2"} {
		t.Run("workers="+workers, func(t *testing.T) { playgroundSearch(t, workers) })
	}
}

func playgroundSearch(t *testing.T, workers string) {
	ctx, base := setup(t)
	do(t, ctx, chromedp.Navigate(base+"/?workers="+workers), ran(1))
	text(ctx, t, `(() => { const j = document.getElementById("json"); const sc = JSON.parse(j.value);
		sc.search = {strategy: "C", knobs: [{path: "max_attempts", values: [2, 3]}, {path: "jitter.kind", values: ["full", "decorrelated"]}],
			objectives: [{metric: "affected_success_rate", goal: "max"}, {metric: "peak_per_100ms", goal: "min"}]};
		j.value = JSON.stringify(sc, null, 2); j.dispatchEvent(new Event("input")); return ""; })()`)
	do(t, ctx, ran(2), until(`document.querySelector("#search-result [data-testid=search-frontier]") !== null`))
	keep(t, ctx, "playground-search-workers-"+workers)
	summary := text(ctx, t, `document.querySelector("#search-result [data-testid=search-summary]").textContent`)
	if !strings.HasPrefix(summary, "Search from C: 4 candidates by successive halving") {
		t.Errorf("the search's summary says %q", summary)
	}
	// The recommendation in words, and the verdict leading with it, as
	// the view says them for pages too.
	// Its lead shown, its detail folded, as on the server's page.
	rec := text(ctx, t, `document.querySelector("#search-result [data-testid=search-detail]")?.textContent || ""`)
	if !strings.HasPrefix(rec, "Why, and how sure") || !strings.Contains(rec, "gives the highest success rate in the affected window on average over ") || strings.Contains(rec, "affected_success_rate") {
		t.Errorf("the recommendation's detail says %q", rec)
	}
	if lead := text(ctx, t, `document.querySelector("#search-result [data-testid=search-recommendation]")?.textContent || ""`); !strings.HasPrefix(lead, "Recommendation: The search from C recommends ") {
		t.Errorf("the recommendation's lead says %q", lead)
	}
	if v := text(ctx, t, `document.getElementById("verdict").textContent`); !strings.HasPrefix(v, "Verdict: The search from C recommends ") || !strings.Contains(v, " Of the strategies as written: ") {
		t.Errorf("the verdict says %q", v)
	}
	if got := text(ctx, t, `(() => { const i = document.querySelector('#search-result img[data-chart="frontier"]'); return i && i.src.startsWith("blob:") && i.alt ? "drawn" : "missing"; })()`); got != "drawn" {
		t.Errorf("the frontier picture is %s", got)
	}
	if got := text(ctx, t, `String(document.querySelectorAll("#search-result tr.recommended").length)`); got != "1" {
		t.Errorf("%s rows marked recommended, want 1", got)
	}
	want := text(ctx, t, `document.querySelector('#search-result tr.recommended td .v').textContent`)
	columns := func() string {
		return text(ctx, t, `[...document.querySelectorAll("#results thead th")].map(th => th.textContent).join("|")`)
	}
	if got := columns(); got != "metric|A|B|C|D" {
		t.Fatalf("columns before adding: %s", got)
	}
	// The recommended point's candidate becomes a fifth column.
	do(t, ctx, chromedp.Click(`#search-result tr.recommended button[data-action="add-candidate"]`), ran(3))
	if got := columns(); got != "metric|A|B|C|D|C (search 1)" {
		t.Fatalf("columns after adding: %s", got)
	}
	if got := text(ctx, t, `document.querySelector('#results tr[data-metric="affected_success_rate"] td:last-child .v').textContent`); got != want {
		t.Errorf("the added strategy's affected success rate is %s; the search found %s", got, want)
	}
	if got := text(ctx, t, `String(JSON.parse(document.getElementById("json").value).strategies.map(s => s.name))`); got != "A,B,C,D,C (search 1)" {
		t.Errorf("the scenario's strategies: %s", got)
	}
	// Added again, it gets a name of its own.
	do(t, ctx, chromedp.Click(`#search-result tr.recommended button[data-action="add-candidate"]`), ran(4))
	if got := columns(); got != "metric|A|B|C|D|C (search 1)|C (search 1) 2" {
		t.Errorf("columns after adding twice: %s", got)
	}
}

// TestPlaygroundSearchTies: the frontier table renders the view's groups.
// The default search on the built-in layered-retries (always failing)
// finds 152 points with the same figures: the table lists three, then a
// row "and 149 more with the same figures" whose folded list has the
// others, and Add as strategy on the last of them adds that candidate.
func TestPlaygroundSearchTies(t *testing.T) {
	ctx, base := setup(t)
	do(t, ctx, chromedp.Navigate(base+"/?s=layered-retries"), ran(1))
	search, err := json.Marshal(engine.DefaultSearch("3x3"))
	if err != nil {
		t.Fatal(err)
	}
	text(ctx, t, `(() => { const j = document.getElementById("json"); const sc = JSON.parse(j.value);
		sc.search = `+string(search)+`;
		j.value = JSON.stringify(sc, null, 2); j.dispatchEvent(new Event("input")); return ""; })()`)
	do(t, ctx, ran(2), until(`document.querySelector("#search-result [data-testid=search-frontier]") !== null`))
	keep(t, ctx, "playground-search-ties")
	if got := text(ctx, t, `[...document.querySelectorAll("#search-result tr[data-point]")].map(tr => tr.dataset.point).join(",")`); got != "1,2,3" {
		t.Errorf("the table's rows are points %s, want 1,2,3", got)
	}
	if got := text(ctx, t, `[...document.querySelectorAll("#search-result [data-testid=search-more] summary")].map(s => s.textContent).join("|")`); got != "and 149 more with the same figures" {
		t.Errorf("the rows counting more points say %q", got)
	}
	if got := text(ctx, t, `(() => { const li = [...document.querySelectorAll("#search-result [data-testid=search-more] li")]; return li.length + " " + li[0].dataset.point + " " + li[li.length-1].dataset.point; })()`); got != "149 4 152" {
		t.Errorf("the folded list has (count, first, last) %s, want 149 4 152", got)
	}
	do(t, ctx, chromedp.Click(`#search-result [data-testid=search-more] summary`))
	keep(t, ctx, "playground-search-ties-open")
	do(t, ctx, chromedp.Click(`#search-result li[data-point="152"] button[data-action="add-candidate"]`), ran(3))
	if got := text(ctx, t, `[...document.querySelectorAll("#results thead th")].map(th => th.textContent).join("|")`); !strings.HasSuffix(got, "|3x3 (search 152)") {
		t.Errorf("columns after adding point 152: %s", got)
	}
	if got := text(ctx, t, `JSON.parse(document.getElementById("json").value).strategies.at(-1).description`); !strings.HasPrefix(got, "found by the search from 3x3: 6 attempts, ") {
		t.Errorf("the added strategy is described %q", got)
	}
}

// BenchmarkPlaygroundSearchE03B measures the built-in e03b-policy-search
// (192 candidates by successive halving, 504 candidate-seed simulations)
// run warm in the playground: evals/s is simulations a second, from the
// click on Run to the result on screen, as BenchmarkSearchE03B measures
// them natively. A search runs whole on one worker (its rounds depend on
// each other's results), so more workers do not speed it up.
func BenchmarkPlaygroundSearchE03B(b *testing.B) {
	ctx, base := setup(b)
	do(b, ctx, chromedp.Navigate(base+"/?s=e03b-policy-search"), ran(1))
	run := func() (ms, sims float64) {
		out, err := chromedp.Run(ctx, chromedp.Evaluate[[]float64](`new Promise((resolve) => {
			const root = document.getElementById("playground"), n = Number(root.dataset.ran || 0);
			const t0 = performance.now();
			new MutationObserver((_, o) => { if (Number(root.dataset.ran) > n) { o.disconnect(); resolve([performance.now() - t0, JSON.parse(window.retrylabLast).search.simulations]); } })
				.observe(root, {attributes: true, attributeFilter: ["data-ran"]});
			document.getElementById("run").click();
		})`, chromedp.EvalAwaitPromise))
		if err != nil {
			b.Fatal(err)
		}
		return out[0], out[1]
	}
	run() // warm
	var ms, sims float64
	for b.Loop() {
		t, n := run()
		ms += t
		sims += n
	}
	b.ReportMetric(ms/float64(b.N), "ms/op")
	b.ReportMetric(sims/(ms/1000), "evals/s")
}
