package convert

import (
	"context"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/retrylab/retrylab/shared/engine"
	"github.com/retrylab/retrylab/shared/scenarios"
)

func init() {
	exportExt[Resilience4j] = "yaml"
	exportExt[PollyCSharp] = "cs"
	exportExt[Resilience4jJava] = "java"
	roundTrips[Resilience4j] = randomResilience4j
	lossless = append(lossless, "resilience4j-retry.yaml", "resilience4j-circuitbreaker.yaml")
}

// randomResilience4j returns a strategy resilience4j's Spring Boot
// configuration expresses exactly.
func randomResilience4j(r *rand.Rand) engine.Strategy {
	st := engine.Strategy{Name: []string{r4jInstance, "backendA", "inventory-service"}[r.IntN(3)], Policy: r4jPreset()}
	st.Breaker = nil
	st.MaxAttempts = 1 + r.IntN(engine.MaxAttempts)
	if r.IntN(10) == 0 {
		st.MaxAttempts = 0
	}
	wait := ms(r, 1, 10000)
	switch r.IntN(4) {
	case 0:
		st.Backoff = engine.Backoff{Kind: engine.BackoffNone}
	case 1:
		st.Backoff = engine.Backoff{Kind: engine.BackoffConstant, Base: wait}
	default:
		st.Backoff = engine.Backoff{Kind: engine.BackoffExponential, Base: wait, Multiplier: []float64{1, 1.5, 2, 3}[r.IntN(4)]}
	}
	withMax := st.Backoff.Kind == engine.BackoffExponential && r.IntN(2) == 0
	if withMax {
		st.Backoff.Max = wait + ms(r, 0, 60000)
	}
	if st.Backoff.Kind != engine.BackoffNone && !withMax && r.IntN(2) == 0 {
		st.Jitter = engine.Jitter{Kind: engine.JitterProportional, Fraction: float64(1+r.IntN(99)) / 100}
	}
	// retry_on: everything (the default), or what the exported classes say.
	if r.IntN(2) == 0 {
		var s r4jSet
		for _, c := range r4jRetryClasses {
			if r.IntN(2) == 0 {
				s.add(c.o, true)
			}
		}
		for _, status := range []int{400, 401, 403, 404, 405, 406, 409, 410, 415, 422, 429, 500, 501, 502, 503, 504} {
			if r.IntN(4) == 0 {
				s.add(r4jOutcome{status, status, false, false}, true)
			}
		}
		if s != (r4jSet{}) {
			st.RetryOn = s.retryOn()
		}
	}
	switch r.IntN(3) {
	case 1:
		st.AttemptTimeout = ms(r, 1, 30000)
	case 2:
		st.Deadline = ms(r, 1, 60000)
	}
	if r.IntN(3) > 0 {
		br := r4jBreakerDefaults()
		br.Ratio = float64(1+r.IntN(100)) / 100
		if r.IntN(2) == 0 {
			br.WindowCalls = 1 + r.IntN(200)
			br.MinThroughput = 1 + r.IntN(br.WindowCalls)
		} else {
			br.WindowCalls = 0
			br.Window = engine.Duration(int64(1+r.IntN(600)) * 1e9)
			br.MinThroughput = 1 + r.IntN(500)
		}
		br.Break = ms(r, 1, 120000)
		br.HalfOpenCalls = 1 + r.IntN(20)
		br.HalfOpenFailures = r4jHalfOpenFailures(br.Ratio, br.HalfOpenCalls)
		if r.IntN(2) == 0 {
			br.SlowCall = ms(r, 1, 120000)
			br.SlowRatio = float64(1+r.IntN(100)) / 100
		}
		if r.IntN(3) == 0 {
			br.Placement = engine.PlaceOutside
		}
		st.Breaker = br
	}
	return st
}

