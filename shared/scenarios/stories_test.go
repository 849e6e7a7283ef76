package scenarios

import (
	"context"
	"encoding/json"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/retrylab/retrylab/shared/engine"
	"github.com/retrylab/retrylab/shared/engine/probe"
)

// A story holds a built-in's text to its run: each claim that its summary,
// look_at and notes make is a check of the run they describe, so that the
// text and its test change together. sc is the built-in's scenario, freshly
// parsed; a story may change it to run a variant its text speaks of (another
// seed, another phase), never to make a claim true.
type story func(t *testing.T, sc *engine.Scenario)

// stories is the registry of stories, by slug: a built-in whose text has
// been checked against its run has its entry here.
var stories = map[string]story{
	"e03b-synchronized-recovery": storyE03B,
	"e03a-transient-failures":    storyE03A,
	"runaway-cascade":            storyRunawayCascade,
	"failover-incident":          storyFailover,
	"metadata-storm":             storyMetadataStorm,
	"hedged-requests":            storyHedgedRequests,
	"thundering-herd-jitter":     storyThunderingHerd,
	"layered-retries":            storyLayeredRetries,
	"sre-retry-budget":           storySREBudget,
	"breaker-timeline":           storyBreakerTimeline,
	"time-budget":                storyTimeBudget,
	"dead-letters":               storyDeadLetters,
	"idempotency-keys":           storyIdempotencyKeys,
	"token-bucket-sweep":         storyTokenBucket,
	"resilience-pipeline-60":     storyResiliencePipeline,
	"load-shedding-goodput":      storyLoadShedding,
	"brooker-contention":         storyBrookerContention,
	"e03b-policy-search":         storyPolicySearch,
	"bulkheads":                  storyBulkheads,
	"shared-breaker":             storySharedBreaker,
	"priority-shedding":          storyPriorityShedding,
	"sdk-double-retry":           storySDKDoubleRetry,
	"load-spike-storm":           storyLoadSpikeStorm,
	"gc-death-spiral":            storyGCDeathSpiral,
	"mixed-fleet":                storyMixedFleet,
	"adaptive-throttling":        storyAdaptiveThrottling,
	"lifo-overload":              storyLIFOOverload,
	"rate-limited-429":           storyRateLimited429,
	"one-of-two-crash":           storyOneOfTwoCrash,
	"lb-sinkhole":                storyLBSinkhole,
	"autoscale-lag":              storyAutoscaleLag,
	"cache-flush":                storyCacheFlush,
	"outlier-ejection":           storyOutlierEjection,
	"adaptive-concurrency":       storyAdaptiveConcurrency,
}

// TestStories walks every built-in and runs its story. A built-in without
// one is skipped by name, so that the list of texts nobody has held to
// their run is in the test's output (go test -v -run TestStories).
func TestStories(t *testing.T) {
	var missing []string
	for _, b := range All() {
		if _, ok := stories[b.Slug]; !ok {
			missing = append(missing, b.Slug)
		}
	}
	if len(missing) > 0 {
		t.Logf("%d of %d built-ins have no story yet: %s", len(missing), len(All()), strings.Join(missing, ", "))
	}
	for _, b := range All() {
		t.Run(b.Slug, func(t *testing.T) {
			check, ok := stories[b.Slug]
			if !ok {
				t.Skipf("no story: the text of %s is not checked against its run", b.Slug)
			}
			check(t, builtin(t, b.Slug))
		})
	}
}

// TestStoriesNameBuiltins: a story whose slug is no built-in's (renamed,
// or misspelt) would never run.
func TestStoriesNameBuiltins(t *testing.T) {
	known := append(slices.Clip(slugs), searchSlugs...)
	for slug := range stories {
		if !slices.Contains(known, slug) {
			t.Errorf("story %q: no built-in has that slug", slug)
		}
	}
}

// seedRuns runs sc once per seed of res, each seed alone, and returns the
// runs in res's seed order.
func seedRuns(t *testing.T, sc *engine.Scenario, res *engine.Result) []*engine.Result {
	t.Helper()
	var runs []*engine.Result
	for _, seed := range res.Seeds {
		one := *sc
		one.Seed, one.Runs, one.Seeds = seed, 1, nil
		runs = append(runs, run(t, &one))
	}
	return runs
}

// storyE03A: the seeds outweigh the strategies on load, not on success.
func storyE03A(t *testing.T, sc *engine.Scenario) {
	res := run(t, sc)
	if len(res.Seeds) != 20 {
		t.Fatalf("%d seeds; the text says twenty", len(res.Seeds))
	}
	// Load: each strategy's range over the seeds is more than ten times
	// the gap between the strategies' means.
	for _, metric := range []string{"attempts", "peak_per_1s"} {
		lo, hi := 0.0, 0.0
		for i, st := range res.Strategies {
			v, _ := st.Metrics.Metric(metric)
			if i == 0 || v < lo {
				lo = v
			}
			hi = max(hi, v)
		}
		for _, st := range res.Strategies {
			mm := st.Spread[metric]
			if mm.Max-mm.Min <= 10*(hi-lo) {
				t.Errorf("%s: %s ranges over %v..%v across the seeds, not more than ten times the gap %v between the strategies' means", st.Name, metric, mm.Min, mm.Max, hi-lo)
			}
		}
	}
	// Success: A, B and C succeed on every operation of every seed; D is
	// below them on every seed, its range over the seeds wider than its
	// mean gap to them.
	lo, hi := 1.0, 0.0 // D's, seed by seed
	for i, one := range seedRuns(t, sc, res) {
		d := metrics(t, one, "D").SuccessRate
		lo, hi = min(lo, d), max(hi, d)
		for _, name := range []string{"A", "B", "C"} {
			if m := metrics(t, one, name); m.SuccessRate != 1 || m.SuccessRate <= d {
				t.Errorf("seed %d: %s succeeded %v, D %v; want 1, and D below it", res.Seeds[i], name, m.SuccessRate, d)
			}
		}
	}
	d := strategyResult(t, res, "D")
	if mm := d.Spread["success_rate"]; mm.Min != lo || mm.Max != hi {
		t.Fatalf("D: the seeds run alone range over %v..%v, the run over %v..%v", lo, hi, mm.Min, mm.Max)
	}
	if mm := d.Spread["success_rate"]; mm.Max-mm.Min <= 1-d.Metrics.SuccessRate {
		t.Errorf("D: success rate over the seeds %v..%v, not wider than its mean gap %v to the others", mm.Min, mm.Max, 1-d.Metrics.SuccessRate)
	}
	// The notes: a budget counted since the start instead of over 1 s.
	since := *sc
	since.Strategies = slices.Clone(sc.Strategies)
	b := *since.Strategies[3].Budget
	b.Window = 0
	since.Strategies[3].Budget = &b
	if m := metrics(t, run(t, &since), "D"); round(m.RetriesDenied, 2) != 1.05 || round(m.SuccessRate, 4) != 0.9996 || round(d.Metrics.RetriesDenied, 2) != 6.75 || round(d.Metrics.SuccessRate, 4) != 0.9976 {
		t.Errorf("D's budget since the start: %v denied, %v succeeded; over 1 s: %v and %v; the notes say 1.05 and 99.96%%, 6.75 and 99.76%%",
			m.RetriesDenied, m.SuccessRate, d.Metrics.RetriesDenied, d.Metrics.SuccessRate)
	}
}

// round rounds x to n decimals, as the text quotes it.
func round(x float64, n int) float64 {
	p := math.Pow(10, float64(n))
	return math.Round(x*p) / p
}

// storyFailover: three layers of retries turn a 20 s failover into an
// incident that lasts while requests arrive; one layer or a budget
// recovers at once, jitter at every layer does not.
func storyFailover(t *testing.T, sc *engine.Scenario) {
	if ws := strings.Join(engine.Warnings(sc), "\n"); !strings.Contains(ws, `"every-layer": retries at 3 levels multiply to up to 64 dependency calls per operation`) {
		t.Errorf("warnings:\n%s\nwant every-layer's up to 64 database calls per request", ws)
	}
	res := run(t, sc)
	arrivalsEnd := time.Duration(sc.Workload.Duration)
	capacity := int32(sc.Dependency.QueueCapacity)
	for _, name := range []string{"every-layer", "jitter"} {
		st := strategyResult(t, res, name)
		if n := successesIn(st, 40*time.Second, arrivalsEnd); n != 0 {
			t.Errorf("%s: %d successes from 40 s until arrivals stop; the text says none", name, n)
		}
		notRecovered(t, st)
		// The queue fills within seconds of the database's return at 30 s
		// and stays full (each bucket's peak) until arrivals stop.
		s := st.Series
		b := time.Duration(s.BucketMS * float64(time.Millisecond))
		for i, q := range s.QueueLength {
			if at := time.Duration(i) * b; at >= 35*time.Second && at+b <= arrivalsEnd && q < capacity*9/10 {
				t.Errorf("%s: queue at %d at %v; the text says it stays full", name, q, at)
				break
			}
		}
	}
	// The notes: no single burst at the return. every-layer's queue is
	// empty until 30 s and full within about 3 s; its busiest second
	// comes later.
	every := strategyResult(t, res, "every-layer")
	if q, first := every.Series.QueueLength, firstAt(every.Series, capacity); q[int(29.5*1000/every.Series.BucketMS)] != 0 || first < 30*time.Second || first > 33*time.Second {
		t.Errorf("every-layer: queue full first at %v, the half second before 30 s at %d; the notes say empty until 30 s, full within about 3 s", first, q[int(29.5*1000/every.Series.BucketMS)])
	}
	if busiest := busiestSecond(t, every.Series, 28*time.Second, 36*time.Second); busiest >= int(every.Metrics.PeakPer1s) {
		t.Errorf("every-layer: %d calls in the busiest second around the return, its peak %v; the notes say the busiest second comes later", busiest, every.Metrics.PeakPer1s)
	}
	for _, name := range []string{"one-layer", "budget"} {
		st := strategyResult(t, res, name)
		if m := st.Metrics; m.Recovered != 1 || !m.RecoveryS.Applies() || m.RecoveryS != 0 {
			t.Errorf("%s: recovered %v, recovery_s %v; the text says it recovers at once", name, float64(m.Recovered), float64(m.RecoveryS))
		}
		if s := successShare(t, st, 40, 110); s < 0.99 {
			t.Errorf("%s: %.1f%% succeeded from 40 s to 110 s, want a quick recovery", name, 100*s)
		}
	}
	plain, jitter := every.Metrics, metrics(t, res, "jitter")
	if math.Round(jitter.Amplification) != 10 || math.Round(plain.Amplification) != 6 || jitter.PeakPer1s != 1261 || plain.PeakPer1s != 749 {
		t.Errorf("jitter: %v calls per request, %v in the busiest second; no jitter: %v and %v; the text says about 10 and 1,261, 6 and 749",
			jitter.Amplification, jitter.PeakPer1s, plain.Amplification, plain.PeakPer1s)
	}
	// Without the failover the same traffic is healthy: the storm is
	// metastable, kept alive by retries alone.
	calm := *sc
	calm.Dependency.Phases = nil
	if m := metrics(t, run(t, &calm), "every-layer"); m.SuccessRate < 0.999 {
		t.Errorf("without a failover: %.2f%% succeeded", 100*m.SuccessRate)
	}
	// Capacity added ends it.
	scaled := run(t, withPhase(sc, engine.Phase{Kind: "capacity", From: dur(t, "60s"), To: dur(t, "1h"), Workers: 40}))
	if s := successShare(t, strategyResult(t, scaled, "every-layer"), 75, 120); s < 0.99 {
		t.Errorf("with capacity added at 60 s: %.1f%% succeeded from 75 s, want recovery", 100*s)
	}
	// Load removed ends it: with no user requests after 60 s, the database
	// drains and is idle well before the run ends.
	short := *sc
	short.Workload.Duration = dur(t, "60s")
	st := strategyResult(t, run(t, &short), "every-layer")
	if n := len(st.Series.QueueLength); n == 0 || st.Series.QueueLength[n-1] != 0 || st.Metrics.SettleS > 100 {
		t.Errorf("with the load removed at 60 s the storm should end: settled at %v s", st.Metrics.SettleS)
	}
}

// firstAt returns the start of the first bucket of s whose queue reaches
// n, or -1.
func firstAt(s *engine.Series, n int32) time.Duration {
	for i, q := range s.QueueLength {
		if q >= n {
			return time.Duration(float64(i) * s.BucketMS * float64(time.Millisecond))
		}
	}
	return -1
}

// busiestSecond returns the most dependency calls in any second that
// starts within [from, to), from s's 100 ms series, at 100 ms steps.
func busiestSecond(t *testing.T, s *engine.Series, from, to time.Duration) (most int) {
	t.Helper()
	for _, f := range s.Fine {
		if f.ResolutionMS != 100 {
			continue
		}
		for i := int(from / (100 * time.Millisecond)); i < int(to/(100*time.Millisecond)) && i+10 <= len(f.Attempts); i++ {
			n := 0
			for _, a := range f.Attempts[i : i+10] {
				n += int(a)
			}
			most = max(most, n)
		}
		return most
	}
	t.Fatal("no 100 ms series")
	return 0
}

// seriesIn sums the values of series v (one per bucket of bucketMS) in
// the buckets that lie within [from, to).
func seriesIn(v []int32, bucketMS float64, from, to time.Duration) (n int) {
	b := time.Duration(bucketMS * float64(time.Millisecond))
	for i, x := range v {
		if at := time.Duration(i) * b; at >= from && at+b <= to {
			n += int(x)
		}
	}
	return n
}

