package view

import (
	"slices"
	"strings"
	"testing"

	"github.com/retrylab/retrylab/shared/engine"
	"github.com/retrylab/retrylab/shared/scenarios"
)

func TestDescribeUnlimitedAttempts(t *testing.T) {
	for _, tc := range []struct {
		p    engine.Policy
		want string
	}{
		{engine.Policy{MaxAttempts: 0}, "retries until it succeeds (no limit on attempts); retries at once"},
		{engine.Policy{MaxAttempts: 0, DeadLetter: true}, "a queue consumer: redelivers until it succeeds"},
		{engine.Policy{MaxAttempts: 3}, "at most 3 attempts; retries at once"},
		{engine.Policy{MaxAttempts: 1}, "at most 1 attempt"},
	} {
		if got := strings.Join(describePolicy(&tc.p), "; "); !strings.HasPrefix(got, tc.want) || tc.p.MaxAttempts == 1 && strings.Contains(got, "retries") {
			t.Errorf("%+v: %q, want it to start %q", tc.p, got, tc.want)
		}
	}
}

func TestDescribeHedging(t *testing.T) {
	for _, tc := range []struct {
		h    engine.Hedging
		want string
	}{
		{engine.Hedging{Delay: engine.Duration(50e6)}, "hedges: up to 2 copies of a call, each 50 ms after the previous one while none has answered"},
		{engine.Hedging{Delay: engine.Duration(50e6), DelayPercentile: 95}, "the p95 of recent successful copies' latencies (50 ms until 20 are known)"},
	} {
		p := engine.Policy{MaxAttempts: 2, Hedging: &tc.h}
		got := strings.Join(describePolicy(&p), "; ")
		if !strings.Contains(got, tc.want) || strings.Contains(got, "retries at once") || strings.Contains(got, "at most 2 attempts") {
			t.Errorf("%+v: %q, want it to contain %q and not describe retries", tc.h, got, tc.want)
		}
	}
}

func TestDescribeConnectionLimits(t *testing.T) {
	for _, tc := range []struct {
		cl   engine.ConnectionLimits
		want string
	}{
		{engine.ConnectionLimits{MaxRequests: 1}, "as a proxy's connection pool: at most 1 attempt in progress; one more is answered 503 at once, not retried"},
		{engine.ConnectionLimits{MaxConnections: 100, MaxPending: 10}, ": 100 connections of one attempt each, up to 10 waiting for one;"},
		{engine.ConnectionLimits{MaxConnections: 2, MaxRequests: 50}, ": at most 50 attempts in progress; 2 connections of one attempt each, none waiting for one;"},
	} {
		p := engine.Policy{MaxAttempts: 2, ConnectionLimits: &tc.cl}
		if got := strings.Join(describePolicy(&p), "; "); !strings.Contains(got, tc.want) {
			t.Errorf("%+v: %q, want it to contain %q", tc.cl, got, tc.want)
		}
	}
}

func TestDescribeNetwork(t *testing.T) {
	d := engine.Dependency{Workers: 2, ServiceTime: engine.Distribution{Kind: engine.ServiceConstant, Mean: engine.Duration(5e6)},
		Network: &engine.Network{Request: engine.Delay{Kind: engine.DelayNormal, Mean: engine.Duration(10e6), Stddev: engine.Duration(2e6)}}}
	got := strings.Join(describeDependency(&d), "; ")
	if !strings.Contains(got, "every call travels: 10 ms ± 2 ms (normal) there, no time back") {
		t.Errorf("the network is not described: %q", got)
	}
}

func TestDescribeContention(t *testing.T) {
	d := engine.Dependency{Workers: 2, ServiceTime: engine.Distribution{Kind: engine.ServiceConstant},
		Contention: &engine.Contention{}}
	got := strings.Join(describeDependency(&d), "; ")
	if !strings.Contains(got, "reads the version, then writes") || !strings.Contains(got, "fails with 409") {
		t.Errorf("the contention is not described: %q", got)
	}
}

