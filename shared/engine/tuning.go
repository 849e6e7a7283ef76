package engine

import (
	"context"
	"fmt"
	"math"
	"time"
)

// A Tuning changes a run's simulations beyond what a scenario can say,
// for a caller that compares a scenario's runs with each other, such as
// the metastability probe (package probe): which load the dependency's
// load_errors see, what the run counts of its affected window, and a cut
// in the arrival rate. The zero Tuning changes nothing.
type Tuning struct {
	// FirstLoad makes load_errors count the first attempts only, not the
	// retries: the dependency fails as often as its own curve gives at
	// the load the operations offer, whatever the retries add.
	FirstLoad bool `json:"first_load,omitempty"`
	// Segment, when set, counts the operations that start in the affected
	// window (report.affected_from to affected_to, which must be set)
	// segment by segment, of this width: SimulationOutput.Segments.
	Segment Duration `json:"segment,omitzero"`
	// CutPercent, when set (1 to 99), removes that percentage of an
	// open-loop workload's arrival rate from CutAt on, load phases
	// included.
	CutPercent int      `json:"cut_percent,omitempty"`
	CutAt      Duration `json:"cut_at,omitzero"`
}

// tunedSet returns the simulations of sc, tuned by t (nil: none), of a
// scenario without a sweep or a search.
func tunedSet(sc *Scenario, t *Tuning) *simSet {
	m := compile(sc)
	if t != nil {
		m.firstLoad = t.FirstLoad
		m.segment = int64(t.Segment)
		if t.CutPercent > 0 {
			m.work.cut, m.work.cutAt, m.work.cutRate = true, int64(t.CutAt), m.work.rate*float64(100-t.CutPercent)/100
		}
	}
	return newSimSet([]*model{m})
}

// checkTuned refuses what RunTuned and Batches.Run cannot tune.
func checkTuned(sc *Scenario, t *Tuning) error {
	switch {
	case sc.Sweep != nil || sc.Search != nil:
		return fmt.Errorf("engine: a tuned run is of a scenario without a sweep or a search")
	case t == nil:
		return nil
	case t.CutPercent < 0 || t.CutPercent > 99:
		return fmt.Errorf("engine: a tuning's cut_percent %d is not in 0..99", t.CutPercent)
	case t.Segment < 0 || t.Segment > 0 && (sc.Report.AffectedFrom == nil || sc.Report.AffectedTo == nil):
		return fmt.Errorf("engine: a tuning's segments need a positive width and the report's affected_from and affected_to")
	}
	return nil
}

// RunTuned runs every simulation of sc (each strategy on each seed,
// numbered as Simulations says) tuned by t, without series, and returns
// what they measured, in the order of their numbers. It runs them
// in-process, or, when opt.RunBatch is set, hands them off through it as
// a Batch of sc and t (which Batches.Run runs elsewhere): the same
// bytes either way. sc must be valid (Validate) and have neither a sweep
// nor a search; the cost is the caller's to check (EstimateTuned), and
// opt.MaxEvents stops each simulation that processes more, as in Run.
// opt.Progress counts its simulations.
func RunTuned(ctx context.Context, sc *Scenario, t *Tuning, opt Options) (*Part, error) {
	if err := checkTuned(sc, t); err != nil {
		return nil, err
	}
	set := tunedSet(sc, t)
	b := &Batch{Scenario: sc, Tuning: t, Simulations: make([]int, set.len())}
	for k := range b.Simulations {
		b.Simulations[k] = k
	}
	if err := set.runBatch(ctx, sc, b, opt, &progress{f: opt.Progress, total: set.len()}); err != nil {
		return nil, err
	}
	return set.output(sc, b.Simulations), nil
}

// EstimateTuned returns the estimated cost of RunTuned's run of sc, in
// events: Estimate's without the series (a tuning does not change it).
func EstimateTuned(sc *Scenario) int64 { return estimate(sc, false) }

// EstimateSpan returns bounds on how long a simulation of sc runs in
// virtual time: at least until its arrivals stop (lo, less ten mean gaps
// for random arrivals), and at most until then and its phases release
// the calls they hold, plus as long as its slowest strategy's operation
// can last and its queue takes to drain (hi, at most math.MaxInt64/2).
func EstimateSpan(sc *Scenario) (lo, hi Duration) {
	l, h := estimateSpan(sc)
	return Duration(l), Duration(min(h, math.MaxInt64/2))
}

// FaultEnd returns when sc's trigger ends, the time a run's recovery is
// measured from: report.recovery_from when set, else the end of the
// latest dependency phase that harms (Phase.Harms) or load phase that
// raises the load (LoadPhase.Raises); 0 without one. sc must be valid.
func FaultEnd(sc *Scenario) Duration { return Duration(compile(sc).faultEnd) }

// CallsPerOperation returns the calls an operation of sc makes, on
// average: the shares of its plan's calls added up (1 without a plan).
// A run's amplification is the calls reaching the dependencies per
// operation over it. sc must be valid.
func CallsPerOperation(sc *Scenario) float64 { return compile(sc).callsPerOp }

// WorstCase returns the longest an invocation of p can take if every
// attempt times out and every wait is as long as its jitter allows;
// false when its attempts have no timeout.
func (p *Policy) WorstCase() (time.Duration, bool) {
	total, _, ok := worstCase(p)
	return total, ok
}

// HumanCount writes a count of events as the engine's messages do:
// "950", "1.2 million", "3.4 billion".
func HumanCount(n int64) string { return humanCount(n) }
