package web_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"go.yaml.in/yaml/v3"

	"github.com/retrylab/retrylab/server"
	"github.com/retrylab/retrylab/web"
)

// grpcConfig is a gRPC service config as a user has it: one method config
// for two services, with a retry policy, and the channel's retry
// throttling.
const grpcConfig = `{
  "methodConfig": [{
    "name": [{"service": "shop.Cart"}, {"service": "shop.Orders"}],
    "timeout": "2s",
    "retryPolicy": {
      "maxAttempts": 4,
      "initialBackoff": "0.1s",
      "maxBackoff": "1s",
      "backoffMultiplier": 2,
      "retryableStatusCodes": ["UNAVAILABLE"]
    }
  }],
  "retryThrottling": {"maxTokens": 10, "tokenRatio": 0.1}
}`

// TestPlaygroundImportsAndExportsAPolicy: a new user opens the playground,
// opens the Import panel (only then is convert.wasm fetched), pastes a gRPC
// service config with a mistake and sees the error naming its path, fixes
// it, imports it and sees its strategy in the results table beside the
// built-in's; then exports it as Polly's appsettings JSON.
func TestPlaygroundImportsAndExportsAPolicy(t *testing.T) {
	ctx, base := setup(t)
	do(t, ctx, chromedp.Navigate(base+"/"), ran(1))
	fetched := `performance.getEntriesByType("resource").some(r => r.name.includes("/static/convert.")) ? "fetched" : "not fetched"`
	if got := text(ctx, t, fetched); got != "not fetched" {
		t.Fatalf("convert.wasm was %s before the Import panel was opened", got)
	}
	opened := time.Now()
	do(t, ctx, chromedp.Click(`#import-box summary`),
		until(`!document.getElementById("import-go").disabled`))
	t.Logf("the converters were ready %v after the panel was opened (first visit)", time.Since(opened).Round(time.Millisecond))
	if got := text(ctx, t, fetched); got != "fetched" {
		t.Errorf("convert.wasm was %s once the Import panel was opened", got)
	}
	if got := text(ctx, t, `[...document.querySelectorAll("#import-format option")].map(o => o.value + (o.disabled ? "-" : "")).join(",")`); got != "detect,grpc,envoy,istio,linkerd,resilience4j,polly,aws" {
		t.Errorf("import formats %q, want every format Import reads, enabled", got)
	}
	if got := text(ctx, t, `document.querySelector("#export-format option[value=resilience4j-java]")?.textContent ?? "missing"`); got != "resilience4j (Java)" {
		t.Errorf("the resilience4j-java export is offered as %q, want its label from Go, resilience4j (Java)", got)
	}

	bad := strings.Replace(grpcConfig, `"0.1s"`, `"fast"`, 1)
	do(t, ctx, chromedp.SetValue(`#import-format`, "grpc"), chromedp.SetValue(`#import-text`, bad),
		chromedp.Click(`#import-go`), until(`document.querySelectorAll("#import-errors li").length > 0`))
	if msg := text(ctx, t, `document.getElementById("import-errors").textContent`); !strings.Contains(msg, "methodConfig[0].retryPolicy.initialBackoff") {
		t.Errorf("the error %q does not name the path of the bad value", msg)
	}
	if st := text(ctx, t, `document.querySelector("[data-testid=status]").textContent`); !strings.HasPrefix(st, "Nothing was imported") {
		t.Errorf("status %q after a failed import, want it to say nothing was imported", st)
	}

	do(t, ctx, chromedp.SetValue(`#import-text`, grpcConfig), chromedp.Click(`#import-go`), ran(2),
		until(`document.querySelectorAll("#import-errors li").length === 0`))
	// The panel comes before the form, and says what was imported.
	if got := text(ctx, t, `String(document.getElementById("import-box").compareDocumentPosition(document.getElementById("form")) & Node.DOCUMENT_POSITION_FOLLOWING)`); got == "0" {
		t.Error("the Import panel is not before the form")
	}
	if got := text(ctx, t, `document.querySelector("[data-testid=import-done]").textContent`); !strings.HasPrefix(got, "Imported shop.Cart, shop.Orders (read as ") ||
		!strings.Contains(got, "a strategy marked as yours, compared with the scenario's others") {
		t.Errorf("the panel says %q after the import", got)
	}
	// The results lead with the imported policy, then offer the next steps.
	if got := text(ctx, t, `document.querySelector("[data-testid=yours]").textContent`); !strings.HasPrefix(got, "Your policy shop.Cart, shop.Orders: success rate in the affected window") ||
		!strings.Contains(got, "What should I ship instead of shop.Cart, shop.Orders?") || !strings.Contains(got, "Share and embed") {
		t.Errorf("the results say first %q", got)
	}
	// The form names it among the others, as the user's.
	if got := text(ctx, t, `document.querySelector('[data-path="strategies[4].name"]').closest("fieldset").querySelector("legend").textContent`); got != "Strategy 5: shop.Cart, shop.Orders (yours)" {
		t.Errorf("the imported strategy's legend says %q", got)
	}
	if got := text(ctx, t, `JSON.stringify(JSON.parse(document.getElementById("json").value).report.yours)`); got != `["shop.Cart, shop.Orders"]` {
		t.Errorf("report.yours is %s", got)
	}
	cols := text(ctx, t, `[...document.querySelectorAll("[data-testid=results] thead th")].map(th => th.textContent).join(",")`)
	if cols != "metric,A,B,C,D,shop.Cart, shop.Orders" {
		t.Errorf("table columns %q, want E03-B's four strategies and the method config of shop.Cart and shop.Orders", cols)
	}
	if notes := text(ctx, t, `document.getElementById("import-notes").textContent`); !strings.HasPrefix(notes, "methodConfig[0].name: info: applies to 2 names") {
		t.Errorf("notes %q, want the note on the second name (path: level: message)", notes)
	}

	// Sixteen more method configs would make 21 strategies, more than a
	// scenario compares: the import is refused and the scenario unchanged.
	var many []string
	for i := range 16 {
		many = append(many, fmt.Sprintf(`{"name": [{"service": "s%d"}], "retryPolicy": {"maxAttempts": 2, "initialBackoff": "0.1s", "maxBackoff": "1s", "backoffMultiplier": 2, "retryableStatusCodes": ["UNAVAILABLE"]}}`, i))
	}
	do(t, ctx, chromedp.SetValue(`#import-text`, `{"methodConfig": [`+strings.Join(many, ",")+`]}`), chromedp.Click(`#import-go`),
		until(`document.querySelectorAll("#import-errors li").length > 0`))
	if msg := text(ctx, t, `document.getElementById("import-errors").textContent`); !strings.Contains(msg, "Importing 16 more: strategies: lists 21 strategies") {
		t.Errorf("the refused import says %q, want the engine's limit on strategies", msg)
	}
	if n := text(ctx, t, `String(JSON.parse(document.getElementById("json").value).strategies.length)`); n != "5" {
		t.Errorf("%s strategies after a refused import, want the 5 there were", n)
	}

	// Export it from its own strategy section, as Polly JSON.
	do(t, ctx, chromedp.Click(`button[data-action="export"][data-index="4"]`),
		until(`document.getElementById("export-box").open && !document.getElementById("export-go").disabled`),
		chromedp.SetValue(`#export-format`, "polly"), chromedp.Click(`#export-go`),
		until(`document.getElementById("export-text").value !== ""`))
	out := text(ctx, t, `document.getElementById("export-text").value`)
	var doc map[string]any
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("the Polly export is not JSON: %v\n%s", err, out)
	}
	if !strings.Contains(out, `"Retry"`) || !strings.Contains(out, `"MaxRetryAttempts": 3`) {
		t.Errorf("the Polly export has no Retry with shop.Cart's 3 retries:\n%s", out)
	}
	if got := text(ctx, t, `document.getElementById("export-strategy").selectedOptions[0].textContent`); got != "shop.Cart, shop.Orders" {
		t.Errorf("exported strategy %q, want shop.Cart, shop.Orders", got)
	}

	// Both panels, open and filled, pass axe-core as the pages do
	// (TestPagesPassAxe checks the playground with them closed).
	axe, err := os.ReadFile(filepath.Join(checks, "axe-core/axe.min.js"))
	if err != nil {
		t.Skipf("axe-core is not installed (make deps): %v", err)
	}
	for _, v := range axeViolations(ctx, t, axe, `document.getElementById("playground")`) {
		t.Error(v)
	}
}