func TestDescribeOverloadControl(t *testing.T) {
	base := engine.Dependency{Workers: 2, ServiceTime: engine.Distribution{Kind: engine.ServiceConstant}}
	for _, tc := range []struct {
		edit func(d *engine.Dependency)
		want string
	}{
		{func(d *engine.Dependency) { d.QueueDiscipline = engine.QueueLIFO }, "serves the newest queued request first (LIFO)"},
		{func(d *engine.Dependency) { d.QueueDiscipline = engine.QueueCoDel }, "drops queued requests with CoDel once they have waited 5 ms or more for 100 ms, answering 503 at once"},
		{func(d *engine.Dependency) {
			d.QueueDiscipline, d.CoDel, d.QueueFullStatus = engine.QueueAdaptiveLIFO, &engine.CoDel{Target: engine.Duration(2e6)}, 429
		}, "newest first once it has not been empty for 100 ms, and drops, answering 429 at once, a request that waited over 2 ms (100 ms when"},
		{func(d *engine.Dependency) { d.RateLimit = &engine.ServerRateLimit{Rate: 100, Burst: 10} }, "lets 100 calls a second through a token bucket of 10 and answers the others 429 at once, with a Retry-After of the time until a token, rounded up to 1 s"},
		{func(d *engine.Dependency) {
			d.ConcurrencyLimit = &engine.ConcurrencyLimit{Min: 5, Max: 50, Initial: 10}
		},
			"refuses at once with 503 the requests beyond an adaptive limit on those in flight (AIMD, Netflix's concurrency-limits): from 10, times 0.9 when one it took on is refused, answered after its caller left or slower than 5 s, plus 1 when one ends with at least half the limit in flight, between 5 and 50"},
	} {
		d := base
		tc.edit(&d)
		if got := strings.Join(describeDependency(&d), "; "); !strings.Contains(got, tc.want) {
			t.Errorf("got %q, want it to say %q", got, tc.want)
		}
	}
	for _, k := range engine.QueueDisciplines {
		d := base
		d.QueueDiscipline = k
		if got := describeQueueDiscipline(&d); (got == "") != (k == engine.QueueFIFO) {
			t.Errorf("queue discipline %q is described as %q; every one but fifo, the default, has its words", k, got)
		}
	}
	if got := strings.Join(describeDependency(&base), "; "); strings.Contains(got, "LIFO") || strings.Contains(got, "CoDel") || strings.Contains(got, "token") || strings.Contains(got, "AIMD") {
		t.Errorf("a FIFO dependency without a limiter is described with them: %q", got)
	}
}

func TestDescribeScript(t *testing.T) {
	d := engine.Dependency{Workers: 1, ServiceTime: engine.Distribution{Kind: engine.ServiceConstant},
		Script: &engine.Script{Answers: []engine.Answer{{Status: 503}, {Status: 200}}, Then: engine.ThenRepeat}}
	got := strings.Join(describeDependency(&d), "; ")
	if !strings.Contains(got, "answers calls from a script of 2 answers in arrival order, then starts over") {
		t.Errorf("the script is not described: %q", got)
	}
	d.Script = &engine.Script{Operations: [][]engine.Answer{{{Status: 503}}}}
	got = strings.Join(describeDependency(&d), "; ")
	if !strings.Contains(got, "the first 1 operation from a script, each operation's in order, then serves as usual") {
		t.Errorf("the script is not described: %q", got)
	}
}

