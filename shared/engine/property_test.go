package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"
)

// randomScenario builds a small valid scenario exercising every mechanism at
// random: the raw material of the property tests.
func randomScenario(r *rand.Rand) *Scenario {
	d := func(lo, hi time.Duration) Duration { return Duration(lo + time.Duration(r.Int64N(int64(hi-lo)+1))) }
	pick := func(xs ...string) string { return xs[r.IntN(len(xs))] }
	sc := &Scenario{Version: 1, Name: "random", Seed: r.Int64N(1000)}
	arr := pick("poisson", "uniform", "closed", "burst")
	w := Workload{Clients: 1 + r.IntN(50), Arrival: ArrivalKind(arr)}
	switch arr {
	case "poisson", "uniform":
		w.Rate = 5 + 100*r.Float64()
		w.Duration = d(time.Second, 5*time.Second)
	case "closed":
		w.ThinkTime = d(10*time.Millisecond, 500*time.Millisecond)
		w.Duration = d(time.Second, 5*time.Second)
	case "burst":
		w.BurstAt = d(0, time.Second)
	}
	w.Mix = Mix{NonIdempotent: r.Float64() * 0.5, Keyed: r.Float64(), Unreadable: r.Float64() * 0.1}
	sc.Workload = w
	dep := Dependency{Workers: 1 + r.IntN(20), QueueCapacity: r.IntN(50), DropAbandoned: r.IntN(2) == 0}
	switch pick("constant", "exponential", "lognormal") {
	case "constant":
		dep.ServiceTime = Distribution{Kind: "constant", Mean: d(0, 50*time.Millisecond)}
	case "exponential":
		dep.ServiceTime = Distribution{Kind: "exponential", Mean: d(time.Millisecond, 50*time.Millisecond)}
	default:
		p50 := d(time.Millisecond, 30*time.Millisecond)
		dep.ServiceTime = Distribution{Kind: "lognormal", P50: p50, P99: p50 + d(0, 200*time.Millisecond)}
	}
	if r.IntN(3) == 0 {
		dep.ErrorRate = r.Float64() * 0.3
	}
	if r.IntN(4) == 0 {
		dep.LoadErrors = &LoadErrors{Points: []LoadPoint{{Load: 10, Rate: 0.05}, {Load: 100, Rate: 0.5}}}
	}
	if r.IntN(3) == 0 {
		dep.RetryAfter = &RetryAfter{Statuses: []int{503}, After: d(0, time.Second)}
	}
	for _, kind := range []string{"freeze", "outage", "capacity", "errors", "latency"} {
		if r.IntN(2) == 0 {
			continue
		}
		from := d(0, 3*time.Second)
		ph := Phase{Kind: PhaseKind(kind), From: from, To: from + d(time.Millisecond, 2*time.Second)}
		switch kind {
		case "freeze":
			ph.Status = []int{0, 503}[r.IntN(2)]
		case "outage":
			ph.Latency = d(0, 100*time.Millisecond)
			if r.IntN(3) == 0 {
				ph.Error = "connection"
			}
		case "capacity":
			ph.Workers = r.IntN(5)
		case "errors":
			ph.Rate = 0.01 + 0.99*r.Float64()
			ph.Status = []int{500, 503, 400, 429}[r.IntN(4)]
		case "latency":
			ph.Factor = 0.5 + 5*r.Float64()
		}
		dep.Phases = append(dep.Phases, ph)
	}
	if w.Arrival == ArrivalPoisson && r.IntN(3) == 0 {
		// Load phases: each kind at a random place in the duration.
		for _, kind := range LoadKinds {
			if r.IntN(2) == 0 {
				continue
			}
			from := d(0, w.Duration.D()*3/4)
			lp := LoadPhase{Kind: kind, From: from, To: from + d(time.Millisecond, 2*time.Second)}
			switch kind {
			case LoadStep, LoadRamp:
				lp.Factor = []float64{0, 0.5, 2, 5}[r.IntN(4)]
			case LoadDaily:
				lp.Amplitude, lp.Period = r.Float64(), d(time.Second, 3*time.Second)
			case LoadSpike:
				lp.Rate = 1 + 200*r.Float64()
			case LoadFlash:
				lp.Operations = 1 + r.IntN(300)
			}
			sc.Workload.Load = append(sc.Workload.Load, lp)
		}
	}
	if r.IntN(4) == 0 {
		law := LatencyLaws[r.IntN(len(LatencyLaws))]
		ll := &LoadLatency{Law: law, Of: LoadMeasures[r.IntN(2)], MaxFactor: 1 + 20*r.Float64()}
		switch law {
		case LawUSL:
			ll.Sigma, ll.Kappa = 0.2*r.Float64(), 0.05*r.Float64()+1e-6
		default:
			ll.Slope, ll.Knee = 0.01+3*r.Float64(), 2*r.Float64()
			if law == LawPolynomial {
				ll.Power = 0.5 + 3*r.Float64()
			}
		}
		dep.LoadLatency = ll
	}
	sc.Dependency = dep
	policy := func(client bool) Policy {
		p := Policy{MaxAttempts: 1 + r.IntN(5), Instances: 1 + r.IntN(3)}
		if r.IntN(3) > 0 {
			p.AttemptTimeout = d(20*time.Millisecond, time.Second)
		}
		if r.IntN(2) == 0 {
			p.Deadline = d(100*time.Millisecond, 3*time.Second)
			p.MinAttemptTime = d(0, p.Deadline.D()/4)
		}
		if kind := pick("none", "constant", "linear", "exponential"); kind != "none" {
			p.Backoff = Backoff{Kind: BackoffKind(kind), Base: d(time.Millisecond, 200*time.Millisecond)}
			if r.IntN(2) == 0 {
				p.Backoff.Max = p.Backoff.Base + d(0, time.Second)
			}
			if r.IntN(4) == 0 {
				p.Backoff.ThrottleBase = d(0, time.Second)
			}
			p.Jitter.Kind = JitterKind(pick("none", "full", "equal", "decorrelated", "proportional", "additive"))
			if p.Jitter.Kind == "additive" {
				p.Jitter.Amount = d(time.Millisecond, time.Second)
			}
		}
		p.HonorRetryAfter = r.IntN(2) == 0
		p.RetryNonIdempotent = r.IntN(2) == 0
		if client {
			p.IdempotencyKey = r.IntN(3) == 0
			p.DeadLetter = r.IntN(4) == 0
		}
		if r.IntN(3) == 0 {
			p.RetryOn = &RetryOn{Statuses: []int{500, 503}, Timeout: r.IntN(2) == 0}
		}
		switch r.IntN(5) {
		case 0:
			p.Budget = &Budget{Kind: "token_bucket", MaxTokens: 1 + 20*r.Float64(), TokenRatio: r.Float64()}
			if r.IntN(2) == 0 {
				p.Budget.Charge, p.Budget.Refund = "retry", r.IntN(2) == 0
				p.Budget.ThrottleCost, p.Budget.TimeoutCost = 3*r.Float64(), 3*r.Float64()
			}
		case 1:
			p.Budget = &Budget{Kind: "ratio", Ratio: 0.01 + r.Float64()}
			if r.IntN(2) == 0 {
				p.Budget.Window = d(100*time.Millisecond, 2*time.Second)
				p.Budget.MinPerSecond = 5 * r.Float64()
				if r.IntN(2) == 0 {
					p.Budget.Slices = 2 + r.IntN(10)
				}
			}
		case 2:
			p.Budget = &Budget{Kind: "concurrency", Ratio: r.Float64(), MinConcurrency: r.IntN(4)}
			if r.IntN(2) == 0 {
				p.Budget.ShareOf = "attempts"
			}
		}
		switch r.IntN(3) {
		case 0:
			p.Breaker = &Breaker{Kind: "consecutive", Failures: 1 + r.IntN(10), Break: d(time.Millisecond, time.Second)}
		case 1:
			p.Breaker = &Breaker{Kind: "ratio", Ratio: 0.1 + 0.9*r.Float64(), MinThroughput: 1 + r.IntN(20),
				Window: d(time.Millisecond, 2*time.Second), Break: d(time.Millisecond, time.Second), HalfOpenCalls: r.IntN(3)}
			if r.IntN(2) == 0 {
				p.Breaker.Window, p.Breaker.WindowCalls = 0, p.Breaker.MinThroughput+r.IntN(20)
			}
		}
		if p.Breaker != nil && r.IntN(2) == 0 {
			p.Breaker.Placement = "outside"
		}
		if r.IntN(4) == 0 {
			p.Adaptive = &Adaptive{Window: d(time.Millisecond, 5*time.Second), Above: 0.9 * r.Float64(), Factor: 1 + 4*r.Float64()}
		}
		return p
	}
	for i := range 1 + r.IntN(3) {
		st := Strategy{Name: fmt.Sprintf("s%d", i), Policy: policy(true)}
		for range r.IntN(3) {
			st.Layers = append(st.Layers, policy(false))
		}
		sc.Strategies = append(sc.Strategies, st)
	}
	return sc
}