// storyMetadataStorm: the storm outlives the disruption and ends with the
// pause; retrying at once escapes it only because a connection error takes
// no time; both recovery times are the pause's end.
func storyMetadataStorm(t *testing.T, sc *engine.Scenario) {
	res := run(t, sc)
	servers, atOnce := strategyResult(t, res, "storage-servers"), strategyResult(t, res, "retry-at-once")
	// The look_at: waiting out the disruption, then no success from 27 s to
	// the remedy at 60 s.
	if s := successShare(t, servers, 25, 27); s < 0.9 {
		t.Errorf("storage servers: %.1f%% succeeded from 25 s to 27 s; the text says they succeed as the disruption ends", 100*s)
	}
	if n := successesIn(servers, 27*time.Second, 60*time.Second); n != 0 {
		t.Errorf("storage servers: %d successes from 27 s to 60 s; the text says none", n)
	}
	if s := successShare(t, servers, 75, 120); s < 0.99 {
		t.Errorf("storage servers: %.1f%% succeeded after the pause and the added capacity, want recovery", 100*s)
	}
	if servers.Metrics.WastedWork < servers.Metrics.Succeeded/10 {
		t.Errorf("the storm should be made of wasted work: %v served after their caller left", servers.Metrics.WastedWork)
	}
	// Both read 45 s: the pause refuses every request until 70 s, and
	// retrying at once in fact succeeds from 25 s to the pause.
	for _, st := range []*engine.StrategyResult{servers, atOnce} {
		if m := st.Metrics; m.Recovered != 1 || m.RecoveryS != 45 {
			t.Errorf("%s: recovered %v, recovery_s %v; the text says 45 s for both", st.Name, float64(m.Recovered), float64(m.RecoveryS))
		}
		if n := successesIn(st, 61*time.Second, 70*time.Second); n != 0 {
			t.Errorf("%s: %d successes during the pause; it refuses every request", st.Name, n)
		}
	}
	if s := successShare(t, atOnce, 25, 60); s < 0.99 {
		t.Errorf("retry-at-once: %.1f%% succeeded from 25 s to 60 s; the text says it succeeds again from 25 s", 100*s)
	}
	// The notes: retrying at once, its operations fail during the
	// disruption instead, and it builds no backlog.
	if s := successShare(t, atOnce, 21, 25); s > 0.01 {
		t.Errorf("retry-at-once: %.1f%% succeeded from 21 s to 25 s; the notes say its operations fail during the disruption", 100*s)
	}
	for i, q := range atOnce.Series.QueueLength {
		if q > int32(sc.Dependency.Workers) {
			t.Errorf("retry-at-once: %d queued at %v; the notes say it builds no backlog", q, time.Duration(float64(i)*atOnce.Series.BucketMS*float64(time.Millisecond)))
			break
		}
	}
	// The notes: in the storm the servers offer several times the
	// capacity (about 2,500 requests/s), most of it retries.
	s := servers.Series
	attempts := seriesIn(s.Attempts, s.BucketMS, 30*time.Second, 60*time.Second)
	if perS := float64(attempts) / 30; perS < 3*2500 {
		t.Errorf("storage servers: %.0f attempts/s from 30 s to 60 s; the notes say several times the capacity of about 2,500", perS)
	}
	if r := seriesIn(s.Retries, s.BucketMS, 30*time.Second, 60*time.Second); 2*r <= attempts {
		t.Errorf("storage servers: %d retries of %d attempts from 30 s to 60 s; the notes say most are retries", r, attempts)
	}
	// Without the remedy the storm lasts to the end; without the trigger there is none.
	phases := sc.Dependency.Phases
	variant := func(ph ...engine.Phase) *engine.Scenario {
		c := *sc
		c.Dependency.Phases = ph
		return &c
	}
	if s := successShare(t, strategyResult(t, run(t, variant(phases[0])), "storage-servers"), 75, 120); s > 0.2 {
		t.Errorf("without the remedy: %.1f%% succeeded from 75 s, the storm should persist", 100*s)
	}
	if m := metrics(t, run(t, variant()), "storage-servers"); m.SuccessRate < 0.999 {
		t.Errorf("without the disruption: %.2f%% succeeded", 100*m.SuccessRate)
	}
	// Of the remedy, the pause alone ends the storm; twice the capacity
	// alone does not, nor a pause answered 503 with it.
	if s := successShare(t, strategyResult(t, run(t, variant(phases[0], phases[1])), "storage-servers"), 75, 120); s < 0.99 {
		t.Errorf("with the pause alone: %.1f%% succeeded from 75 s, want recovery", 100*s)
	}
	if s := successShare(t, strategyResult(t, run(t, variant(phases[0], phases[2])), "storage-servers"), 75, 120); s > 0.2 {
		t.Errorf("with twice the capacity alone: %.1f%% succeeded from 75 s; the storm should persist", 100*s)
	}
	pause503 := phases[1]
	pause503.Status = 503
	if s := successShare(t, strategyResult(t, run(t, variant(phases[0], pause503, phases[2])), "storage-servers"), 75, 120); s > 0.2 {
		t.Errorf("with a pause answered 503 and twice the capacity: %.1f%% succeeded from 75 s; the storm should persist", 100*s)
	}
	// Retrying at once escapes only because a connection error takes no
	// time here: at 200 ms or 1 s it storms too.
	if phases[0].Latency != 0 {
		t.Fatalf("the disruption's connection errors take %v; the notes say no time", phases[0].Latency)
	}
	for _, d := range []string{"200ms", "1s"} {
		slow := phases[0]
		slow.Latency = dur(t, d)
		st := strategyResult(t, run(t, variant(slow, phases[1], phases[2])), "retry-at-once")
		if n := successesIn(st, 30*time.Second, 60*time.Second); n != 0 {
			t.Errorf("retry-at-once with connection errors of %s: %d successes from 30 s to 60 s; the notes say it storms", d, n)
		}
	}
}

// storyHedgedRequests: hedging cuts a healthy service's tail for 8.5% to
// 14% more calls; short of workers, it fails calls because the copies
// whose call has ended are still served.
func storyHedgedRequests(t *testing.T, sc *engine.Scenario) {
	res := run(t, sc)
	if len(res.Sweep) != 2 {
		t.Fatalf("%d sweep points, want 2 (500 and 6 workers)", len(res.Sweep))
	}
	healthy, short := res.Sweep[0].Strategies, res.Sweep[1].Strategies
	byName := func(sts []engine.StrategyResult, name string) engine.Metrics {
		return metrics(t, &engine.Result{Strategies: sts}, name)
	}
	// Healthy: the p99 from about 200 ms to about half of it or less (77
	// to 102 ms), for 8.5% to 14% more calls.
	plain := byName(healthy, "no hedging")
	if plain.LatencyP99ms < 180 || plain.LatencyP99ms > 220 {
		t.Errorf("healthy, no hedging: p99 %v ms; the text says about 200", plain.LatencyP99ms)
	}
	lo, hi := math.Inf(1), 0.0
	for _, st := range healthy[1:] {
		x := st.Metrics
		if math.Round(x.LatencyP99ms) < 77 || math.Round(x.LatencyP99ms) > 102 || x.LatencyP99ms > 0.52*plain.LatencyP99ms || x.Hedges == 0 {
			t.Errorf("healthy, %s: p99 %v ms against %v without hedging (%v hedges); the text says 77 to 102 ms, about half or less", st.Name, x.LatencyP99ms, plain.LatencyP99ms, x.Hedges)
		}
		extra := x.DependencyCalls/plain.DependencyCalls - 1
		lo, hi = min(lo, extra), max(hi, extra)
	}
	if round(lo, 3) != 0.085 || round(hi, 2) != 0.14 {
		t.Errorf("healthy: %.1f%% to %.1f%% more calls; the text says 8.5%% to 14%%", 100*lo, 100*hi)
	}
	// The notes: hedging at p95 hedges about 14% of calls, not 5%, more
	// than the fixed 50 ms.
	p95, at50 := byName(healthy, "hedge at p95"), byName(healthy, "hedge at 50 ms")
	if share := p95.Hedges / p95.FirstAttempts; round(share, 2) != 0.14 || p95.Hedges <= at50.Hedges {
		t.Errorf("healthy, hedge at p95: %.1f%% of calls hedge (%v copies, %v at 50 ms); the notes say about 14%%, more than at 50 ms", 100*share, p95.Hedges, at50.Hedges)
	}
	// Short of workers: about half the calls send their second copy, the
	// copies are served after their call ended, and calls fail: 35% at
	// 50 ms, 28% at p95; none with a budget, nor without hedging.
	healthyPlain, plain := plain, byName(short, "no hedging")
	if plain.LatencyP50ms <= healthyPlain.LatencyP50ms || plain.LatencyP99ms <= healthyPlain.LatencyP99ms {
		t.Errorf("no hedging: p50 %v ms and p99 %v short of workers, %v and %v healthy; the text says latencies grow", plain.LatencyP50ms, plain.LatencyP99ms, healthyPlain.LatencyP50ms, healthyPlain.LatencyP99ms)
	}
	if plain.SuccessRate != 1 {
		t.Errorf("short of workers, no hedging: %.2f%% succeeded; the text has hedging as the cause of the failures", 100*plain.SuccessRate)
	}
	for name, failed := range map[string]float64{"hedge at 50 ms": 0.35, "hedge at p95": 0.28} {
		x := byName(short, name)
		if share := x.Hedges / x.FirstAttempts; share < 0.4 || share > 0.6 {
			t.Errorf("short of workers, %s: %.1f%% of calls hedge; the text says about half", name, 100*share)
		}
		if x.WastedWork == 0 {
			t.Errorf("short of workers, %s: no copy served after its call ended", name)
		}
		if got := round(1-x.SuccessRate, 2); got != failed {
			t.Errorf("short of workers, %s: %.1f%% failed; the text says %.0f%%", name, 100*(1-x.SuccessRate), 100*failed)
		}
	}
	if x := byName(short, "hedge with budget"); x.SuccessRate != 1 || x.RetriesDenied == 0 {
		t.Errorf("short of workers, hedge with budget: %.2f%% succeeded, %v copies denied; want the budget to hold the copies back and no call to fail", 100*x.SuccessRate, x.RetriesDenied)
	}
	// A service that drops the copies whose call has ended fails no call.
	drop := *sc
	drop.Dependency.DropAbandoned = true
	for _, st := range run(t, &drop).Sweep[1].Strategies {
		if st.Metrics.SuccessRate != 1 {
			t.Errorf("short of workers, dropping abandoned copies, %s: %.2f%% succeeded; the text says none fails", st.Name, 100*st.Metrics.SuccessRate)
		}
	}
}

// storyThunderingHerd: jitter cuts the busiest 10 ms; over 100 ms and 1 s
// full jitter is worse than none, and only decorrelated jitter is better
// at every resolution.
func storyThunderingHerd(t *testing.T, sc *engine.Scenario) {
	res := run(t, sc)
	none := strategyResult(t, res, "no-jitter")
	// Without jitter: each round of 1,000 in one 10 ms slot, at 100, 300,
	// 700 and 1,500 ms.
	s := none.Series
	var at []time.Duration
	for i, n := range s.Retries {
		if n != 0 {
			if n != 1000 {
				t.Errorf("no-jitter: %d retries in one bucket; the text says each round of 1,000 in one slot", n)
			}
			at = append(at, time.Duration(float64(i)*s.BucketMS*float64(time.Millisecond)))
		}
	}
	if want := []time.Duration{100 * time.Millisecond, 300 * time.Millisecond, 700 * time.Millisecond, 1500 * time.Millisecond}; !slices.Equal(at, want) || s.BucketMS != 10 {
		t.Errorf("no-jitter: retries at %v in buckets of %v ms; the notes say %v", at, s.BucketMS, want)
	}
	plain := none.Metrics
	if plain.RetryPeakPer10ms != 1000 || plain.RetryPeakPer100ms != 1000 || plain.RetryPeakPer1s != 3000 {
		t.Errorf("no-jitter: retry peaks %v, %v, %v; the text says 1,000, 1,000 and 3,000", plain.RetryPeakPer10ms, plain.RetryPeakPer100ms, plain.RetryPeakPer1s)
	}
	// Any jitter: a quarter of that or less in the busiest 10 ms.
	for _, name := range []string{"full", "equal", "decorrelated"} {
		if p := metrics(t, res, name).RetryPeakPer10ms; p > 250 {
			t.Errorf("%s jitter: %v retries in the busiest 10 ms; the text says a quarter of 1,000 or less", name, p)
		}
	}
	// Full jitter: the rounds come sooner and overlap, worse than none
	// over 100 ms and 1 s (1,260 and 3,819).
	full := strategyResult(t, res, "full")
	if m := full.Metrics; m.RetryPeakPer100ms != 1260 || m.RetryPeakPer1s != 3819 {
		t.Errorf("full jitter: retry peaks %v per 100 ms, %v per 1 s; the text says 1,260 and 3,819", m.RetryPeakPer100ms, m.RetryPeakPer1s)
	}
	if a, b := meanRetryAt(full.Series), meanRetryAt(none.Series); a >= b {
		t.Errorf("full jitter: retries at %v on average, no jitter at %v; the text says sooner", a, b)
	}
	// Equal jitter: as no jitter over 100 ms, above it over 1 s.
	if m := metrics(t, res, "equal"); m.RetryPeakPer100ms != plain.RetryPeakPer100ms || m.RetryPeakPer1s <= plain.RetryPeakPer1s {
		t.Errorf("equal jitter: retry peaks %v per 100 ms, %v per 1 s; the text says as no jitter's %v, above its %v", m.RetryPeakPer100ms, m.RetryPeakPer1s, plain.RetryPeakPer100ms, plain.RetryPeakPer1s)
	}
	// Decorrelated: the only one below no jitter at every resolution.
	for _, st := range res.Strategies {
		m := st.Metrics
		below := m.RetryPeakPer10ms < plain.RetryPeakPer10ms && m.RetryPeakPer100ms < plain.RetryPeakPer100ms && m.RetryPeakPer1s < plain.RetryPeakPer1s
		if below != (st.Name == "decorrelated") {
			t.Errorf("%s: retry peaks %v, %v, %v against no jitter's %v, %v, %v; the text says only decorrelated is below at every resolution",
				st.Name, m.RetryPeakPer10ms, m.RetryPeakPer100ms, m.RetryPeakPer1s, plain.RetryPeakPer10ms, plain.RetryPeakPer100ms, plain.RetryPeakPer1s)
		}
	}
}

// meanRetryAt returns the mean time of the retries in s (each at its
// bucket's start).
func meanRetryAt(s *engine.Series) time.Duration {
	var sum, n float64
	for i, r := range s.Retries {
		sum += float64(i) * s.BucketMS * float64(r)
		n += float64(r)
	}
	return time.Duration(sum / n * float64(time.Millisecond))
}

// storyLayeredRetries: the published oracles, from one request.
func storyLayeredRetries(t *testing.T, sc *engine.Scenario) {
	res := run(t, sc)
	for name, want := range map[string]float64{"3x3": 27, "top-only": 3, "5x3": 243, "3x4": 64} {
		m := metrics(t, res, name)
		if m.FirstAttempts != 1 || m.Amplification != want || m.DependencyCalls != want {
			t.Errorf("%s: %v requests, %v database calls per request; the text says one request and %v", name, m.FirstAttempts, m.Amplification, want)
		}
	}
}

// storySREBudget: the published oracles, 30,000 and 11,000 attempts,
// whatever the rate of arrival.
func storySREBudget(t *testing.T, sc *engine.Scenario) {
	check := func(res *engine.Result, rate float64) {
		none, budget := metrics(t, res, "no-budget"), metrics(t, res, "sre-budget")
		if none.FirstAttempts != 10000 || none.SuccessRate != 0 || none.Attempts != 30000 || budget.Attempts != 11000 || budget.RetriesDenied == 0 {
			t.Errorf("at %v requests/s: %v requests, %.0f%% succeeded; %v attempts without the budget, %v with it (%v denied); the text says 10,000, none, 30,000 and 11,000",
				rate, none.FirstAttempts, 100*none.SuccessRate, none.Attempts, budget.Attempts, budget.RetriesDenied)
		}
	}
	check(run(t, sc), sc.Workload.Rate)
	other := *sc
	other.Workload.Rate = 37
	check(run(t, &other), other.Workload.Rate)
}