func TestDescribeCache(t *testing.T) {
	d := engine.Dependency{Workers: 1, ServiceTime: engine.Distribution{Kind: engine.ServiceConstant},
		Cache: &engine.Cache{Keys: engine.KeySpace{Law: engine.KeysZipf, Count: 1000, Exponent: 0.8}, Capacity: 100,
			TTL: engine.Duration(60e9), HitLatency: engine.Duration(1e6), Fill: engine.FillLookAside, Coalesce: true}}
	got := strings.Join(describeDependency(&d), "; ")
	for _, want := range []string{"1000 keys of Zipf popularity (s = 0.8), holds the 100 most recently used for at most 60 s",
		"answers them in 1 ms", "it starts empty", "(look-aside)", "wait for one fetch"} {
		if !strings.Contains(got, want) {
			t.Errorf("the cache is not described (%q): %q", want, got)
		}
	}
}

// TestDescribeEveryBuiltin walks every built-in: the workload, the
// dependency and every strategy (each layer too) are said, and no phrase
// carries a formatting error or an empty value.
func TestDescribeEveryBuiltin(t *testing.T) {
	for _, b := range scenarios.All() {
		sc, err := b.Parse()
		if err != nil {
			t.Fatalf("%s: %v", b.Slug, err)
		}
		d := Describe(sc)
		phases := len(sc.Dependency.Phases) + len(sc.Workload.Load)
		if len(d.Workload) == 0 || len(d.Dependency) == 0 || len(d.Strategies) != len(sc.Strategies) || len(d.Timeline) != phases {
			t.Errorf("%s: %d workload, %d dependency, %d timeline (of %d phases and load phases), %d strategies (of %d) phrases", b.Slug,
				len(d.Workload), len(d.Dependency), len(d.Timeline), phases, len(d.Strategies), len(sc.Strategies))
		}
		all := append(append(slices.Clone(d.Workload), d.Dependency...), d.Timeline...)
		for i, sw := range d.Strategies {
			if sw.Name != sc.Strategies[i].Name || len(sw.Policy) == 0 || len(sw.Layers) != len(sc.Strategies[i].Layers) {
				t.Errorf("%s: strategy %d is %q with %d phrases and %d layers", b.Slug, i, sw.Name, len(sw.Policy), len(sw.Layers))
			}
			all = append(all, sw.Policy...)
			for _, l := range sw.Layers {
				all = append(all, l...)
			}
		}
		for _, p := range all {
			if p == "" || strings.Contains(p, "%!") || strings.Contains(p, "<nil>") {
				t.Errorf("%s: phrase %q", b.Slug, p)
			}
		}
	}
}

func TestDescribeBackends(t *testing.T) {
	zero, pct := 0, 20.0
	d := engine.Dependency{Workers: 2, ServiceTime: engine.Distribution{Kind: engine.ServiceConstant},
		Backends: &engine.Backends{Count: 4, Balancer: engine.BalancePowerOfTwo}}
	got := strings.Join(describeDependency(&d), "; ")
	if want := "is 4 identical backends, each as described, behind a load balancer that picks the less busy of two drawn at random (power of two choices)"; !strings.Contains(got, want) || strings.Contains(got, "ejects") {
		t.Errorf("the backends are not described (%q, and no ejection): %q", want, got)
	}
	d.Backends.OutlierDetection = &engine.OutlierDetection{EnforcingConsecutive5xx: &zero, ConsecutiveGatewayFailure: 3, BaseEjectionTime: engine.Duration(10e9), MaxEjectionPercent: &pct}
	got = strings.Join(describeDependency(&d), "; ")
	if want := "ejects a backend from the balancer's choice after 3 gateway failures (502, 503, 504) in a row, for 10 s times its ejections (at most 300 s), 20% of the backends out at most; below 50% left in, it uses them all"; !strings.Contains(got, want) {
		t.Errorf("the outlier detection is not described: %q, want %q", got, want)
	}
	for _, k := range engine.BalancerKinds {
		if balancerWords[k] == "" {
			t.Errorf("the balancer %q has no words", k)
		}
	}
	d.Backends = nil
	if got := strings.Join(describeDependency(&d), "; "); strings.Contains(got, "backend") {
		t.Errorf("a dependency without backends is described with them: %q", got)
	}
}

