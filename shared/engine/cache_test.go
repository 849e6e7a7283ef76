package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
)

func TestLRUEvictsLeastRecentlyUsed(t *testing.T) {
	c := newLRU()
	for k := range uint32(3) {
		c.put(k+1, 0, 3)
	}
	if !c.get(1, 0, 0) { // 1 becomes the most recent: 2 is the least
		t.Fatal("key 1 missing")
	}
	c.put(4, 0, 3)
	if got, want := c.keys(), []uint32{4, 1, 3}; !slices.Equal(got, want) {
		t.Errorf("keys, most recent first: got %v, want %v (2 evicted)", got, want)
	}
	c.put(3, 0, 3) // a refill of a held key makes it the most recent, evicting nothing
	c.put(5, 0, 3)
	if got, want := c.keys(), []uint32{5, 3, 4}; !slices.Equal(got, want) {
		t.Errorf("keys, most recent first: got %v, want %v (1 evicted)", got, want)
	}
}

func TestLRUEntriesExpireAfterTheirTTL(t *testing.T) {
	c := newLRU()
	c.put(7, 1000, 10)
	if !c.get(7, 1099, 100) {
		t.Error("an entry 99 ns old with a TTL of 100 ns is a miss")
	}
	if c.get(7, 1100, 100) {
		t.Error("an entry 100 ns old with a TTL of 100 ns is a hit")
	}
	if c.len() != 0 {
		t.Errorf("an expired entry looked up is kept: %d held", c.len())
	}
	c.put(7, 2000, 10)
	if !c.get(7, 1e15, 0) {
		t.Error("without a TTL an entry expires")
	}
}

func TestLRUFlushEmpties(t *testing.T) {
	c := newLRU()
	for k := range uint32(5) {
		c.put(k, 0, 5)
	}
	c.flush()
	if c.len() != 0 || len(c.keys()) != 0 || c.get(1, 0, 0) {
		t.Fatalf("a flushed cache holds %v", c.keys())
	}
	c.put(9, 0, 5)
	if got := c.keys(); !slices.Equal(got, []uint32{9}) {
		t.Errorf("refilled after a flush: %v", got)
	}
}

// cacheScenario is a healthy dependency, fast and large enough never to
// queue, behind a cache: the hit rate is the cache's alone.
func cacheScenario(cache, extra string) string {
	return `{"version": 1, "name": "cache", "seeds": [1, 2],
	"workload": {"clients": 100, "arrival": "poisson", "rate": 1000, "duration": "30s"` + extra + `},
	"dependency": {"workers": 1000, "service_time": {"kind": "constant", "mean": "1ms"}, "queue_capacity": 10,
		"cache": ` + cache + `},
	"strategies": [{"name": "once", "max_attempts": 1}]}`
}

// cheHitRate is the hit rate of an LRU cache of capacity c under
// independent requests of probabilities p, by Che's approximation (Che,
// Tung and Wang, IEEE JSAC 2002; shown accurate for Zipf laws by Fricker,
// Robert and Roberts, ITC 2012): an entry stays for the characteristic
// time T that solves Σ (1 − e^(−p·T)) = c, and key i hits with
// probability 1 − e^(−p_i·T).
func cheHitRate(p []float64, c int) float64 {
	held := func(T float64) float64 {
		n := 0.0
		for _, q := range p {
			n += 1 - math.Exp(-q*T)
		}
		return n
	}
	lo, hi := 0.0, 1.0
	for held(hi) < float64(c) {
		hi *= 2
	}
	for range 200 {
		if mid := (lo + hi) / 2; held(mid) < float64(c) {
			lo = mid
		} else {
			hi = mid
		}
	}
	h := 0.0
	for _, q := range p {
		h += q * (1 - math.Exp(-q*lo))
	}
	return h
}

