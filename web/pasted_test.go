package web_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestPlaygroundConfigPastedAsAScenario (#29): JSON that does not parse
// is told where, by line and column, as the engine says it; an Envoy
// route (YAML) or a gRPC service config (JSON) pasted into the scenario
// box is told it looks like that configuration, with a button that moves
// it into the Import panel in its format, from which it imports.
func TestPlaygroundConfigPastedAsAScenario(t *testing.T) {
	ctx, base := setup(t)
	do(t, ctx, chromedp.Navigate(base+"/"), ran(1))
	errorsText := `[...document.querySelectorAll("#errors li")].map(li => li.textContent).join("\n")`

	// The browser's own message comes first and may name the line too
	// (Chromium: "(line 2 column 16)"): wait for the engine's, which
	// replaces it.
	do(t, ctx, chromedp.SetValue(`#json`, "{\n  \"version\": 1,,\n}"),
		until(`[...document.querySelectorAll("#errors li")].some(li => li.textContent.includes("line 2, column"))`))
	if got := text(ctx, t, errorsText); !strings.Contains(got, "line 2, column 16") {
		t.Errorf("a syntax error is told %q, want its line and column", got)
	}
	if got := text(ctx, t, `String(document.getElementById("import-offer") !== null)`); got != "false" {
		t.Error("a scenario with a syntax error is offered Import")
	}

	for _, c := range []struct{ format, config, label string }{
		{"envoy", envoyRoute, "an Envoy route and cluster (YAML)"},
		{"grpc", grpcConfig, "a gRPC service config (JSON)"},
	} {
		do(t, ctx, chromedp.SetValue(`#json`, c.config), until(`document.getElementById("import-offer") !== null`))
		if got := text(ctx, t, `document.getElementById("import-offer").textContent`); !strings.HasPrefix(got, "This looks like "+c.label+", not a RetryLab scenario") {
			t.Errorf("%s pasted as a scenario: the offer says %q", c.format, got)
		}
		axeCheck(t, ctx)
		runs := mustAtoi(t, text(ctx, t, `document.getElementById("playground").dataset.ran`))
		do(t, ctx, chromedp.Click(`[data-testid=import-offer-go]`), until(`document.getElementById("import-box").open && !document.getElementById("import-go").disabled`))
		if got := text(ctx, t, `document.getElementById("import-format").value + "|" + (document.getElementById("import-text").value === `+"`"+strings.ReplaceAll(c.config, "`", "")+"`"+`) + "|" + (document.getElementById("import-offer") === null)`); got != c.format+"|true|true" {
			t.Errorf("%s: after Import it (format, text moved, offer gone): %s", c.format, got)
		}
		// The scenario box has the scenario of the results back; Import
		// adds the configuration's policies to it.
		if got := text(ctx, t, `JSON.parse(document.getElementById("json").value).strategies.map(s => s.name).join(",")`); !strings.HasPrefix(got, "A,B,C,D") {
			t.Errorf("%s: the scenario box holds strategies %s, want E03-B's back", c.format, got)
		}
		do(t, ctx, chromedp.Click(`#import-go`), until(`document.querySelectorAll("#import-errors li").length > 0 || Number(document.getElementById("playground").dataset.ran) > `+strconv.Itoa(runs)))
		if got := text(ctx, t, `[...document.querySelectorAll("#import-errors li")].map(li => li.textContent).join("\n")`); got != "" {
			t.Errorf("%s: the import failed: %s", c.format, got)
		}
	}
}

// TestPlaygroundTitleFollowsTheName (#29): an edited built-in is titled
// "(edited)"; renamed in the JSON, the page's title is the new name.
func TestPlaygroundTitleFollowsTheName(t *testing.T) {
	ctx, base := setup(t)
	do(t, ctx, chromedp.Navigate(base+"/?s=breaker-timeline"), ran(1), setField(`strategies[0].max_attempts`, "2"), ran(2))
	if got := text(ctx, t, `document.getElementById("pg-title").textContent`); got != "Circuit breaker timeline (edited)" {
		t.Errorf("after an edit, the title is %q", got)
	}
	text(ctx, t, `(() => { const j = document.getElementById("json"); j.value = j.value.replace('"name": "Circuit breaker timeline (edited)"', '"name": "Checkout under a breaker"'); j.dispatchEvent(new Event("input")); return ""; })()`)
	do(t, ctx, ran(3))
	if got := text(ctx, t, `document.getElementById("pg-title").textContent`); got != "Checkout under a breaker" {
		t.Errorf("renamed in the JSON, the title is %q", got)
	}
}

// TestPlaygroundSaysWhatRunRefuses (#29): an edit over the limit Run
// keeps to is told at once that it is too costly, with the engine's
// reason, not "press Run" (which Run would then refuse); one over the
// auto-run limit only waits for Run.
func TestPlaygroundSaysWhatRunRefuses(t *testing.T) {
	ctx, base := setup(t)
	do(t, ctx, chromedp.Navigate(base+"/"), ran(1))
	edit := func(runs, rate string) {
		text(ctx, t, `(() => { const j = document.getElementById("json"); const d = JSON.parse(j.value); d.runs = `+runs+`; d.workload.rate = `+rate+`; j.value = JSON.stringify(d, null, 2); j.dispatchEvent(new Event("input")); return ""; })()`)
	}
	edit("1000", "5000")
	do(t, ctx, until(`document.getElementById("status").textContent.startsWith("Too costly")`))
	if got := text(ctx, t, `document.getElementById("status").textContent`); !strings.Contains(got, "over the limit of 200.0 million") || strings.Contains(got, "press Run") {
		t.Errorf("over Run's limit, the status says %q", got)
	}
	edit("100", "950")
	do(t, ctx, until(`document.getElementById("status").textContent.startsWith("Changed: press Run")`))
}

// TestBackUndoesChoosingABuiltin (#29): after choosing a built-in in the
// picker, Back shows the one before, in the playground.
func TestBackUndoesChoosingABuiltin(t *testing.T) {
	ctx, base := setup(t)
	do(t, ctx, chromedp.Navigate(base+"/?s=breaker-timeline"), ran(1),
		chromedp.SetValue(`#builtin`, "layered-retries"), ran(2))
	if got := text(ctx, t, `location.pathname + location.search + "|" + document.getElementById("pg-title").textContent`); !strings.HasPrefix(got, "/?s=layered-retries|") {
		t.Fatalf("after choosing layered-retries: %s", got)
	}
	do(t, ctx, chromedp.NavigateBack(), ran(3))
	if got := text(ctx, t, `location.pathname + location.search + "|" + document.getElementById("builtin").value + "|" + JSON.parse(document.getElementById("json").value).name`); got != "/?s=breaker-timeline|breaker-timeline|Circuit breaker timeline" {
		t.Errorf("after Back: %s", got)
	}
}