func TestDescribePhaseBackends(t *testing.T) {
	b := &engine.Backends{Count: 4}
	for _, tc := range []struct {
		p    engine.Phase
		b    *engine.Backends
		want string
	}{
		{engine.Phase{Kind: engine.PhaseOutage, From: engine.Duration(2e9), To: engine.Duration(5e9), Backends: []int{0, 2}}, b, "2 s–5 s: on backends 0 and 2, answers everything with 503"},
		{engine.Phase{Kind: engine.PhaseOutage, From: engine.Duration(2e9), To: engine.Duration(5e9), Backends: []int{1}}, b, "2 s–5 s: on backend 1, answers"},
		{engine.Phase{Kind: engine.PhaseLatency, From: engine.Duration(2e9), To: engine.Duration(5e9), Factor: 3, BackendShare: 0.3}, b, "2 s–5 s: on the first 2 of its 4 backends (30%), serves 3× slower"},
		{engine.Phase{Kind: engine.PhaseLatency, From: engine.Duration(2e9), To: engine.Duration(5e9), Factor: 3}, b, "2 s–5 s: serves 3× slower"},
	} {
		if got := describePhase(&tc.p, tc.b); !strings.HasPrefix(got, tc.want) {
			t.Errorf("%+v: %q, want %q", tc.p, got, tc.want)
		}
	}
}

func TestDescribeRetryHostPredicate(t *testing.T) {
	p := engine.Policy{MaxAttempts: 3, RetryHostPredicate: engine.HostPreviousHosts, HostSelectionRetryMaxAttempts: 3}
	if got, want := strings.Join(describePolicy(&p), "; "), "a retry avoids the backends its call has already tried (Envoy's previous_hosts), drawing another up to 3 times"; !strings.Contains(got, want) {
		t.Errorf("got %q, want it to say %q", got, want)
	}
	p.RetryHostPredicate = ""
	if got := strings.Join(describePolicy(&p), "; "); strings.Contains(got, "backends") {
		t.Errorf("a policy without a host predicate is described with one: %q", got)
	}
}

func TestDescribeAutoscale(t *testing.T) {
	tol := 0.2
	d := engine.Dependency{Workers: 2, ServiceTime: engine.Distribution{Kind: engine.ServiceConstant},
		Autoscale: &engine.Autoscale{Metric: engine.MetricUtilization, Target: 0.6, Period: engine.Duration(15e9), WarmUp: engine.Duration(30e9), Min: 2, Max: 10, Tolerance: &tol}}
	got := strings.Join(describeDependency(&d), "; ")
	if want := "an autoscaler keeps the share of workers busy near 0.6, between 2 and 10 workers: every 15 s it adds or removes workers when off by more than 20%; a worker added serves after 30 s, and workers are removed only when every recommendation of the last 300 s says so"; !strings.Contains(got, want) {
		t.Errorf("the autoscaler is not described: %q, want %q", got, want)
	}
	d.Backends = &engine.Backends{Count: 4}
	got = strings.Join(describeDependency(&d), "; ")
	if want := "between 2 and 10 backends: every 15 s it adds or removes backends when off by more than 20%; a backend added joins the balancer after 30 s, and backends are removed"; !strings.Contains(got, want) {
		t.Errorf("the autoscaler over backends is not described: %q, want %q", got, want)
	}
	for _, m := range engine.AutoscaleMetrics {
		if autoscaleMetricWords[m] == "" {
			t.Errorf("the autoscaler's metric %q has no words", m)
		}
	}
}