func TestCacheHitRateFollowsThePopularityLaw(t *testing.T) {
	const n, c = 1000, 100
	zipf := make([]float64, n)
	sum := 0.0
	for k := range zipf {
		zipf[k] = math.Pow(float64(k+1), -0.8)
		sum += zipf[k]
	}
	for k := range zipf {
		zipf[k] /= sum
	}
	uniform := make([]float64, n)
	for k := range uniform {
		uniform[k] = 1.0 / n
	}
	for _, tc := range []struct {
		name, keys string
		p          []float64
	}{
		// Breslau et al. (INFOCOM 1999) measured s from 0.64 to 0.83 in
		// web proxy traces.
		{"zipf 0.8", `{"law": "zipf", "count": 1000, "exponent": 0.8}`, zipf},
		{"uniform", `{"law": "uniform", "count": 1000}`, uniform}, // exactly c/n
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := mustRun(t, cacheScenario(fmt.Sprintf(`{"keys": %s, "capacity": %d, "warm": true}`, tc.keys, c), ""))
			m := strategy(t, res, "once").Metrics
			lookups := m.CacheHits + m.CacheMisses
			want := cheHitRate(tc.p, c)
			// Three standard deviations of a binomial count (lookups are
			// not independent under LRU, so a margin is added), and the
			// approximation's own error, well under 0.005 at this size.
			tol := 3*math.Sqrt(want*(1-want)/lookups) + 0.005
			if math.Abs(m.CacheHitRate-want) > tol {
				t.Errorf("hit rate %.4f, want %.4f ± %.4f over %g lookups", m.CacheHitRate, want, tol, lookups)
			}
			if lookups != m.Operations || m.DependencyCalls != m.CacheMisses {
				t.Errorf("lookups %g of %g operations; %g calls reached the dependency for %g misses", lookups, m.Operations, m.DependencyCalls, m.CacheMisses)
			}
		})
	}
}

func TestCacheStartsColdOrWarm(t *testing.T) {
	// Ten keys, asked for in turn (uniform arrivals, one client each),
	// a capacity of ten: a cold cache misses each key once, a warm one
	// never.
	for _, tc := range []struct{ warm bool }{{false}, {true}} {
		js := fmt.Sprintf(`{"version": 1, "name": "start",
		"workload": {"clients": 10, "arrival": "uniform", "rate": 100, "duration": "1s"},
		"dependency": {"workers": 10, "service_time": {"kind": "constant", "mean": "1ms"}, "queue_capacity": 10,
			"cache": {"keys": {"law": "uniform", "count": 10}, "capacity": 10, "warm": %t}},
		"strategies": [{"name": "once", "max_attempts": 1}]}`, tc.warm)
		m := strategy(t, mustRun(t, js), "once").Metrics
		if m.CacheHits+m.CacheMisses != 100 {
			t.Fatalf("%g lookups, want 100", m.CacheHits+m.CacheMisses)
		}
		if tc.warm && m.CacheMisses != 0 {
			t.Errorf("warm: %g misses, want 0", m.CacheMisses)
		}
		// A cold cache misses once for each key the 100 draws asked for.
		if !tc.warm && (m.CacheMisses < 1 || m.CacheMisses > 10 || m.DependencyCalls != m.CacheMisses) {
			t.Errorf("cold: %g misses (%g dependency calls), want one per key asked for, 1 to 10", m.CacheMisses, m.DependencyCalls)
		}
	}
}

func TestCacheFlushEmptiesAtThePhaseStart(t *testing.T) {
	// One key, asked for every 100 ms, warm, served in 1 ms: every
	// lookup hits but the first after the flush.
	js := `{"version": 1, "name": "flush",
	"workload": {"clients": 1, "arrival": "uniform", "rate": 10, "duration": "3s"},
	"dependency": {"workers": 1, "service_time": {"kind": "constant", "mean": "1ms"}, "queue_capacity": 10,
		"cache": {"keys": {"law": "uniform", "count": 1}, "capacity": 1, "warm": true},
		"phases": [{"kind": "flush", "from": "1050ms", "to": "1100ms"}]},
	"strategies": [{"name": "once", "max_attempts": 1}]}`
	res := mustRun(t, js)
	st := strategy(t, res, "once")
	if m := st.Metrics; m.CacheHits != 29 || m.CacheMisses != 1 || m.DependencyCalls != 1 {
		t.Errorf("hits %g, misses %g, dependency calls %g; want 29, 1, 1", m.CacheHits, m.CacheMisses, m.DependencyCalls)
	}
	cs := st.Series.Cache
	if cs == nil {
		t.Fatal("no cache series")
	}
	var hits, misses int32
	for i := range cs.Hits {
		hits, misses = hits+cs.Hits[i], misses+cs.Misses[i]
	}
	if hits != 29 || misses != 1 {
		t.Errorf("series: %d hits, %d misses", hits, misses)
	}
	for i, r := range cs.HitRate {
		if want := ratio(float64(cs.Hits[i]), float64(cs.Hits[i]+cs.Misses[i])); r != want {
			t.Errorf("bucket %d: hit rate %g, want %g", i, r, want)
		}
	}
}

