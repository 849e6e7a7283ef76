//go:build !nosearch

package web_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// probeShown is the text of what the probe found, as the playground and
// the server's probe page show it.
const probeShown = `["probe-summary", "probe-criterion", "probe-baseline", "probe-cost"].map(id => document.querySelector("[data-testid=" + id + "]").textContent).join("\n") + "\n" +
	[...document.querySelectorAll("[data-testid=probe-remedies] tr")].map(r => [...r.children].map(c => c.textContent).join(";")).join("\n")`

// TestPlaygroundProbeMatchesServer runs the probe of runaway-cascade's
// textbook in the playground, in a worker of its own, and compares what it
// shows with the server's probe of the same strategy: the same view, byte
// for byte, and the same text as the probe page.
func TestPlaygroundProbeMatchesServer(t *testing.T) {
	ctx, base := setup(t)
	do(t, ctx, chromedp.Navigate(base+"/?s=runaway-cascade"), ran(1),
		until(`document.querySelector("[data-probe=textbook]") !== null`))
	choices := text(ctx, t, `[...document.querySelectorAll("[data-testid=probe-choices] button")].map(b => b.dataset.probe).join(",")`)
	do(t, ctx, chromedp.Navigate(base+"/s/runaway-cascade"))
	links := text(ctx, t, `[...document.querySelectorAll("[data-testid=probes] a")].map(a => a.textContent).join(",")`)
	if choices != links {
		t.Errorf("the playground offers to probe %q, the page links to the probes of %q", choices, links)
	}
	// Every status the probe shows is recorded: the engine's progress
	// reaches the page before its answer does, in the worker's order.
	do(t, ctx, chromedp.Navigate(base+"/?s=runaway-cascade"), ran(1),
		until(`document.querySelector("[data-probe=textbook]") !== null`),
		until(`(window.probeStatuses = [], new MutationObserver(() => probeStatuses.push(document.querySelector("[data-testid=probe-status]").textContent)).observe(document.querySelector("[data-testid=probe-status]"), {childList: true, characterData: true, subtree: true}), true)`),
		chromedp.Click(`[data-probe=textbook]`),
		until(`document.querySelector("[data-testid=probe-summary]") !== null`))
	status := text(ctx, t, `document.querySelector("[data-testid=probe-status]").textContent`)
	if !strings.HasPrefix(status, "Probed textbook in ") {
		t.Errorf("the probe's status: %q", status)
	}
	if shown := text(ctx, t, `probeStatuses.join("\n")`); !regexp.MustCompile(`Probing textbook: \d+ of at most \d+ simulations`).MatchString(shown) {
		t.Errorf("the probe showed no progress of its simulations:\n%s", shown)
	}
	browser := text(ctx, t, `JSON.stringify(window.retrylabProbeView)`)
	server := text(ctx, t, `(async () => JSON.stringify((await (await fetch("/api/scenarios/runaway-cascade/probe?strategy=textbook")).json()).view))()`)
	if browser != server {
		t.Errorf("the playground's probe view differs from the server's:\n%s\n%s", browser, server)
	}
	summary := text(ctx, t, `document.querySelector("[data-testid=probe-summary]").textContent`)
	inBrowser := text(ctx, t, probeShown)
	do(t, ctx, chromedp.Navigate(base+"/s/runaway-cascade/probe?strategy=textbook"))
	if onPage := text(ctx, t, probeShown); inBrowser != onPage {
		t.Errorf("the playground shows\n%s\n\nthe probe page shows\n%s", inBrowser, onPage)
	}
	if !strings.Contains(summary, "textbook is unstable without a trigger") || !strings.Contains(summary, "Keeping it out of overload needs") {
		t.Errorf("the summary: %q", summary)
	}
}

// probeState is the probe box's state: status|Cancel hidden|result
// elements|the strategy being probed.
const probeState = `[document.querySelector("[data-testid=probe-status]").textContent, document.querySelector("[data-testid=probe-cancel]").hidden,
	document.querySelector("[data-testid=probe-result]").children.length, document.getElementById("playground").dataset.probing ?? "none"].join("|")`

// probeUnderWay clicks the probe of strategy name and waits until its
// worker is at work.
func probeUnderWay(name string) chromedp.Action[chromedp.Void] {
	return chromedp.Steps(until(`document.querySelector("[data-probe=`+name+`]") !== null`),
		chromedp.Click(`[data-probe=`+name+`]`),
		until(`document.getElementById("playground").dataset.probing === "`+name+`"`))
}

