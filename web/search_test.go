package web_test

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestPlaygroundSaysWhereSearchesRun: the playground does not run a
// scenario's search block yet; adding one gets an error at "search" that
// says where searches run, and the results of the last valid scenario stay.
func TestPlaygroundSaysWhereSearchesRun(t *testing.T) {
	ctx, base := setup(t)
	do(t, ctx, chromedp.Navigate(base+"/"), ran(1))
	text(ctx, t, `(() => { const j = document.getElementById("json"); const sc = JSON.parse(j.value);
		sc.search = {strategy: "C", knobs: [{path: "max_attempts", values: [2, 3]}], objectives: [{metric: "retries", goal: "min"}]};
		j.value = JSON.stringify(sc, null, 2); j.dispatchEvent(new Event("input")); return ""; })()`)
	do(t, ctx, until(`[...document.querySelectorAll("#errors li")].some(li => li.dataset.path === "search")`))
	msg := text(ctx, t, `[...document.querySelectorAll("#errors li")].find(li => li.dataset.path === "search").textContent`)
	if !strings.Contains(msg, "runs on the command line for now (retrylab run FILE, or retrylab search)") {
		t.Errorf("the search's error says %q", msg)
	}
}
