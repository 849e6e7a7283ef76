package engine

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"time"
)

// Options control a run.
type Options struct {
	// MaxEvents refuses, before running, a scenario whose estimated cost is
	// above it, and stops a run that processes more. 0 means no limit.
	MaxEvents int64
	// NoSeries leaves the time series out of the result.
	NoSeries bool
	// Progress, when set, hears after each simulation (one strategy on one
	// seed and sweep value) how many of the total are done.
	Progress func(done, total int)
}

// A CostError refuses a scenario whose estimated cost is over the caller's
// limit.
type CostError struct {
	Estimate int64
	Limit    int64
}

func (e *CostError) Error() string {
	return fmt.Sprintf("the scenario is estimated at %s events (operations × attempts per operation across layers × strategies × runs × sweep values × 3), over the limit of %s; reduce the workload, attempts, runs or sweep values",
		humanCount(e.Estimate), humanCount(e.Limit))
}

// ErrStopped is wrapped by the error of a run stopped by its context or by
// the event limit.
var ErrStopped = errStopped

// Run validates the scenario, checks its estimated cost, and simulates every
// strategy on every seed (and every sweep value). It honours ctx, checking it
// every few thousand events. The same scenario gives the same Result, byte for
// byte once encoded, on every platform.
func Run(ctx context.Context, sc *Scenario, opt Options) (*Result, error) {
	if err := sc.Validate(); err != nil {
		return nil, err
	}
	if est := Estimate(sc); opt.MaxEvents > 0 && est > opt.MaxEvents {
		return nil, &CostError{Estimate: est, Limit: opt.MaxEvents}
	}
	res := &Result{
		Scenario:      sc.Name,
		EngineVersion: EngineVersion,
		Warnings:      Warnings(sc),
	}
	for _, s := range seedsOf(sc) {
		res.Seeds = append(res.Seeds, int64(s))
	}
	for _, ph := range sc.Dependency.Phases {
		label := ph.Label
		if label == "" {
			label = phaseLabel(&ph)
		}
		res.Phases = append(res.Phases, PhaseSpan{Kind: ph.Kind, Label: label, FromS: ph.From.D().Seconds(), ToS: ph.To.D().Seconds()})
	}
	p := &progress{f: opt.Progress, total: len(res.Seeds) * len(sc.Strategies)}
	if sc.Sweep != nil {
		p.total *= len(sc.Sweep.Values)
	}
	if sc.Sweep == nil {
		strats, events, err := runModel(ctx, compile(sc), opt, p, !opt.NoSeries)
		if err != nil {
			return nil, err
		}
		res.Strategies, res.Events = strats, events
		return res, nil
	}
	res.SweepPath = sc.Sweep.Path
	for i, raw := range sc.Sweep.Values {
		sub, err := sc.withValue(i)
		if err != nil {
			return nil, err
		}
		strats, events, err := runModel(ctx, compile(sub), opt, p, false)
		if err != nil {
			return nil, err
		}
		var v any
		_ = json.Unmarshal(raw, &v)
		res.Sweep = append(res.Sweep, SweepPoint{Value: v, Strategies: strats})
		res.Events += events
	}
	return res, nil
}

// progress counts finished simulations for Options.Progress.
type progress struct {
	f           func(done, total int)
	done, total int
}

func (p *progress) step() {
	p.done++
	if p.f != nil {
		p.f(p.done, p.total)
	}
}

func runModel(ctx context.Context, m *model, opt Options, p *progress, withSeries bool) ([]StrategyResult, int64, error) {
	outs := make([][]runOutput, len(m.strategies))
	var events, span int64
	base := m.base
	for ri, seed := range m.seeds {
		for si := range m.strategies {
			if err := ctx.Err(); err != nil {
				return nil, 0, fmt.Errorf("%w: %w", errStopped, err)
			}
			s := newSim(ctx, m, &m.strategies[si], seed, opt.MaxEvents)
			if err := s.run(); err != nil {
				return nil, 0, err
			}
			out := s.output(withSeries && ri == 0)
			events += s.events
			p.step()
			if ri == 0 {
				span = max(span, int64(out.nbins)*out.base)
				base = max(base, out.base)
			}
			outs[si] = append(outs[si], out)
		}
	}
	bucket := chooseBucket(m, span, base)
	res := make([]StrategyResult, len(m.strategies))
	for si := range m.strategies {
		res[si] = summarize(m, m.strategies[si].name, outs[si], bucket, span, withSeries)
	}
	return res, events, nil
}

// Estimate returns the approximate number of events a run of the scenario
// processes: operations × the product of every level's max attempts × 3
// events per call × strategies × runs, summed over sweep values, taking the
// costliest strategy for all. It overestimates runs where few calls fail.
func Estimate(sc *Scenario) int64 {
	if sc.Sweep != nil {
		// Each value may change the cost: count each one.
		var total int64
		for i := range sc.Sweep.Values {
			sub, err := sc.withValue(i)
			if err != nil {
				return math.MaxInt64 / 2
			}
			total = min(total+Estimate(sub), math.MaxInt64/2)
		}
		return total
	}
	ops := estimateOps(sc)
	worst := 1.0
	for _, st := range sc.Strategies {
		a := float64(max(st.MaxAttempts, 1))
		for _, l := range st.Layers {
			a *= float64(max(l.MaxAttempts, 1))
		}
		worst = max(worst, a)
	}
	runs := float64(max(len(sc.Seeds), sc.Runs, 1))
	est := ops * worst * 3 * float64(max(len(sc.Strategies), 1)) * runs
	if est > math.MaxInt64/2 || math.IsNaN(est) {
		return math.MaxInt64 / 2
	}
	return int64(est) + 1
}