var propertyRuns = flag.Int("property-runs", 300, "random scenarios checked by TestPropertiesOfRandomScenarios")

func TestPropertiesOfRandomScenarios(t *testing.T) {
	n := *propertyRuns
	if testing.Short() {
		n = min(n, 50)
	}
	r := rand.New(rand.NewPCG(1, 2))
	for i := range n {
		sc := randomScenario(r)
		if err := sc.Validate(); err != nil {
			t.Fatalf("scenario %d: the generator made an invalid scenario: %v\n%s", i, err, sc.Canonical())
		}
		m := compile(sc)
		var events int64
		for si := range m.strategies {
			st := &m.strategies[si]
			s := newSim(context.Background(), m, st, m.seeds[0], 0)
			var problems []string
			s.observe = func(s *sim, what string, id int32) {
				switch what {
				case "attempt":
					// No attempt passes an inside breaker that is open.
					cl := &s.calls[id]
					lv := &s.st.levels[cl.level]
					if lv.breaker != nil && !lv.breakerOutside && s.inst[cl.level][cl.instance].brState == brOpen {
						problems = append(problems, fmt.Sprintf("attempt at %d through the open breaker of level %d", s.now, cl.level))
					}
				case "end":
					op := &s.ops[id]
					if dl := s.st.levels[0].deadline; dl > 0 && s.now-op.start > dl {
						problems = append(problems, fmt.Sprintf("operation %d outlived its deadline: %d > %d", id, s.now-op.start, dl))
					}
				}
			}
			if err := s.run(); err != nil {
				t.Fatalf("scenario %d: %v", i, err)
			}
			events += s.events
			if len(problems) > 0 {
				t.Fatalf("scenario %d strategy %s: %s\n%s", i, st.name, problems[0], sc.Canonical())
			}
			x := s.output(false).metrics
			max0 := float64(st.levels[0].maxAttempts)
			all := 1.0
			for _, l := range st.levels {
				all *= float64(l.maxAttempts)
			}
			check := func(ok bool, format string, args ...any) {
				if !ok {
					t.Fatalf("scenario %d strategy %s: %s\n%s", i, st.name, fmt.Sprintf(format, args...), sc.Canonical())
				}
			}
			check(x.Attempts <= max0*x.Operations, "%v attempts > %v max attempts × %v operations", x.Attempts, max0, x.Operations)
			check(x.DependencyCalls <= all*x.Operations, "%v dependency calls > %v × %v operations", x.DependencyCalls, all, x.Operations)
			check(x.Succeeded+x.Failed == x.Operations, "succeeded + failed != operations")
			gaveUp := x.GaveUpAttempts + x.GaveUpDeadline + x.GaveUpBudget + x.GaveUpBreaker + x.GaveUpNotRetryable + x.GaveUpNonIdempotent + x.GaveUpUnreadable
			check(gaveUp == x.Failed, "%v give-ups for %v failures", gaveUp, x.Failed)
			if st.levels[0].deadLetter {
				check(x.DeadLettered == x.Failed, "dead-lettered %v of %v failed", x.DeadLettered, x.Failed)
			}
			if b := st.levels[0].budget; b != nil && b.Kind == "ratio" && b.Window == 0 && st.levels[0].instances == 1 {
				check(x.Retries <= b.Ratio*x.FirstAttempts+1e-6, "ratio budget %v broken: %v retries for %v first attempts", b.Ratio, x.Retries, x.FirstAttempts)
			}
			check(s.inflightOp == 0 && s.deps[0].busy == 0 && s.deps[0].queue.len() == 0, "the run ended with work left")
			check(events <= Estimate(sc), "%d events so far, over the estimate %d", events, Estimate(sc))
			for l, lv := range st.levels {
				for k := range s.inst[l] {
					in := &s.inst[l][k]
					if b := lv.budget; b != nil && b.Kind == BudgetConcurrency {
						check(in.active == 0 && in.retrying == 0 && in.attemptsOut == 0, "level %d: a concurrency budget ended with %d calls, %d retries and %d attempts in progress", l, in.active, in.retrying, in.attemptsOut)
					}
					if b := lv.budget; b != nil && b.Kind == BudgetTokenBucket {
						check(in.tokens >= 0 && in.tokens <= b.MaxTokens, "level %d: %v tokens outside [0, %v]", l, in.tokens, b.MaxTokens)
					}
				}
			}
		}
	}
}