// resilience4jConfig is a Spring Boot application.yml as resilience4j's
// getting-started guide has it (https://resilience4j.readme.io/docs/getting-started-3):
// a retry and a circuit breaker instance for the same backend.
const resilience4jConfig = `resilience4j:
  retry:
    instances:
      inventory:
        maxAttempts: 3
        waitDuration: 500ms
        enableExponentialBackoff: true
        exponentialBackoffMultiplier: 2
        retryExceptions:
          - java.io.IOException
  circuitbreaker:
    instances:
      inventory:
        slidingWindowType: COUNT_BASED
        slidingWindowSize: 10
        minimumNumberOfCalls: 5
        failureRateThreshold: 50
        waitDurationInOpenState: 10s
        permittedNumberOfCallsInHalfOpenState: 3
`

// TestPlaygroundComparesImportedPoliciesAndExportsEnvoy is issue 17's
// demonstration: a new user pastes a gRPC service config and a
// resilience4j YAML, gets a run comparing them, and exports the one that
// keeps more of the affected operations as an Envoy route, which is YAML
// whose retry policy is that strategy's.
func TestPlaygroundComparesImportedPoliciesAndExportsEnvoy(t *testing.T) {
	ctx, base := setup(t)
	do(t, ctx, chromedp.Navigate(base+"/"), ran(1),
		chromedp.Click(`#import-box summary`), until(`!document.getElementById("import-go").disabled`),
		chromedp.SetValue(`#import-format`, "grpc"), chromedp.SetValue(`#import-text`, grpcConfig),
		chromedp.Click(`#import-go`), ran(2),
		chromedp.SetValue(`#import-format`, "resilience4j"), chromedp.SetValue(`#import-text`, resilience4jConfig),
		chromedp.Click(`#import-go`), ran(3),
		until(`document.querySelectorAll("#import-errors li").length === 0`))
	cols := text(ctx, t, `[...document.querySelectorAll("[data-testid=results] thead th")].map(th => th.textContent).join(",")`)
	if cols != "metric,A,B,C,D,shop.Cart, shop.Orders,inventory" {
		t.Fatalf("table columns %q, want E03-B's four strategies, shop.Cart, shop.Orders and inventory", cols)
	}
	var sc struct {
		Strategies []struct {
			Name        string `json:"name"`
			MaxAttempts int    `json:"max_attempts"`
		} `json:"strategies"`
	}
	if err := json.Unmarshal([]byte(text(ctx, t, `document.getElementById("json").value`)), &sc); err != nil {
		t.Fatal(err)
	}
	// The better of the two on affected success, as the table shows it.
	rates := text(ctx, t, `[...document.querySelectorAll("tr[data-metric=affected_success_rate] td .v")].slice(4).map(v => v.textContent).join(",")`)
	var a, b float64
	if _, err := fmt.Sscanf(rates, "%f%%,%f%%", &a, &b); err != nil {
		t.Fatalf("affected success of the imported strategies %q: %v", rates, err)
	}
	best := 4
	if b > a {
		best = 5
	}
	t.Logf("affected success: shop.Cart %.1f%%, inventory %.1f%%; exporting %s", a, b, sc.Strategies[best].Name)
	do(t, ctx, chromedp.Click(`button[data-action="export"][data-index="`+fmt.Sprint(best)+`"]`),
		until(`document.getElementById("export-box").open && !document.getElementById("export-go").disabled`),
		chromedp.SetValue(`#export-format`, "envoy"), chromedp.Click(`#export-go`),
		until(`document.getElementById("export-text").value !== ""`))
	out := text(ctx, t, `document.getElementById("export-text").value`)
	var doc any
	if err := yaml.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("the Envoy export is not YAML: %v\n%s", err, out)
	}
	want := fmt.Sprintf("num_retries: %d", sc.Strategies[best].MaxAttempts-1)
	if !strings.Contains(out, "retry_policy:") || !strings.Contains(out, want) {
		t.Errorf("the Envoy export has no retry_policy with %s:\n%s", want, out)
	}
}

