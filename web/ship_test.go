package web_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// shipOpen clicks "What should I ship?" on strategy i and waits for the
// engine's form.
func shipOpen(i int) chromedp.Action[chromedp.Void] {
	return chromedp.Steps(
		chromedp.Click(fmt.Sprintf(`#form button[data-action="ship"][data-index="%d"]`, i)),
		until(`document.querySelector("#ship-form [data-testid=ship-run]") !== null`))
}

// TestPlaygroundOneClickSearch (#28): on E03-B, at 360 px, "What should
// I ship?" beside a strategy shows the default search for it as a form
// (its knobs' values as ticked checkboxes in words, its objectives as
// choices): for D edited to have a layer, knobs on every level; for C,
// one level's. With some values unticked the search from C runs from
// the form, gives a recommendation and a frontier, and the scenario then
// carries it, so that its shared copy has it too and its page shows what
// it found; run again with every value ticked, Cancel stops it; Remove
// the search takes it out.
func TestPlaygroundOneClickSearch(t *testing.T) {
	ctx, base := setup(t)
	do(t, ctx, chromedp.EmulateViewport(360, 800), chromedp.Navigate(base+"/"), ran(1))
	if got := text(ctx, t, `String(document.querySelectorAll('#form button[data-action="ship"]').length)`); got != "4" {
		t.Fatalf("%s What should I ship? buttons, want one per strategy (4)", got)
	}
	// An edited strategy gets the search of what it has become: D with a
	// layer below it, knobs on every level and which level retries.
	do(t, ctx, chromedp.Click(`#form button[data-action="layer-add"][data-index="3"]`), ran(2), shipOpen(3))
	if got := text(ctx, t, `document.getElementById("ship-heading").textContent + ": " + [...document.querySelectorAll("#ship-form fieldset[data-knob]")].map(f => f.dataset.knob).join(", ")`); got != "What should I ship? Settings for D: levels[*].max_attempts, levels[*].backoff, levels[*].jitter, levels[*].budget, retry_level" {
		t.Errorf("the form of D with a layer: %s", got)
	}
	do(t, ctx, shipOpen(2))
	keep(t, ctx, "playground-ship-form")
	if got := text(ctx, t, `document.getElementById("ship-heading").textContent`); got != "What should I ship? Settings for C" {
		t.Errorf("the form's heading says %q", got)
	}
	knobs := text(ctx, t, `[...document.querySelectorAll("#ship-form fieldset[data-knob]")].map(f => f.dataset.knob + ": " +
		[...f.querySelectorAll("input[type=checkbox]")].map(c => (c.checked ? "x " : "_ ") + document.querySelector('label[for="' + c.id + '"]').textContent).join("; ")).join("\n")`)
	// C has a 2 s attempt timeout and a 5 s deadline: knobs on both,
	// traded for DefaultSearch's less telling values (108 candidates).
	want := `max_attempts: x 2 attempts; x 3 attempts; x 4 attempts
backoff: x exponential 100 ms → 2 s; x exponential 1 s → 10 s
jitter: x none; x full
attempt_timeout: x 1 s; x 2 s; x 4 s
deadline: x 2.5 s; x 5 s; x 10 s`
	if knobs != want {
		t.Errorf("the form's knobs:\n%s\nwant\n%s", knobs, want)
	}
	if got := text(ctx, t, `[...document.querySelectorAll("#ship-form select[data-objective]")].map(s => s.selectedOptions[0].textContent).join("|")`); got != "highest success rate in the affected window|lowest peak calls in 100 ms|— none|— none" {
		t.Errorf("the form's objectives: %s", got)
	}
	if got := text(ctx, t, `document.querySelector("[data-testid=ship-count]").textContent`); got != "108 candidates, each on every seed." {
		t.Errorf("the count says %q", got)
	}
	fits(t, ctx, "with the form open")
	axeCheck(t, ctx)
	// 2 × 1 × 2 × 1 × 1 = 4 candidates: untick values as a reader would,
	// keeping C's own timeout and deadline.
	text(ctx, t, `(() => {
		for (const id of ["ship-0-2", "ship-1-1", "ship-3-0", "ship-3-2", "ship-4-0", "ship-4-2"]) document.getElementById(id).click();
		return ""; })()`)
	if got := text(ctx, t, `document.querySelector("[data-testid=ship-count]").textContent`); got != "4 candidates, each on every seed." {
		t.Errorf("after unticking, the count says %q", got)
	}
	// Two constraints, in the form's units: a metric without a bound is
	// refused before anything runs; a rate is given in percent.
	do(t, ctx, chromedp.SetValue(`#ship-constraint-0-metric`, "peak_per_100ms"), chromedp.SetValue(`#ship-constraint-0-value`, "100000"),
		chromedp.SetValue(`#ship-constraint-1-metric`, "affected_success_rate"), chromedp.SetValue(`#ship-constraint-1-op`, ">="))
	if got := text(ctx, t, `document.querySelector("[data-testid=ship-count]").textContent`); got != "Constraint 2 names a metric: give its bound, a number (or choose — none)." {
		t.Errorf("with a constraint without its bound, the count says %q", got)
	}
	do(t, ctx, chromedp.SetValue(`#ship-constraint-1-value`, "1"))
	if got := text(ctx, t, `document.querySelector("[data-testid=ship-count]").textContent`); got != "4 candidates, each on every seed." {
		t.Errorf("with both constraints, the count says %q", got)
	}
	do(t, ctx, chromedp.Click(`[data-testid=ship-run]`), ran(3),
		until(`document.querySelector("#search-result [data-testid=search-recommendation]") !== null`))
	if got := text(ctx, t, `JSON.stringify(JSON.parse(document.getElementById("json").value).search.constraints)`); got != `[{"metric":"peak_per_100ms","op":"<=","value":100000},{"metric":"affected_success_rate","op":">=","value":0.01}]` {
		t.Errorf("the search's constraints: %s", got)
	}
	if got := text(ctx, t, `document.querySelector("#search-result [data-testid=search-summary]").textContent`); !strings.Contains(got, " Constraints: ") || strings.Contains(got, "Constraints: none") {
		t.Errorf("the summary does not give the constraints: %q", got)
	}
	keep(t, ctx, "playground-ship-result")
	if got := text(ctx, t, `document.querySelector("#search-result [data-testid=search-summary]").textContent`); !strings.HasPrefix(got, "Search from C: 4 candidates by successive halving") {
		t.Errorf("the search's summary says %q", got)
	}
	if got := text(ctx, t, `document.querySelector("[data-testid=ship-status]").textContent`); !strings.HasPrefix(got, "Searched from C: the recommendation") {
		t.Errorf("the form's status says %q", got)
	}
	if got := text(ctx, t, `String(document.querySelectorAll('#search-result [data-testid=search-frontier] button[data-action="add-candidate"]').length > 0)`); got != "true" {
		t.Error("no Add as strategy on the frontier")
	}
	var search struct {
		Strategy string
		Knobs    []struct {
			Path   string
			Values []json.RawMessage
		}
		Objectives []struct{ Metric, Goal string }
	}
	if err := json.Unmarshal([]byte(text(ctx, t, `JSON.stringify(JSON.parse(document.getElementById("json").value).search)`)), &search); err != nil {
		t.Fatal(err)
	}
	if b, _ := json.Marshal(search); search.Strategy != "C" || len(search.Knobs) != 5 || len(search.Knobs[0].Values) != 2 || len(search.Knobs[1].Values) != 1 || len(search.Objectives) != 2 {
		t.Errorf("the scenario's search: %s", b)
	}
	fits(t, ctx, "with the search's results")
	// Shared, the scenario carries its search.
	do(t, ctx, chromedp.Click(`[data-testid=share]`), until(`document.getElementById("share-url").value.includes("/s/")`))
	id := text(ctx, t, `document.getElementById("share-url").value.split("/s/")[1]`)
	if got := text(ctx, t, `(async () => JSON.stringify((await (await fetch("/api/scenarios/`+id+`")).json()).search))()`); !strings.Contains(got, `"strategy":"C"`) {
		t.Errorf("the shared scenario's search: %s", got)
	}
	// Its page shows what the search found.
	if got := text(ctx, t, `(async () => String((await (await fetch("/s/`+id+`")).text()).includes('data-testid="search-recommendation"')))()`); got != "true" {
		t.Error("the shared scenario's page shows no recommendation")
	}
	// Every value ticked again (108 candidates), Cancel stops the search.
	do(t, ctx, shipOpen(2), chromedp.Click(`[data-testid=ship-run]`),
		until(`document.querySelector("[data-testid=ship-status]").textContent.includes(" simulations (Cancel stops it)")`))
	got := text(ctx, t, `(() => {
		if (document.querySelector("[data-testid=ship-status]").textContent.startsWith("Searched")) return "the search ended before Cancel";
		document.querySelector("[data-testid=ship-cancel]").click();
		return ""; })()`)
	if got != "" {
		t.Fatal(got)
	}
	do(t, ctx, until(`document.querySelector("[data-testid=ship-status]").textContent.startsWith("Cancelled")`))
	if got := text(ctx, t, `document.getElementById("status").textContent + "|" + document.querySelector("[data-testid=ship-cancel]").hidden + "|" + document.getElementById("playground").dataset.ran`); got != "Cancelled.|true|3" {
		t.Errorf("after Cancel (status, Cancel hidden, runs): %s", got)
	}
	keep(t, ctx, "playground-ship-cancelled")
	// Remove the search takes it out of the scenario, and its results go.
	do(t, ctx, chromedp.Click(`[data-testid=search-remove]`), ran(4))
	if got := text(ctx, t, `String("search" in JSON.parse(document.getElementById("json").value)) + "|" + document.getElementById("search-result").childElementCount + "|" + document.querySelectorAll("[data-testid=search-remove]").length`); got != "false|0|0" {
		t.Errorf("after Remove the search (in the JSON, Search section's children, Remove buttons): %s", got)
	}
}