func TestDeterministic(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for i := range 30 {
		sc := randomScenario(r)
		sc.Runs = 2
		var out [2][]byte
		for k := range out {
			res, err := Run(context.Background(), sc, Options{})
			if err != nil {
				t.Fatal(err)
			}
			out[k], _ = json.Marshal(res)
		}
		if !bytes.Equal(out[0], out[1]) {
			t.Fatalf("scenario %d: two runs differ", i)
		}
	}
}

func TestCommonRandomNumbers(t *testing.T) {
	// Two strategies that cannot differ (no failure ever happens) must see
	// the same arrivals and service times, hence identical metrics.
	res := mustRun(t, `{"version": 1, "name": "crn", "runs": 3,
		"workload": {"clients": 20, "arrival": "poisson", "rate": 50, "duration": "10s"},
		"dependency": {"workers": 4, "service_time": {"kind": "lognormal", "p50": "20ms", "p99": "200ms"}, "queue_capacity": 1000},
		"strategies": [{"name": "a", "max_attempts": 1}, {"name": "b", "max_attempts": 5, "backoff": {"kind": "constant", "base": "1s"}}]}`)
	a, b := res.Strategies[0], res.Strategies[1]
	a.Name, b.Name = "", ""
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	if !bytes.Equal(ja, jb) {
		t.Errorf("strategies differ though no attempt failed:\n%s\n%s", ja, jb)
	}
}