// TestResilience4jPresetAsImported: a retry and a circuit breaker
// instance without properties are resilience4j's defaults, exactly the
// preset the conformance suite compares with resilience4j's source.
func TestResilience4jPresetAsImported(t *testing.T) {
	var want engine.Policy
	for _, st := range presetStrategies(t) {
		if st.Name == "resilience4j" {
			want = st.Policy
		}
	}
	for _, doc := range []string{
		"resilience4j:\n  retry:\n    instances:\n      a: {}\n  circuitbreaker:\n    instances:\n      a: {}\n",
		"resilience4j.retry.instances.a.max-attempts: 3\nresilience4j.circuitbreaker.instances.a.sliding_window_size: \"100\"\n",
		"resilience4j:\n  retry.configs.default.waitDuration: 500\n  circuitbreaker.configs.default.waitDurationInOpenState: PT1M\n",
	} {
		im, err := Import(Resilience4j, []byte(doc))
		if err != nil {
			t.Fatal(err)
		}
		if got := im.Strategies[0].Policy; !reflect.DeepEqual(got, want) {
			t.Errorf("%s imports as\n%s\nnot as the preset\n%s", doc, indent(got), indent(want))
		}
	}
}

func TestSpringDuration(t *testing.T) {
	for _, tc := range []struct {
		in   any
		want engine.Duration
	}{
		{"500ms", 500e6}, {"10s", 10e9}, {"10S", 10e9}, {"2m", 120e9}, {"1h", 3600e9}, {"1d", 86400e9},
		{"PT0.5S", 500e6}, {"pt1m30s", 90e9}, {"PT-1S", -1}, {"P1D", 86400e9}, {"1500", 1500e6},
		{"250us", 250e3}, {"7ns", 7}, {"PT0.000000001S", 1}, {"PT1H1M", 3660e9},
	} {
		var n notes
		got, ok := springDuration(&n, "x", tc.in)
		if tc.want < 0 {
			if ok {
				t.Errorf("springDuration(%v) = %v; want an error", tc.in, got)
			}
			continue
		}
		if !ok || got != tc.want {
			t.Errorf("springDuration(%v) = %v, %v (%v); want %v", tc.in, got, ok, n.errs, tc.want)
		}
		if back, ok := springDuration(&n, "x", springDurationString(got)); !ok || back != got {
			t.Errorf("springDurationString(%v) = %q reads back as %v", got, springDurationString(got), back)
		}
	}
	for _, bad := range []string{"0.5s", "5 s", "5sec", "PT", "P1DT", "1.5", "-5s", "2d"} {
		var n notes
		if d, ok := springDuration(&n, "x", bad); ok {
			t.Errorf("springDuration(%q) = %v; want an error", bad, d)
		}
	}
}