// storyBreakerTimeline: one call every 50 ms for 12 s, and the published
// transitions.
func storyBreakerTimeline(t *testing.T, sc *engine.Scenario) {
	res := run(t, sc)
	st := &res.Strategies[0]
	var got []string
	for _, tr := range st.Transitions {
		got = append(got, strings.TrimRight(strings.TrimRight(jsonNumber(tr.AtS), "0"), ".")+" "+tr.To)
	}
	want := "0.45 open,2.45 half_open,2.45 open,4.45 half_open,4.45 open,6.45 half_open,6.45 closed"
	if strings.Join(got, ",") != want {
		t.Errorf("transitions %s, want %s", strings.Join(got, ","), want)
	}
	if m := st.Metrics; m.Operations != 240 || m.FastFailed+m.DependencyCalls != 240 {
		t.Errorf("%v calls, %v failed fast and %v sent; the text says one every 50 ms for 12 s, each failed fast or sent", m.Operations, m.FastFailed, m.DependencyCalls)
	}
}

// storySDKDoubleRetry: 6 requests over about 26 s, and 30 over about 2
// minutes.
func storySDKDoubleRetry(t *testing.T, sc *engine.Scenario) {
	res := run(t, sc)
	sdk, app := metrics(t, res, "sdk-only"), metrics(t, res, "app-loop")
	if sdk.Amplification != 6 || app.Amplification != 30 {
		t.Errorf("requests per operation: %v and %v, want 6 and 30", sdk.Amplification, app.Amplification)
	}
	if s := sdk.LatencyMaxms / 1000; s < 20 || s > 32 {
		t.Errorf("the SDK alone took %.1f s, want about 26", s)
	}
	if s := app.LatencyMaxms / 1000; s < 100 || s > 160 {
		t.Errorf("the loop took %.1f s, want about 2 minutes", s)
	}
}

// storyE03B: jitter lowers the fine peaks, not the 1 s one; D's budget
// denies most of its retries; and the notes' figures for other windows.
func storyE03B(t *testing.T, sc *engine.Scenario) {
	res := run(t, sc)
	if len(res.Seeds) != 10 {
		t.Fatalf("%d seeds; the text says ten", len(res.Seeds))
	}
	a, b, c, d := metrics(t, res, "A"), metrics(t, res, "B"), metrics(t, res, "C"), metrics(t, res, "D")
	if diff := c.Attempts/b.Attempts - 1; diff > 0.05 || diff < -0.05 {
		t.Errorf("B and C should send nearly the same requests: %v and %v", b.Attempts, c.Attempts)
	}
	if c.PeakPer100ms > 0.75*b.PeakPer100ms {
		t.Errorf("C's 100 ms peak %v should be far below B's %v", c.PeakPer100ms, b.PeakPer100ms)
	}
	if r := c.PeakPer1s / b.PeakPer1s; r < 0.8 || r > 1.25 {
		t.Errorf("B's and C's 1 s peaks should be close: %v and %v", b.PeakPer1s, c.PeakPer1s)
	}
	if d.Attempts >= min(a.Attempts, b.Attempts, c.Attempts) || d.Failed <= max(a.Failed, b.Failed, c.Failed) {
		t.Errorf("D should send the fewest requests (%v) and give up the most (%v failed)", d.Attempts, d.Failed)
	}
	if d.RetriesDenied <= d.Retries {
		t.Errorf("D: %v retries denied, %v sent; the text says its budget denies most", d.RetriesDenied, d.Retries)
	}
	for _, x := range []struct {
		name  string
		a, bc float64
	}{
		{"10 ms", a.PeakPer10ms, max(b.PeakPer10ms, c.PeakPer10ms, d.PeakPer10ms)},
		{"100 ms", a.PeakPer100ms, max(b.PeakPer100ms, c.PeakPer100ms, d.PeakPer100ms)},
		{"1 s", a.PeakPer1s, max(b.PeakPer1s, c.PeakPer1s, d.PeakPer1s)},
	} {
		if x.a <= x.bc {
			t.Errorf("A's %s peak %v, the others' highest %v; the text says A has the highest peaks", x.name, x.a, x.bc)
		}
	}
	// The notes: D's budget over other windows (over ten seeds).
	if round(d.Retries, 0) != 9 || round(d.RetriesDenied, 0) != 135 || round(d.PeakPer100ms, 0) != 20 || round(d.AffectedSuccessRate, 3) != 0.784 {
		t.Errorf("D over 1 s: %v retries, %v denied, 100 ms peak %v, affected success %v; the notes say 9, 135, 20 and 78.4%%", d.Retries, d.RetriesDenied, d.PeakPer100ms, d.AffectedSuccessRate)
	}
	window := func(w string) engine.Metrics {
		v := *sc
		v.Strategies = slices.Clone(sc.Strategies)
		bud := *v.Strategies[3].Budget
		bud.Window = 0
		if w != "" {
			bud.Window = dur(t, w)
		}
		v.Strategies[3].Budget = &bud
		return metrics(t, run(t, &v), "D")
	}
	if ff := 0.1 * sc.Workload.Rate * 10; round(ff, 0) != 95 {
		t.Errorf("10 s of first attempts at %v/s bank %v retries at 10%%; the notes say about 95", sc.Workload.Rate, ff)
	}
	for _, w := range []string{"", "10s", "30s"} {
		if m := window(w); round(m.Retries, 0) != 94 || round(m.RetriesDenied, 0) != 50 || round(m.PeakPer100ms, 0) != 62 || round(m.AffectedSuccessRate, 3) != 0.920 {
			t.Errorf("D over %q: %v retries, %v denied, 100 ms peak %v, affected success %v; the notes say 94, 50, 62 and 92.0%%", w, m.Retries, m.RetriesDenied, m.PeakPer100ms, m.AffectedSuccessRate)
		}
	}
	for w, want := range map[string]float64{"2s": 18, "5s": 47, "8.5s": 80} {
		if m := window(w); round(m.Retries, 0) != want {
			t.Errorf("D over %s: %v retries; the notes say %v", w, m.Retries, want)
		}
	}
}

// storyTimeBudget: the warning's arithmetic, and how the deadline cuts
// the last retry short.
func storyTimeBudget(t *testing.T, sc *engine.Scenario) {
	ws := strings.Join(engine.Warnings(sc), "\n")
	if !strings.Contains(ws, `"cut": worst case 11.5s (4 attempts × 2s + 3.5s of waits) exceeds its deadline 10s`) || strings.Contains(ws, `"fits"`) {
		t.Errorf("warnings:\n%s\nwant one for \"cut\" (11.5 s) and none for \"fits\"", ws)
	}
	res := run(t, sc)
	cut, fits := metrics(t, res, "cut"), metrics(t, res, "fits")
	for name, m := range map[string]engine.Metrics{"cut": cut, "fits": fits} {
		if m.LatencyMaxms > 10000 || m.Amplification != 4 || m.Succeeded != 0 {
			t.Errorf("%s: longest operation %v ms, %v attempts per operation, %v succeeded; the text says at most 10 s, 4 attempts, every attempt timing out", name, m.LatencyMaxms, m.Amplification, m.Succeeded)
		}
	}
	if cut.GaveUpDeadline != cut.Operations || cut.LatencyP50ms != 10000 {
		t.Errorf("cut: %v of %v operations gave up on the deadline, p50 %v ms; the text says every one, at 10 s", cut.GaveUpDeadline, cut.Operations, cut.LatencyP50ms)
	}
	if fits.GaveUpAttempts != fits.Operations || fits.LatencyMaxms != 9500 {
		t.Errorf("fits: %v of %v operations ran out of attempts, the longest %v ms; the text says every one, at 9.5 s", fits.GaveUpAttempts, fits.Operations, fits.LatencyMaxms)
	}
}

// storyDeadLetters: every failure dead-lettered by its reason; out of
// deliveries only with 5 tries at once.
func storyDeadLetters(t *testing.T, sc *engine.Scenario) {
	res := run(t, sc)
	ten, five := metrics(t, res, "max-10"), metrics(t, res, "storage-5")
	for name, m := range map[string]engine.Metrics{"max-10": ten, "storage-5": five} {
		if m.DeadLettered != m.Failed || m.DeadLetteredUnread == 0 || m.DeadLetteredPerm == 0 || m.DeadLetteredUnread != m.GaveUpUnreadable {
			t.Errorf("%s: %v dead-lettered (%v unreadable, %v non-transient) of %v failed; every failure goes to the DLQ by its reason",
				name, m.DeadLettered, m.DeadLetteredUnread, m.DeadLetteredPerm, m.Failed)
		}
	}
	if ten.DeadLetteredAttempts != 0 || five.DeadLetteredAttempts == 0 {
		t.Errorf("out of deliveries: %v with 10 and capped backoff, %v with 5 at once; the outage outlasts only the second", ten.DeadLetteredAttempts, five.DeadLetteredAttempts)
	}
	// The notes: 10 deliveries span up to about 2.5 minutes, longer than
	// the 15 s outage.
	p := sc.Strategies[0]
	var span time.Duration
	for k, wait := 1, time.Duration(p.Backoff.Base); k < p.MaxAttempts; k++ {
		span += min(wait, time.Duration(p.Backoff.Max))
		wait = time.Duration(float64(wait) * p.Backoff.Multiplier)
	}
	if span < 140*time.Second || span > 160*time.Second {
		t.Errorf("max-10: its 9 waits add up to %v at most; the notes say about 2.5 minutes", span)
	}
}

// storyIdempotencyKeys: duplicates only without a key; with one, 409s
// while the first attempt runs, retried.
func storyIdempotencyKeys(t *testing.T, sc *engine.Scenario) {
	res := run(t, sc)
	none, noKey, key := metrics(t, res, "no-retry"), metrics(t, res, "retry-no-key"), metrics(t, res, "with-key")
	if noKey.Duplicates == 0 || key.Duplicates != 0 || none.Duplicates != 0 {
		t.Errorf("duplicates: no retry %v, retries without a key %v, with a key %v; want 0, some, 0", none.Duplicates, noKey.Duplicates, key.Duplicates)
	}
	if key.SuccessRate <= none.SuccessRate {
		t.Errorf("retrying with a key should still help: %.3f against %.3f", key.SuccessRate, none.SuccessRate)
	}
	if share := none.Failed / none.Operations; round(share, 2) != 0.08 || none.Failed != none.GaveUpNonIdempotent {
		t.Errorf("no-retry: %v of %v payments timed out (%.1f%%); the notes say 8%% take longer than 2 s", none.Failed, none.Operations, 100*share)
	}
	// The server answers 409 while the first attempt runs: with-key
	// retries them; without 409 in retry_on, they end operations.
	v := *sc
	v.Strategies = slices.Clone(sc.Strategies)
	on := *v.Strategies[2].RetryOn
	on.Statuses = slices.DeleteFunc(slices.Clone(on.Statuses), func(s int) bool { return s == 409 })
	v.Strategies[2].RetryOn = &on
	if m := metrics(t, run(t, &v), "with-key"); m.GaveUpNotRetryable == 0 {
		t.Errorf("with-key, 409 not retried: no operation ended on a status it does not retry; the text says the server answers 409 while the first attempt runs")
	}
}

// storyTokenBucket: at 1% the bucket never interferes; at 100% it allows
// four retries in all; whatever the timing of the calls.
func storyTokenBucket(t *testing.T, sc *engine.Scenario) {
	check := func(res *engine.Result, rate float64) {
		if len(res.Sweep) != 4 {
			t.Fatalf("%d sweep points, want 4", len(res.Sweep))
		}
		for i, pt := range res.Sweep {
			nb, tb := pt.Strategies[0].Metrics, pt.Strategies[1].Metrics
			if nb.Operations != 10000 || nb.Attempts > 5*nb.Operations {
				t.Errorf("at %v/s, p=%v: %v calls, %v attempts; the text says 10,000 calls of at most 5 attempts", rate, pt.Value, nb.Operations, nb.Attempts)
			}
			switch {
			case i == 0 && (tb.RetriesDenied != 0 || tb.Attempts != nb.Attempts):
				t.Errorf("at %v/s, 1%% failures: %v denied; the text says the bucket never interferes", rate, tb.RetriesDenied)
			case i > 0 && tb.Attempts >= nb.Attempts:
				t.Errorf("at %v/s, p=%v: the bucket should save attempts (%v against %v)", rate, pt.Value, tb.Attempts, nb.Attempts)
			}
		}
		all := res.Sweep[3].Strategies
		if all[0].Metrics.Attempts != 50000 || all[1].Metrics.Attempts != 10004 || all[1].Metrics.Retries != 4 {
			t.Errorf("at %v/s, 100%%: %v and %v attempts (%v retries with the bucket), want 50,000 and 10,004 (four retries in all)", rate, all[0].Metrics.Attempts, all[1].Metrics.Attempts, all[1].Metrics.Retries)
		}
	}
	check(run(t, sc), sc.Workload.Rate)
	// The notes: the timing does not change the story.
	fast := *sc
	fast.Workload.Rate = 1000
	check(run(t, &fast), fast.Workload.Rate)
}

// storyResiliencePipeline: the breaker inside the retry opens on its
// 100th sample and its fast failures are not retried.
func storyResiliencePipeline(t *testing.T, sc *engine.Scenario) {
	res := run(t, sc)
	st := strategyResult(t, res, "standard-handler")
	probes := 0
	for _, tr := range st.Transitions {
		if tr.To == "half_open" {
			probes++
		}
	}
	m := st.Metrics
	// The breaker opens on its 100th sample (all failures); after that only
	// half-open probes reach the dependency. Its fast failures are not retried.
	if m.DependencyCalls != float64(100+probes) {
		t.Errorf("%v calls reached the dependency, want 100 + %d half-open probes", m.DependencyCalls, probes)
	}
	if m.Operations != 60 || m.GaveUpBreaker+m.GaveUpAttempts != 60 || m.GaveUpBreaker < 50 || m.FastFailed != m.GaveUpBreaker {
		t.Errorf("%v calls, %v failed fast, %v given up by the breaker, %v out of attempts; the text says 60, each fast failure ending its call", m.Operations, m.FastFailed, m.GaveUpBreaker, m.GaveUpAttempts)
	}
	if got := metrics(t, res, "retry-only").DependencyCalls; got != 240 {
		t.Errorf("without the breaker %v calls, want 60 × 4", got)
	}
}

