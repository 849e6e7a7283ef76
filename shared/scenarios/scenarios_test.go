package scenarios

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"testing"

	"github.com/retrylab/retrylab/shared/engine"
	"github.com/retrylab/retrylab/shared/internal/golden"
)

// maxEvents is the cost budget every built-in must fit: they are meant to run
// in a browser in well under a second each.
const maxEvents = 30_000_000

// The slugs are part of URLs and of the command line: they never change.
var slugs = []string{
	"e03b-synchronized-recovery", "e03a-transient-failures", "thundering-herd-jitter",
	"layered-retries", "sre-retry-budget", "token-bucket-sweep", "breaker-timeline",
	"resilience-pipeline-60", "runaway-cascade", "failover-incident", "metadata-storm",
	"time-budget", "sdk-double-retry", "dead-letters", "idempotency-keys",
	"load-shedding-goodput", "brooker-contention", "bulkheads", "shared-breaker",
	"priority-shedding", "hedged-requests", "load-spike-storm", "gc-death-spiral", "mixed-fleet",
	"adaptive-throttling", "lifo-overload", "rate-limited-429", "one-of-two-crash", "lb-sinkhole", "autoscale-lag", "cache-flush", "outlier-ejection",
	"adaptive-concurrency",
}

// searchSlugs are the built-ins whose scenario has a search: last in the
// catalogue, left out where engine.Searches() is false (in a program
// without package search; these tests import it).
var searchSlugs = []string{"e03b-policy-search"}

func TestCatalogue(t *testing.T) {
	slugs := append(slices.Clip(slugs), searchSlugs...)
	var got []string
	for i, b := range All() {
		got = append(got, b.Slug)
		if b.Number != i+1 {
			t.Errorf("%s: number %d, want %d (catalogue order)", b.Slug, b.Number, i+1)
		}
		if b.Title == "" || b.Summary == "" || b.LookAt == "" || b.Source.Title == "" || len(b.Notes) == 0 {
			t.Errorf("%s: title, summary, look_at, source title and notes are all required", b.Slug)
		}
	}
	if !slices.Equal(got, slugs) {
		t.Errorf("slugs:\n%v\nwant:\n%v", got, slugs)
	}
	if _, ok := Get("e03b-synchronized-recovery"); !ok {
		t.Error("Get does not find a built-in")
	}
	if _, ok := Get("nope"); ok {
		t.Error("Get finds a slug that does not exist")
	}
}

func run(t testing.TB, sc *engine.Scenario) *engine.Result {
	t.Helper()
	res, err := engine.Run(context.Background(), sc, engine.Options{MaxEvents: maxEvents})
	if err != nil {
		t.Fatalf("%s: %v", sc.Name, err)
	}
	return res
}

func builtin(t testing.TB, slug string) *engine.Scenario {
	t.Helper()
	b, ok := Get(slug)
	if !ok {
		t.Fatalf("no built-in %q", slug)
	}
	sc, err := b.Parse()
	if err != nil {
		t.Fatalf("%s: %v", slug, err)
	}
	return sc
}

// TestGolden runs every built-in within the cost budget and compares its
// result, without time series, with testdata/golden byte for byte.
func TestGolden(t *testing.T) {
	for _, b := range All() {
		t.Run(b.Slug, func(t *testing.T) {
			sc := builtin(t, b.Slug)
			if est := engine.Estimate(sc); est > maxEvents {
				t.Fatalf("estimated at %d events, over the budget of %d", est, maxEvents)
			}
			res, err := engine.Run(context.Background(), sc, engine.Options{MaxEvents: maxEvents, NoSeries: true})
			if err != nil {
				t.Fatal(err)
			}
			got, _ := json.MarshalIndent(res, "", " ")
			got = append(got, '\n')
			golden.Check(t, filepath.Join("testdata", "golden", b.Slug+".json"), got)
		})
	}
}

func TestPresets(t *testing.T) {
	seen := map[string]bool{}
	for _, p := range Presets() {
		if seen[p.Name] {
			t.Errorf("preset %q twice", p.Name)
		}
		seen[p.Name] = true
		if p.Title == "" || p.Library == "" || len(p.Sources) == 0 {
			t.Errorf("%s: title, library and sources are required", p.Name)
		}
		doc := `{"version": 1, "name": "preset", "workload": {"clients": 10, "rate": 20, "duration": "20s"},
			"dependency": {"workers": 4, "service_time": {"kind": "exponential", "mean": "20ms"}, "queue_capacity": 50,
				"phases": [{"kind": "outage", "from": "5s", "to": "8s"}]},
			"strategies": [{"name": "p", "preset": "` + p.Name + `"}]}`
		sc, err := Parse([]byte(doc))
		if err != nil {
			t.Errorf("%s: %v", p.Name, err)
			continue
		}
		if sc.Strategies[0].BasedOn != p.Name {
			t.Errorf("%s: based_on %q", p.Name, sc.Strategies[0].BasedOn)
		}
		run(t, sc)
	}
	for _, name := range []string{"ms-standard-resilience", "polly-v8-retry", "azure-sdk", "azure-storage",
		"grpc-retry", "grpc-retry-throttling", "google-sre", "aws-standard-legacy", "aws-standard-2026", "aws-adaptive",
		"envoy-retry", "envoy-retry-budget", "istio-retry", "finagle-budget", "resilience4j", "failsafe-go",
		"cenkalti-backoff", "go-retryablehttp", "retries-that-fail-better"} {
		if !seen[name] {
			t.Errorf("no preset %q", name)
		}
	}
}