// estimateOps returns about how many operations one run starts.
func estimateOps(sc *Scenario) float64 {
	w := &sc.Workload
	var ops float64
	switch w.Arrival {
	case "burst":
		ops = float64(w.Clients)
	case "closed":
		// A client whose calls fail at once cycles every think time.
		cycle := max(float64(w.ThinkTime), float64(time.Millisecond))
		ops = float64(w.Clients) * float64(w.Duration) / cycle
	default:
		rate := w.Rate
		if rate == 0 {
			rate = w.RatePerClient * float64(w.Clients)
		}
		ops = rate * w.Duration.D().Seconds()
		if w.Duration == 0 {
			ops = math.Inf(1)
		}
	}
	if w.Operations > 0 {
		ops = min(ops, float64(w.Operations))
	}
	return ops
}

// Warnings points out policies that cannot do what they seem to promise.
func Warnings(sc *Scenario) []string {
	ws := []string{}
	for i, st := range sc.Strategies {
		levels := append([]Policy{st.Policy}, st.Layers...)
		for j := range levels {
			p := &levels[j]
			where := fmt.Sprintf("strategy %q", st.Name)
			if j > 0 {
				where = fmt.Sprintf("strategy %q layer %d", st.Name, j)
			}
			if worst, waits, ok := worstCase(p); ok && p.Deadline > 0 && worst > p.Deadline.D() {
				ws = append(ws, fmt.Sprintf("%s: worst case %s (%d attempts × %s + %s of waits) exceeds its deadline %s, so the deadline cuts the last attempts (strategies[%d])",
					where, worst, p.MaxAttempts, p.AttemptTimeout, waits, p.Deadline, i))
			}
			if p.MaxAttempts > 1 && p.AttemptTimeout == 0 && p.Deadline == 0 {
				ws = append(ws, fmt.Sprintf("%s: retries with neither attempt_timeout nor deadline; a frozen dependency holds its calls forever (strategies[%d])", where, i))
			}
			if p.RetryNonIdempotent && !st.IdempotencyKey && sc.Workload.Mix.NonIdempotent > 0 {
				ws = append(ws, fmt.Sprintf("%s: retries non-idempotent operations without an idempotency key; a retry after a timeout can apply them twice (strategies[%d])", where, i))
			}
		}
		if n := len(st.Layers); n > 0 {
			a := 1
			for _, p := range levels {
				a *= p.MaxAttempts
			}
			if a > 10 {
				ws = append(ws, fmt.Sprintf("strategy %q: retries at %d levels multiply to up to %d dependency calls per operation (strategies[%d])", st.Name, n+1, a, i))
			}
		}
	}
	return ws
}

// worstCase returns the longest an invocation of p can take if every attempt
// times out and every wait is as long as its jitter allows.
func worstCase(p *Policy) (total, waits time.Duration, ok bool) {
	if p.AttemptTimeout == 0 {
		return 0, 0, false
	}
	for n := 1; n < p.MaxAttempts; n++ {
		waits += maxWait(p, n)
	}
	return time.Duration(p.MaxAttempts)*p.AttemptTimeout.D() + waits, waits, true
}

func maxWait(p *Policy, n int) time.Duration {
	b := p.Backoff
	var d float64
	switch b.Kind {
	case "constant":
		d = float64(b.Base)
	case "linear":
		d = float64(b.Base) * float64(n)
	case "exponential":
		mult := b.Multiplier
		if mult == 0 {
			mult = 2
		}
		d = float64(b.Base) * math.Pow(mult, float64(n-1))
	}
	if b.Max > 0 {
		d = min(d, float64(b.Max))
	}
	switch p.Jitter.Kind {
	case "additive":
		d += float64(p.Jitter.Amount)
	case "proportional":
		f := p.Jitter.Fraction
		if f == 0 {
			f = 0.2
		}
		d *= 1 + f
	case "decorrelated":
		d = float64(b.Base) * math.Pow(3, float64(n))
		if b.Max > 0 {
			d = min(d, float64(b.Max))
		}
	}
	return time.Duration(d)
}

func phaseLabel(ph *Phase) string {
	switch ph.Kind {
	case "freeze":
		return "freeze"
	case "outage":
		if ph.Error != "" {
			return "outage (" + ph.Error + ")"
		}
		return fmt.Sprintf("outage (%d)", cmp.Or(ph.Status, 503))
	case "capacity":
		return fmt.Sprintf("capacity %d workers", ph.Workers)
	case "errors":
		return fmt.Sprintf("errors %g%%", ph.Rate*100)
	case "latency":
		return fmt.Sprintf("latency ×%g", ph.Factor)
	}
	return ph.Kind
}

func humanCount(n int64) string {
	switch {
	case n >= 1e9:
		return fmt.Sprintf("%.1f billion", float64(n)/1e9)
	case n >= 1e6:
		return fmt.Sprintf("%.1f million", float64(n)/1e6)
	}
	return fmt.Sprint(n)
}

// IsCost reports whether err refuses a scenario for its cost.
func IsCost(err error) bool {
	var ce *CostError
	return errors.As(err, &ce)
}