// TestPropertiesOfFleets: random open-loop scenarios with fleets, each
// fleet's policy another random strategy's: the run stays within its
// estimate, ends with no work left, and the fleets' operations and
// successes add up to the strategy's.
func TestPropertiesOfFleets(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	checked := 0
	for i := 0; checked < *propertyRuns/3; i++ {
		sc := randomScenario(r)
		other := randomScenario(r)
		if sc.Workload.Arrival != ArrivalPoisson {
			continue
		}
		for k, st := range other.Strategies {
			st.DeadLetter = false
			sc.Workload.Fleets = append(sc.Workload.Fleets, Fleet{Name: fmt.Sprintf("f%d", k), Clients: 1 + r.IntN(30),
				Rate: 1 + 50*r.Float64(), Policy: st.Policy, Layers: st.Layers})
		}
		for k := range sc.Strategies {
			sc.Strategies[k].DeadLetter = false
		}
		if err := sc.Validate(); err != nil {
			t.Fatalf("scenario %d: the generator made an invalid scenario: %v\n%s", i, err, sc.Canonical())
		}
		checked++
		res, err := Run(context.Background(), sc, Options{MaxEvents: 0})
		if err != nil {
			t.Fatalf("scenario %d: %v\n%s", i, err, sc.Canonical())
		}
		if est := Estimate(sc); res.Events > est {
			t.Fatalf("scenario %d: %d events, over the estimate %d\n%s", i, res.Events, est, sc.Canonical())
		}
		for _, st := range res.Strategies {
			var ops, ok float64
			for _, f := range st.Fleets {
				ops += f.Metrics.Operations
				ok += f.Metrics.Succeeded
			}
			if len(st.Fleets) != len(sc.Workload.Fleets)+1 || ops != st.Metrics.Operations || ok != st.Metrics.Succeeded {
				t.Fatalf("scenario %d strategy %s: %d fleets with %v operations and %v successes, the strategy's %v and %v\n%s",
					i, st.Name, len(st.Fleets), ops, ok, st.Metrics.Operations, st.Metrics.Succeeded, sc.Canonical())
			}
		}
	}
}