// TestDescribeAtTheEdges: a setting at its zero, which means "none" or
// "the default", is said as such, and one just off it is said with its
// value.
func TestDescribeAtTheEdges(t *testing.T) {
	base := engine.Dependency{Workers: 2, ServiceTime: engine.Distribution{Kind: engine.ServiceConstant}}
	for _, tc := range []struct {
		name      string
		edit      func(d *engine.Dependency)
		want, not string
	}{
		{"no random errors", func(d *engine.Dependency) {}, "", "at random"},
		{"random errors", func(d *engine.Dependency) { d.ErrorRate = 0.05 }, "fails 5% of calls at random with 503", ""},
		{"no knee", func(d *engine.Dependency) {
			d.LoadLatency = &engine.LoadLatency{Law: engine.LawLinear, Slope: 0.1}
		}, "each service takes 1 + 0.1·x times as long, x the requests in service per worker", "once x exceeds"},
		{"a knee", func(d *engine.Dependency) {
			d.LoadLatency = &engine.LoadLatency{Law: engine.LawLinear, Slope: 0.1, Knee: 0.5}
		}, "each service takes 1 + 0.1·(x − 0.5) times as long once x exceeds 0.5, x the requests", ""},
	} {
		d := base
		tc.edit(&d)
		got := strings.Join(describeDependency(&d), "; ")
		if !strings.Contains(got, tc.want) || tc.not != "" && strings.Contains(got, tc.not) {
			t.Errorf("%s: %q, want it to say %q and not %q", tc.name, got, tc.want, tc.not)
		}
	}

	for _, tc := range []struct {
		p    engine.Phase
		want string
	}{
		{engine.Phase{Kind: engine.PhaseFreeze, From: engine.Duration(2e9), To: engine.Duration(5e9)}, "2 s–5 s: freezes; the backlog is served afterwards"},
		{engine.Phase{Kind: engine.PhaseFreeze, From: engine.Duration(2e9), To: engine.Duration(5e9), Status: 504}, "2 s–5 s: freezes; the backlog is answered 504"},
	} {
		if got := describePhase(&tc.p, nil); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.p, got, tc.want)
		}
	}

	for _, tc := range []struct {
		name      string
		p         engine.Policy
		want, not string
	}{
		{"default throttle", engine.Policy{MaxAttempts: 3, Throttle: &engine.Throttle{}},
			"throttles itself: rejects an attempt locally with probability (requests − 2 × accepts) / (requests + 1) over the last 120 s", ""},
		{"own throttle", engine.Policy{MaxAttempts: 3, Throttle: &engine.Throttle{K: 1.1, Window: engine.Duration(30e9)}},
			"throttles itself: rejects an attempt locally with probability (requests − 1.1 × accepts) / (requests + 1) over the last 30 s", ""},
		{"fixed window", engine.Policy{MaxAttempts: 3, RateLimit: &engine.RateLimit{Kind: engine.RateLimitFixedWindow, LimitForPeriod: 50, RefreshPeriod: engine.Duration(1e9)}},
			"limits attempts to 50 every 1 s (a fixed window, resilience4j's RateLimiter), refusing an attempt that finds no permit", "AWS"},
		{"fixed window with a wait", engine.Policy{MaxAttempts: 3, RateLimit: &engine.RateLimit{Kind: engine.RateLimitFixedWindow, LimitForPeriod: 50, RefreshPeriod: engine.Duration(1e9), Timeout: engine.Duration(250e6)}},
			"limits attempts to 50 every 1 s (a fixed window, resilience4j's RateLimiter), an attempt waiting up to 250 ms for a permit, then refused", "AWS"},
		{"AWS adaptive", engine.Policy{MaxAttempts: 3, RateLimit: &engine.RateLimit{Kind: engine.RateLimitAWSAdaptive}},
			"paces attempts with the AWS SDKs' adaptive rate limiter, which a 429 turns on", "fixed window"},
	} {
		got := strings.Join(describePolicy(&tc.p), "; ")
		if !strings.Contains(got, tc.want) || tc.not != "" && strings.Contains(got, tc.not) {
			t.Errorf("%s: %q, want it to say %q and not %q", tc.name, got, tc.want, tc.not)
		}
	}
}
