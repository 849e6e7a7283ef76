package web_test

// Browser tests: the real server (memory store) on loopback, driven from Go
// through headless Chromium with chromedp. make test installs Debian's
// chromium when it is missing and builds engine.wasm first; screenshots of
// failures go to testdata/screenshots (or $SCREENSHOTS).

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/retrylab/retrylab/server"
	engineprobe "github.com/retrylab/retrylab/shared/engine/probe"
	"github.com/retrylab/retrylab/web"
)

func browserPath(t testing.TB) string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("no Chromium on PATH (make deps installs Debian's chromium)")
	return ""
}

// browserOptions are the flags of every test's and benchmark's headless
// Chromium at path, with a new profile in dir.
func browserOptions(path, dir string) []chromedp.ExecAllocatorOption {
	return []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(path),
		chromedp.Flag("headless", true), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.Flag("disable-dev-shm-usage", true), chromedp.NoFirstRun,
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true), chromedp.UserDataDir(dir),
		chromedp.WindowSize(1280, 1000),
	}
}

// setup starts the app and a browser tab; it returns the tab's context and
// the app's base URL.
func setup(t testing.TB) (context.Context, string) {
	t.Helper()
	return setupWith(t, server.Config{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
}

// setupWith is setup with the server configured by cfg, under slowMachine's
// time limits.
func setupWith(t testing.TB, cfg server.Config) (context.Context, string) {
	t.Helper()
	cfg.Probe = engineprobe.Run // as retrylab serve runs it
	srv, err := server.New(slowMachine(cfg))
	if err != nil {
		t.Fatal(err)
	}
	return setupHandler(t, srv)
}

// slowMachine gives cfg run and request time limits longer than a test
// lasts, where it sets none. The server's defaults (10 s a run, 20 s a
// probe or a request) are for its own machine; on a loaded 2-core one the
// server's probe of runaway-cascade, 7 s when quiet, took over a minute.
func slowMachine(cfg server.Config) server.Config {
	if cfg.RunTimeout == 0 {
		cfg.RunTimeout = time.Hour
	}
	if cfg.RequestTimeout == 0 {
		cfg.RequestTimeout = time.Hour
	}
	return cfg
}

// setupHandler is setup with the app served by h.
func setupHandler(t testing.TB, h http.Handler) (context.Context, string) {
	t.Helper()
	if testing.Short() {
		t.Skip("browser tests are slow")
	}
	if _, err := web.Static.Open("static/engine.wasm"); err != nil {
		t.Skip("web/static/engine.wasm is not built: run make wasm (make test does)")
	}
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)

	actx, cancel := chromedp.NewExecAllocator(context.Background(), browserOptions(browserPath(t), t.TempDir())...)
	t.Cleanup(cancel)
	tab, cancel := chromedp.NewContext(actx)
	t.Cleanup(cancel)
	// The browser starts on the tab's own context, which outlives ctx: a
	// test that ran out of time still gets its screenshot.
	if err := chromedp.Do(tab); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(tab, 5*time.Minute) // a bound for a hung browser, not a speed test
	t.Cleanup(cancel)
	var logs []string
	chromedp.Listen(tab, func(ev any) {
		switch ev := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			var parts []string
			for _, a := range ev.Args {
				parts = append(parts, string(a.Value))
			}
			logs = append(logs, fmt.Sprintf("console.%s %s", ev.Type, strings.Join(parts, " ")))
		case *runtime.EventExceptionThrown:
			logs = append(logs, "exception: "+ev.ExceptionDetails.Text)
		}
	})
	t.Cleanup(func() {
		if t.Failed() {
			screenshot(t, tab)
			for _, l := range logs {
				t.Log(l)
			}
		}
	})
	return ctx, ts.URL
}

// screenshot saves the tab as a PNG named after the test.
func screenshot(t testing.TB, ctx context.Context) {
	dir := os.Getenv("SCREENSHOTS")
	if dir == "" {
		dir = filepath.Join("testdata", "screenshots")
	}
	sctx, cancel := context.WithTimeout(ctx, time.Minute) // a bound for a hung browser: a loaded one is slow
	defer cancel()
	png, err := chromedp.Run(sctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Logf("no screenshot: %v", err)
		return
	}
	_ = os.MkdirAll(dir, 0o755)
	name := filepath.Join(dir, strings.ReplaceAll(t.Name(), "/", "_")+".png")
	if err := os.WriteFile(name, png, 0o644); err == nil {
		t.Logf("screenshot: %s", name)
	}
}