func TestCacheFillReadThroughAndLookAside(t *testing.T) {
	// One key; each operation gives up after 50 ms, the dependency takes
	// 100 ms; operations every 200 ms. Read-through stores the first
	// answer though nobody waits for it; look-aside never stores one.
	for _, tc := range []struct {
		fill       string
		hits, miss float64
	}{{"read_through", 4, 1}, {"look_aside", 0, 5}} {
		js := `{"version": 1, "name": "fill",
		"workload": {"clients": 1, "arrival": "uniform", "rate": 5, "duration": "1s"},
		"dependency": {"workers": 5, "service_time": {"kind": "constant", "mean": "100ms"}, "queue_capacity": 10,
			"cache": {"keys": {"law": "uniform", "count": 1}, "capacity": 1, "fill": "` + tc.fill + `"}},
		"strategies": [{"name": "once", "max_attempts": 1, "attempt_timeout": "50ms"}]}`
		m := strategy(t, mustRun(t, js), "once").Metrics
		if m.CacheHits != tc.hits || m.CacheMisses != tc.miss {
			t.Errorf("%s: %g hits, %g misses; want %g, %g", tc.fill, m.CacheHits, m.CacheMisses, tc.hits, tc.miss)
		}
	}
}

func TestCacheCoalescesConcurrentMisses(t *testing.T) {
	// Ten operations at once for the one key of a cold cache; one
	// worker, 100 ms a call.
	for _, tc := range []struct {
		coalesce              bool
		calls, coalesced, hit float64
	}{{true, 1, 9, 0}, {false, 10, 0, 0}} {
		js := fmt.Sprintf(`{"version": 1, "name": "coalesce",
		"workload": {"clients": 10, "arrival": "burst"},
		"dependency": {"workers": 1, "service_time": {"kind": "constant", "mean": "100ms"}, "queue_capacity": 10,
			"cache": {"keys": {"law": "uniform", "count": 1}, "capacity": 1, "coalesce": %t}},
		"strategies": [{"name": "once", "max_attempts": 1}]}`, tc.coalesce)
		res := mustRun(t, js)
		m := strategy(t, res, "once").Metrics
		if m.DependencyCalls != tc.calls || m.CacheCoalesced != tc.coalesced || m.CacheMisses != 10 || m.Succeeded != 10 {
			t.Errorf("coalesce %t: %g dependency calls, %g coalesced, %g misses, %g succeeded; want %g, %g, 10, 10",
				tc.coalesce, m.DependencyCalls, m.CacheCoalesced, m.CacheMisses, m.Succeeded, tc.calls, tc.coalesced)
		}
		// Coalesced, they all end when the one fetch does: 100 ms.
		if tc.coalesce && m.LatencyMaxms != 100 {
			t.Errorf("coalesced: latency max %g ms, want 100", m.LatencyMaxms)
		}
	}
}

func TestCacheCoalescedCallsOutliveAnAbandonedFetch(t *testing.T) {
	// One key; an operation every 50 ms, each giving up after 120 ms; the
	// dependency frozen until 130 ms, then skipping abandoned requests.
	// The fetch of the operation at 0 ms is held, abandoned at 120 ms
	// and dropped at 130 ms: the one at 50 ms, coalesced on it, becomes
	// the fetch and reaches the dependency, and the one at 100 ms gets
	// its answer too. Those from 150 ms on hit.
	js := `{"version": 1, "name": "refetch",
	"workload": {"clients": 1, "arrival": "uniform", "rate": 20, "duration": "300ms"},
	"dependency": {"workers": 1, "service_time": {"kind": "constant", "mean": "1ms"}, "queue_capacity": 10, "drop_abandoned": true,
		"cache": {"keys": {"law": "uniform", "count": 1}, "capacity": 1, "coalesce": true},
		"phases": [{"kind": "freeze", "from": "0s", "to": "130ms"}]},
	"strategies": [{"name": "once", "max_attempts": 1, "attempt_timeout": "120ms"}]}`
	m := strategy(t, mustRun(t, js), "once").Metrics
	got := [...]float64{m.Operations, m.Succeeded, m.DependencyCalls, m.DroppedAbandoned, m.CacheHits, m.CacheMisses, m.CacheCoalesced}
	if want := [...]float64{6, 5, 2, 1, 3, 3, 2}; got != want {
		t.Errorf("operations, succeeded, dependency calls, dropped, hits, misses, coalesced: got %v, want %v", got, want)
	}
}

