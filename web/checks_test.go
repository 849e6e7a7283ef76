package web_test

// Every page through the real checkers: axe-core in Chromium (no serious or
// critical accessibility violation) and the Nu HTML Checker (no error).
// make deps installs both from web/checks/package-lock.json (npm ci); vnu
// runs with Java.

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

const checks = "checks/node_modules"

func checker(t *testing.T, file string) string {
	t.Helper()
	p := filepath.Join(checks, file)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("%s is not installed: make deps (npm ci in web/checks)", p)
	}
	return p
}

// axeViolations runs axe-core (its source, axe) in the page on the
// element the expression root gives ("document" for the whole page) and
// returns its serious and critical violations, each as "id (impact):
// help — the first three nodes".
func axeViolations(ctx context.Context, t *testing.T, axe []byte, root string) []string {
	t.Helper()
	out := text(ctx, t, string(axe)+`;(async () => {
		const r = await axe.run(`+root+`, {resultTypes: ["violations"]});
		return JSON.stringify(r.violations.filter(v => v.impact === "serious" || v.impact === "critical")
			.map(v => v.id + " (" + v.impact + "): " + v.help + " — " + v.nodes.slice(0, 3).map(n => n.target.join(" ")).join("; ")));
	})()`)
	var violations []string
	if err := json.Unmarshal([]byte(out), &violations); err != nil {
		t.Fatalf("axe: %v: %s", err, out)
	}
	return violations
}

// pages are the pages the checks visit: every kind the server renders.
func pages(t *testing.T, ctx context.Context, base string) []string {
	id := text(ctx, t, `(async () => {
		const sc = {version: 1, name: "A shared <custom> scenario", workload: {clients: 2, rate: 10, duration: "2s"},
			dependency: {workers: 2, service_time: {kind: "constant", mean: "5ms"}, phases: [{kind: "outage", from: "500ms", to: "1s"}]},
			strategies: [{name: "a", description: "no retry", max_attempts: 1}, {name: "b", max_attempts: 3, attempt_timeout: "100ms"}]};
		const r = await fetch("/api/scenarios", {method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify(sc)});
		return (await r.json()).id;
	})()`)
	// A policy search: the Search section on the page, the frontier in an
	// embed, and the search in the playground.
	search := text(ctx, t, `(async () => {
		const sc = {version: 1, name: "A searched scenario", runs: 2, workload: {clients: 2, rate: 20, duration: "2s"},
			dependency: {workers: 2, service_time: {kind: "constant", mean: "5ms"}, phases: [{kind: "errors", from: "500ms", to: "1s", rate: 0.5}]},
			strategies: [{name: "a", max_attempts: 1}, {name: "b", max_attempts: 3, attempt_timeout: "100ms", backoff: {kind: "exponential", base: "20ms"}}],
			search: {strategy: "b", knobs: [{path: "max_attempts", values: [1, 2, 3]}, {path: "jitter.kind", values: ["none", "full"]}],
				objectives: [{metric: "success_rate", goal: "max"}, {metric: "dependency_calls", goal: "min"}]}};
		const r = await fetch("/api/scenarios", {method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify(sc)});
		return (await r.json()).id;
	})()`)
	// A metastable storm: the comparison page's "What ends the storm?"
	// links and a probe's page. The built-in runaway cascade, cut to 40 s,
	// one seed and two strategies, so that its probe takes a moment.
	runaway := text(ctx, t, `(async () => {
		const sc = await (await fetch("/api/scenarios/runaway-cascade")).json();
		sc.name = "Runaway, short"; sc.runs = 1; sc.workload.duration = "40s"; sc.strategies = sc.strategies.slice(0, 2);
		const r = await fetch("/api/scenarios", {method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify(sc)});
		return (await r.json()).id;
	})()`)
	// A search whose frontier is ties (every point fails alike): its table
	// lists three rows, then one counting the others, which folds them.
	ties := text(ctx, t, `(async () => {
		const sc = await (await fetch("/api/scenarios/layered-retries")).json();
		sc.name = "Layered retries searched"; sc.search = {strategy: "3x3", knobs: [{path: "max_attempts", values: [2, 3, 4, 6]},
			{path: "backoff", values: [{kind: "exponential", base: "100ms", max: "2s"}, {kind: "exponential", base: "1s", max: "10s"}]}],
			objectives: [{metric: "affected_success_rate", goal: "max"}, {metric: "peak_per_100ms", goal: "min"}]};
		const r = await fetch("/api/scenarios", {method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify(sc)});
		return (await r.json()).id;
	})()`)
	return []string{"/s/" + ties, "/?s=" + ties, "/s/" + search, "/embed/" + search + "?picture=frontier", "/?s=" + search, "/", "/scenarios", "/s/e03b-synchronized-recovery", "/s/token-bucket-sweep", "/s/breaker-timeline",
		"/s/" + id, "/s/" + id + "?res=1s", "/embed/" + id, "/embed/e03b-synchronized-recovery?picture=compare&metric=success_rate", "/s/AAAAAAAAAAA",
		// Several dependencies: the per-call groups and the calls figure,
		// on the page, in an embed and in the playground.
		"/s/bulkheads", "/embed/bulkheads?picture=calls", "/?s=bulkheads",
		"/?s=" + runaway, "/s/" + runaway, "/s/" + runaway + "/probe?strategy=textbook"}
}