// ran waits until the playground has finished n runs.
func ran(n int) chromedp.Action[chromedp.Void] {
	return until(fmt.Sprintf(`Number(document.getElementById("playground").dataset.ran || 0) >= %d`, n))
}

// setField types a value into the form field for a path, as a user would:
// the value, then its input and change events, in one step. (chromedp's
// SetValue sends both events itself; an input event of the test's own
// after it, a round trip later, would be a second edit, and a second run
// when the two came more than the playground's 250 ms apart.)
func setField(path, value string) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
		_, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(() => {
			const f = document.querySelector('[data-path="`+path+`"]');
			if (!f) throw new Error("no field for `+path+`");
			f.value = `+strconv.Quote(value)+`;
			f.dispatchEvent(new Event("input", {bubbles: true}));
			return f.dispatchEvent(new Event("change", {bubbles: true}));
		})()`))
		return err
	})
}

// edits waits for the form's edits under way to be made (the page makes
// them on a worker, view.Edit) and shown.
func edits() chromedp.Action[chromedp.Void] {
	return until(`(document.getElementById("playground").dataset.editing || "0") === "0"`)
}

// until waits for a JavaScript condition, as long as the test's context
// lasts: a loaded machine is slow, not wrong. A poll whose document the
// page replaced meanwhile (a navigation's new document, whose execution
// context the poll did not start in) is polled again in the new one.
func until(cond string) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
		for {
			_, err := chromedp.Run(ctx, chromedp.Poll[bool](cond, chromedp.WithPollingTimeout(0)))
			if err == nil {
				return nil
			}
			if ctx.Err() != nil || !contextReplaced(err) {
				return fmt.Errorf("waiting for %s: %w", cond, err)
			}
		}
	})
}

// contextReplaced reports whether err is Chromium saying that the
// JavaScript context an evaluation ran in is gone: its document was
// replaced while it ran.
func contextReplaced(err error) bool {
	msg := err.Error()
	return strings.Contains(msg, "Cannot find context with specified id") || strings.Contains(msg, "Execution context was destroyed")
}

func do(t testing.TB, ctx context.Context, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(ctx, steps...); err != nil {
		t.Fatal(err)
	}
}

// text evaluates a JavaScript expression that gives a string.
func text(ctx context.Context, t testing.TB, js string) string {
	t.Helper()
	s, err := chromedp.Run(ctx, chromedp.Evaluate[string](js, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestPlaygroundRunsABuiltinOnOpen(t *testing.T) {
	ctx, base := setup(t)
	do(t, ctx, chromedp.Navigate(base+"/"), ran(1))
	t.Logf("first result %s ms after navigation began", text(ctx, t, `String(Math.round(window.retrylabFirstResultMs))`))
	status := text(ctx, t, `document.querySelector("[data-testid=status]").textContent`)
	if !strings.Contains(status, "Ran in") {
		t.Errorf("status %q, want the run time", status)
	}
	cols := text(ctx, t, `[...document.querySelectorAll("[data-testid=results] thead th")].map(th => th.textContent).join(",")`)
	if cols != "metric,A,B,C,D" {
		t.Errorf("table columns %q, want E03-B's four strategies", cols)
	}
	// Five charts, each loaded and drawn (a broken image has no natural width).
	do(t, ctx, until(`[...document.querySelectorAll("[data-testid=charts] img")].every(i => i.complete)`))
	charts := text(ctx, t, `[...document.querySelectorAll("[data-testid=charts] img")].map(i => i.naturalWidth > 0 ? "ok" : "broken").join(",")`)
	if charts != "ok,ok,ok,ok,ok" {
		t.Errorf("charts: %s, want five drawn", charts)
	}
}

func TestEditingRerunsAndTheTableChanges(t *testing.T) {
	ctx, base := setup(t)
	do(t, ctx, chromedp.Navigate(base+"/?s=layered-retries"), ran(1))
	amp := `document.querySelector("[data-metric=amplification] td:nth-child(2)").textContent`
	before := text(ctx, t, amp)
	do(t, ctx, setField(`strategies[0].max_attempts`, "5"), ran(2))
	after := text(ctx, t, amp)
	if before != "27" || after != "45" {
		t.Errorf("amplification %s then %s, want 27 then 45 (5 × 3 × 3)", before, after)
	}
	if js := text(ctx, t, `document.getElementById("json").value`); !strings.Contains(js, `"max_attempts": 5`) {
		t.Errorf("the JSON did not follow the form")
	}
}

func TestBrokenJSONShowsTheErrorAtTheField(t *testing.T) {
	ctx, base := setup(t)
	do(t, ctx, chromedp.Navigate(base+"/?s=layered-retries"), ran(1))
	text(ctx, t, `(() => { const j = document.getElementById("json"); j.value = j.value.replace('"max_attempts": 3', '"max_attempts": 101'); j.dispatchEvent(new Event("input")); return ""; })()`)
	do(t, ctx, until(`document.querySelector('[data-path="strategies[0].max_attempts"]').getAttribute("aria-invalid") === "true"`))
	msg := text(ctx, t, `document.getElementById(document.querySelector('[data-path="strategies[0].max_attempts"]').id + "-error").textContent`)
	if !strings.Contains(msg, "101 is out of range 0..100") {
		t.Errorf("message beside the field: %q", msg)
	}
}

func TestShareOpensTheSameScenarioElsewhere(t *testing.T) {
	ctx, base := setup(t)
	do(t, ctx, chromedp.Navigate(base+"/?s=breaker-timeline"), ran(1))
	// An edited scenario is shared through the API (an unchanged built-in
	// would be shared as its own page).
	do(t, ctx, setField(`strategies[0].max_attempts`, "2"), ran(2))
	table := `[...document.querySelectorAll("[data-testid=results] tbody tr")].map(r => r.textContent).join("|")`
	before := text(ctx, t, table)
	do(t, ctx, chromedp.Click(`[data-testid=share]`), until(`document.getElementById("share-url").value.includes("/s/")`))
	url := text(ctx, t, `document.getElementById("share-url").value`)
	if strings.Contains(url, "breaker-timeline") {
		t.Fatalf("an edited built-in was shared as the built-in: %s", url)
	}
	// The shared page, rendered by the server.
	do(t, ctx, chromedp.Navigate(url))
	title := text(ctx, t, `document.querySelector("[data-testid=title]").textContent`)
	if title != "Circuit breaker timeline (edited)" {
		t.Errorf("shared page title %q", title)
	}
	// Open in playground, in a fresh tab: same scenario, same numbers.
	tab, cancel := chromedp.NewContext(ctx)
	defer cancel()
	href := text(ctx, t, `document.querySelector("[data-testid=open-playground]").getAttribute("href")`)
	do(t, tab, chromedp.Navigate(base+href), ran(1))
	if after := text(tab, t, table); after != before {
		t.Errorf("the shared scenario's table differs:\n%s\n%s", before, after)
	}
}

func TestGalleryOpensABuiltin(t *testing.T) {
	ctx, base := setup(t)
	do(t, ctx, chromedp.Navigate(base+"/scenarios"), chromedp.Click(`[data-testid=gallery-item] h2 a`),
		chromedp.WaitVisible(`[data-testid=title]`))
	title := text(ctx, t, `document.querySelector("[data-testid=title]").textContent`)
	if !strings.HasPrefix(title, "E03-B") {
		t.Errorf("opened %q, want the first built-in", title)
	}
}

func TestPhoneWidth(t *testing.T) {
	ctx, base := setup(t)
	do(t, ctx, chromedp.EmulateViewport(390, 844), chromedp.Navigate(base+"/"), ran(1))
	// Nothing but the results table (which scrolls in its own box) is wider
	// than the screen.
	wide := text(ctx, t, `document.documentElement.scrollWidth + " " + document.documentElement.clientWidth`)
	var scroll, client int
	fmt.Sscan(wide, &scroll, &client)
	if scroll > client || client > 390 {
		t.Errorf("the page scrolls sideways at a 390 px screen: %d px of content in %d px", scroll, client)
	}
}

// TestBrowserMatchesServer compares the result the engine computes in the
// browser with the server's for the same scenario.
func TestBrowserMatchesServer(t *testing.T) {
	ctx, base := setup(t)
	do(t, ctx, chromedp.Navigate(base+"/?s=e03b-synchronized-recovery"), ran(1))
	server := text(ctx, t, `(async () => {
		const r = await fetch("/api/scenarios/e03b-synchronized-recovery/result");
		return JSON.stringify(await r.json());
	})()`)
	browser := text(ctx, t, `window.retrylabLast`)
	if browser == "" || browser != server {
		t.Errorf("the browser's result (%d bytes) differs from the server's (%d bytes)", len(browser), len(server))
	}
	// The whole view: the same verdict, legend, figures and table text.
	shown := func(table string) string {
		return `[document.querySelector("[data-testid=verdict]").textContent.trim(),
			document.querySelector("[data-testid=strategy-legend]").innerText.replace(/\s+/g, " ").trim(),
			[...document.querySelectorAll("figure.chart img")].map(i => i.alt).join("|"),
			[...document.querySelectorAll("[data-testid=` + table + `] tr")].map(r => [...r.children].map(c => c.innerText.replace(/\s+/g, " ").trim()).join(";")).join("\n")].join("\n---\n")`
	}
	inBrowser := text(ctx, t, shown("results"))
	do(t, ctx, chromedp.Navigate(base+"/s/e03b-synchronized-recovery"))
	onPage := text(ctx, t, shown("comparison"))
	if inBrowser != onPage {
		t.Errorf("the playground shows\n%s\n\nthe server's page shows\n%s", inBrowser, onPage)
	}
}

func TestShareFallsBackToALinkWhenNoServerAnswers(t *testing.T) {
	ctx, base := setup(t)
	do(t, ctx, chromedp.Navigate(base+"/?s=sdk-double-retry"), ran(1), setField(`strategies[0].max_attempts`, "4"), ran(2))
	// The playground served as static files: no API to share through.
	text(ctx, t, `(() => { window.fetch = () => Promise.reject(new TypeError("no server")); return ""; })()`)
	do(t, ctx, chromedp.Click(`[data-testid=share]`), until(`document.getElementById("share-url").value.includes("#z=")`))
	link := text(ctx, t, `document.getElementById("share-url").value`)
	want := text(ctx, t, `JSON.stringify(JSON.parse(document.getElementById("json").value))`)
	tab, cancel := chromedp.NewContext(ctx)
	defer cancel()
	do(t, tab, chromedp.Navigate(link), ran(1))
	if got := text(tab, t, `JSON.stringify(JSON.parse(document.getElementById("json").value))`); got != want {
		t.Errorf("the link opened another scenario:\n%s\n%s", got, want)
	}
}

// TestFormEditsPhasesAndLayers edits the timeline and the layers from the
// form; the JSON follows and the results re-run.
func TestFormEditsPhasesAndLayers(t *testing.T) {
	ctx, base := setup(t)
	do(t, ctx, chromedp.Navigate(base+"/?s=layered-retries"), ran(1))
	amp := `document.querySelector("[data-metric=amplification] td:nth-child(2)").textContent`
	if a := text(ctx, t, amp); a != "27" {
		t.Fatalf("amplification %s, want 27", a)
	}
	do(t, ctx, chromedp.Click(`[data-action=layer-add][data-index="0"]`), ran(2))
	if a := text(ctx, t, amp); a != "81" {
		t.Errorf("amplification %s after adding a third layer of 3 attempts, want 81", a)
	}
	do(t, ctx, chromedp.Click(`[data-action=layer-remove][data-index="0"][data-layer="2"]`), ran(3))
	if a := text(ctx, t, amp); a != "27" {
		t.Errorf("amplification %s after removing it, want 27", a)
	}

	phases := `String((JSON.parse(document.getElementById("json").value).dependency.phases || []).length)`
	before := text(ctx, t, phases)
	do(t, ctx, chromedp.Click(`[data-action=phase-add]`), ran(4))
	n := text(ctx, t, phases)
	if n == before {
		t.Fatalf("adding a phase left %s phases", n)
	}
	last := `dependency.phases[` + fmt.Sprint(mustAtoi(t, n)-1) + `].`
	do(t, ctx, setField(last+"kind", "capacity"), ran(5), setField(last+"workers", "2"), ran(6))
	ph := text(ctx, t, `JSON.stringify(JSON.parse(document.getElementById("json").value).dependency.phases.at(-1))`)
	if !strings.Contains(ph, `"kind":"capacity"`) || !strings.Contains(ph, `"workers":2`) || strings.Contains(ph, `"status"`) {
		t.Errorf("the new phase is %s, want a capacity phase of 2 workers without a status", ph)
	}
	do(t, ctx, chromedp.Click(`[data-action=phase-remove][data-index="`+fmt.Sprint(mustAtoi(t, n)-1)+`"]`), ran(7))
	if after := text(ctx, t, phases); after != before {
		t.Errorf("%s phases after removing the new one, want %s", after, before)
	}
}

func mustAtoi(t *testing.T, s string) int {
	t.Helper()
	var n int
	if _, err := fmt.Sscan(s, &n); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestFormEditsNetworkDelay(t *testing.T) {
	ctx, base := setup(t)
	do(t, ctx, chromedp.Navigate(base+"/?s=layered-retries"), ran(1))
	// A latency that is 0 for every strategy has no row.
	lat := `document.querySelector("[data-metric=latency_max_ms] td:nth-child(2)")?.textContent || "no row"`
	before := text(ctx, t, lat)
	options := text(ctx, t, `[...document.querySelector('[data-path="dependency.network.request.kind"]').options].map(o => o.value).join(",")`)
	if options != ",constant,normal,lognormal" {
		t.Errorf("request leg kinds %q, want the engine's delay kinds", options)
	}
	do(t, ctx, setField("dependency.network.request.kind", "constant"), ran(2), setField("dependency.network.request.mean", "10ms"), ran(3))
	net := text(ctx, t, `JSON.stringify(JSON.parse(document.getElementById("json").value).dependency.network)`)
	if net != `{"request":{"kind":"constant","mean":"10ms"}}` {
		t.Errorf("network %s, want the request leg as typed", net)
	}
	after := text(ctx, t, lat)
	t.Logf("latency max %s, then %s ms", before, after)
	if after == before || after == "no row" {
		t.Errorf("latency max %q before and %q after 10 ms per request leg", before, after)
	}
}

// TestPlaygroundShowsSeveralDependencies runs a built-in whose plan calls
// two dependencies: the table has a group per plan call and the calls
// figure is drawn, as on the server's page of the same built-in.
func TestPlaygroundShowsSeveralDependencies(t *testing.T) {
	ctx, base := setup(t)
	do(t, ctx, chromedp.Navigate(base+"/?s=bulkheads"), ran(1))
	groups := text(ctx, t, `[...document.querySelectorAll("[data-testid=results] tr.group th")].map(th => th.textContent).join("|")`)
	for _, want := range []string{"|Calls to catalog|", "|Calls to payment|"} {
		if !strings.Contains(groups, want) {
			t.Errorf("table groups %q lack %q", groups, want)
		}
	}
	rows := text(ctx, t, `String(document.querySelectorAll("[data-testid=results] tbody").length) + " " +
		[...document.querySelectorAll("[data-testid=results] tbody")].filter(b => b.querySelector("tr.group th").textContent === "Calls to payment")
			.map(b => [...b.querySelectorAll("tr[data-metric]")].map(r => r.dataset.metric).join(",")).join("")`)
	if !strings.Contains(rows, "success_rate") || !strings.Contains(rows, "bulkhead_rejected") {
		t.Errorf("calls to payment rows: %q, want its success rate and bulkhead refusals", rows)
	}
	do(t, ctx, until(`[...document.querySelectorAll("[data-testid=charts] img")].every(i => i.complete)`))
	calls := text(ctx, t, `(() => { const i = document.querySelector("[data-testid=charts] img[data-chart=calls]");
		return i ? (i.naturalWidth > 0 ? "drawn" : "broken") + " " + i.alt : "missing"; })()`)
	if !strings.HasPrefix(calls, "drawn Attempts reaching each plan call's dependency over time, one line per call (catalog and payment)") {
		t.Errorf("calls figure: %q", calls)
	}
	// The playground and the server's page show the same view.
	shown := func(table string) string {
		return `[document.querySelector("[data-testid=verdict]").textContent.trim(),
			[...document.querySelectorAll("figure.chart img")].map(i => i.alt).join("|"),
			[...document.querySelectorAll("[data-testid=` + table + `] tr")].map(r => [...r.children].map(c => c.innerText.replace(/\s+/g, " ").trim()).join(";")).join("\n")].join("\n---\n")`
	}
	inBrowser := text(ctx, t, shown("results"))
	do(t, ctx, chromedp.Navigate(base+"/s/bulkheads"))
	if onPage := text(ctx, t, shown("comparison")); inBrowser != onPage {
		t.Errorf("the playground shows\n%s\n\nthe server's page shows\n%s", inBrowser, onPage)
	}
}