// storyLoadShedding: goodput near 0 queueing everything, or with a queue
// of a timeout's work; near capacity with a queue of 10.
func storyLoadShedding(t *testing.T, sc *engine.Scenario) {
	res := run(t, sc)
	var goodput, wasted []float64
	for _, pt := range res.Sweep {
		goodput = append(goodput, pt.Strategies[0].Metrics.GoodputPerS)
		wasted = append(wasted, pt.Strategies[0].Metrics.WastedWork)
	}
	if len(goodput) != 4 || goodput[0] > 10 || goodput[1] > 10 || goodput[2] > 10 || goodput[3] < 95 {
		t.Errorf("goodput by queue capacity (100,000, 1,000, 100, 10) %v: the text says near 0 but with a queue of 10, near the capacity of 100/s there", goodput)
	}
	if !slices.IsSortedFunc(wasted, func(a, b float64) int { return -cmpFloat(a, b) }) || wasted[3] != 0 {
		t.Errorf("wasted work should fall as the queue shortens, to none: %v", wasted)
	}
}

// sweepMetrics returns the metrics of the first strategy at each sweep
// value of res, keyed by the value as JSON writes it.
func sweepMetrics(t *testing.T, res *engine.Result, name string) map[string]engine.Metrics {
	t.Helper()
	out := map[string]engine.Metrics{}
	for _, pt := range res.Sweep {
		v, _ := json.Marshal(pt.Value)
		res := engine.Result{Scenario: res.Scenario, Strategies: pt.Strategies}
		out[strings.Trim(string(v), `"`)] = metrics(t, &res, name)
	}
	return out
}

// storyLIFOOverload: FIFO's goodput collapses; LIFO, CoDel and adaptive
// LIFO keep it near capacity; plain LIFO wastes work, the two that drop
// answer their drops at once; adaptive LIFO has the shortest tail.
func storyLIFOOverload(t *testing.T, sc *engine.Scenario) {
	res := run(t, sc)
	m := sweepMetrics(t, res, "client")
	fifo, lifo, codel, alifo := m["fifo"], m["lifo"], m["codel"], m["adaptive-lifo"]
	if len(m) != 4 || len(res.Seeds) != 3 {
		t.Fatalf("%d sweep values and %d seeds; the text compares four disciplines on three seeds", len(m), len(res.Seeds))
	}
	if fifo.GoodputPerS > 6 || fifo.GoodputPerS < 2 {
		t.Errorf("fifo: goodput %.1f/s; the text says about 4 of its 100", fifo.GoodputPerS)
	}
	for name, k := range map[string]engine.Metrics{"lifo": lifo, "codel": codel, "adaptive-lifo": alifo} {
		if k.GoodputPerS < 97 || k.GoodputPerS > 100.5 {
			t.Errorf("%s: goodput %.1f/s; the text says about 98 to 100", name, k.GoodputPerS)
		}
		// Two thirds: 100 served of 150 offered per second.
		if k.SuccessRate < 0.64 || k.SuccessRate > 2.0/3+0.01 {
			t.Errorf("%s: success %.3f; the text says two thirds, the most the capacity allows", name, k.SuccessRate)
		}
	}
	if share := fifo.WastedWork / (fifo.WastedWork + fifo.Succeeded); share < 0.9 {
		t.Errorf("fifo: %.2f of the requests served were for clients that had left; the text says almost all", share)
	}
	if lifo.WastedWork < 2500 || lifo.WastedWork > 3500 || lifo.Rejections != 0 {
		t.Errorf("lifo: wasted work %.0f, rejections %.0f; the text says about 3,000 served for clients that had given up, and no drop", lifo.WastedWork, lifo.Rejections)
	}
	for name, k := range map[string]engine.Metrics{"codel": codel, "adaptive-lifo": alifo} {
		if k.WastedWork != 0 || k.Rejections < 2500 || k.Rejections > 3500 {
			t.Errorf("%s: wasted work %.0f, rejections %.0f; the text says none wasted and about 3,000 dropped", name, k.WastedWork, k.Rejections)
		}
	}
	if !(alifo.SuccessLatencyP99ms < lifo.SuccessLatencyP99ms && lifo.SuccessLatencyP99ms < codel.SuccessLatencyP99ms) ||
		math.Abs(alifo.SuccessLatencyP99ms-190) > 20 || math.Abs(codel.SuccessLatencyP99ms-450) > 50 {
		t.Errorf("success p99: adaptive-lifo %.0f ms, lifo %.0f, codel %.0f; the text says adaptive LIFO's the shortest (about 190 ms), CoDel's the longest of the three (about 450 ms)",
			alifo.SuccessLatencyP99ms, lifo.SuccessLatencyP99ms, codel.SuccessLatencyP99ms)
	}
}

// storyRateLimited429: in whole seconds, honouring the Retry-After sends
// fewer calls, meets fewer 429s and succeeds more in the spike, and pays
// in latency and recovery; in milliseconds it changes nothing.
func storyRateLimited429(t *testing.T, sc *engine.Scenario) {
	res := run(t, sc)
	sec := map[string]engine.Metrics{}
	ms := map[string]engine.Metrics{}
	for _, name := range []string{"honours", "ignores"} {
		sec[name] = sweepMetrics(t, res, name)["1s"]
		ms[name] = sweepMetrics(t, res, name)["1ms"]
	}
	h, i := sec["honours"], sec["ignores"]
	if r := 1 - h.DependencyCalls/i.DependencyCalls; r < 0.05 || r > 0.08 {
		t.Errorf("whole seconds: calls %.0f against %.0f (%.1f%% fewer); the text says about 6%% fewer", h.DependencyCalls, i.DependencyCalls, 100*r)
	}
	if r := 1 - h.Rejections/i.Rejections; r < 0.14 || r > 0.19 {
		t.Errorf("whole seconds: 429s %.0f against %.0f (%.1f%% fewer); the text says about a sixth fewer", h.Rejections, i.Rejections, 100*r)
	}
	if math.Abs(h.AffectedSuccessRate-0.79) > 0.01 || math.Abs(i.AffectedSuccessRate-0.66) > 0.01 ||
		math.Abs(h.SuccessRate-0.92) > 0.01 || math.Abs(i.SuccessRate-0.88) > 0.01 {
		t.Errorf("whole seconds: affected success %.3f against %.3f, success %.3f against %.3f; the text says 79%% against 66%%, 92%% against 88%%",
			h.AffectedSuccessRate, i.AffectedSuccessRate, h.SuccessRate, i.SuccessRate)
	}
	if math.Abs(h.LatencyP99ms-4500) > 100 || math.Abs(i.LatencyP99ms-2300) > 100 {
		t.Errorf("whole seconds: p99 %.0f ms against %.0f; the text says 4.5 s against 2.3 s", h.LatencyP99ms, i.LatencyP99ms)
	}
	if !h.RecoveryS.Applies() || !i.RecoveryS.Applies() || math.Abs(float64(h.RecoveryS)-3.5) > 0.5 || math.Abs(float64(i.RecoveryS)-1) > 0.3 {
		t.Errorf("whole seconds: recovery %v s against %v s; the text says some 3.5 s against about 1 s", float64(h.RecoveryS), float64(i.RecoveryS))
	}
	// Where the retries land, whole seconds (the scenario's own unit),
	// from the series of a run without the sweep.
	one := *sc
	one.Sweep = nil
	whole := run(t, &one)
	for name, lo := range map[string]float64{"honours": 0.55, "ignores": 0.12} {
		st := strategyResult(t, whole, name)
		var after, all int32
		for k, n := range st.Series.Retries {
			at := float64(k) * st.Series.BucketMS / 1000
			if at >= 15 && at < 21 {
				after += n
			}
			all += n
		}
		if share := float64(after) / float64(all); share < lo || share > lo+0.17 {
			t.Errorf("%s: %.2f of its retries from 15 s to 21 s; the notes say about two thirds honouring, a fifth ignoring", name, share)
		}
	}
	// Every 429 after the burst says at most one token's interval, 10 ms:
	// below the loop's shortest backoff, which wins.
	h, i = ms["honours"], ms["ignores"]
	if math.Abs(h.DependencyCalls/i.DependencyCalls-1) > 0.01 || math.Abs(h.SuccessRate-i.SuccessRate) > 0.002 || math.Abs(h.AffectedSuccessRate-i.AffectedSuccessRate) > 0.005 {
		t.Errorf("milliseconds: calls %.0f against %.0f, success %.4f against %.4f, affected %.4f against %.4f; the text says as many calls and as often",
			h.DependencyCalls, i.DependencyCalls, h.SuccessRate, i.SuccessRate, h.AffectedSuccessRate, i.AffectedSuccessRate)
	}
}

// metrics returns the metrics of the strategy named name.
func metrics(t testing.TB, res *engine.Result, name string) engine.Metrics {
	t.Helper()
	for _, st := range res.Strategies {
		if st.Name == name {
			return st.Metrics
		}
	}
	t.Fatalf("no strategy %q", name)
	return engine.Metrics{}
}

// strategyResult returns the result of the strategy named name.
func strategyResult(t testing.TB, res *engine.Result, name string) *engine.StrategyResult {
	t.Helper()
	for i := range res.Strategies {
		if res.Strategies[i].Name == name {
			return &res.Strategies[i]
		}
	}
	t.Fatalf("%s: no strategy %q", res.Scenario, name)
	return nil
}

// successShare returns the share of operations ending in [from, to) seconds
// that succeeded, from a strategy's series.
func successShare(t testing.TB, st *engine.StrategyResult, from, to float64) float64 {
	t.Helper()
	s := st.Series
	var ok, all int32
	for i := range s.Successes {
		at := float64(i) * s.BucketMS / 1000
		if at >= from && at < to {
			ok += s.Successes[i]
			all += s.Successes[i] + s.Failures[i]
		}
	}
	if all == 0 {
		t.Fatalf("%s: no operation ended in [%g s, %g s)", st.Name, from, to)
	}
	return float64(ok) / float64(all)
}

// jsonNumber formats f as encoding/json does.
func jsonNumber(f float64) string {
	b, _ := json.Marshal(f)
	return string(b)
}

// withPhase returns the scenario with an extra dependency phase.
func withPhase(sc *engine.Scenario, ph engine.Phase) *engine.Scenario {
	c := *sc
	c.Dependency.Phases = append(slices.Clone(sc.Dependency.Phases), ph)
	return &c
}

