package web_test

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// statusOf is the playground's status line and the address of its link.
const statusOf = `document.querySelector("[data-testid=status]").textContent + "|" + (document.querySelector("[data-testid=status] a")?.getAttribute("href") ?? "")`

// TestWorstSeedLinkSaysSo: the worst seed's link of a shared scenario
// (/?s=ID&seed=8&runs=1) says that it ran seed 8 alone, and its link back
// runs the scenario's own seeds.
func TestWorstSeedLinkSaysSo(t *testing.T) {
	ctx, base := setup(t)
	do(t, ctx, chromedp.Navigate(base+"/?s=e03b-synchronized-recovery"), ran(1))
	id := text(ctx, t, `(async () => {
		const r = await fetch("/api/scenarios", {method: "POST", headers: {"Content-Type": "application/json"},
			body: JSON.stringify({...JSON.parse(document.getElementById("json").value), name: "E03-B shared"})});
		return (await r.json()).id;
	})()`)
	do(t, ctx, chromedp.Navigate(base+"/?s="+id+"&seed=8&runs=1"), ran(1))
	st := text(ctx, t, statusOf)
	if want := "Loaded shared scenario " + id + ": seed 8 alone, as the worst-seed link asked; Run all seeds.|/?s=" + id; !strings.HasSuffix(st, want) {
		t.Errorf("the status says %q, want it to end %q", st, want)
	}
	if seeds := text(ctx, t, `JSON.stringify(JSON.parse(window.retrylabLast).seeds)`); seeds != "[8]" {
		t.Errorf("ran seeds %s, want [8]", seeds)
	}
	// The link back, followed as a click would.
	do(t, ctx, chromedp.Navigate(base+text(ctx, t, `document.querySelector("[data-testid=status] a").getAttribute("href")`)), ran(1))
	if seeds := text(ctx, t, `String(JSON.parse(window.retrylabLast).seeds.length)`); seeds != "10" {
		t.Errorf("Run all seeds ran %s seeds, want the scenario's 10", seeds)
	}
	if st := text(ctx, t, statusOf); !strings.HasSuffix(st, "Loaded shared scenario "+id+".|") {
		t.Errorf("after Run all seeds the status says %q", st)
	}
}

// TestSeedParametersChecked: a link's seed= and runs= outside what the
// command line's --seed and --runs take are ignored, and the status line
// names the parameter, its value and the range; the scenario runs on its
// own seeds.
func TestSeedParametersChecked(t *testing.T) {
	ctx, base := setup(t)
	for _, c := range []struct{ query, says string }{
		{"seed=abc", "The link's seed=abc is not a whole number in 0..9007199254740991 (the first seed); it was ignored."},
		{"seed=-1", "The link's seed=-1 is not a whole number in 0..9007199254740991 (the first seed); it was ignored."},
		{"seed=9007199254740992", "The link's seed=9007199254740992 is out of range 0..9007199254740991 (the first seed); it was ignored."},
		{"runs=5000", "The link's runs=5000 is out of range 1..1000 (how many seeds to run); it was ignored."},
		{"runs=0", "The link's runs=0 is out of range 1..1000 (how many seeds to run); it was ignored."},
	} {
		do(t, ctx, chromedp.Navigate(base+"/?s=layered-retries&"+c.query), ran(1))
		if st := text(ctx, t, statusOf); !strings.HasSuffix(st, " "+c.says+"|") {
			t.Errorf("?%s: the status says %q, want it to end %q", c.query, st, c.says)
		}
		if errs := text(ctx, t, `document.getElementById("errors").textContent`); errs != "" {
			t.Errorf("?%s: the scenario has errors: %s", c.query, errs)
		}
	}
	// Both at once, one of them good: the good one is applied.
	do(t, ctx, chromedp.Navigate(base+"/?s=e03b-synchronized-recovery&seed=8&runs=1001"), ran(1))
	st := text(ctx, t, statusOf)
	if want := "Its seeds counted from seed 8, as the link asked; Run all seeds. The link's runs=1001 is out of range 1..1000 (how many seeds to run); it was ignored.|/?s=e03b-synchronized-recovery"; !strings.HasSuffix(st, want) {
		t.Errorf("the status says %q, want it to end %q", st, want)
	}
}