// TestPlaygroundProbeCancels: Cancel ends the probe's worker; nothing it
// found is shown, and the probe can be run again.
func TestPlaygroundProbeCancels(t *testing.T) {
	ctx, base := setup(t)
	do(t, ctx, chromedp.Navigate(base+"/?s=runaway-cascade"), ran(1), probeUnderWay("textbook"))
	// In one step, so that the probe cannot end between the check and the click.
	got := text(ctx, t, `(() => {
		if (document.querySelector("[data-testid=probe-summary]")) return "the probe ended before Cancel";
		document.querySelector("[data-testid=probe-cancel]").click();
		return "";
	})()`)
	if got != "" {
		t.Fatal(got)
	}
	st := text(ctx, t, probeState)
	if st != "Cancelled: the probe was stopped before it found anything.|true|0|none" {
		t.Errorf("after Cancel: %q", st)
	}
	do(t, ctx, probeUnderWay("textbook"))
}

// TestPlaygroundEditStopsProbe: an edit of the scenario stops its probe,
// whose answer would be stale, and offers the probes of the new one.
func TestPlaygroundEditStopsProbe(t *testing.T) {
	ctx, base := setup(t)
	do(t, ctx, chromedp.Navigate(base+"/?s=runaway-cascade"), ran(1), probeUnderWay("textbook"))
	got := text(ctx, t, `(() => {
		if (document.querySelector("[data-testid=probe-summary]")) return "the probe ended before the edit";
		const f = document.querySelector('[data-path="strategies[0].max_attempts"]');
		f.value = "2";
		f.dispatchEvent(new Event("input", {bubbles: true}));
		return "";
	})()`)
	if got != "" {
		t.Fatal(got)
	}
	st := text(ctx, t, probeState)
	if st != "Stopped the probe of textbook: the scenario changed. Probe it again once the new results are in.|true|0|none" {
		t.Errorf("after the edit: %q", st)
	}
	// The edited scenario's run offers its probes again.
	do(t, ctx, ran(2), until(`document.querySelector("[data-probe=textbook]") !== null`))
	if n := text(ctx, t, `String(document.querySelector("[data-testid=probe-result]").children.length)`); n != "0" {
		t.Errorf("the stopped probe's result is shown after the edit's run (%s elements)", n)
	}
}

// TestProbeBridgeRejects calls the engine's probe in a worker as the page
// does: arguments of the wrong kind and a probe the engine refuses reject
// the Promise with the reason; the check of a probe that would run
// answers without running it.
func TestProbeBridgeRejects(t *testing.T) {
	ctx, base := setup(t)
	do(t, ctx, chromedp.Navigate(base+"/?s=runaway-cascade"), ran(1))
	got := text(ctx, t, `(async () => {
		const root = document.getElementById("playground");
		const w = new Worker(root.dataset.worker);
		let next = 0;
		const call = (msg) => new Promise((resolve) => {
			const id = ++next;
			const on = (e) => { if (e.data.id === id) { w.removeEventListener("message", on); resolve(e.data.error !== undefined ? "error: " + e.data.error : "value: " + e.data.value); } };
			w.addEventListener("message", on);
			w.postMessage({id, ...msg});
		});
		await call({op: "init", exec: root.dataset.exec, wasm: root.dataset.wasm});
		const sc = document.getElementById("json").value;
		const swept = JSON.stringify({...JSON.parse(sc), sweep: {path: "workload.rate_per_client", values: [0.9, 1]}});
		const out = [
			await call({op: "probe", args: [1, "textbook", 0]}),
			await call({op: "probe", args: [sc, 2, 0]}),
			await call({op: "probe", args: [sc, "textbook", "many"]}),
			await call({op: "probe", args: [sc, "nobody", 0, true]}),
			await call({op: "probe", args: [swept, "textbook", 0, true]}),
			await call({op: "probe", args: [sc, "textbook", 1000, true]}),
			await call({op: "probe", args: [sc, "textbook", 0, true]}),
		];
		w.terminate();
		return out.join("\n");
	})()`)
	want := []string{
		"error: the scenario must be a string",
		"error: the strategy must be a string",
		"error: the event limit must be a number, 0 or more",
		`error: "nobody" is not a strategy of the scenario`,
		"error: the scenario sweeps workload.rate_per_client; a probe runs a scenario without a sweep",
		"error: ", // over the limit: the engine's reason
		"value: {}",
	}
	lines := strings.Split(got, "\n")
	if len(lines) != len(want) {
		t.Fatalf("answers:\n%s", got)
	}
	for i, w := range want {
		if !strings.HasPrefix(lines[i], w) || (w == "error: " && !strings.Contains(lines[i], "over the limit of")) {
			t.Errorf("answer %d: %q, want %q…", i+1, lines[i], w)
		}
	}
}
