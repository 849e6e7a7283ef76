package web_test

import (
	"encoding/json"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestFormEditsBooleansListsAndCoDel (#33): a boolean is a checkbox
// (checked: true; unchecked: left out), a phase's backends a list typed
// as text, and CoDel's target shows only for the disciplines it sets.
func TestFormEditsBooleansListsAndCoDel(t *testing.T) {
	ctx, base := setup(t)
	do(t, ctx, chromedp.Navigate(base+"/?s=cache-flush"), ran(1))
	const warm = `document.querySelector('[data-path="dependency.cache.warm"]')`
	if got := text(ctx, t, warm+`.type + " " + `+warm+`.checked`); got != "checkbox true" {
		t.Fatalf("the cache's warm start is %q; want a checked checkbox", got)
	}
	do(t, ctx, click(`[data-path="dependency.cache.warm"]`), edits(), ran(2))
	if c := scenarioJSON(ctx, t)["dependency"].(map[string]any)["cache"].(map[string]any); c["warm"] != nil {
		t.Errorf("unchecked, the cache still has warm %v", c["warm"])
	}
	do(t, ctx, click(`[data-path="dependency.cache.warm"]`), edits(), ran(3))
	if c := scenarioJSON(ctx, t)["dependency"].(map[string]any)["cache"].(map[string]any); c["warm"] != true {
		t.Errorf("checked again, the cache has warm %v; want true", c["warm"])
	}

	// CoDel's fields: none with the default discipline, both with codel,
	// and gone again with lifo, the value with them.
	const target = `document.querySelector('[data-path="dependency.codel.target"]') !== null`
	if got := text(ctx, t, `String(`+target+`)`); got != "false" {
		t.Errorf("with the default queue discipline, CoDel's target shows: %s", got)
	}
	do(t, ctx, setField("dependency.queue_discipline", "codel"), edits(), until(target),
		setField("dependency.codel.target", "10ms"), edits())
	do(t, ctx, setField("dependency.queue_discipline", "lifo"), edits(), until(`!(`+target+`)`))
	if d := scenarioJSON(ctx, t)["dependency"].(map[string]any); d["codel"] != nil {
		t.Errorf("with lifo the dependency keeps codel %v", d["codel"])
	}

	// A phase's backends, typed as a list.
	do(t, ctx, chromedp.Navigate(base+"/?s=outlier-ejection"), ran(1))
	const list = `document.querySelector('[data-path="dependency.phases[0].backends"]')`
	if got := text(ctx, t, list+`.value`); got != "0" {
		t.Errorf("the phase's backends show %q; want 0", got)
	}
	do(t, ctx, setField("dependency.phases[0].backends", "1, 2"), edits(), ran(2))
	ph := scenarioJSON(ctx, t)["dependency"].(map[string]any)["phases"].([]any)[0].(map[string]any)
	if got, _ := json.Marshal(ph["backends"]); string(got) != "[1,2]" {
		t.Errorf("typed 1, 2: the phase's backends are %s", got)
	}
	if errs := text(ctx, t, `[...document.querySelectorAll(".field-error")].map(e => e.textContent).join("")`); errs != "" {
		t.Errorf("field errors: %s", errs)
	}
	axeCheck(t, ctx)
}