// TestResilience4jErrors: what resilience4j refuses at startup, and what
// RetryLab cannot simulate, are errors naming the path.
func TestResilience4jErrors(t *testing.T) {
	for _, tc := range []struct{ doc, want string }{
		{"resilience4j.retry.instances.a.maxAttempts: 0", `resilience4j.retry.instances.a.maxAttempts: 0 is out of range; allowed a whole number from 1`},
		{"resilience4j.retry.instances.a.maxAttempts: 101", `is more attempts than RetryLab simulates`},
		{"resilience4j.retry.instances.a.waitDuration: 0.5s", `resilience4j.retry.instances.a.waitDuration: "0.5s" is not a duration as Spring Boot reads it`},
		{"resilience4j.bulkhead.instances.a: {maxConcurrentCalls: 4, maxWaitDuration: 1441m}", `resilience4j.bulkhead.instances.a.maxWaitDuration: "1441m" is longer than RetryLab simulates; allowed up to a day (24h)`},
		{"resilience4j.retry.instances.a.baseConfig: shared", `resilience4j.retry.instances.a.baseConfig: "shared" names no config`},
		{"resilience4j.retry.configs:\n  x: {baseConfig: y}\n  y: {baseConfig: x}\nresilience4j.retry.instances.a.baseConfig: x", `makes a cycle of baseConfig`},
		{"resilience4j.retry.instances.a: {waitDuration: 0ms, enableRandomizedWait: true}", `is refused by resilience4j's IntervalFunction`},
		{"resilience4j.retry.instances.a: {waitDuration: 1s, enableExponentialBackoff: true, exponentialBackoffMultiplier: 0.5}", `is a multiplier RetryLab does not simulate`},
		{"resilience4j.retry.instances.a: {randomizedWaitFactor: 1}", `is refused by resilience4j's randomizedWaitFactor setter; allowed from 0 below 1`},
		{"resilience4j.circuitbreaker.instances.a.failureRateThreshold: 150", `failureRateThreshold: 150 is refused by resilience4j's failureRateThreshold setter; allowed from 1 to 100`},
		{"resilience4j.circuitbreaker.instances.a.slidingWindowType: SLIDING", `"SLIDING" is not a slidingWindowType; allowed COUNT_BASED, TIME_BASED`},
		{"resilience4j.circuitbreaker.instances.a.waitDurationInOpenState: 0", `is refused by resilience4j's waitDurationInOpenState setter; allowed at least 1ms`},
		{"resilience4j.circuitbreaker.instances.a: {enableExponentialBackoff: true, enableRandomizedWait: true}", `is refused with enableExponentialBackoff`},
		{"resilience4j.circuitbreaker.instances.a: {maxAttempts: 3, max-attempts: 4}", `is not a resilience4j property here`},
		{"resilience4j.retry.instances.a: {maxAttempts: 3, max-attempts: 4}", `resilience4j.retry.instances.a.maxAttempts: 3 is the same property as max-attempts`},
		{"resilience4j.timelimiter.instances.a.timeoutDuration: 0s", `times out every call at once`},
		{"spring.application.name: x", `the document has no resilience4j properties`},
		{"resilience4j.ratelimiter.instances.a.limitForPeriod: 0", `resilience4j.ratelimiter.instances.a.limitForPeriod: 0 is out of range`},
		{"resilience4j.bulkhead.instances.a.maxConcurrentCalls: 0", `resilience4j.bulkhead.instances.a.maxConcurrentCalls: 0 is out of range`},
		{"resilience4j.bulkhead.instances.a.maxConcurrentCalls: -1", `resilience4j.bulkhead.instances.a.maxConcurrentCalls: -1 is out of range`},
		{"resilience4j.thread-pool-bulkhead.instances.a: {maxThreadPoolSize: 2, coreThreadPoolSize: 3}", `coreThreadPoolSize: 3 is above maxThreadPoolSize 2`},
	} {
		im, err := Import(Resilience4j, []byte(tc.doc))
		if err == nil {
			// Some cases are warnings, not errors: look in the notes.
			var all []string
			for _, n := range im.Notes {
				all = append(all, n.String())
			}
			if s := strings.Join(all, "\n"); !strings.Contains(s, tc.want) {
				t.Errorf("%s: imported, notes\n%s\nwant %q", tc.doc, s, tc.want)
			}
			continue
		}
		if !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v\nwant an error containing %q", tc.doc, err, tc.want)
		}
	}
}

