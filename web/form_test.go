package web_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// scenarioJSON reads the scenario the playground's JSON box holds.
func scenarioJSON(ctx context.Context, t *testing.T) map[string]any {
	t.Helper()
	var sc map[string]any
	if err := json.Unmarshal([]byte(text(ctx, t, `document.getElementById("json").value`)), &sc); err != nil {
		t.Fatal(err)
	}
	return sc
}

// click presses a button.
func click(sel string) chromedp.Action[chromedp.Void] { return chromedp.Click(sel) }

// eval runs JavaScript for its effect.
func eval(js string) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
		_, err := chromedp.Run(ctx, chromedp.Evaluate[bool](js))
		return err
	})
}

// TestFormEditsSeveralDependencies: the form turns one dependency into a
// list with a plan, renames a dependency everywhere it is named, adds a
// bulkhead and a fallback, runs each version, and removes the dependency
// again with what referred to it.
func TestFormEditsSeveralDependencies(t *testing.T) {
	ctx, base := setup(t)
	do(t, ctx, chromedp.Navigate(base+"/?s=layered-retries"), ran(1))
	// The library-exact options' kinds come from the engine's vocabulary.
	opts := text(ctx, t, `[...document.querySelectorAll('[data-path="strategies[0].breaker.half_open_decision"] option')].map(o => o.value).join(",")`)
	if opts != ",early,all_trials" {
		t.Errorf("half-open decision offers %q; want the engine's list", opts)
	}
	do(t, ctx, click(`[data-action=dep-add]`), ran(2))
	sc := scenarioJSON(ctx, t)
	deps, _ := sc["dependencies"].([]any)
	if _, one := sc["dependency"]; one || len(deps) != 2 {
		t.Fatalf("after adding a dependency: %v", sc)
	}
	plan, _ := sc["workload"].(map[string]any)["plan"].([]any)
	if got, _ := json.Marshal(plan); string(got) != `[{"calls":[{"dependency":"dependency"},{"dependency":"dependency-2"}]}]` {
		t.Errorf("plan %s; want both dependencies called in parallel", got)
	}
	status := `document.querySelector("[data-testid=status]").textContent`
	if s := text(ctx, t, status); !strings.Contains(s, "Ran in") {
		t.Errorf("status %q after adding a dependency; want a run", s)
	}

	// Renaming follows into the plan; the bulkhead and the fallback offer
	// the new names. Each edit's run is waited for before the next edit:
	// edits less than 250 ms apart share a run, so how many runs quick
	// edits make depends on how fast the machine is.
	do(t, ctx, setField(`dependencies[1].name`, "payment"),
		eval(`document.querySelector('[data-path="dependencies[1].name"]').dispatchEvent(new Event("change", {bubbles: true}))`), ran(3),
		click(`[data-action=bulkhead-add][data-index="0"]`), ran(4), click(`[data-action=fallback-add][data-index="0"]`), ran(5),
		setField(`strategies[0].bulkheads[0].dependency`, "payment"), ran(6))
	sc = scenarioJSON(ctx, t)
	st := sc["strategies"].([]any)[0].(map[string]any)
	plan = sc["workload"].(map[string]any)["plan"].([]any)
	got, _ := json.Marshal([]any{plan, st["bulkheads"], st["fallbacks"]})
	want := `[[{"calls":[{"dependency":"dependency"},{"dependency":"payment"}]}],[{"dependency":"payment","max_concurrent":10}],[{"call":"dependency"}]]`
	if string(got) != want {
		t.Errorf("plan, bulkheads, fallbacks:\n%s\nwant\n%s", got, want)
	}
	if errs := text(ctx, t, `[...document.querySelectorAll(".field-error")].map(e => e.textContent).join("")`); errs != "" {
		t.Errorf("field errors: %s", errs)
	}
	if s := text(ctx, t, status); !strings.Contains(s, "Ran in") {
		t.Errorf("status %q; want a run", s)
	}

	// Removing payment removes its call and its bulkhead.
	do(t, ctx, click(`[data-action=dep-remove][data-dep="dependencies[1]"]`), edits())
	sc = scenarioJSON(ctx, t)
	st = sc["strategies"].([]any)[0].(map[string]any)
	got, _ = json.Marshal([]any{sc["dependencies"].([]any)[0].(map[string]any)["name"], sc["workload"].(map[string]any)["plan"], st["bulkheads"]})
	if string(got) != `["dependency",[{"calls":[{"dependency":"dependency"}]}],null]` {
		t.Errorf("after removing payment: %s", got)
	}
}

// TestFormShowsTheFieldsOfTheKind (#29): the form shows a service time's
// and a network leg's fields for their kind only: E03-B's constant
// service time has a mean and no lognormal p50 or p99, and no network
// leg's fields until the leg has a kind; choosing lognormal shows p50
// and p99 in place of the mean, which the scenario no longer has.
func TestFormShowsTheFieldsOfTheKind(t *testing.T) {
	ctx, base := setup(t)
	do(t, ctx, chromedp.Navigate(base+"/"), ran(1))
	shown := func() string {
		return text(ctx, t, `["service_time.mean", "service_time.p50", "service_time.p99", "network.request.mean"].map(p => document.querySelector('[data-path="dependency.' + p + '"]') ? p : "").filter(Boolean).join(",")`)
	}
	if got := shown(); got != "service_time.mean" {
		t.Errorf("a constant service time, no network: fields %q", got)
	}
	do(t, ctx, setField("dependency.service_time.kind", "lognormal"),
		until(`document.querySelector('[data-path="dependency.service_time.p50"]') !== null`))
	// The mean E03-B gave goes with the kind that took it.
	if got := shown(); got != "service_time.p50,service_time.p99" {
		t.Errorf("lognormal: fields %q", got)
	}
	do(t, ctx, setField("dependency.network.request.kind", "normal"),
		until(`document.querySelector('[data-path="dependency.network.request.stddev"]') !== null`))
	if got := shown(); !strings.HasSuffix(got, ",network.request.mean") {
		t.Errorf("a normal request leg: fields %q", got)
	}
}
