package web_test

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestFormAffectedWindow: the form shows the affected window the engine
// judges (#27, item 7). E03-B pins it; Follow the phases unpins it, and
// then moving a phase moves it, in the form and in the result; typing
// From pins it (To keeps the phases' end), and a pinned window stays put
// when a phase moves; Follow the phases unpins it again. At 360 px the
// form still fits.
func TestFormAffectedWindow(t *testing.T) {
	ctx, base := setup(t)
	do(t, ctx, chromedp.EmulateViewport(360, 800), chromedp.Navigate(base+"/"), ran(1))
	note := `document.querySelector("[data-testid=window-note]")`
	result := `document.querySelector("[data-testid=affected-window]").textContent`
	explain := `document.querySelector("[data-metric=affected_success_rate] .explain").textContent`
	follow := `document.querySelector("[data-testid=window-follow]")`
	field := func(end string) string { return `document.querySelector('[data-path="report.affected_` + end + `"]')` }
	runs := 1
	// settled waits for the form's note to be the engine's answer for the
	// JSON as it is and to say want, and checks the result says the same.
	settled := func(what, want string) {
		t.Helper()
		do(t, ctx, until(note+`.getAttribute("aria-busy") === null && `+note+`.textContent.startsWith(`+strconv.Quote(want)+`)`))
		if got := text(ctx, t, result); got != "Affected window: "+strings.ToLower(want[:1])+want[1:] {
			t.Errorf("%s: the result says %q, want the window %q", what, got, want)
		}
		if got := text(ctx, t, explain); !strings.Contains(got, strings.ToLower(want[:1])+strings.TrimSuffix(want[1:], ".")) {
			t.Errorf("%s: the affected success rate is explained as %q, want the window %q", what, got, want)
		}
	}
	edit := func(steps ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		runs++
		do(t, ctx, append(steps, ran(runs))...)
	}
	report := func() string {
		t.Helper()
		r, _ := scenarioJSON(ctx, t)["report"].(map[string]any)
		return fmt.Sprint(r["affected_from"], " ", r["affected_to"])
	}

	settled("E03-B as published", "Operations started from 8.5s to 15s, pinned by report.affected_from and affected_to.")
	if text(ctx, t, `String(`+follow+`.hidden)`) != "false" || text(ctx, t, field("from")+`.value`) != "8.5s" {
		t.Errorf("a pinned window shows no Follow the phases, or not its From")
	}

	edit(click(`[data-testid=window-follow]`))
	settled("unpinned", "Operations started from 8.5s to 15s, the span of the dependency's phases.")
	if got := text(ctx, t, note+`.textContent`); !strings.HasSuffix(got, " It follows the phases; typing From or To pins it.") {
		t.Errorf("unpinned, the form says %q, not that the window follows the phases until typed", got)
	}
	if got := report(); got != "<nil> <nil>" {
		t.Errorf("Follow the phases left the report's bounds %s", got)
	}
	if got := text(ctx, t, field("from")+`.placeholder + " " + `+field("to")+`.placeholder + " " + `+follow+`.hidden`); got != "8.5s 15s true" {
		t.Errorf("unpinned, the fields' placeholders and Follow's hidden are %q, want the phases' bounds and hidden", got)
	}

	edit(setField("dependency.phases[1].to", "20s"))
	settled("a phase moved", "Operations started from 8.5s to 20s, the span of the dependency's phases.")
	if got := text(ctx, t, field("to")+`.placeholder`); got != "20s" {
		t.Errorf("To's placeholder is %q after the phase moved to 20s", got)
	}

	edit(setField("report.affected_from", "5s"))
	if got := report(); got != "5s 20s" {
		t.Errorf("typing From 5s pinned %s, want 5s 20s", got)
	}
	settled("pinned by typing", "Operations started from 5s to 20s, pinned by report.affected_from and affected_to (the dependency's phases span 8.5s to 20s).")

	edit(setField("dependency.phases[1].to", "25s"))
	settled("a phase moved under a pinned window", "Operations started from 5s to 20s, pinned by report.affected_from and affected_to (the dependency's phases span 8.5s to 25s).")

	edit(click(`[data-testid=window-follow]`))
	settled("unpinned again", "Operations started from 8.5s to 25s, the span of the dependency's phases.")

	// The form unpinned, its placeholders shown, passes axe-core too (the
	// page checks see it pinned, as E03-B opens).
	t.Run("axe", func(t *testing.T) {
		axe, err := os.ReadFile(checker(t, "axe-core/axe.min.js"))
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range axeViolations(ctx, t, axe, `document.getElementById("form")`) {
			t.Errorf("axe: %s", v)
		}
	})

	wide := text(ctx, t, `document.documentElement.scrollWidth + " " + document.documentElement.clientWidth`)
	var scroll, client int
	fmt.Sscan(wide, &scroll, &client)
	if scroll > client {
		t.Errorf("the page scrolls sideways at 360 px: %d px of content in %d px", scroll, client)
	}
}
