package convert

import (
	"reflect"
	"strings"
	"testing"

	"github.com/retrylab/retrylab/shared/engine"
	"github.com/retrylab/retrylab/shared/scenarios"
)

// TestResilience4jBulkheads: each bulkhead shape imports as the engine's
// bulkhead, with the warning that says how it differs, makes a valid
// scenario, and exports back to the same strategy.
func TestResilience4jBulkheads(t *testing.T) {
	for _, tc := range []struct {
		desc, doc string
		want      engine.Bulkhead
		warn      string // in a warning; "" for none about the bulkhead
	}{
		{"semaphore without a wait", "resilience4j:\n  retry.instances.cart.maxAttempts: 3\n  bulkhead.instances.cart.maxConcurrentCalls: 10\n",
			engine.Bulkhead{Dependency: "dependency", MaxConcurrent: 10}, "each attempt takes a permit"},
		{"semaphore with a wait", "resilience4j:\n  retry.instances.cart.maxAttempts: 3\n  bulkhead.instances.cart: {maxConcurrentCalls: 4, maxWaitDuration: 250ms}\n",
			engine.Bulkhead{Dependency: "dependency", MaxConcurrent: 4, MaxWaiting: engine.MaxQueue, MaxWait: engine.Duration(250e6)}, "each attempt takes a permit"},
		{"semaphore with the longest wait", "resilience4j:\n  retry.instances.cart.maxAttempts: 3\n  bulkhead.instances.cart: {maxConcurrentCalls: 4, maxWaitDuration: 24h}\n",
			engine.Bulkhead{Dependency: "dependency", MaxConcurrent: 4, MaxWaiting: engine.MaxQueue, MaxWait: engine.MaxSpan}, "each attempt takes a permit"},
		{"semaphore defaults, outside the retry", "resilience4j:\n  retry.instances.cart.maxAttempts: 3\n  bulkhead:\n    bulkheadAspectOrder: 1\n    instances.cart.writableStackTraceEnabled: false\n",
			engine.Bulkhead{Dependency: "dependency", MaxConcurrent: 25}, ""},
		{"thread pool, core below max", "resilience4j:\n  thread-pool-bulkhead.instances.cart: {maxThreadPoolSize: 8, coreThreadPoolSize: 2, queueCapacity: 30}\n",
			engine.Bulkhead{Dependency: "dependency", MaxConcurrent: 8, MaxWaiting: 30}, "runs 2 calls and queues the next 30"},
		{"thread pool, fixed size", "resilience4j:\n  thread-pool-bulkhead.instances.cart: {maxThreadPoolSize: 3, coreThreadPoolSize: 3, queueCapacity: 0}\n",
			engine.Bulkhead{Dependency: "dependency", MaxConcurrent: 3}, ""},
		{"thread pool defaults", "resilience4j:\n  thread-pool-bulkhead.configs.default.keepAliveDuration: 20ms\n  thread-pool-bulkhead.instances.cart.queueCapacity: 10\n",
			engine.Bulkhead{Dependency: "dependency", MaxConcurrent: r4jProcessors, MaxWaiting: 10}, "the machine's processor count"},
		{"both kinds: the semaphore", "resilience4j:\n  bulkhead.instances.cart.maxConcurrentCalls: 5\n  thread-pool-bulkhead.instances.cart.maxThreadPoolSize: 9\n",
			engine.Bulkhead{Dependency: "dependency", MaxConcurrent: 5}, "@Bulkhead(type = THREADPOOL)"},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			im, err := Import(Resilience4j, []byte(tc.doc))
			if err != nil {
				t.Fatal(err)
			}
			st := im.Strategies[0]
			if len(st.Bulkheads) != 1 || st.Bulkheads[0] != tc.want {
				t.Fatalf("bulkheads %+v; want [%+v]", st.Bulkheads, tc.want)
			}
			var warned []string
			for _, n := range im.Notes {
				if n.Level == Warning && strings.Contains(n.Path, "bulkhead") {
					warned = append(warned, n.Message)
				}
			}
			if got := strings.Join(warned, "\n"); tc.warn == "" && got != "" || !strings.Contains(got, tc.warn) {
				t.Errorf("bulkhead warnings:\n%s\nwant %q", got, tc.warn)
			}
			if _, err := scenarios.Imported(im.Strategies, Resilience4j, ""); err != nil {
				t.Fatalf("the imported scenario is invalid: %v", err)
			}
			r4jRoundTrip(t, st, func(n Note) bool { return strings.Contains(n.Message, "cannot express bulkheads") })
		})
	}
}

// TestResilience4jNotReadPrecisely: what the engine cannot simulate beside
// a retry is warned about with what is simulated instead.
func TestResilience4jNotReadPrecisely(t *testing.T) {
	for _, tc := range []struct{ doc, path, want string }{
		{"resilience4j:\n  circuitbreaker.instances.a: {enableRandomizedWait: true, randomizedWaitFactor: 0.2}\n",
			"resilience4j.circuitbreaker.instances.a.enableRandomizedWait", "within ±0.2 of waitDurationInOpenState"},
	} {
		im, err := Import(Resilience4j, []byte(tc.doc))
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, n := range im.Notes {
			found = found || n.Level == Warning && n.Path == tc.path && strings.Contains(n.Message, tc.want)
		}
		if !found {
			t.Errorf("%s: no warning at %s containing %q in %v", tc.doc, tc.path, tc.want, im.Notes)
		}
	}
}

// r4jRoundTrip exports st to resilience4j, fails on any export note that
// unwanted reports, and imports the export back as st.
func r4jRoundTrip(t *testing.T, st engine.Strategy, unwanted func(Note) bool) {
	t.Helper()
	out, notes, err := Export(Resilience4j, st)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range notes {
		if unwanted(n) {
			t.Errorf("export: %s", n)
		}
	}
	back, err := Import(Resilience4j, out)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if !reflect.DeepEqual(back.Strategies[0], st) {
		t.Errorf("round trip:\n%s\nimports as %+v\nwant %+v", out, back.Strategies[0], st)
	}
}

// TestResilience4jOneBulkheadNoWarning: one bulkhead whose line is the
// engine's longest exports without a warning; a second is named as left
// out.
func TestResilience4jOneBulkheadNoWarning(t *testing.T) {
	b := engine.Bulkhead{Dependency: "db", MaxConcurrent: 4, MaxWaiting: engine.MaxQueue, MaxWait: engine.Duration(50e6)}
	st := engine.Strategy{Name: "s", Policy: engine.Policy{MaxAttempts: 2}}
	st.Bulkheads = []engine.Bulkhead{b}
	_, notes, err := Export(Resilience4j, st)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range notes {
		if n.Level == Warning && strings.HasPrefix(n.Path, "bulkheads") {
			t.Errorf("one bulkhead of the longest line: %s", n)
		}
	}
	second := b
	second.Dependency = "cache"
	st.Bulkheads = append(st.Bulkheads, second)
	_, notes, err = Export(Resilience4j, st)
	if err != nil {
		t.Fatal(err)
	}
	if n, ok := noteAt(notes, "bulkheads"); !ok || !strings.Contains(n.Message, "only bulkheads[0] (db) is exported") {
		t.Errorf("two bulkheads: %v", notes)
	}
}
