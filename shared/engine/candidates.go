package engine

import "context"

// Candidates are strategies run beyond a scenario's list, on each of
// its variants: a search's candidates, compiled once and run a batch of
// simulations at a time, in-process or handed off through
// Options.RunBatch as a Batch (which Batches.Run runs elsewhere, on the
// same candidates compiled there). Simulation k is candidate k%n on
// variant (k/n)%v on seed k/(n*v), for n candidates and v variants:
// seed after seed, within a seed variant after variant, candidates in
// order.
type Candidates struct {
	sc  *Scenario
	set *simSet
	n   int
	// p is the progress of the Run the candidates are part of; nil
	// counts nothing.
	p *progress
}

// CompileCandidates compiles the candidates of a run of sc: subs are
// its variants (one, sc itself, without variants), each without a sweep
// or a search and with the candidates as its strategies, all on sc's
// seeds. Each must be valid.
func CompileCandidates(sc *Scenario, subs []*Scenario) *Candidates {
	ms := make([]*model, len(subs))
	for i, sub := range subs {
		ms[i] = compile(sub)
	}
	return &Candidates{sc: sc, set: newSimSet(ms), n: len(subs[0].Strategies)}
}

// Seeds returns how many seeds each candidate runs on.
func (c *Candidates) Seeds() int { return len(c.set.ms[0].seeds) }

// Run runs simulations ks, in-process or, when opt.RunBatch is set,
// handed off through it as a Batch; the progress of the run the
// candidates are part of counts each. opt.MaxEvents stops each
// simulation that processes more.
func (c *Candidates) Run(ctx context.Context, ks []int, opt Options) error {
	p := c.p
	if p == nil {
		p = &progress{}
	}
	return c.set.runBatch(ctx, c.sc, &Batch{Simulations: ks}, opt, p)
}

// Metrics returns what candidate cand measured on seed i of variant v,
// once run.
func (c *Candidates) Metrics(v, cand, i int) Metrics { return c.set.outs[v][cand][i].metrics }

// MeanSpread returns candidate cand's mean metrics over the first seeds
// of variant v, rounded as a Result's are, and each metric's minimum
// and maximum, as StrategyResult's Mean and Spread.
func (c *Candidates) MeanSpread(v, cand, seeds int) (Metrics, map[string]MinMax) {
	return meanSpread(c.set.outs[v][cand][:seeds], func(o *runOutput) Metrics { return o.metrics })
}

// Applies reports whether metric name applies in variant v: false for
// a recovery metric where no fault ends (see MayNotApply).
func (c *Candidates) Applies(v int, name string) bool { return c.set.ms[v].applies(name) }

// Events returns the events the simulations run so far processed.
func (c *Candidates) Events() int64 {
	var n int64
	for _, e := range c.set.events {
		n += e
	}
	return n
}