// TestResilience4jInheritance: configs.default and baseConfig are applied
// as resilience4j's Common*ConfigurationProperties apply them.
func TestResilience4jInheritance(t *testing.T) {
	doc := `
resilience4j:
  retry:
    configs:
      default: {maxAttempts: 5, waitDuration: 1s, enableRandomizedWait: true, randomizedWaitFactor: 0.2}
      slow: {waitDuration: 4s}
    instances:
      inherits: {}
      own-wait: {waitDuration: 2s}
      based: {baseConfig: slow}
  circuitbreaker:
    configs:
      default: {failureRateThreshold: 20}
      shared: {slidingWindowSize: 10}
      direct: {minimumNumberOfCalls: 7}
    instances:
      inherits: {}
      based: {baseConfig: shared}
      direct: {}
`
	im, err := Import(Resilience4j, []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]engine.Strategy{}
	for _, st := range im.Strategies {
		got[st.Name] = st
	}
	check := func(name, what string, have, want any) {
		t.Helper()
		if !reflect.DeepEqual(have, want) {
			t.Errorf("%s: %s is %v; want %v", name, what, have, want)
		}
	}
	// Retry: default's function carries over; an own waitDuration rebuilds
	// it with the merged flag but without the base's factor (0.5).
	check("inherits", "max_attempts", got["inherits"].MaxAttempts, 5)
	check("inherits", "jitter", got["inherits"].Jitter, engine.Jitter{Kind: engine.JitterProportional, Fraction: 0.2})
	check("own-wait", "backoff", got["own-wait"].Backoff, engine.Backoff{Kind: engine.BackoffConstant, Base: 2e9})
	check("own-wait", "jitter", got["own-wait"].Jitter, engine.Jitter{Kind: engine.JitterProportional, Fraction: 0.5})
	// A base config inherits default too (retry).
	check("based", "max_attempts", got["based"].MaxAttempts, 5)
	check("based", "backoff", got["based"].Backoff, engine.Backoff{Kind: engine.BackoffConstant, Base: 4e9})
	// Breaker: default for an instance without a base; a base config is
	// built from the library's defaults, not from default; a config of
	// the instance's own name is its base.
	check("inherits", "ratio", got["inherits"].Breaker.Ratio, 0.2)
	check("based", "ratio", got["based"].Breaker.Ratio, 0.5)
	check("based", "window_calls", got["based"].Breaker.WindowCalls, 10)
	check("direct", "min_throughput", got["direct"].Breaker.MinThroughput, 7)
	check("direct", "ratio", got["direct"].Breaker.Ratio, 0.5)
}

// TestResilience4jAspectOrder: the aspect orders put the breaker and the
// time limiter inside or outside the retry, both ways.
func TestResilience4jAspectOrder(t *testing.T) {
	st := engine.Strategy{Name: r4jInstance, Policy: r4jPreset()}
	st.Breaker.Placement = engine.PlaceOutside
	st.Deadline = 5e9
	out, _, err := Export(Resilience4j, st)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"retryAspectOrder: 2", "circuitBreakerAspectOrder: 1", "timeLimiterAspectOrder: 1", "timeoutDuration: 5s"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("the export has no %q:\n%s", want, out)
		}
	}
	im, err := Import(Resilience4j, out)
	if err != nil {
		t.Fatal(err)
	}
	if got := im.Strategies[0]; !reflect.DeepEqual(got, st) {
		t.Errorf("re-imported as\n%s\nnot\n%s", indent(got), indent(st))
	}
}