func TestCacheWithoutOneCountsNothing(t *testing.T) {
	res := mustRun(t, valid)
	st := &res.Strategies[0]
	if m := st.Metrics; m.CacheHits != 0 || m.CacheMisses != 0 || st.Series.Cache != nil {
		t.Errorf("a scenario without a cache has cache hits %g, misses %g, series %v", m.CacheHits, m.CacheMisses, st.Series.Cache)
	}
}

func TestCacheErrorsNameFieldValueAndRule(t *testing.T) {
	const cache = `"cache": {"keys": {"law": "zipf", "count": 100, "exponent": 0.8}, "capacity": 10}`
	base := strings.Replace(valid, `"queue_capacity": 5`, `"queue_capacity": 5, `+cache, 1)
	if _, err := Parse([]byte(base)); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		desc, old, new, path, message string
	}{
		{"law", `"law": "zipf"`, `"law": "pareto"`, "dependency.cache.keys.law", `"pareto" is not one of "zipf", "uniform"`},
		{"zipf exponent", `"exponent": 0.8`, `"exponent": 0`, "dependency.cache.keys.exponent", "0 is out of range; a Zipf law needs an exponent s in (0, 10]"},
		{"uniform exponent", `"law": "zipf"`, `"law": "uniform"`, "dependency.cache.keys.exponent", `has no meaning for "uniform" keys`},
		{"key count", `"count": 100`, `"count": 0`, "dependency.cache.keys.count", "0 is out of range 1..1000000"},
		{"capacity", `"capacity": 10`, `"capacity": -1`, "dependency.cache.capacity", "-1 is out of range 1..1000000"},
		{"ttl", `"capacity": 10`, `"capacity": 10, "ttl": "-1s"`, "dependency.cache.ttl", "is negative"},
		{"hit latency", `"capacity": 10`, `"capacity": 10, "hit_latency": "-1ms"`, "dependency.cache.hit_latency", "is negative"},
		{"fill", `"capacity": 10`, `"capacity": 10, "fill": "write_back"`, "dependency.cache.fill", `"write_back" is not one of "read_through", "look_aside"`},
		{"with contention", `"capacity": 10}`, `"capacity": 10}, "contention": {}`, "dependency.cache", "is given together with contention"},
		{"unknown field", `"capacity": 10`, `"capacity": 10, "size": 3`, "dependency.cache.size", "is not a known field"},
		{"flush without a cache", cache, `"phases": [{"kind": "flush", "from": "1s", "to": "2s"}]`, "dependency.phases[0].kind", `"flush" needs a cache to flush`},
		{"flush with a field", `"capacity": 10}`, `"capacity": 10}, "phases": [{"kind": "flush", "from": "1s", "to": "2s", "factor": 2}]`, "dependency.phases[0].factor", `no meaning for a "flush" phase`},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			doc := strings.Replace(base, tc.old, tc.new, 1)
			if doc == base {
				t.Fatalf("the case does not change the scenario")
			}
			_, err := Parse([]byte(doc))
			for _, e := range AsErrors(err) {
				if e.Path == tc.path && strings.Contains(e.Error(), tc.message) {
					return
				}
			}
			t.Errorf("want an error at %s containing %q; got:\n%v", tc.path, tc.message, err)
		})
	}
}

// TestCacheRunsAreDeterministic runs a cache scenario twice, in parallel
// and not: the same numbers.
func TestCacheRunsAreDeterministic(t *testing.T) {
	sc, err := Parse([]byte(cacheScenario(`{"keys": {"law": "zipf", "count": 500, "exponent": 1.1}, "capacity": 50, "ttl": "2s", "coalesce": true}`, "")))
	if err != nil {
		t.Fatal(err)
	}
	a, err := Run(context.Background(), sc, Options{Parallelism: 1})
	if err != nil {
		t.Fatal(err)
	}
	b, err := Run(context.Background(), sc, Options{Parallelism: 2})
	if err != nil {
		t.Fatal(err)
	}
	ja, _ := json.Marshal(a.Strategies)
	jb, _ := json.Marshal(b.Strategies)
	if string(ja) != string(jb) {
		t.Errorf("two runs differ:\n%s\n%s", ja, jb)
	}
}