// probed is the playground of pages' metastable storm, whose textbook
// the checks probe.
func probed(urls []string) string {
	for _, u := range urls {
		if id, ok := strings.CutSuffix(u, "/probe?strategy=textbook"); ok {
			return "/?s=" + strings.TrimPrefix(id, "/s/")
		}
	}
	return ""
}

// probe runs the playground's probe of textbook and waits for what it
// found.
func probe() chromedp.Action[chromedp.Void] {
	return chromedp.Steps(until(`document.querySelector("[data-probe=textbook]") !== null`), chromedp.Click(`[data-probe=textbook]`),
		until(`document.querySelector("[data-testid=probe-summary]") !== null`))
}

func TestPagesPassAxe(t *testing.T) {
	axe, err := os.ReadFile(checker(t, "axe-core/axe.min.js"))
	if err != nil {
		t.Fatal(err)
	}
	ctx, base := setup(t)
	do(t, ctx, chromedp.Navigate(base+"/"), ran(1))
	urls := pages(t, ctx, base)
	for _, u := range urls {
		t.Run(u, func(t *testing.T) {
			do(t, ctx, chromedp.Navigate(base+u))
			if u == "/" || strings.HasPrefix(u, "/?") {
				do(t, ctx, ran(1)) // the playground, with its results drawn
			}
			if u == probed(urls) {
				do(t, ctx, probe()) // with what the probe found
			}
			// A search's folded points, opened.
			text(ctx, t, `String(Array.from(document.querySelectorAll("tr.more details"), d => d.open = true).length)`)
			if strings.HasPrefix(u, "/s/") && !strings.Contains(u, "/probe") {
				// The strategies' Export panels, opened, so that their
				// fields are checked too.
				n := text(ctx, t, `String(Array.from(document.querySelectorAll("details.export"), d => d.open = true).length)`)
				if n == "0" && u != "/s/AAAAAAAAAAA" {
					t.Errorf("no Export panel to check")
				}
			}
			for _, v := range axeViolations(ctx, t, axe, "document") {
				if known := knownAxe[v]; known != "" {
					t.Logf("known, left to the form's owner: %s (%s)", v, known)
					continue
				}
				t.Error(v)
			}
		})
	}
}

// knownAxe are violations found and reported but not fixed here, each
// exactly as axe words it, with why it is let through. It is empty: a
// violation fails the test until it is fixed or listed here with why.
var knownAxe = map[string]string{}

func TestPagesPassTheNuHTMLChecker(t *testing.T) {
	vnu := checker(t, "vnu-jar/build/dist/vnu.jar")
	java, err := exec.LookPath("java")
	if err != nil {
		t.Skip("no java on PATH (make deps installs it)")
	}
	ctx, base := setup(t)
	do(t, ctx, chromedp.Navigate(base+"/"), ran(1))
	dir := t.TempDir()
	var files []string
	save := func(name, body string) {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, p)
	}
	urls := pages(t, ctx, base)
	for i, u := range urls {
		resp, err := http.Get(base + u)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		save(fmt.Sprintf("page%02d.html", i), string(b))
	}
	// The playground as the browser has built it, results and form included.
	save("playground-built.html", "<!DOCTYPE html>\n"+text(ctx, t, `document.documentElement.outerHTML`))
	do(t, ctx, chromedp.Navigate(base+"/?s=bulkheads"), ran(1))
	save("playground-several-built.html", "<!DOCTYPE html>\n"+text(ctx, t, `document.documentElement.outerHTML`))
	do(t, ctx, chromedp.Navigate(base+"/?s="+urls[0][len("/s/"):]), ran(1))
	save("playground-search-built.html", "<!DOCTYPE html>\n"+text(ctx, t, `document.documentElement.outerHTML`))
	do(t, ctx, chromedp.Navigate(base+probed(urls)), ran(1), probe())
	save("playground-probe-built.html", "<!DOCTYPE html>\n"+text(ctx, t, `document.documentElement.outerHTML`))
	cmd := exec.Command(java, append([]string{"-jar", vnu, "--errors-only", "--format", "json"}, files...)...)
	var stderr strings.Builder
	cmd.Stderr = &stderr // vnu writes its report to standard error
	_ = cmd.Run()
	var report struct {
		Messages []struct {
			Type, URL, Message, Extract string
			LastLine                    int
		}
	}
	if err := json.Unmarshal([]byte(stderr.String()), &report); err != nil {
		t.Fatalf("vnu: %v\n%s", err, stderr.String())
	}
	for _, m := range report.Messages {
		t.Errorf("%s line %d: %s: %s (%q)", filepath.Base(m.URL), m.LastLine, m.Type, m.Message, m.Extract)
	}
}
