package engine

import (
	"strings"
	"testing"
)

// TestCacheInFrontOfBackends: a cache in front of a dependency with
// backends answers its hits itself; only its misses go through the
// balancer, round robin over the backends, and the coalesced calls wait
// for the one fetch, whichever backend serves it. A flush empties the
// one cache.
func TestCacheInFrontOfBackends(t *testing.T) {
	scenario := func(cache string) string {
		return `{"version": 1, "name": "cache-backends", "seeds": [1, 2],
		"workload": {"clients": 100, "arrival": "poisson", "rate": 1000, "duration": "10s"},
		"dependency": {"workers": 10, "service_time": {"kind": "constant", "mean": "20ms"}, "queue_capacity": 10,
			"backends": {"count": 4}` + cache + `},
		"strategies": [{"name": "once", "max_attempts": 1}]}`
	}
	js := scenario(`, "cache": {"keys": {"law": "zipf", "count": 1000, "exponent": 0.8}, "capacity": 200, "coalesce": true},
		"phases": [{"kind": "flush", "from": "5s", "to": "5100ms"}]`)
	res := mustRun(t, js)
	st := strategy(t, res, "once")
	m := st.Metrics
	if m.CacheHits == 0 || m.CacheCoalesced == 0 || m.Succeeded != m.Operations {
		t.Fatalf("hits %g, coalesced %g, succeeded %g of %g: the test needs hits, coalesced misses and no failure", m.CacheHits, m.CacheCoalesced, m.Succeeded, m.Operations)
	}
	if m.CacheHits+m.CacheMisses != m.Attempts || m.DependencyCalls != m.CacheMisses-m.CacheCoalesced {
		t.Errorf("%g attempts, %g hits, %g misses (%g coalesced), %g dependency calls; want hits + misses = attempts and the calls the misses not coalesced",
			m.Attempts, m.CacheHits, m.CacheMisses, m.CacheCoalesced, m.DependencyCalls)
	}
	if len(st.Backends) != 4 {
		t.Fatalf("%d backends in the result, want 4", len(st.Backends))
	}
	routed := 0.0
	for _, b := range st.Backends {
		routed += b.Metrics.Requests
		// Round robin: each backend a quarter of the misses, give or take one a seed.
		if d := b.Metrics.Requests - m.DependencyCalls/4; d < -1 || d > 1 {
			t.Errorf("backend %d: %g requests of %g, want a quarter", b.Backend, b.Metrics.Requests, m.DependencyCalls)
		}
	}
	if routed != m.DependencyCalls {
		t.Errorf("the backends got %g requests, the dependency %g calls: only the misses go through the balancer", routed, m.DependencyCalls)
	}
	// The flush: misses right after it, more than the seconds before.
	cs := st.Series.Cache
	if cs == nil {
		t.Fatal("no cache series")
	}
	bucket := float64(st.Series.BucketMS) * 1e6
	at := func(ns float64) int { return int(ns / bucket) }
	if after, before := cs.Misses[at(5e9)], cs.Misses[at(4.9e9)]; after <= 2*before {
		t.Errorf("misses %d in the bucket of the flush, %d in the one before: the flush did not empty the cache", after, before)
	}

	// Without the cache every call reaches a backend.
	plain := mustRun(t, scenario(""))
	if pm := strategy(t, plain, "once").Metrics; pm.DependencyCalls != pm.Attempts || pm.DependencyCalls <= 2*m.DependencyCalls {
		t.Errorf("without a cache: %g dependency calls for %g attempts (with it: %g)", pm.DependencyCalls, pm.Attempts, m.DependencyCalls)
	}
}

// TestCacheWithBackendsErrors: a flush selects no backend, and an
// autoscaler over backends counts backends, at most MaxBackends.
func TestCacheWithBackendsErrors(t *testing.T) {
	const base = `{"version": 1, "name": "refused",
	"workload": {"clients": 10, "arrival": "poisson", "rate": 100, "duration": "10s"},
	"dependency": {"workers": 10, "service_time": {"kind": "constant", "mean": "20ms"}, "queue_capacity": 10,
		"backends": {"count": 4},
		"cache": {"keys": {"law": "uniform", "count": 100}, "capacity": 10}, "phases": []},
	"strategies": [{"name": "once", "max_attempts": 1}]}`
	if _, err := Parse([]byte(base)); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ desc, old, new, path, message string }{
		{"flush of some backends", `"phases": []`, `"phases": [{"kind": "flush", "from": "1s", "to": "2s", "backends": [0]}]`,
			"dependency.phases[0].backends", "is given for a flush; the cache is in front of the balancer, one for all the backends"},
		{"flush of a share", `"phases": []`, `"phases": [{"kind": "flush", "from": "1s", "to": "2s", "backend_share": 0.5}]`,
			"dependency.phases[0].backend_share", "0.5 is given for a flush"},
		{"autoscaler", `"phases": []`, `"autoscale": {"metric": "utilization", "target": 0.5, "period": "1s", "min": 1, "max": 20}`,
			"dependency.autoscale.max", "20 is out of range; with backends the autoscaler adds and removes backends behind the balancer, and max counts backends, 1..8"},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			_, err := Parse([]byte(strings.Replace(base, tc.old, tc.new, 1)))
			for _, e := range AsErrors(err) {
				if e.Path == tc.path && strings.Contains(e.Error(), tc.message) {
					return
				}
			}
			t.Errorf("want an error at %s containing %q; got:\n%v", tc.path, tc.message, err)
		})
	}
}
