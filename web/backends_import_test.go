package web_test

import (
	"encoding/json"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestPlaygroundImportsBackends: an Istio DestinationRule with
// outlierDetection, imported in the playground, puts its backends on the
// scenario's dependency (the strategy's retries avoid the hosts tried,
// which needs them), sharing its capacity, with a note, the scenario runs, and the strategy exports back to
// Istio with the outlierDetection.
func TestPlaygroundImportsBackends(t *testing.T) {
	doc, err := os.ReadFile("../shared/convert/testdata/import/istio-destinationrule.yaml")
	if err != nil {
		t.Fatal(err)
	}
	ctx, base := setup(t)
	do(t, ctx, chromedp.Navigate(base+"/"), ran(1),
		chromedp.Click(`#import-box summary`), until(`!document.getElementById("import-go").disabled`),
		chromedp.SetValue(`#import-format`, "istio"), chromedp.SetValue(`#import-text`, string(doc)),
		chromedp.Click(`#import-go`), ran(2),
		until(`document.querySelectorAll("#import-errors li").length === 0`))
	var sc struct {
		Dependency struct {
			Workers       int `json:"workers"`
			QueueCapacity int `json:"queue_capacity"`
			Backends      *struct {
				Count            int             `json:"count"`
				OutlierDetection json.RawMessage `json:"outlier_detection"`
			} `json:"backends"`
		} `json:"dependency"`
		Strategies []struct {
			Name               string `json:"name"`
			RetryHostPredicate string `json:"retry_host_predicate"`
		} `json:"strategies"`
	}
	if err := json.Unmarshal([]byte(text(ctx, t, `document.getElementById("json").value`)), &sc); err != nil {
		t.Fatal(err)
	}
	last := len(sc.Strategies) - 1
	if b := sc.Dependency.Backends; b == nil || b.Count != 3 || len(b.OutlierDetection) == 0 || sc.Strategies[last].RetryHostPredicate != "previous_hosts" {
		t.Fatalf("the scenario after the import: backends %+v, strategy %+v", b, sc.Strategies[last])
	}
	// E03-B's 10 workers and queue of 100 are the whole service's: the
	// three backends share them, and a note says so.
	if d := sc.Dependency; d.Workers != 3 || d.QueueCapacity != 33 {
		t.Errorf("each backend has %d workers and %d queue places, want E03-B's 10 and 100 shared: 3 and 33", d.Workers, d.QueueCapacity)
	}
	if notes := text(ctx, t, `document.getElementById("import-notes").textContent`); !strings.Contains(notes, "10 workers over 3 backends: 3 each, 9 in all") {
		t.Errorf("the import's notes do not say how the workers are shared:\n%s", notes)
	}
	if n := text(ctx, t, `String(document.querySelectorAll("[data-testid=results] thead th").length)`); n != "6" {
		t.Errorf("%s columns in the results table, want the metric, E03-B's four strategies and the imported one", n)
	}
	do(t, ctx, chromedp.Click(`button[data-action="export"][data-index="`+strconv.Itoa(last)+`"]`),
		until(`document.getElementById("export-box").open && !document.getElementById("export-go").disabled`),
		chromedp.SetValue(`#export-format`, "istio"), chromedp.Click(`#export-go`),
		until(`document.getElementById("export-text").value !== ""`))
	out := text(ctx, t, `document.getElementById("export-text").value`)
	if !strings.Contains(out, "outlierDetection:") || !strings.Contains(out, "consecutive5xxErrors: 4") {
		t.Errorf("the Istio export has no outlierDetection:\n%s", out)
	}
}