// fits fails when the page scrolls sideways.
func fits(t *testing.T, ctx context.Context, when string) {
	t.Helper()
	var scroll, client int
	fmt.Sscan(text(ctx, t, `document.documentElement.scrollWidth + " " + document.documentElement.clientWidth`), &scroll, &client)
	if scroll > client {
		t.Errorf("%s, the page scrolls sideways: %d px of content in %d px", when, scroll, client)
	}
}

// axeCheck runs axe-core on the page, when make deps has installed it,
// and fails on a serious or critical violation.
func axeCheck(t *testing.T, ctx context.Context) {
	t.Helper()
	axe, err := os.ReadFile(filepath.Join(checks, "axe-core/axe.min.js"))
	if err != nil {
		t.Log("axe-core is not installed (make deps): not checked")
		return
	}
	for _, v := range axeViolations(ctx, t, axe, "document") {
		t.Error(v)
	}
}

// TestShipLinkOpensTheForm (#28): the shared page's "What should I
// ship?" link for a strategy opens the playground with that strategy's
// search form.
func TestShipLinkOpensTheForm(t *testing.T) {
	ctx, base := setup(t)
	do(t, ctx, chromedp.Navigate(base+"/s/e03b-synchronized-recovery"))
	href := text(ctx, t, `document.querySelector('[data-testid=ships] a:nth-of-type(3)').getAttribute("href")`)
	do(t, ctx, chromedp.Navigate(base+href), ran(1),
		until(`document.querySelector("#ship-form [data-testid=ship-run]") !== null`))
	if got := text(ctx, t, `document.getElementById("ship-heading").textContent`); got != "What should I ship? Settings for C" {
		t.Errorf("the link %s opened %q", href, got)
	}
}