// dur parses a duration as a scenario writes it.
func dur(t testing.TB, s string) engine.Duration {
	t.Helper()
	d, err := engine.ParseDuration(s)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// storyRunawayCascade: textbook runs away, fixed holds, fleet-50 sits
// between; and the notes' variants of the curve and of the reserve.
func storyRunawayCascade(t *testing.T, sc *engine.Scenario) {
	all := run(t, sc) // the three seeds the notes quote
	textbook, fixed, fleet := metrics(t, all, "textbook"), metrics(t, all, "fixed"), metrics(t, all, "fleet-50")
	if !(textbook.SuccessRate < fleet.SuccessRate && fleet.SuccessRate < fixed.SuccessRate) || !(fixed.PeakPer1s < fleet.PeakPer1s && fleet.PeakPer1s < textbook.PeakPer1s) {
		t.Errorf("success %.1f%%, %.1f%%, %.1f%%, peaks %v, %v, %v (textbook, fleet-50, fixed); the look_at has fleet-50 between on both",
			100*textbook.SuccessRate, 100*fleet.SuccessRate, 100*fixed.SuccessRate, textbook.PeakPer1s, fleet.PeakPer1s, fixed.PeakPer1s)
	}
	if fleet.DependencyCalls >= min(fixed.DependencyCalls, textbook.DependencyCalls) || fleet.GaveUpBreaker <= 0.4*fleet.Operations {
		t.Errorf("fleet-50: %v calls (fixed %v, textbook %v), %v of %v operations failed fast by its breakers; the look_at says the fewest calls, over 40%% failed fast",
			fleet.DependencyCalls, fixed.DependencyCalls, textbook.DependencyCalls, fleet.GaveUpBreaker, fleet.Operations)
	}
	// The notes: with no reserve (min_per_second 0, as published) fleet-50
	// does as well as fixed: 89.5% against 89.6%, peaks 618 and 619.
	bare := *sc
	bare.Strategies = slices.Clone(sc.Strategies)
	for i := 1; i < 3; i++ {
		b := *bare.Strategies[i].Budget
		b.MinPerSecond = 0
		bare.Strategies[i].Budget = &b
	}
	nb := run(t, &bare)
	bf, bx := metrics(t, nb, "fleet-50"), metrics(t, nb, "fixed")
	if round(bf.SuccessRate, 3) != 0.895 || round(bx.SuccessRate, 3) != 0.896 || math.Round(bf.PeakPer1s) != 618 || math.Round(bx.PeakPer1s) != 619 {
		t.Errorf("no reserve: fleet-50 %.2f%% (peak %v), fixed %.2f%% (peak %v); the notes say 89.5%% and 89.6%%, 618 and 619",
			100*bf.SuccessRate, bf.PeakPer1s, 100*bx.SuccessRate, bx.PeakPer1s)
	}
	// The notes: with a flat 40% beyond 625/s, textbook settles at about
	// 820 requests/s with 40% failing, completing 99.7% at 1.64 calls each.
	flat := *sc
	le := *sc.Dependency.LoadErrors
	le.Points = le.Points[:len(le.Points)-1]
	flat.Dependency.LoadErrors = &le
	if m := metrics(t, run(t, &flat), "textbook"); round(m.SuccessRate, 3) != 0.997 || round(m.Amplification, 2) != 1.64 || math.Abs(m.Attempts/180-820) > 20 {
		t.Errorf("flat 40%%: textbook %.2f%% succeeded, %.3f calls each, %.0f calls/s; the notes say 99.7%%, 1.64 and about 820", 100*m.SuccessRate, m.Amplification, m.Attempts/180)
	}
	sc.Runs = 1
	res := run(t, sc)
	textbook, fixed, fleet = metrics(t, res, "textbook"), metrics(t, res, "fixed"), metrics(t, res, "fleet-50")
	if textbook.Amplification < 3 || textbook.SuccessRate > 0.5 {
		t.Errorf("textbook: %.2f calls per request, %.1f%% succeeded; want a runaway", textbook.Amplification, 100*textbook.SuccessRate)
	}
	if fixed.Amplification > 1.2 || fixed.SuccessRate < 0.85 {
		t.Errorf("fixed: %.2f calls per request, %.1f%% succeeded; want it to hold", fixed.Amplification, 100*fixed.SuccessRate)
	}
	if fleet.SuccessRate >= fixed.SuccessRate || fleet.PeakPer1s <= fixed.PeakPer1s {
		t.Errorf("the fleet of local budgets should do worse than one budget: %.1f%% vs %.1f%%, peak %v vs %v",
			100*fleet.SuccessRate, 100*fixed.SuccessRate, fleet.PeakPer1s, fixed.PeakPer1s)
	}
	// The storm does not fade while the clients keep sending: the last
	// minute is as bad as the second.
	st := strategyResult(t, res, "textbook")
	if late := successShare(t, st, 120, 180); late > 0.5 {
		t.Errorf("textbook: %.1f%% succeeded in the last minute; the storm should persist", 100*late)
	}
	// Capacity added ends it, once there is enough: eight times the workers
	// from 60 s on bring the offered load back to the bottom of the curve.
	scaled := run(t, withPhase(sc, engine.Phase{Kind: "capacity", From: dur(t, "60s"), To: dur(t, "1h"), Workers: 400}))
	if late := successShare(t, strategyResult(t, scaled, "textbook"), 120, 180); late < 0.95 {
		t.Errorf("textbook with capacity added: %.1f%% succeeded in the last minute, want recovery", 100*late)
	}
}

// cmpFloat compares a and b.
func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// storyBrookerContention: the published shape, the model's means the
// notes quote, and what 100 seeds would cost and change.
func storyBrookerContention(t *testing.T, sc *engine.Scenario) {
	// The published shape (Brooker 2015, and the reference simulator's own
	// numbers at 100 clients in docs/brooker-reference.md): plain
	// exponential backoff the clear loser of the backoff algorithms on work
	// (writes) and time; full and equal jitter about equal on work, equal
	// finishing later; decorrelated doing more work than full but finishing
	// slightly sooner; no backoff the fastest and the most work.
	res := run(t, sc)
	if len(res.Seeds) != 60 {
		t.Fatalf("%d seeds; the notes say 60", len(res.Seeds))
	}
	// The notes: this model's means over seeds 1 to 60.
	for name, want := range map[string][2]float64{
		"no-jitter": {1854, 63.8}, "full": {797, 4.9}, "equal": {812, 6.5}, "decorrelated": {1005, 4.6}, "no-backoff": {2426, 2.0},
	} {
		if m := metrics(t, res, name); math.Round(m.DependencyCalls) != want[0] || round(m.SettleS, 1) != want[1] {
			t.Errorf("%s: %v calls, %v s; the notes say %v and %v s", name, m.DependencyCalls, m.SettleS, want[0], want[1])
		}
	}
	// The notes: 100 seeds are estimated at 46 million events and take
	// 4 million; their means differ from these by under 2%, decorrelated's
	// time (4.57 s) the most.
	hundred := *sc
	hundred.Runs, hundred.Seeds = 100, nil
	if est := engine.Estimate(&hundred); math.Round(float64(est)/1e6) != 46 {
		t.Errorf("100 seeds estimated at %d events; the notes say 46 million", est)
	}
	h, err := engine.Run(context.Background(), &hundred, engine.Options{NoSeries: true})
	if err != nil {
		t.Fatal(err)
	}
	if math.Round(float64(h.Events)/1e6) != 4 {
		t.Errorf("100 seeds took %d events; the notes say 4 million", h.Events)
	}
	if d := metrics(t, h, "decorrelated").SettleS; round(d, 2) != 4.57 {
		t.Errorf("decorrelated over 100 seeds: %v s; the notes say 4.57", d)
	}
	for _, st := range h.Strategies {
		sixty := metrics(t, res, st.Name)
		for _, x := range [][2]float64{{st.Metrics.DependencyCalls, sixty.DependencyCalls}, {st.Metrics.SettleS, sixty.SettleS}} {
			if math.Abs(x[0]/x[1]-1) >= 0.02 {
				t.Errorf("%s: %v over 100 seeds, %v over 60; the notes say under 2%% apart", st.Name, x[0], x[1])
			}
		}
	}
	plain := metrics(t, res, "no-jitter")
	full, equal := metrics(t, res, "full"), metrics(t, res, "equal")
	decor, none := metrics(t, res, "decorrelated"), metrics(t, res, "no-backoff")
	for _, m := range []struct {
		name string
		m    engine.Metrics
	}{{"full", full}, {"equal", equal}, {"decorrelated", decor}} {
		// At 100 clients the reference has plain backoff at 1.8 to 2.3
		// times the jittered work and 9 to 14 times their time.
		if m.m.DependencyCalls > plain.DependencyCalls/1.5 || m.m.SettleS > plain.SettleS/5 {
			t.Errorf("%s: %v calls in %v s; plain backoff (%v calls in %v s) should do far more work and finish far later",
				m.name, m.m.DependencyCalls, m.m.SettleS, plain.DependencyCalls, plain.SettleS)
		}
	}
	// Full and equal jitter: within 5% on work, full doing less (the
	// reference: 797 against 812), equal taking longer.
	if r := full.DependencyCalls / equal.DependencyCalls; r > 1 || r < 0.95 {
		t.Errorf("full jitter %v calls, equal %v: want full at most equal and within 5%%", full.DependencyCalls, equal.DependencyCalls)
	}
	if equal.SettleS <= full.SettleS {
		t.Errorf("equal jitter should take longer than full: %v s against %v s", equal.SettleS, full.SettleS)
	}
	// Decorrelated: more work than full jitter (the reference: 1,002
	// against 797), finishing slightly sooner (4.5 s against 4.9 s).
	if decor.DependencyCalls <= 1.1*full.DependencyCalls {
		t.Errorf("decorrelated jitter should do more work than full: %v calls against %v", decor.DependencyCalls, full.DependencyCalls)
	}
	if decor.SettleS >= full.SettleS || decor.SettleS < 0.8*full.SettleS {
		t.Errorf("decorrelated jitter should finish slightly sooner than full: %v s against %v s", decor.SettleS, full.SettleS)
	}
	// No backoff: the most work of all, the soonest done.
	if none.DependencyCalls <= plain.DependencyCalls || none.SettleS >= decor.SettleS {
		t.Errorf("no backoff: %v calls in %v s; want more work than plain backoff (%v) and the soonest finish", none.DependencyCalls, none.SettleS, plain.DependencyCalls)
	}
	// Every client commits exactly once.
	for _, m := range []engine.Metrics{plain, full, equal, decor, none} {
		if m.Succeeded != 100 || m.Failed != 0 {
			t.Errorf("succeeded %v, failed %v; every one of the 100 clients must commit once", m.Succeeded, m.Failed)
		}
	}
}

// callOf returns the per-call result named name of a strategy.
func callOf(t *testing.T, st *engine.StrategyResult, name string) engine.CallMetrics {
	t.Helper()
	for _, c := range st.Calls {
		if c.Name == name {
			return c.Metrics
		}
	}
	t.Fatalf("%s: no call %q in %+v", st.Name, name, st.Calls)
	return engine.CallMetrics{}
}

// storyBulkheads: without a bulkhead the slow payment calls fill the
// shared pool and catalog calls are refused for want of a slot; with a
// bulkhead for payment the catalog path keeps working and payment calls
// beyond the bulkhead fail fast.
func storyBulkheads(t *testing.T, sc *engine.Scenario) {
	res := run(t, sc)
	pool, bulk := &res.Strategies[0], &res.Strategies[1]
	catPool, catBulk := callOf(t, pool, "catalog"), callOf(t, bulk, "catalog")
	if catPool.PoolRejected == 0 || catPool.SuccessRate > 0.95 {
		t.Errorf("shared pool only: catalog %+v; want catalog calls refused by the full pool", catPool)
	}
	if catBulk.PoolRejected != 0 || catBulk.SuccessRate < 0.999 {
		t.Errorf("bulkhead: catalog %+v; want every catalog call served", catBulk)
	}
	if pb := callOf(t, bulk, "payment"); pb.BulkheadRejected == 0 || pb.LatencyP99ms > callOf(t, pool, "payment").LatencyP99ms {
		t.Errorf("bulkhead: payment %+v; want calls beyond it refused at once", pb)
	}
	if bulk.Metrics.AffectedSuccessRate <= pool.Metrics.AffectedSuccessRate {
		t.Errorf("affected success: bulkhead %v, pool only %v; want the bulkhead ahead", bulk.Metrics.AffectedSuccessRate, pool.Metrics.AffectedSuccessRate)
	}
}

// storySharedBreaker: one breaker for all calls opens on the
// recommendation service's outage and fails healthy payment calls fast;
// a breaker per dependency leaves payment alone.
func storySharedBreaker(t *testing.T, sc *engine.Scenario) {
	res := run(t, sc)
	shared, perDep := &res.Strategies[0], &res.Strategies[1]
	if p := callOf(t, shared, "payment"); p.FastFailed == 0 || p.Failed == 0 {
		t.Errorf("one breaker: payment %+v; want payment calls failed fast", p)
	}
	if p := callOf(t, perDep, "payment"); p.FastFailed != 0 || p.SuccessRate != 1 {
		t.Errorf("a breaker per dependency: payment %+v; want every payment call served", p)
	}
	if r := callOf(t, perDep, "recommendations"); r.FastFailed == 0 || r.FellBack == 0 {
		t.Errorf("a breaker per dependency: recommendations %+v; want its own breaker open and the fallback used", r)
	}
	if shared.Metrics.Failed == 0 || perDep.Metrics.Failed != 0 {
		t.Errorf("failed operations: one breaker %v, per dependency %v; want some and none", shared.Metrics.Failed, perDep.Metrics.Failed)
	}
	// The notes: recommendations are optional, so the failed pages are
	// those whose payment failed, and a failed recommendation degrades one.
	for _, st := range []*engine.StrategyResult{shared, perDep} {
		rec, pay := callOf(t, st, "recommendations"), callOf(t, st, "payment")
		if st.Metrics.Failed != pay.Failed || rec.Failed != 0 || st.Metrics.Degraded == 0 {
			t.Errorf("%s: %v pages failed, %v degraded; payment failed %v, recommendations %v; the notes say the failed pages are those whose payment failed",
				st.Name, st.Metrics.Failed, st.Metrics.Degraded, pay.Failed, rec.Failed)
		}
	}
}

// storyPriorityShedding: shedding sheddable requests keeps checkouts
// served under overload; falling back on recommendations turns failed
// pages into degraded ones.
func storyPriorityShedding(t *testing.T, sc *engine.Scenario) {
	res := run(t, sc)
	none, shed := res.Sweep[0], res.Sweep[1]
	for i := range none.Strategies {
		a, b := callOf(t, &none.Strategies[i], "checkout"), callOf(t, &shed.Strategies[i], "checkout")
		if b.SuccessRate < 0.99 || b.SuccessRate <= a.SuccessRate || b.GoodputPerS <= a.GoodputPerS {
			t.Errorf("%s: checkout without shedding %+v, with %+v; want checkouts kept by shedding", none.Strategies[i].Name, a, b)
		}
		if r := callOf(t, &shed.Strategies[i], "recommendations"); r.Shed == 0 {
			t.Errorf("%s: no recommendation request shed", shed.Strategies[i].Name)
		}
	}
	for _, pt := range res.Sweep {
		retry, fb := pt.Strategies[0].Metrics, pt.Strategies[1].Metrics
		if fb.Degraded == 0 || fb.Failed >= retry.Failed {
			t.Errorf("sweep value %v: fall back failed %v (degraded %v), retry failed %v; want fewer failed pages with the fallback", pt.Value, fb.Failed, fb.Degraded, retry.Failed)
		}
	}
}

// probeOf probes the strategy name of sc with the probe's defaults.
func probeOf(t *testing.T, sc *engine.Scenario, name string) *probe.Result {
	t.Helper()
	pr, err := probe.Run(context.Background(), sc, probe.Options{Strategy: name})
	if err != nil {
		t.Fatal(err)
	}
	return pr
}

// remedyFound reports the probe's remedies that end the storm.
func remediesFound(pr *probe.Result) []probe.RemedyKind {
	var found []probe.RemedyKind
	for _, r := range pr.Remedies {
		if r.Outcome == probe.Found {
			found = append(found, r.Kind)
		}
	}
	return found
}

func storyLoadSpikeStorm(t *testing.T, sc *engine.Scenario) {
	res := run(t, sc)
	atOnce, backoff, budget := strategyResult(t, res, "retry-at-once"), strategyResult(t, res, "backoff"), strategyResult(t, res, "retry-budget")
	for _, st := range []*engine.StrategyResult{atOnce, backoff, budget} {
		if s := successShare(t, st, 0, 30); s < 0.99 {
			t.Errorf("%s: %.1f%% succeeded before the spike; the text says normally", st.Name, 100*s)
		}
	}
	// The summary: the storm outlives the spike at unchanged load, with
	// immediate retries and with backoff alike.
	for _, st := range []*engine.StrategyResult{atOnce, backoff} {
		if s := successShare(t, st, 45, 120); s > 0.05 {
			t.Errorf("%s: %.1f%% succeeded from 45 s on; the text says almost never after the spike", st.Name, 100*s)
		}
		if st.Metrics.Recovered != 0 {
			t.Errorf("%s: recovered %v; the text says the storm outlives its trigger", st.Name, float64(st.Metrics.Recovered))
		}
	}
	// A budget ends it by itself, within seconds of the spike's end.
	if m := budget.Metrics; m.Recovered != 1 || m.RecoveryS > 15 {
		t.Errorf("retry-budget: recovered %v, recovery_s %v; the text says back within seconds", float64(m.Recovered), float64(m.RecoveryS))
	}
	// The notes: backoff only delays the retries; the operations make
	// as many attempts.
	if a, b := atOnce.Metrics.Attempts, backoff.Metrics.Attempts; math.Abs(a-b) > 0.01*a {
		t.Errorf("attempts: %v retrying at once, %v backing off; the notes say the same load", a, b)
	}
	// The probe calls it metastable, at every attempt used, and names
	// remedies.
	pr := probeOf(t, sc, "retry-at-once")
	if pr.Finding != probe.FindingMetastable {
		t.Errorf("the probe finds %q; the text says the storm outlives its trigger: %s", pr.Finding, pr.Persistence)
	}
	if a := pr.BaselineAmplification.Min; a < 3.9 {
		t.Errorf("the probe's judged window: amplification %v; the look_at says 4, every attempt used", a)
	}
	if found := remediesFound(pr); !slices.Contains(found, probe.RemedyBudget) || !slices.Contains(found, probe.RemedyLoad) {
		t.Errorf("the probe's remedies that end the storm: %v, want a budget and a load reduction among them", found)
	}
}

func storyGCDeathSpiral(t *testing.T, sc *engine.Scenario) {
	res := run(t, sc)
	none, atOnce, budget := strategyResult(t, res, "no-retries"), strategyResult(t, res, "retry-at-once"), strategyResult(t, res, "retry-budget")
	queueCap := int32(sc.Dependency.QueueCapacity)
	for _, st := range []*engine.StrategyResult{none, atOnce, budget} {
		if s := successShare(t, st, 0, 30); s < 0.99 {
			t.Errorf("%s: %.1f%% succeeded before the burst", st.Name, 100*s)
		}
		if s := successShare(t, st, 32, 40); s > 0.5 {
			t.Errorf("%s: %.1f%% succeeded just after the burst; the look_at says all three fail", st.Name, 100*s)
		}
		if q := slices.Max(st.Series.QueueLength); q <= 1500 {
			t.Errorf("%s: at most %d queued; the summary says the burst piles up more than 1,500", st.Name, q)
		}
	}
	// Without retries it is back by itself within half a minute.
	if m := none.Metrics; m.Recovered != 1 || m.RecoveryS > 30 {
		t.Errorf("no-retries: recovered %v, recovery_s %v; the text says back by itself within half a minute", float64(m.Recovered), float64(m.RecoveryS))
	}
	// With retries the queue stays full at unchanged load.
	if s := successShare(t, atOnce, 45, 120); s > 0.01 {
		t.Errorf("retry-at-once: %.1f%% succeeded from 45 s on; the text says never again", 100*s)
	}
	end := atOnce.Series.QueueLength[len(atOnce.Series.QueueLength)*9/10]
	if end < queueCap*9/10 {
		t.Errorf("retry-at-once: %d queued near the end; the summary says the retries keep the queue full", end)
	}
	pr := probeOf(t, sc, "retry-at-once")
	if pr.Finding != probe.FindingMetastable || pr.BaselineAmplification.Min < 2.9 {
		t.Errorf("the probe finds %q at amplification %v; the text says metastable at 3: %s", pr.Finding, pr.BaselineAmplification, pr.Persistence)
	}
	if len(remediesFound(pr)) == 0 {
		t.Errorf("the probe names no remedy that ends it")
	}
	if pr := probeOf(t, sc, "no-retries"); pr.Finding != probe.FindingRecovering {
		t.Errorf("the probe finds no-retries %q; the text says back by itself: %s", pr.Finding, pr.Persistence)
	}
	// The budget's 660 attempts a second against 667: draining, slowly.
	if m := budget.Metrics; m.Recovered != 0 {
		t.Errorf("retry-budget: recovered %v; the notes say too slowly to be back within the run", float64(m.Recovered))
	}
	q := budget.Series.QueueLength
	if a, b := q[len(q)/2], q[len(q)*19/20]; b >= a {
		t.Errorf("retry-budget: %d queued at the middle, %d near the end; the notes say the queue drains", a, b)
	}
	// Without the burst it never falls.
	calm := *sc
	calm.Workload.Load = nil
	for _, st := range run(t, &calm).Strategies {
		if st.Metrics.SuccessRate < 0.999 {
			t.Errorf("without the burst, %s: %.2f%% succeed; the summary says it never falls", st.Name, 100*st.Metrics.SuccessRate)
		}
	}
	// The notes: at a largest factor of 2 the loop needs no retries.
	slow := *sc
	ll := *sc.Dependency.LoadLatency
	ll.MaxFactor = 2
	slow.Dependency.LoadLatency = &ll
	if m := strategyResult(t, run(t, &slow), "no-retries").Metrics; m.Recovered != 0 {
		t.Errorf("largest factor 2, no-retries: recovered %v; the notes say the loop sustains itself without retries", float64(m.Recovered))
	}
}

// fleetOf returns a strategy's result for one fleet.
func fleetOf(t *testing.T, st *engine.StrategyResult, name string) engine.FleetMetrics {
	t.Helper()
	for _, f := range st.Fleets {
		if f.Name == name {
			return f.Metrics
		}
	}
	t.Fatalf("%s: no fleet %q", st.Name, name)
	return engine.FleetMetrics{}
}

func storyMixedFleet(t *testing.T, sc *engine.Scenario) {
	res := run(t, sc)
	deployed, budget := strategyResult(t, res, "as-deployed"), strategyResult(t, res, "with-budget")
	// As deployed, both fleets fail about three times in four, and the
	// storm outlives the capacity's return.
	for _, name := range []string{"old-sdk", "web"} {
		if s := fleetOf(t, deployed, name).SuccessRate; s < 0.15 || s > 0.35 {
			t.Errorf("as-deployed, %s: %.1f%% succeed; the look_at says about a quarter", name, 100*s)
		}
	}
	if s := successShare(t, deployed, 45, 120); s > 0.05 {
		t.Errorf("as-deployed: %.1f%% succeeded from 45 s on; the summary says the storm outlives the trigger", 100*s)
	}
	if deployed.Metrics.Recovered != 0 {
		t.Errorf("as-deployed: recovered %v", float64(deployed.Metrics.Recovered))
	}
	// Only the old SDK's amplification is high.
	if a, w := fleetOf(t, deployed, "old-sdk").Amplification, fleetOf(t, deployed, "web").Amplification; a < 3.5 || w > 1.15 {
		t.Errorf("as-deployed: amplification old-sdk %v, web %v; the look_at says about 4 and 1.1", a, w)
	}
	// A budget on the old SDK alone ends it for both, within seconds.
	for _, name := range []string{"old-sdk", "web"} {
		if s := fleetOf(t, budget, name).SuccessRate; s < 0.85 {
			t.Errorf("with-budget, %s: %.1f%% succeed; the summary says the storm ends for both fleets", name, 100*s)
		}
	}
	if m := budget.Metrics; m.Recovered != 1 || m.RecoveryS > 15 {
		t.Errorf("with-budget: recovered %v, recovery_s %v; the look_at says back within seconds", float64(m.Recovered), float64(m.RecoveryS))
	}
	// The fleets' operations are the same in both runs (common random
	// numbers), and add up to the strategy's.
	for _, st := range []*engine.StrategyResult{deployed, budget} {
		if n := fleetOf(t, st, "old-sdk").Operations + fleetOf(t, st, "web").Operations; n != st.Metrics.Operations {
			t.Errorf("%s: the fleets' operations add up to %v, not the strategy's %v", st.Name, n, st.Metrics.Operations)
		}
	}
	if a, b := fleetOf(t, deployed, "web").Operations, fleetOf(t, budget, "web").Operations; a != b {
		t.Errorf("web's operations: %v and %v; the same arrivals in every run", a, b)
	}
	pr := probeOf(t, sc, "as-deployed")
	if pr.Finding != probe.FindingMetastable || !slices.Contains(remediesFound(pr), probe.RemedyBudget) {
		t.Errorf("the probe finds %q with remedies %v; want metastable, ended by a budget: %s", pr.Finding, remediesFound(pr), pr.Persistence)
	}
}

// storyAdaptiveThrottling: the load each strategy puts on the dependency
// and what it pays for it, as the summary and notes say.
func storyAdaptiveThrottling(t *testing.T, sc *engine.Scenario) {
	res := run(t, sc)
	retries, budget := metrics(t, res, "retries"), metrics(t, res, "budget")
	thr, aws := metrics(t, res, "sre-throttle"), metrics(t, res, "aws-adaptive")
	// Retries without a budget send about 1.5 times the calls.
	if r := retries.DependencyCalls / budget.DependencyCalls; r < 1.4 || r > 1.6 {
		t.Errorf("retries sent %v calls, the budget %v: ratio %.2f, the text says about 1.5", retries.DependencyCalls, budget.DependencyCalls, r)
	}
	// Those that do not wait succeed about as often, about 75%.
	for _, m := range []engine.Metrics{retries, budget, thr} {
		if math.Abs(m.SuccessRate-0.75) > 0.01 {
			t.Errorf("success rate %v: the text says about 75%% for retries, budget and throttle", m.SuccessRate)
		}
	}
	// The two-minute throttle rejects under 1% of attempts, and some.
	if thr.Throttled == 0 || thr.Throttled > 0.01*thr.Attempts {
		t.Errorf("the throttle rejected %v of %v attempts: the text says under 1%%", thr.Throttled, thr.Attempts)
	}
	// AWS adaptive: the fewest calls, almost no 429s, the least success,
	// deadlines, the last to recover (about 15 s after the capacity
	// returns; the others within a few seconds).
	for _, m := range []engine.Metrics{retries, budget, thr} {
		if aws.DependencyCalls >= m.DependencyCalls || m.GaveUpDeadline != 0 || aws.SuccessRate > m.SuccessRate-0.03 {
			t.Errorf("aws-adaptive: %v calls, %v success; another strategy %v calls, %v success, %v deadlines: the text says fewest calls, least success, no deadline elsewhere",
				aws.DependencyCalls, aws.SuccessRate, m.DependencyCalls, m.SuccessRate, m.GaveUpDeadline)
		}
		if r := float64(m.RecoveryS); !m.RecoveryS.Applies() || r > 5 {
			t.Errorf("recovery %v: the text says the others recover within a few seconds", m.RecoveryS)
		}
	}
	if aws.Rejections > 0.05*budget.Rejections || aws.GaveUpDeadline == 0 || math.Abs(aws.SuccessRate-0.70) > 0.01 {
		t.Errorf("aws-adaptive: %v 429s (the budget %v), %v deadlines, success %v: the text says almost no 429s, deadlines, 70%%", aws.Rejections, budget.Rejections, aws.GaveUpDeadline, aws.SuccessRate)
	}
	if r := float64(aws.RecoveryS); !aws.RecoveryS.Applies() || r < 12 || r > 18 {
		t.Errorf("aws-adaptive recovered after %v: the text says about 15 s", aws.RecoveryS)
	}
	// The notes' variant: the throttle with a 10 s window.
	short := *sc
	short.Strategies = slices.Clone(sc.Strategies)
	short.Strategies[2].Throttle = &engine.Throttle{K: 2, Window: engine.Duration(10 * time.Second)}
	s := metrics(t, run(t, &short), "sre-throttle")
	if f := s.Throttled / s.Attempts; f < 0.13 || f > 0.17 {
		t.Errorf("10 s window: %v of %v attempts rejected (%.1f%%): the notes say about 15%%", s.Throttled, s.Attempts, 100*f)
	}
	if c := 1 - s.DependencyCalls/budget.DependencyCalls; c < 0.12 || c > 0.18 {
		t.Errorf("10 s window: calls %v against the budget's %v (%.0f%% fewer): the notes say 15%%", s.DependencyCalls, budget.DependencyCalls, 100*c)
	}
	if c := 1 - s.Rejections/budget.Rejections; c < 0.35 || c > 0.45 {
		t.Errorf("10 s window: 429s %v against the budget's %v (%.0f%% fewer): the notes say 40%%", s.Rejections, budget.Rejections, 100*c)
	}
	if d := budget.SuccessRate - s.SuccessRate; d < 0.015 || d > 0.035 {
		t.Errorf("10 s window: success %v against the budget's %v: the notes say about 2.5 points lost", s.SuccessRate, budget.SuccessRate)
	}
	if r := float64(s.RecoveryS); !s.RecoveryS.Applies() || r < 4 || r > 8 {
		t.Errorf("10 s window: recovered after %v: the notes say some 6 s", s.RecoveryS)
	}
}

// backendOf returns a strategy's result for backend k of its dependency.
// says fails t unless the text of built-in slug (summary, look_at and
// notes) contains claim, word for word: the claim a check beside it holds
// to the run, so that the check and the sentence cannot drift apart.
func says(t *testing.T, slug, claim string) {
	t.Helper()
	b, ok := Get(slug)
	if !ok {
		t.Fatalf("no built-in %q", slug)
	}
	if text := strings.Join(append([]string{b.Summary, b.LookAt}, b.Notes...), "\n"); !strings.Contains(text, claim) {
		t.Errorf("%s: the text does not say %q, the claim its story checks", slug, claim)
	}
}

func backendOf(t *testing.T, st *engine.StrategyResult, k int) engine.BackendMetrics {
	t.Helper()
	for _, b := range st.Backends {
		if b.Backend == k {
			return b.Metrics
		}
	}
	t.Fatalf("%s: no backend %d in %+v", st.Name, k, st.Backends)
	return engine.BackendMetrics{}
}

func storyOneOfTwoCrash(t *testing.T, sc *engine.Scenario) {
	res := run(t, sc)
	atOnce, jitter, budget := strategyResult(t, res, "retry-at-once"), strategyResult(t, res, "backoff-jitter"), strategyResult(t, res, "jitter-and-budget")
	for _, st := range []*engine.StrategyResult{atOnce, jitter, budget} {
		if s := successShare(t, st, 0, 5); s < 0.99 {
			t.Errorf("%s: %.1f%% succeeded before the crash; the summary says the backends are healthy", st.Name, 100*s)
		}
		for k := range 2 {
			if b := backendOf(t, st, k); math.Abs(b.Share-0.5) > 0.001 {
				t.Errorf("%s: backend %d got %.3f of the requests; round robin gives each half", st.Name, k, b.Share)
			}
		}
		if b := backendOf(t, st, 1); b.Failed != 0 {
			t.Errorf("%s: backend 1 answered %v failures; only backend 0 crashes, and it refuses nothing", st.Name, b.Failed)
		}
	}
	// Immediate retries and backoff with jitter: the storm outlives the
	// crash, on every seed, at about four attempts an operation.
	for _, st := range []*engine.StrategyResult{atOnce, jitter} {
		if s := successShare(t, st, 20, 60); s > 0.02 {
			t.Errorf("%s: %.1f%% succeeded from 20 s on; the summary says almost none", st.Name, 100*s)
		}
		if sp := st.Spread["recovered"]; sp.Max != 0 {
			t.Errorf("%s: recovered on some seed (%v); the summary says the storm outlives the crash", st.Name, sp)
		}
		if a := st.Metrics.Amplification; a < 3.5 {
			t.Errorf("%s: amplification %.2f; the look_at says about 4", st.Name, a)
		}
		if pr := probeOf(t, sc, st.Name); pr.Finding != probe.FindingMetastable {
			t.Errorf("the probe finds %s %q; the summary says metastable: %s", st.Name, pr.Finding, pr.Persistence)
		}
	}
	// The budget's price: fewer of the crash window's operations succeed.
	if b, j := budget.Metrics.AffectedSuccessRate, jitter.Metrics.AffectedSuccessRate; b >= j || math.Abs(b-0.60) > 0.02 || math.Abs(j-0.69) > 0.02 {
		t.Errorf("affected success: budget %.3f, backoff-jitter %.3f; the look_at says 60%% against 69%%", b, j)
	}
	// Not on every seed: seed 46 is the exception the look_at names.
	says(t, "one-of-two-crash", "in the mean and on 4 of the 5 seeds: on seed 46 backoff and jitter's storm costs more, 52% against 60%")
	var cheaper []int64
	for _, r := range seedRuns(t, sc, res) {
		b, j := metrics(t, r, "jitter-and-budget").AffectedSuccessRate, metrics(t, r, "backoff-jitter").AffectedSuccessRate
		if b >= j {
			cheaper = append(cheaper, r.Seeds[0])
			if r.Seeds[0] == 46 && (math.Abs(b-0.60) > 0.01 || math.Abs(j-0.52) > 0.01) {
				t.Errorf("seed 46: affected success budget %.3f, backoff-jitter %.3f; the look_at says 60%% against 52%%", b, j)
			}
		}
	}
	if !slices.Equal(cheaper, []int64{46}) {
		t.Errorf("the budget costs nothing in the crash window on seeds %v; the look_at says on seed 46 only", cheaper)
	}
	if a := budget.Metrics.Amplification; a > 1.03 {
		t.Errorf("jitter-and-budget: amplification %.2f; the look_at says 1.02", a)
	}
	// The budget ends it: back at once, on every seed.
	if sp := budget.Spread["recovered"]; sp.Min != 1 {
		t.Errorf("jitter-and-budget: recovered %v over seeds; the summary says back after the crash on every seed", sp)
	}
	if s := successShare(t, budget, 20, 60); s < 0.99 {
		t.Errorf("jitter-and-budget: %.1f%% succeeded from 20 s on; the summary says back", 100*s)
	}
	if pr := probeOf(t, sc, "jitter-and-budget"); pr.Finding != probe.FindingHealthy {
		t.Errorf("the probe finds jitter-and-budget %q; the summary says healthy: %s", pr.Finding, pr.Persistence)
	}
	// Without the crash every strategy stays healthy.
	calm := *sc
	calm.Dependency.Phases = nil
	for _, st := range run(t, &calm).Strategies {
		if st.Metrics.SuccessRate < 0.99 {
			t.Errorf("without the crash, %s: %.2f%% succeed; the summary says the backends are at 70%% of capacity", st.Name, 100*st.Metrics.SuccessRate)
		}
	}
}

func storyLBSinkhole(t *testing.T, sc *engine.Scenario) {
	res := run(t, sc)
	// Without retries each operation is one request: the requests of the
	// crash window are its operations, and backend 0 fails every request
	// it gets then and no other.
	crashShare := map[string]float64{}
	affected := map[string]float64{}
	for _, pt := range res.Sweep {
		kind := pt.Value.(string)
		st := &pt.Strategies[0]
		if st.Name != "no-retries" {
			t.Fatalf("the first strategy is %q", st.Name)
		}
		crashShare[kind] = backendOf(t, st, 0).Failed / st.Metrics.AffectedOperations
		affected[kind] = st.Metrics.AffectedSuccessRate
		for k := 1; k < 3; k++ {
			if b := backendOf(t, st, k); b.Failed != 0 {
				t.Errorf("%s: healthy backend %d failed %v requests", kind, k, b.Failed)
			}
		}
		if st.Metrics.Recovered != 1 {
			t.Errorf("%s, no-retries: recovered %v; the summary says every balancer is back when the backend is", kind, float64(st.Metrics.Recovered))
		}
	}
	t.Logf("share of the crash window's requests sent to the crashed backend: %v; affected success: %v", crashShare, affected)
	if s := crashShare["least_request"]; math.Abs(s-0.79) > 0.02 {
		t.Errorf("least_request sends %.2f of the crash window's requests to the crashed backend; the summary says about 79%%", s)
	}
	if s := crashShare["power_of_two_choices"]; math.Abs(s-0.54) > 0.02 {
		t.Errorf("power_of_two_choices sends %.2f; the summary says about 54%%", s)
	}
	for k, want := range map[string]float64{"least_request": 0.21, "power_of_two_choices": 0.46, "round_robin": 0.67, "random": 0.67} {
		if math.Abs(affected[k]-want) > 0.02 {
			t.Errorf("%s: %.3f of the window's operations succeed; the summary says %.2f", k, affected[k], want)
		}
	}
	for _, k := range []string{"round_robin", "random"} {
		if s := crashShare[k]; math.Abs(s-1.0/3) > 0.03 {
			t.Errorf("%s sends %.2f; the summary says its third", k, s)
		}
	}
	if !(affected["least_request"] < affected["power_of_two_choices"] && affected["power_of_two_choices"] < affected["round_robin"]) {
		t.Errorf("affected success %v; the look_at says least request worst, then two choices, then round robin", affected)
	}
	// With the token bucket's retries: round robin sends a retry to the
	// next backend, least request back into the sinkhole.
	tb := map[string]float64{}
	for _, pt := range res.Sweep {
		tb[pt.Value.(string)] = pt.Strategies[1].Metrics.AffectedSuccessRate
	}
	if tb["round_robin"] < 0.998 || math.Abs(tb["least_request"]-0.21) > 0.02 {
		t.Errorf("token-bucket: affected success %v; the summary says 99.9%% with round robin, 21%% with least request", tb)
	}
	// With least request the bucket runs dry: its retries are denied,
	// not sent back into the sinkhole.
	says(t, "lb-sinkhole", "it denies about 1,170 retries, allows about 7, and 21% succeed, as without retries")
	for _, pt := range res.Sweep {
		if pt.Value.(string) != "least_request" {
			continue
		}
		m := pt.Strategies[1].Metrics
		if math.Abs(m.RetriesDenied-1170) > 60 || math.Abs(m.Retries-7) > 3 {
			t.Errorf("least_request, token-bucket: %v retries, %v denied; the summary says about 7 allowed and 1,170 denied", m.Retries, m.RetriesDenied)
		}
		if math.Abs(m.AffectedSuccessRate-affected["least_request"]) > 0.005 {
			t.Errorf("least_request, token-bucket: %.3f of the window's operations succeed, %.3f without retries; the summary says as without retries", m.AffectedSuccessRate, affected["least_request"])
		}
	}
	for _, pt := range res.Sweep {
		if m := pt.Strategies[1].Metrics; m.Recovered != 1 {
			t.Errorf("%v, token-bucket: recovered %v; the summary says every balancer is back when the backend is", pt.Value, float64(m.Recovered))
		}
	}
}

// scalingOf returns st's scaling events as [at (s), from, to].
func scalingOf(st *engine.StrategyResult) [][3]float64 {
	var out [][3]float64
	for _, e := range st.Scaling {
		out = append(out, [3]float64{e.AtS, float64(e.From), float64(e.To)})
	}
	return out
}

// servingAt returns the workers st's first autoscaled dependency has
// serving in the series bucket holding at (s).
func servingAt(t *testing.T, st *engine.StrategyResult, at float64) int32 {
	t.Helper()
	if len(st.Series.Workers) == 0 {
		t.Fatalf("%s: no workers series", st.Name)
	}
	return st.Series.Workers[0].Serving[int(at*1000/st.Series.BucketMS)]
}

// storyAutoscaleLag: the autoscaler sees the spike at 45 s, its workers
// serve after the spike, retries keep it scaling, and within the run it
// changes no outcome.
func storyAutoscaleLag(t *testing.T, sc *engine.Scenario) {
	res := run(t, sc)
	atOnce, backoff, budget := strategyResult(t, res, "retry-at-once"), strategyResult(t, res, "backoff"), strategyResult(t, res, "retry-budget")
	// Nothing before the spike, on every seed; the first step at 45 s,
	// 10 to 13, for every strategy.
	for i, r := range seedRuns(t, sc, res) {
		for _, st := range r.Strategies {
			if ev := scalingOf(&st); len(ev) == 0 || ev[0] != [3]float64{45, 10, 13} {
				t.Errorf("seed %d, %s: scaling %v; the text says the first step is at 45 s, 10 to 13", res.Seeds[i], st.Name, ev)
			}
		}
	}
	// The new workers serve from 75 s, 35 s after the spike's end.
	for _, st := range []*engine.StrategyResult{atOnce, backoff, budget} {
		if a, b := servingAt(t, st, 74), servingAt(t, st, 75.5); a != 10 || b != 13 {
			t.Errorf("%s: %d workers serving at 74 s and %d at 75.5 s; the text says 13 serve from 75 s", st.Name, a, b)
		}
	}
	// Retries keep every worker busy: a second step at 90 s, to 17,
	// serving from 120 s; the budget's run stays at 13.
	for _, st := range []*engine.StrategyResult{atOnce, backoff} {
		if ev := scalingOf(st); len(ev) != 2 || ev[1] != [3]float64{90, 13, 17} {
			t.Errorf("%s: scaling %v; the text says 13 to 17 at 90 s, and nothing else", st.Name, ev)
		}
		if n := servingAt(t, st, 119); n != 13 {
			t.Errorf("%s: %d serving at 119 s; the text says the 17 serve from 120 s", st.Name, n)
		}
		if s := successShare(t, st, 45, 120); s > 0.05 {
			t.Errorf("%s: %.1f%% succeeded from 45 s on; the look_at says almost never", st.Name, 100*s)
		}
	}
	if ev := scalingOf(budget); len(ev) != 1 {
		t.Errorf("retry-budget: scaling %v; the text says one step only", ev)
	}
	// The budget is back about 8.5 s after the spike, before 75 s.
	if m := budget.Metrics; m.Recovered != 1 || m.RecoveryS > 10 || m.RecoveryS < 7 {
		t.Errorf("retry-budget: recovered %v, recovery_s %v; the text says back 8.5 s after the spike", float64(m.Recovered), float64(m.RecoveryS))
	}
	// Within the run the autoscaler changes no operation's outcome.
	fixed := *sc
	fixed.Dependency.Autoscale = nil
	without := run(t, &fixed)
	for i, st := range res.Strategies {
		if a, b := st.Metrics.Succeeded, without.Strategies[i].Metrics.Succeeded; a != b {
			t.Errorf("%s: %v succeeded, %v without the autoscaler; the summary says it changes no outcome", st.Name, a, b)
		}
	}
	// The probe: metastable, and a capacity remedy of about 23 more
	// workers (more than 32 in all) ends the storm.
	pr := probeOf(t, sc, "retry-at-once")
	if pr.Finding != probe.FindingMetastable {
		t.Errorf("the probe finds %q; the text says metastable: %s", pr.Finding, pr.Persistence)
	}
	for _, r := range pr.Remedies {
		if r.Kind == probe.RemedyCapacity && (r.Outcome != probe.Found || r.Enough < 21 || r.Enough > 25) {
			t.Errorf("the probe's capacity remedy: %s, %v workers; the notes say about 23", r.Outcome, r.Enough)
		}
	}
	// The variant over 5 minutes: the autoscaler goes on at its pace and
	// ends the storm once 35 workers serve, at 255 s.
	long := *sc
	long.Workload.Duration = engine.Duration(5 * time.Minute)
	long.Runs = 1
	st := strategyResult(t, run(t, &long), "retry-at-once")
	want := [][3]float64{{45, 10, 13}, {90, 13, 17}, {135, 17, 22}, {180, 22, 28}, {225, 28, 35}}
	if ev := scalingOf(st); !slices.Equal(ev, want) {
		t.Errorf("over 5 minutes, scaling %v; the notes say %v", ev, want)
	}
	if s := successShare(t, st, 215, 250); s > 0.05 {
		t.Errorf("over 5 minutes: %.1f%% succeeded from 215 s to 250 s, with 28 serving; the notes say the storm needs more than 32", 100*s)
	}
	if s := successShare(t, st, 260, 300); s < 0.99 {
		t.Errorf("over 5 minutes: %.1f%% succeeded from 260 s on; the notes say it succeeds again once the 35 serve", 100*s)
	}
}

// hitRate returns a strategy's cache hit rate over the lookups in
// [from, to) seconds, from its series.
func hitRate(t testing.TB, st *engine.StrategyResult, from, to float64) float64 {
	t.Helper()
	s := st.Series
	if s.Cache == nil {
		t.Fatalf("%s: no cache series", st.Name)
	}
	var hits, all int32
	for i := range s.Cache.Hits {
		if at := float64(i) * s.BucketMS / 1000; at >= from && at < to {
			hits += s.Cache.Hits[i]
			all += s.Cache.Hits[i] + s.Cache.Misses[i]
		}
	}
	if all == 0 {
		t.Fatalf("%s: no cache lookup in [%g s, %g s)", st.Name, from, to)
	}
	return float64(hits) / float64(all)
}

func storyCacheFlush(t *testing.T, sc *engine.Scenario) {
	res := run(t, sc)
	none, atOnce, backoff, budget := strategyResult(t, res, "no-retries"), strategyResult(t, res, "retry-at-once"), strategyResult(t, res, "backoff"), strategyResult(t, res, "retry-budget")
	all := []*engine.StrategyResult{none, atOnce, backoff, budget}
	for _, st := range all {
		// Normal until the flush, at the paper's 90% hit rate: 92% from the
		// warm start, settling near 89%.
		if s := successShare(t, st, 0, 30); s < 0.99 {
			t.Errorf("%s: %.1f%% succeeded before the flush; the text says normally", st.Name, 100*s)
		}
		if h := hitRate(t, st, 0, 10); h < 0.91 || h > 0.93 {
			t.Errorf("%s: hit rate %.3f in the first 10 s; the notes say 92%%", st.Name, h)
		}
		if h := hitRate(t, st, 20, 30); h < 0.87 || h > 0.91 {
			t.Errorf("%s: hit rate %.3f from 20 s to 30 s; the notes say near 89%%", st.Name, h)
		}
		// About 30% succeed from the flush to the end, never recovering.
		if s := successShare(t, st, 40, 120); s < 0.25 || s > 0.35 {
			t.Errorf("%s: %.1f%% succeeded from 40 s on; the summary says about 30%%", st.Name, 100*s)
		}
		if st.Metrics.Recovered != 0 {
			t.Errorf("%s: recovered %v; the look_at says 0", st.Name, float64(st.Metrics.Recovered))
		}
		if q := slices.Max(st.Series.QueueLength[len(st.Series.QueueLength)*3/4:]); q < int32(sc.Dependency.QueueCapacity)*9/10 {
			t.Errorf("%s: at most %d queued in the last quarter; the database is said to stay overloaded", st.Name, q)
		}
	}
	// The cache stays almost empty: the hit rate of 'no-retries' (one
	// lookup per operation) is the share that succeeds, about 30%, and
	// retries that miss lower it further.
	if h := hitRate(t, none, 40, 120); h > 0.35 {
		t.Errorf("no-retries: hit rate %.3f from 40 s on; the summary says the cache stays almost empty", h)
	}
	for _, st := range []*engine.StrategyResult{atOnce, backoff} {
		if h := hitRate(t, st, 40, 120); h > 0.15 {
			t.Errorf("%s: hit rate %.3f from 40 s on; the read-through note compares with about 10%%", st.Name, h)
		}
		if r := st.Metrics.Amplification / none.Metrics.Amplification; r < 3.5 || r > 4.5 {
			t.Errorf("%s: %.2f times the calls of no-retries; the look_at says about four", st.Name, r)
		}
	}
	if r := budget.Metrics.Amplification / none.Metrics.Amplification; r > 1.3 {
		t.Errorf("retry-budget: %.2f times the calls of no-retries; the look_at says only a few more", r)
	}
	// The probe: metastable with retries and without; no budget ends it
	// for 'retry-at-once', nor 90% less load; 4 more workers end it for
	// both, and 60% less load for 'no-retries'.
	for _, name := range []string{"retry-at-once", "no-retries"} {
		pr := probeOf(t, sc, name)
		if pr.Finding != probe.FindingMetastable {
			t.Errorf("%s: the probe finds %q; the notes say metastable: %s", name, pr.Finding, pr.Persistence)
		}
		for _, r := range pr.Remedies {
			switch {
			case r.Kind == probe.RemedyCapacity && (r.Outcome != probe.Found || r.Enough != 4):
				t.Errorf("%s: capacity remedy %s, %v workers; the notes say 4 more", name, r.Outcome, r.Enough)
			case r.Kind == probe.RemedyLoad && name == "no-retries" && (r.Outcome != probe.Found || r.Enough > 0.6):
				t.Errorf("%s: load remedy %s, %v; the notes say 60%% less load ends it", name, r.Outcome, r.Enough)
			case r.Kind == probe.RemedyLoad && name == "retry-at-once" && r.Outcome != probe.NotFound:
				t.Errorf("%s: load remedy %s, %v; the notes say 90%% less load does not end it", name, r.Outcome, r.Enough)
			case r.Kind == probe.RemedyBudget && name == "retry-at-once" && r.Outcome != probe.NotFound:
				t.Errorf("%s: budget remedy %s, %v; the notes say no budget ends it", name, r.Outcome, r.Enough)
			}
		}
	}
	// The read-through note: the cache refills; 'no-retries' and
	// 'retry-budget' recover, 'retry-at-once' and 'backoff' do not, their
	// cache hitting about 70% of lookups from 90 s on, most operations
	// succeeding, the database's queue filling up in every 10 s to the end.
	rt := *sc
	c := *sc.Dependency.Cache
	c.Fill = engine.FillReadThrough
	rt.Dependency.Cache = &c
	rres := run(t, &rt)
	for _, name := range []string{"no-retries", "retry-budget"} {
		if st := strategyResult(t, rres, name); st.Metrics.Recovered != 1 {
			t.Errorf("read-through, %s: recovered %v; the note says it recovers", name, float64(st.Metrics.Recovered))
		}
	}
	for _, name := range []string{"retry-at-once", "backoff"} {
		st := strategyResult(t, rres, name)
		if st.Metrics.Recovered != 0 {
			t.Errorf("read-through, %s: recovered %v; the note says it does not", name, float64(st.Metrics.Recovered))
		}
		if h := hitRate(t, st, 90, 120); h < 0.65 || h > 0.75 {
			t.Errorf("read-through, %s: hit rate %.3f from 90 s on; the note says about 70%%", name, h)
		}
		if s := successShare(t, st, 90, 120); s < 0.5 || s >= 0.99 {
			t.Errorf("read-through, %s: %.1f%% succeeded from 90 s on; the note says most, not all", name, 100*s)
		}
		s := st.Series
		per := int(10000 / s.BucketMS)
		for i := 60000 / int(s.BucketMS); i+per <= len(s.QueueLength); i += per {
			if m := slices.Max(s.QueueLength[i : i+per]); m < int32(sc.Dependency.QueueCapacity) {
				t.Errorf("read-through, %s: at most %d queued in the 10 s from %g s; the note says the queue fills up in every 10 s to the end", name, m, float64(i)*s.BucketMS/1000)
			}
		}
	}
}

// storyOutlierEjection: without ejection backend 0 keeps its quarter of
// the traffic; Envoy's default outlier detection ejects it twice, the
// second time past the fault's end; previous_hosts keeps retries off it;
// the 10% cap stops a second ejection, and a slow backend is ejected only
// once it answers 503.
func storyOutlierEjection(t *testing.T, sc *engine.Scenario) {
	// points returns each sweep point's strategies by name: [0] without
	// outlier detection, [1] with it.
	points := func(res *engine.Result) [2]map[string]*engine.StrategyResult {
		t.Helper()
		if len(res.Sweep) != 2 || res.Sweep[0].Value != nil {
			t.Fatalf("sweep %v: the text says two points, the first without outlier detection", res.Sweep)
		}
		var out [2]map[string]*engine.StrategyResult
		for i, pt := range res.Sweep {
			out[i] = map[string]*engine.StrategyResult{}
			for j := range pt.Strategies {
				out[i][pt.Strategies[j].Name] = &pt.Strategies[j]
			}
		}
		return out
	}
	near := func(what string, got, want, tol float64) {
		t.Helper()
		if math.Abs(got-want) > tol {
			t.Errorf("%s: %.4f; the text says %.4f", what, got, want)
		}
	}
	res := run(t, sc)
	p := points(res)
	none, ej := p[0], p[1]
	names := []string{"no-retries", "retry", "retry-other-host"}

	// Without ejection: 75%, 95%, 100% of the window; backend 0 fails
	// 3,001 and 3,802 requests; about one retry in five goes back to it.
	near("no ejection, no-retries: affected success", none["no-retries"].Metrics.AffectedSuccessRate, 0.75, 0.005)
	near("no ejection, retry: affected success", none["retry"].Metrics.AffectedSuccessRate, 0.95, 0.005)
	if m := none["retry-other-host"].Spread["failed"]; m.Max != 0 {
		t.Errorf("no ejection, retry-other-host: up to %v operations failed on a seed; the text says all succeed", m.Max)
	}
	near("no ejection, no-retries: backend 0's share of the requests", backendOf(t, none["no-retries"], 0).Share, 0.25, 0.001)
	near("no ejection, no-retries: backend 0's failures", backendOf(t, none["no-retries"], 0).Failed, 3001, 1)
	near("no ejection, retry: backend 0's failures", backendOf(t, none["retry"], 0).Failed, 3802, 1)
	r := none["retry"].Metrics
	near("no ejection, retry: share of retries that fail again on backend 0", r.Failed/r.Retries, 0.2, 0.03)

	// With ejection: backend 0 ejected twice on every seed and strategy,
	// 10 to 17 failures; 99.9%, 99.99%, 100%.
	for _, n := range names {
		st := ej[n]
		b := backendOf(t, st, 0)
		if mm := st.Backends[0].Spread["ejections"]; mm.Min != 2 || mm.Max != 2 {
			t.Errorf("ejection, %s: backend 0 ejected %v..%v times over the seeds; the text says twice", n, mm.Min, mm.Max)
		}
		if mm := st.Backends[0].Spread["failed"]; mm.Min < 10 || mm.Max > 18 {
			t.Errorf("ejection, %s: backend 0 failed %v..%v requests over the seeds; the look_at says 10 to 18", n, mm.Min, mm.Max)
		}
		near("ejection, "+n+": backend 0's mean failures", b.Failed, 13, 1)
		for k := 1; k < 4; k++ {
			if f, e := backendOf(t, st, k).Failed, backendOf(t, st, k).Ejections; f != 0 || e != 0 {
				t.Errorf("ejection, %s: healthy backend %d failed %v, ejected %v", n, k, f, e)
			}
		}
		for _, pts := range p {
			if l := pts[n].Spread["latency_max_ms"].Max; l >= 1000 {
				t.Errorf("%s: an attempt took %v ms; the notes say none comes near the 1 s timeout", n, l)
			}
		}
	}
	if m := ej["no-retries"].Metrics; math.Abs(m.AffectedSuccessRate-0.999) > 0.0005 || ej["no-retries"].Spread["affected_success_rate"].Min < 0.998 {
		t.Errorf("ejection, no-retries: affected success %v (min %v); the summary says 99.9%%", m.AffectedSuccessRate, ej["no-retries"].Spread["affected_success_rate"].Min)
	}
	if m := ej["no-retries"].Metrics; m.Failed != backendOf(t, ej["no-retries"], 0).Failed {
		t.Errorf("ejection, no-retries: %v operations failed, backend 0 failed %v requests; the notes say no operation fails for the capacity taken away", m.Failed, backendOf(t, ej["no-retries"], 0).Failed)
	}
	near("ejection, retry: affected success", ej["retry"].Metrics.AffectedSuccessRate, 0.9999, 0.0001)
	if m := ej["retry-other-host"].Spread["failed"]; m.Max != 0 {
		t.Errorf("ejection, retry-other-host: up to %v operations failed; the look_at says 100%%", m.Max)
	}

	// The timings on each seed: failures only as the fault starts (10 s)
	// and as backend 0 comes back at the 50 s sweep, 5 of them then.
	one := *sc
	one.Sweep = nil
	one.Dependency.Backends = &engine.Backends{Count: sc.Dependency.Backends.Count, Balancer: sc.Dependency.Backends.Balancer, OutlierDetection: &engine.OutlierDetection{}}
	if err := json.Unmarshal(sc.Sweep.Values[1], one.Dependency.Backends.OutlierDetection); err != nil {
		t.Fatal(err)
	}
	for i, r := range seedRuns(t, &one, &engine.Result{Seeds: res.Seeds}) {
		st := strategyResult(t, r, "no-retries")
		fails := map[float64]int32{}
		for i, f := range st.Series.Failures {
			if f != 0 {
				fails[float64(i)*st.Series.BucketMS/1000] = f
			}
		}
		if len(fails) != 2 || fails[10] == 0 || fails[50] != 5 {
			t.Errorf("seed %d: failures by start of bucket (s): %v; the text says they come at 10 s and, 5 of them, at the 50 s sweep", res.Seeds[i], fails)
		}
	}

	// Backend 0 serves nothing after the fault: with the fault lasting to
	// the end of the run its successes are the same.
	long := *sc
	long.Dependency.Phases = slices.Clone(sc.Dependency.Phases)
	long.Dependency.Phases[0].To = engine.Duration(120 * time.Second)
	lp := points(run(t, &long))
	for _, n := range names {
		a, b := backendOf(t, ej[n], 0).Succeeded, backendOf(t, lp[1][n], 0).Succeeded
		if a != b {
			t.Errorf("ejection, %s: backend 0 succeeded %v times, %v with the fault to the end; the summary says it serves nothing after the fault", n, a, b)
		}
		if c := backendOf(t, none[n], 0).Succeeded; c < a+2000 {
			t.Errorf("%s: backend 0 succeeded %v times without ejection, %v with", n, c, a)
		}
	}

	// Two failing backends: each ejected once, in turns; 67% against 50%.
	two := *sc
	two.Dependency.Phases = slices.Clone(sc.Dependency.Phases)
	two.Dependency.Phases[0].Backends = []int{0, 1}
	tp := points(run(t, &two))
	near("two failing, no ejection, no-retries: affected success", tp[0]["no-retries"].Metrics.AffectedSuccessRate, 0.50, 0.005)
	near("two failing, ejection, no-retries: affected success", tp[1]["no-retries"].Metrics.AffectedSuccessRate, 2.0/3, 0.005)
	for _, n := range names {
		for k := range 2 {
			if mm := tp[1][n].Backends[k].Spread["ejections"]; mm.Min != 1 || mm.Max != 1 {
				t.Errorf("two failing, %s: backend %d ejected %v..%v times; the notes say once each", n, k, mm.Min, mm.Max)
			}
		}
	}

	// A slow backend: ejected twice after 10 failures, once its queue
	// overflows; 97.8% against 75%.
	slow := *sc
	slow.Dependency.Phases = []engine.Phase{{Kind: engine.PhaseLatency, From: sc.Dependency.Phases[0].From, To: sc.Dependency.Phases[0].To, Factor: 20, Backends: []int{0}}}
	sp := points(run(t, &slow))
	near("slow, no ejection, no-retries: affected success", sp[0]["no-retries"].Metrics.AffectedSuccessRate, 0.75, 0.005)
	near("slow, ejection, no-retries: affected success", sp[1]["no-retries"].Metrics.AffectedSuccessRate, 0.978, 0.001)
	if b := backendOf(t, sp[1]["no-retries"], 0); b.Ejections != 2 || b.Failed != 10 {
		t.Errorf("slow: backend 0 ejected %v times after %v failures; the notes say twice, after 10", b.Ejections, b.Failed)
	}
}

// storyAdaptiveConcurrency: FIFO collapses; the AIMD limit with the
// library's defaults refuses at once and keeps goodput, but well short
// of capacity, wasting work and keeping successes near the clients'
// timeout; retries meet 503s instead of the queue.
func storyAdaptiveConcurrency(t *testing.T, sc *engine.Scenario) {
	res := run(t, sc)
	if len(res.Sweep) != 2 || len(res.Seeds) != 3 {
		t.Fatalf("%d sweep values and %d seeds; the text compares no limit with AIMD on three seeds", len(res.Sweep), len(res.Seeds))
	}
	one, retries := sweepMetrics(t, res, "client"), sweepMetrics(t, res, "retries")
	none, aimd := one["null"], one["{}"]
	if math.Abs(none.SuccessRate-0.03) > 0.01 || math.Abs(none.GoodputPerS-4) > 1 {
		t.Errorf("no limit: success %.3f, goodput %.1f/s; the text says about 3%%, about 4 per second", none.SuccessRate, none.GoodputPerS)
	}
	if math.Abs(aimd.SuccessRate-0.43) > 0.01 || math.Abs(aimd.GoodputPerS-64) > 2 {
		t.Errorf("AIMD: success %.3f, goodput %.1f/s; the text says about 43%%, about 64 per second", aimd.SuccessRate, aimd.GoodputPerS)
	}
	if math.Abs(none.WastedWork-8700) > 300 || math.Abs(aimd.WastedWork-2200) > 200 || none.Rejections != 0 {
		t.Errorf("wasted work %.0f without the limit, %.0f with it (rejections without: %.0f); the text says about 8,700 and 2,200, none refused", none.WastedWork, aimd.WastedWork, none.Rejections)
	}
	// Short of the two thirds that capacity allows; about a third of the
	// work it lets in is wasted.
	if aimd.SuccessRate > 0.6 {
		t.Errorf("AIMD: success %.3f; the text says short of the two thirds capacity allows", aimd.SuccessRate)
	}
	if share := aimd.WastedWork / (aimd.WastedWork + aimd.Succeeded); share < 0.3 || share > 0.4 {
		t.Errorf("AIMD: %.2f of the work served was for clients who left; the text says about a third", share)
	}
	if math.Abs(aimd.SuccessLatencyP99ms-990) > 15 || aimd.Rejections < 2500 {
		t.Errorf("AIMD: success p99 %.0f ms, rejections %.0f; the text says about 0.99 s, and 503s at once", aimd.SuccessLatencyP99ms, aimd.Rejections)
	}
	rn, ra := retries["null"], retries["{}"]
	if math.Abs(ra.Rejections-14300) > 500 || math.Abs(ra.Amplification-2.3) > 0.05 || math.Abs(rn.Amplification-2.9) > 0.06 {
		t.Errorf("retries: %.0f refused, %.2f calls per operation against %.2f; the text says about 14,300, 2.3 against 2.9", ra.Rejections, ra.Amplification, rn.Amplification)
	}
	if math.Abs(ra.SuccessRate-0.41) > 0.01 || math.Abs(rn.SuccessRate-0.03) > 0.01 {
		t.Errorf("retries: success %.3f with the limit, %.3f without; the text says about 41%% against 3%%", ra.SuccessRate, rn.SuccessRate)
	}
}