// TestR4jUnknownRetryExceptionsRetryNothing: resilience4j retries only
// instances of retryExceptions; when it names only classes RetryLab does
// not know, the HTTP client's failures are none of them: imported as
// retrying nothing (the run makes no retry), with a warning.
func TestR4jUnknownRetryExceptionsRetryNothing(t *testing.T) {
	doc := `resilience4j:
  retry:
    instances:
      orders:
        maxAttempts: 4
        waitDuration: 100ms
        retryExceptions:
          - com.example.orders.OrderServiceUnavailable
`
	im, err := Import(Resilience4j, []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	st := im.Strategies[0]
	if statuses, timeout, connection := retried(st.RetryOn); len(statuses) > 0 || timeout || connection {
		t.Errorf("retries %v, timeouts %v, connection errors %v; want nothing", statuses, timeout, connection)
	}
	warned := false
	for _, n := range im.Notes {
		warned = warned || n.Level == Warning && strings.Contains(n.Message, "imported as retrying nothing")
	}
	if !warned {
		t.Errorf("no warning: %v", im.Notes)
	}
	sc, err := scenarios.Imported(im.Strategies, Resilience4j, "orders.yaml")
	if err != nil {
		t.Fatal(err)
	}
	res, err := engine.Run(context.Background(), sc, engine.Options{NoSeries: true})
	if err != nil {
		t.Fatal(err)
	}
	if r := res.Strategies[0].Metrics.Retries; r != 0 {
		t.Errorf("the run makes %v retries; want none", r)
	}
	// An empty list is resilience4j's default: every exception.
	im, err = Import(Resilience4j, []byte(strings.Replace(doc, "retryExceptions:\n          - com.example.orders.OrderServiceUnavailable", "retryExceptions: []", 1)))
	if err != nil {
		t.Fatal(err)
	}
	if statuses, _, _ := retried(im.Strategies[0].RetryOn); len(statuses) == 0 {
		t.Errorf("an empty retryExceptions retries nothing")
	}
}

// TestResilience4jEdges: each limit the importer checks accepts the
// value at its edge without a note on it, and a property set to what
// changes nothing is not warned about.
func TestResilience4jEdges(t *testing.T) {
	for _, tc := range []struct {
		doc   string
		check func(st engine.Strategy) bool
		quiet string // no note contains it
	}{
		{"resilience4j.retry.instances.a: {waitDuration: 1ms, enableExponentialBackoff: true, exponentialBackoffMultiplier: 2, exponentialMaxWaitDuration: 1ms}",
			func(st engine.Strategy) bool { return st.Backoff.Max == 1e6 }, "exponentialMaxWaitDuration"},
		{"resilience4j.retry.instances.a: {waitDuration: 1ms, enableExponentialBackoff: true, exponentialBackoffMultiplier: 100}",
			func(st engine.Strategy) bool { return st.Backoff.Multiplier == 100 }, "multiplier"},
		{"resilience4j.retry.instances.a: {waitDuration: 1s, enableExponentialBackoff: true, exponentialBackoffMultiplier: 1}",
			func(st engine.Strategy) bool { return st.Backoff.Multiplier == 1 }, "multiplier"},
		// Three statuses in a row are a range; two are statuses.
		{"resilience4j.retry.instances.a.retryExceptions: [org.springframework.web.client.HttpClientErrorException$Forbidden, org.springframework.web.client.HttpClientErrorException$NotFound, org.springframework.web.client.HttpClientErrorException$MethodNotAllowed, org.springframework.web.client.HttpClientErrorException$Conflict, org.springframework.web.client.HttpClientErrorException$Gone]",
			func(st engine.Strategy) bool {
				return reflect.DeepEqual(st.RetryOn, &engine.RetryOn{StatusRanges: []string{"403-405"}, Statuses: []int{409, 410}})
			}, ""},
		{"resilience4j.circuitbreaker.instances.a.slidingWindowSize: 100000",
			func(st engine.Strategy) bool { return st.Breaker.WindowCalls == 100_000 }, "slidingWindowSize"},
		{"resilience4j.circuitbreaker.instances.a: {slidingWindowType: TIME_BASED, slidingWindowSize: 86400}",
			func(st engine.Strategy) bool { return st.Breaker.Window == 86400e9 }, "slidingWindowSize"},
		{"resilience4j.circuitbreaker.instances.a.maxWaitDurationInHalfOpenState: 0",
			func(st engine.Strategy) bool { return st.Breaker != nil }, "maxWaitDurationInHalfOpenState"},
	} {
		im, err := Import(Resilience4j, []byte(tc.doc))
		if err != nil {
			t.Errorf("%s: %v", tc.doc, err)
			continue
		}
		if !tc.check(im.Strategies[0]) {
			t.Errorf("%s: imported as\n%s", tc.doc, indent(im.Strategies[0]))
		}
		for _, n := range im.Notes {
			if tc.quiet != "" && strings.Contains(strings.ToLower(n.String()), strings.ToLower(tc.quiet)) {
				t.Errorf("%s: %s", tc.doc, n)
			}
		}
	}
}

// TestResilience4jExportEdges: what resilience4j expresses exactly is
// written without a note on it; what it cannot is named.
func TestResilience4jExportEdges(t *testing.T) {
	with := func(f func(p *engine.Policy)) engine.Policy {
		p := r4jPreset()
		f(&p)
		return p
	}
	for _, tc := range []struct {
		name     string
		pol      engine.Policy
		path     string // a note on it, or none when quiet
		quiet    bool
		contains string // in the export
		bulk     []engine.Bulkhead
	}{
		{r4jInstance, with(func(p *engine.Policy) { p.Backoff = engine.Backoff{Kind: engine.BackoffLinear, Base: 1e8} }), "backoff.max", true, "waitDuration: 100ms", nil},
		{r4jInstance, with(func(p *engine.Policy) { p.Backoff = engine.Backoff{Kind: engine.BackoffLinear, Base: 1e8, Max: 1e9} }), "backoff.max", false, "waitDuration: 100ms", nil},
		// A constant wait is its base, or its max when that is shorter.
		{r4jInstance, with(func(p *engine.Policy) { p.Backoff = engine.Backoff{Kind: engine.BackoffConstant, Base: 1e8, Max: 2e8} }), "backoff.max", true, "waitDuration: 100ms", nil},
		{r4jInstance, with(func(p *engine.Policy) { p.Backoff = engine.Backoff{Kind: engine.BackoffConstant, Base: 2e8, Max: 1e8} }), "backoff.max", true, "waitDuration: 100ms", nil},
		{r4jInstance, with(func(p *engine.Policy) {
			p.Backoff = engine.Backoff{Kind: engine.BackoffConstant, Base: 1.5e6, Max: 1.5e6}
		}), "backoff.max", true, "waitDuration: 1ms", nil},
		{r4jInstance, with(func(p *engine.Policy) {
			p.Backoff = engine.Backoff{Kind: engine.BackoffConstant, Base: 2e6, Max: 1.5e6}
		}), "backoff.max", false, "waitDuration: 1ms", nil},
		// An exponential base under 1 ms, which IntervalFunction refuses.
		{r4jInstance, with(func(p *engine.Policy) { p.Backoff = engine.Backoff{Kind: engine.BackoffExponential, Base: 5e5} }), "backoff.base", false, "waitDuration: 1ms", nil},
		{r4jInstance, with(func(p *engine.Policy) { p.Breaker.OpenMultiplier = 2 }), "breaker.open_multiplier", true, "exponentialBackoffMultiplier: 2", nil},
		{r4jInstance, with(func(p *engine.Policy) { p.Breaker.OpenMultiplier = 1.5 }), "breaker.open_multiplier", false, "", nil},
		// The wait is written in whole milliseconds, which a whole
		// multiplier keeps whole.
		{r4jInstance, with(func(p *engine.Policy) { p.Breaker.OpenMultiplier, p.Breaker.Break = 2, 1e9+5e5 }), "breaker.open_multiplier", true, "waitDurationInOpenState: 1s", nil},
		{"Zone 90 (Az)", r4jPreset(), "", true, "Zone-90-Az:", nil},
		// Without a line, a semaphore bulkhead; with a line and no
		// time limit, a thread pool's queue.
		{r4jInstance, r4jPreset(), "", true, "maxConcurrentCalls: 4", []engine.Bulkhead{{Dependency: "dependency", MaxConcurrent: 4}}},
		{r4jInstance, r4jPreset(), "", true, "queueCapacity: 2", []engine.Bulkhead{{Dependency: "dependency", MaxConcurrent: 4, MaxWaiting: 2}}},
	} {
		out, ns, err := Export(Resilience4j, engine.Strategy{Name: tc.name, Policy: tc.pol, Bulkheads: tc.bulk})
		if err != nil {
			t.Fatal(err)
		}
		noted := false
		for _, n := range ns {
			noted = noted || tc.path != "" && n.Path == tc.path
		}
		if tc.path != "" && noted == tc.quiet {
			t.Errorf("%s: a note on %s is %v; want %v: %v", indent(tc.pol), tc.path, noted, !tc.quiet, ns)
		}
		if !strings.Contains(string(out), tc.contains) {
			t.Errorf("%s: written without %q:\n%s", indent(tc.pol), tc.contains, out)
		}
	}
}
