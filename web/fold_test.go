package web_test

import (
	"testing"

	"github.com/chromedp/chromedp"
)

// folded is JavaScript saying where the form shows the field at a path:
// "open" outside any fold, "folded" in a closed "more settings",
// "unfolded" in an open one, "missing" when the form has no such field.
func folded(path string) string {
	return `(() => {
		const f = document.querySelector('[data-path="` + path + `"]');
		if (!f) return "missing";
		const d = f.closest("details.more");
		return !d ? "open" : d.open ? "unfolded" : "folded";
	})()`
}

// TestFormFoldsWhatIsNotSet (#29): the form shows of a dependency and of
// a strategy the fields that hold a value, the kind selectors and the
// essential fields; the rest folds behind "more settings", closed. A fold
// the user opened stays open when the form is rebuilt; a field the engine
// finds wrong opens its fold.
func TestFormFoldsWhatIsNotSet(t *testing.T) {
	ctx, base := setup(t)
	do(t, ctx, chromedp.Navigate(base+"/"), ran(1))
	for path, want := range map[string]string{
		"dependency.workers":              "open",
		"dependency.queue_capacity":       "open", // E03-B sets it
		"dependency.error_rate":           "folded",
		"dependency.network.request.kind": "open",
		"strategies[0].max_attempts":      "open",
		"strategies[0].breaker.kind":      "open",
		"strategies[0].breaker.failures":  "folded",
		"strategies[0].hedging.delay":     "folded",
		"strategies[1].backoff.base":      "open", // B sets it
		"strategies[0].backoff.base":      "folded",
	} {
		if got := text(ctx, t, folded(path)); got != want {
			t.Errorf("%s is %s; want %s", path, got, want)
		}
	}
	if got := text(ctx, t, `[...document.querySelectorAll("#form > fieldset > legend")].filter(l => l.textContent.startsWith("Strategy")).map(l => l.textContent).join("|")`); got != "Strategy 1: A|Strategy 2: B|Strategy 3: C|Strategy 4: D" {
		t.Errorf("the strategies' legends say %q; want their names", got)
	}
	summary := text(ctx, t, `document.querySelector('details[data-fold="strategies[0]."] > summary').textContent`)
	if summary == "" || summary[0] < '1' || summary[0] > '9' {
		t.Errorf("strategy A's fold says %q; want how many settings it holds", summary)
	}

	// Opened by the user (the keyboard: its summary focused, Enter), it
	// stays open when a choice rebuilds the form; the others stay closed.
	do(t, ctx, chromedp.Focus(`details[data-fold="strategies[0]."] > summary`), chromedp.KeyEvent("\r"),
		until(`document.querySelector('details[data-fold="strategies[0]."]').open`),
		setField("strategies[0].breaker.kind", ""), edits(), ran(2))
	if got := text(ctx, t, folded("strategies[0].hedging.delay")); got != "unfolded" {
		t.Errorf("after a choice rebuilt the form, A's hedging delay is %s; want its opened fold kept open", got)
	}
	if got := text(ctx, t, folded("strategies[2].hedging.delay")); got != "folded" {
		t.Errorf("C's hedging delay is %s; want it folded", got)
	}

	// A budget of the ratio kind without its ratio: the engine's error
	// lands beside the ratio, in C's fold, which opens.
	do(t, ctx, setField("strategies[2].budget.kind", "ratio"), edits(),
		until(`document.querySelectorAll("#errors li").length > 0`))
	if got := text(ctx, t, `[...document.querySelectorAll("#errors li")].map(li => li.dataset.path).join(",")`); got != "strategies[2].budget.ratio" {
		t.Fatalf("errors at %s; want one at C's budget ratio", got)
	}
	if got := text(ctx, t, folded("strategies[2].budget.ratio")); got != "unfolded" {
		t.Errorf("C's budget ratio, which has an error, is %s; want its fold opened", got)
	}
	if got := text(ctx, t, `document.getElementById("f-strategies-2--budget-ratio-error").textContent`); got == "" {
		t.Error("no error beside C's budget ratio")
	}
	axeCheck(t, ctx) // with folds open and closed, and an error in one
}