// TestConvertModuleIsServedLikeTheEngine: the playground names convert.wasm
// by its content hash, and the server answers it cached for good, in the
// gzip encoding make wasm wrote at build time.
func TestConvertModuleIsServedLikeTheEngine(t *testing.T) {
	body, err := fs.ReadFile(web.Static, "static/convert.wasm")
	if err != nil {
		t.Skip("web/static/convert.wasm is not built: run make wasm (make test does)")
	}
	hash := server.ContentHash(body)
	gz, err := fs.ReadFile(web.Static, "static/"+server.PrecompressedName("convert.wasm", hash, "gz"))
	if err != nil {
		t.Fatalf("make wasm did not precompress convert.wasm: %v", err)
	}
	srv, err := server.New(slowMachine(server.Config{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}))
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	res, err := http.Get(ts.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(res.Body)
	res.Body.Close()
	m := regexp.MustCompile(`data-convert="([^"]+)"`).FindSubmatch(page)
	if m == nil {
		t.Fatal("the playground has no data-convert")
	}
	if want := "/static/convert." + hash + ".wasm"; string(m[1]) != want {
		t.Errorf("data-convert %q, want %q", m[1], want)
	}
	if strings.Contains(string(page), `rel="preload" href="`+string(m[1])) {
		t.Errorf("the page preloads convert.wasm: only the engine is on the way to the first result")
	}
	req, _ := http.NewRequest("GET", ts.URL+string(m[1]), nil)
	req.Header.Set("Accept-Encoding", "gzip") // Transport does not decode it when asked itself
	res, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusOK || res.Header.Get("Content-Encoding") != "gzip" || !bytes.Equal(got, gz) {
		t.Errorf("convert.wasm: status %d, encoding %q, %d bytes; want 200, the build's gzip (%d bytes)", res.StatusCode, res.Header.Get("Content-Encoding"), len(got), len(gz))
	}
	if cc := res.Header.Get("Cache-Control"); !strings.Contains(cc, "immutable") {
		t.Errorf("Cache-Control %q, want immutable", cc)
	}
}

// TestPlaygroundDroppedConfigImports: a configuration file dropped on the
// Import panel is read, its format detected and imported; with "Keep the
// scenario's strategies" unticked it replaces them, and the results lead
// with it. Text whose format cannot be detected is refused, saying so.
func TestPlaygroundDroppedConfigImports(t *testing.T) {
	ctx, base := setup(t)
	do(t, ctx, chromedp.Navigate(base+"/"), ran(1), chromedp.Click(`#import-box summary`),
		until(`!document.getElementById("import-go").disabled`))
	if got := text(ctx, t, `document.getElementById("import-format").value`); got != "detect" {
		t.Errorf("the format is %q at first, want detect", got)
	}
	do(t, ctx, chromedp.SetValue(`#import-text`, "just some words"), chromedp.Click(`#import-go`),
		until(`document.querySelectorAll("#import-errors li").length > 0`))
	if msg := text(ctx, t, `document.getElementById("import-errors").textContent`); !strings.Contains(msg, "could not be detected") {
		t.Errorf("undetectable text says %q", msg)
	}
	do(t, ctx, chromedp.Click(`#import-keep`))
	drop := `(() => {
		const dt = new DataTransfer();
		dt.items.add(new File([` + "`" + resilience4jConfig + "`" + `], "application.yml", {type: "application/yaml"}));
		document.getElementById("import-box").dispatchEvent(new DragEvent("drop", {dataTransfer: dt, bubbles: true, cancelable: true}));
		return "dropped";
	})()`
	text(ctx, t, drop)
	do(t, ctx, ran(2), until(`document.querySelector("[data-testid=yours]").textContent !== ""`))
	if got := text(ctx, t, `document.querySelector("[data-testid=import-done]").textContent`); !strings.Contains(got, "read as resilience4j") || !strings.Contains(got, "in place of the scenario's strategies") {
		t.Errorf("the panel says %q after the drop", got)
	}
	cols := text(ctx, t, `[...document.querySelectorAll("[data-testid=results] thead th")].map(th => th.textContent).join(",")`)
	if cols != "metric,inventory" {
		t.Errorf("table columns %q, want the dropped policy alone", cols)
	}
	if got := text(ctx, t, `document.querySelector("[data-testid=yours]").textContent`); !strings.HasPrefix(got, "Your policy inventory: success rate in the affected window") {
		t.Errorf("the results say first %q", got)
	}
}
