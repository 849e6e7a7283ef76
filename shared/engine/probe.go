package engine

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"strings"
	"time"
)

// Defaults and bounds of a probe.
const (
	// DefaultProbeSettle is how long after the remedy a probe waits
	// before it judges whether the storm has ended.
	DefaultProbeSettle = Duration(10 * time.Second)
	// DefaultProbeMaxLoad is the largest load reduction a probe tries.
	DefaultProbeMaxLoad = 0.9
	// DefaultProbeBudgetWindow is the window of the ratio budget a probe
	// gives the strategy (Google SRE's per-client ratio over a short
	// window, as DefaultSearch's).
	DefaultProbeBudgetWindow = Duration(time.Second)
	// ProbeThreshold is the success rate, in the judged window, at or
	// above which a seed's storm has ended: recovery_s's 99%.
	ProbeThreshold = 0.99
	// probeUnits is the resolution of a load reduction and of a budget
	// ratio: one percentage point.
	probeUnits = 100
)

// A RemedyKind is a remedy a probe looks for.
type RemedyKind string

// Remedies.
const (
	// RemedyLoad removes a fraction of the workload's arrival rate from
	// the remedy's time on.
	RemedyLoad RemedyKind = "load"
	// RemedyCapacity adds workers to the dependency from the remedy's
	// time on.
	RemedyCapacity RemedyKind = "capacity"
	// RemedyBudget gives the strategy (its outermost level) a ratio retry
	// budget over DefaultProbeBudgetWindow, in place of its own, for the
	// whole run (a policy has no start time).
	RemedyBudget RemedyKind = "budget"
)

// RemedyKinds lists the remedies, in the order a probe reports them.
var RemedyKinds = []RemedyKind{RemedyLoad, RemedyCapacity, RemedyBudget}

// Outcomes of a remedy's probe.
const (
	ProbeFound         = "found"          // a bracket was found
	ProbeNotFound      = "not_found"      // the strongest remedy tried does not end the storm
	ProbeNotMetastable = "not_metastable" // the storm ends without any remedy
	ProbeNotApplicable = "not_applicable" // the remedy cannot be applied to this scenario
)

// ProbeOptions set a probe.
type ProbeOptions struct {
	// Strategy names the strategy probed; the first by default.
	Strategy string
	// At is when the load reduction and the capacity addition start. By
	// default, when the trigger ends: the scenario's report.recovery_from,
	// or the end of its last phase that harms the dependency (0 without
	// one).
	At *Duration
	// Settle is how long after At the judged window starts
	// (DefaultProbeSettle when 0).
	Settle Duration
	// Window is how long the judged window lasts. When 0 it lasts until
	// the first phase of the scenario's own that starts after its start
	// (a later fault or remedy, which the probe must not judge), or the
	// end of the arrivals.
	Window Duration
	// Dependency names the dependency that gets the workers; the first by
	// default.
	Dependency string
	// MaxLoad is the largest fraction of the arrival rate removed, in
	// (0, 0.99] (DefaultProbeMaxLoad when 0). MaxWorkers is the most workers
	// added (4 × the dependency's workers when 0).
	MaxLoad    float64
	MaxWorkers int
	// MaxEvents refuses, before anything runs, a probe whose estimated
	// cost (every simulation bisection can make) is above it; 0: no limit.
	MaxEvents int64
	// Parallelism is Options.Parallelism for each step's simulations (one
	// per seed); the result does not depend on it.
	Parallelism int
}

// A ProbeResult is what a metastability probe found.
//
// The criterion: the storm has ended on a seed when at least
// ProbeThreshold (99%, recovery_s's threshold) of the operations that
// start in the judged window [WindowFrom, WindowTo) succeed; a remedy
// ends the storm when it does so on every seed. The probe first runs
// the strategy without a remedy: if that ends the storm, the scenario is
// not metastable and no remedy is looked for. Otherwise, for each
// remedy, it runs the strongest it tries (not found when that does not
// end the storm either), then bisects between none and that one until
// the two are one step apart: one percentage point of load or of budget
// ratio, one worker. Bisection assumes that a stronger remedy never does
// worse; both ends of each bracket have run, so the bracket is a fact
// whatever the curve between them.
type ProbeResult struct {
	Scenario   string   `json:"scenario"`
	Strategy   string   `json:"strategy"`
	At         Duration `json:"at"`
	WindowFrom Duration `json:"window_from"`
	WindowTo   Duration `json:"window_to"`
	Seeds      int      `json:"seeds"`
	// Criterion says in words when the storm has ended.
	Criterion string `json:"criterion"`
	// Baseline is the success rate in the judged window without a
	// remedy, its lowest and highest over the seeds.
	Baseline   MinMax         `json:"baseline"`
	Metastable bool           `json:"metastable"`
	Remedies   []RemedyResult `json:"remedies"`
	// Simulations is how many runs of the strategy on one seed the probe
	// made, the baseline's included, and Events what they processed.
	Simulations int    `json:"simulations"`
	Events      int64  `json:"events"`
	Summary     string `json:"summary"`
}

// A RemedyResult is one remedy's bracket. With outcome "found", Enough
// ends the storm and NotEnough, one step weaker, does not: a fraction of
// the load removed, a number of workers added, or a budget's ratio (a
// smaller ratio is the stronger remedy). With "not_found", NotEnough is
// the strongest remedy tried.
type RemedyResult struct {
	Kind      RemedyKind `json:"kind"`
	Outcome   string     `json:"outcome"`
	Enough    float64    `json:"enough,omitempty"`
	NotEnough float64    `json:"not_enough,omitempty"`
	// Resolution is the step between remedies tried.
	Resolution float64 `json:"resolution"`
	// Simulations is how many runs on one seed this remedy's probe made.
	Simulations int `json:"simulations"`
	// Change says what the remedy changes in the scenario, as a user
	// would write it.
	Change string `json:"change,omitempty"`
	Text   string `json:"text"`
}

// A prober holds what a probe needs between its steps.
type prober struct {
	sc       *Scenario // the probed strategy alone, without sweep or search
	opt      ProbeOptions
	at       int64
	from, to Duration
	dep      int // index of the dependency that gets workers
	workers  int
	res      *ProbeResult
}

// Probe looks for the smallest remedy that ends the retry storm of a
// strategy of a metastable scenario: a load reduction, a capacity
// addition and a ratio retry budget, each by bisection (see
// ProbeResult). The scenario is validated, and the probe refused when
// every simulation it can make is estimated over opt.MaxEvents. The
// result is the same whatever opt.Parallelism.
func Probe(ctx context.Context, sc *Scenario, opt ProbeOptions) (*ProbeResult, error) {
	if err := sc.Validate(); err != nil {
		return nil, err
	}
	if sc.Sweep != nil {
		return nil, fmt.Errorf("the scenario sweeps %s; a probe runs a scenario without a sweep", sc.Sweep.Path)
	}
	si := 0
	if opt.Strategy != "" {
		si = slices.IndexFunc(sc.Strategies, func(st Strategy) bool { return st.Name == opt.Strategy })
		if si < 0 {
			return nil, fmt.Errorf("%q is not a strategy of the scenario", opt.Strategy)
		}
	}
	sub := *sc
	sub.Sweep, sub.Search = nil, nil
	sub.Strategies = []Strategy{sc.Strategies[si]}
	p := &prober{sc: &sub, opt: opt}
	if w := &sub.Workload; w.Arrival == ArrivalBurst {
		return nil, fmt.Errorf("the judged window is empty: the workload is a burst (arrival \"burst\"), %s at %s, so no operation starts after the trigger and there is nothing to judge whether a storm ends; a probe needs arrivals that go on after the trigger (poisson or uniform, over a duration)",
			countText(w.Clients, "its one operation starting", "all its %d operations starting"), w.BurstAt)
	}
	m := compile(&sub)
	p.at = m.faultEnd
	if opt.At != nil {
		p.at = int64(*opt.At)
	}
	if p.at < 0 {
		return nil, fmt.Errorf("at %s must be a non-negative duration within the scenario's duration, 0s..%s: the load reduction and the workers added start then",
			Duration(p.at), arrivalsEnd(&sub))
	}
	deps := estimateDeps(&sub)
	if opt.Dependency != "" {
		p.dep = slices.IndexFunc(deps, func(d *Dependency) bool { return d.Name == opt.Dependency })
		if p.dep < 0 {
			return nil, fmt.Errorf("%q is not a dependency of the scenario", opt.Dependency)
		}
	}
	p.workers = deps[p.dep].Workers
	if opt.MaxLoad == 0 {
		p.opt.MaxLoad = DefaultProbeMaxLoad
	}
	if p.opt.MaxLoad < 0 || p.opt.MaxLoad > 0.99 {
		return nil, fmt.Errorf("the largest load reduction %g is not in (0, 0.99]: a window without operations cannot be judged", opt.MaxLoad)
	}
	if opt.MaxWorkers == 0 {
		p.opt.MaxWorkers = 4 * p.workers
	}
	if p.opt.MaxWorkers < 1 {
		return nil, fmt.Errorf("the most workers added, %d, is not positive", opt.MaxWorkers)
	}
	if err := p.window(); err != nil {
		return nil, err
	}
	seeds := len(m.seeds)
	res := &ProbeResult{
		Scenario: sc.Name, Strategy: sub.Strategies[0].Name, At: Duration(p.at),
		WindowFrom: p.from, WindowTo: p.to, Seeds: seeds, Remedies: []RemedyResult{},
	}
	p.res = res
	res.Criterion = p.criterion()
	if err := p.checkCost(); err != nil {
		return nil, err
	}
	ok, base, err := p.ends(ctx, nil)
	if err != nil {
		return nil, err
	}
	res.Baseline = base
	if ok {
		for _, k := range RemedyKinds {
			res.Remedies = append(res.Remedies, RemedyResult{Kind: k, Outcome: ProbeNotMetastable, Resolution: p.resolution(k),
				Text: "not metastable: the storm ends without a remedy"})
		}
		res.Summary = fmt.Sprintf("Not metastable: without a remedy, %s already meets the criterion.", res.Strategy)
		return res, nil
	}
	res.Metastable = true
	var found, others []string
	for _, k := range RemedyKinds {
		r, err := p.bisect(ctx, k)
		if err != nil {
			return nil, err
		}
		res.Remedies = append(res.Remedies, r)
		if r.Outcome == ProbeFound {
			found = append(found, r.Text)
		} else {
			others = append(others, string(r.Kind)+": "+r.Text)
		}
	}
	if len(found) > 0 {
		res.Summary = fmt.Sprintf("Recovery of %s needs %s", res.Strategy, strings.Join(found, ", or "))
	} else {
		res.Summary = fmt.Sprintf("No remedy tried ends the storm of %s", res.Strategy)
	}
	if len(others) > 0 {
		res.Summary += "; " + strings.Join(others, "; ")
	}
	res.Summary += "."
	return res, nil
}

// criterion says in words when the storm has ended.
func (p *prober) criterion() string {
	return fmt.Sprintf("the storm has ended when at least %g%% of the operations started from %s to %s succeed, on %s, with the load reduction or the workers added from %s",
		ProbeThreshold*100, p.from, p.to, seedsText(p.res.Seeds), Duration(p.at))
}

// seedsText writes "each of n seeds", or "its one seed".
func seedsText(n int) string { return countText(n, "its one seed", "each of %d seeds") }

// countText writes one when n is 1, else many with n.
func countText(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return fmt.Sprintf(many, n)
}

// window sets the judged window.
func (p *prober) window() error {
	settle := cmp.Or(p.opt.Settle, DefaultProbeSettle)
	p.from = Duration(p.at) + settle
	end := arrivalsEnd(p.sc)
	if p.opt.Window > 0 {
		p.to = min(p.from+p.opt.Window, end)
	} else {
		p.to = end
		for _, d := range estimateDeps(p.sc) {
			for _, ph := range d.Phases {
				if ph.From > p.from {
					p.to = min(p.to, ph.From)
				}
			}
		}
	}
	if p.to <= p.from {
		return fmt.Errorf("the judged window is empty: it starts %s after the remedy, at %s, and the arrivals or the scenario's next phase end it at %s; give an earlier remedy time or a shorter settle",
			settle, p.from, p.to)
	}
	return nil
}

// arrivalsEnd returns when the workload stops starting operations, as far
// as a probe judges: its duration, or its last operation's start for a
// count of operations at a rate, or the burst.
func arrivalsEnd(sc *Scenario) Duration {
	w := &sc.Workload
	lo, _ := estimateSpan(sc)
	if w.Arrival == ArrivalBurst {
		return w.BurstAt + 1
	}
	if w.Duration > 0 {
		return w.Duration
	}
	return Duration(lo)
}

// resolution returns the step of remedy k, in its own unit.
func (p *prober) resolution(k RemedyKind) float64 {
	if k == RemedyCapacity {
		return 1
	}
	return 1.0 / probeUnits
}

// steps returns the strongest strength bisection tries for remedy k, in
// steps of its resolution.
func (p *prober) steps(k RemedyKind) int {
	switch k {
	case RemedyLoad:
		return int(math.Round(p.opt.MaxLoad * probeUnits))
	case RemedyCapacity:
		return p.opt.MaxWorkers
	}
	return probeUnits // ratios from 1 down to 0.01
}

// value returns remedy k's setting at strength s (1..steps): a fraction
// of the load, a number of workers, or a budget ratio.
func (p *prober) value(k RemedyKind, s int) float64 {
	switch k {
	case RemedyLoad:
		return float64(s) / probeUnits
	case RemedyCapacity:
		return float64(s)
	}
	return float64(probeUnits+1-s) / probeUnits
}

// runsFor returns the most simulations bisection of remedy k can make
// on one seed: the strongest, then halving the steps to it.
func runsFor(steps int) int {
	if steps <= 1 {
		return 1
	}
	return 1 + bits.Len(uint(steps-1)) // ⌈log2 steps⌉ halvings
}

// checkCost refuses a probe whose every possible simulation is
// estimated over the limit: the baseline and, for each remedy, the
// strongest and each bisection step, on every seed, each at the
// costliest of the remedied scenarios (the strongest capacity's, which
// adds phases).
func (p *prober) checkCost() error {
	if p.opt.MaxEvents <= 0 {
		return nil
	}
	runs := 1
	for _, k := range RemedyKinds {
		runs += runsFor(p.steps(k))
	}
	per := float64(estimate(p.sc, false))
	if sub, err := p.remedied(RemedyCapacity, p.steps(RemedyCapacity)); err == nil {
		per = max(per, float64(estimate(sub, false)))
	}
	est := int64(min(per*float64(runs), math.MaxInt64/2))
	if est > p.opt.MaxEvents {
		return &ProbeCostError{Runs: runs, Seeds: p.res.Seeds, CostError: CostError{Estimate: est, Limit: p.opt.MaxEvents}}
	}
	return nil
}

// A ProbeCostError refuses a probe whose every possible simulation is
// estimated over its event limit: Runs simulations on each of Seeds
// seeds. IsCost reports it.
type ProbeCostError struct {
	Runs, Seeds int
	CostError
}

func (e *ProbeCostError) Error() string {
	return fmt.Sprintf("a probe runs the strategy up to %d times on %s (the baseline, then bisection of each remedy), estimated at %s events in all (every simulation at the costliest remedy's estimate), over the limit of %s; reduce its cost: probe fewer seeds (runs), or raise the probe's event limit",
		e.Runs, seedsText(e.Seeds), humanCount(e.Estimate), humanCount(e.Limit))
}

func (e *ProbeCostError) Unwrap() error { return &e.CostError }

// bisect finds remedy k's bracket.
func (p *prober) bisect(ctx context.Context, k RemedyKind) (RemedyResult, error) {
	r := RemedyResult{Kind: k, Resolution: p.resolution(k)}
	before := p.res.Simulations
	hi := p.steps(k)
	if k == RemedyLoad && p.sc.Workload.Arrival != ArrivalPoisson && p.sc.Workload.Arrival != "" && p.sc.Workload.Arrival != ArrivalUniform {
		r.Outcome = ProbeNotApplicable
		r.Text = fmt.Sprintf("no load reduction (the probe reduces poisson and uniform arrivals only, not %s)", p.sc.Workload.Arrival)
		return r, nil
	}
	ok, _, err := p.ends(ctx, &remedy{k, hi})
	if err != nil {
		return r, err
	}
	r.Change = p.change(k, hi)
	if !ok {
		r.Outcome = ProbeNotFound
		r.NotEnough = p.value(k, hi)
		r.Text = fmt.Sprintf("not found in range (%s does not end it)", p.phrase(k, hi))
		r.Simulations = p.res.Simulations - before
		return r, nil
	}
	lo := 0 // no remedy: known not to end it
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		ok, _, err := p.ends(ctx, &remedy{k, mid})
		if err != nil {
			return r, err
		}
		if ok {
			hi = mid
		} else {
			lo = mid
		}
	}
	r.Outcome = ProbeFound
	r.Enough = p.value(k, hi)
	r.Change = p.change(k, hi)
	if lo > 0 {
		r.NotEnough = p.value(k, lo)
	}
	r.Simulations = p.res.Simulations - before
	switch k {
	case RemedyLoad:
		r.Text = fmt.Sprintf("%d%% less load (between %d%% and %d%%)", hi, lo, hi)
	case RemedyCapacity:
		r.Text = fmt.Sprintf("%d more workers (between %d and %d)", hi, lo, hi)
	default:
		if lo == 0 {
			// hi is 1: the weakest budget tried ends the storm, and so
			// (bisection assumes) does any stronger one.
			r.Text = fmt.Sprintf("any retry budget up to %d%% (the weakest tried ends it)", probeUnits+1-hi)
		} else {
			r.Text = fmt.Sprintf("a %d%% retry budget (between %d%% and %d%%)", probeUnits+1-hi, probeUnits+1-hi, probeUnits+1-lo)
		}
	}
	return r, nil
}

// phrase writes remedy k at strength s.
func (p *prober) phrase(k RemedyKind, s int) string {
	switch k {
	case RemedyLoad:
		return fmt.Sprintf("%d%% less load", s)
	case RemedyCapacity:
		return fmt.Sprintf("%d more workers", s)
	}
	return fmt.Sprintf("a %d%% retry budget", probeUnits+1-s)
}

// change says what remedy k at strength s changes in the scenario.
func (p *prober) change(k RemedyKind, s int) string {
	switch k {
	case RemedyLoad:
		return fmt.Sprintf("the arrival rate times %g from %s on", float64(probeUnits-s)/probeUnits, Duration(p.at))
	case RemedyCapacity:
		return fmt.Sprintf("%d workers more from %s on (a capacity phase from then, and %d more in each later capacity phase)", s, Duration(p.at), s)
	}
	return fmt.Sprintf(`budget {"kind":"ratio","ratio":%g,"window":%q} for strategy %q`, p.value(k, s), DefaultProbeBudgetWindow.String(), p.sc.Strategies[0].Name)
}

// A remedy is one remedy at one strength.
type remedy struct {
	kind     RemedyKind
	strength int
}

// remedied returns the scenario with remedy k at strength s for the
// capacity and the budget; the load reduction is a model's (see model).
func (p *prober) remedied(k RemedyKind, s int) (*Scenario, error) {
	sub := *p.sc
	switch k {
	case RemedyCapacity:
		deps := slices.Clone(sub.Dependencies)
		d := &sub.Dependency
		if len(deps) > 0 {
			d = &deps[p.dep]
			sub.Dependencies = deps
		}
		d.Phases = addWorkers(d.Phases, d.Workers, s, Duration(p.at), p.horizon())
	case RemedyBudget:
		st := sub.Strategies[0]
		st.Budget = &Budget{Kind: BudgetRatio, Ratio: p.value(k, s), Window: DefaultProbeBudgetWindow}
		sub.Strategies = []Strategy{st}
	}
	return &sub, nil
}

// horizon returns a time after any simulation of the scenario ends.
func (p *prober) horizon() Duration {
	_, hi := estimateSpan(p.sc)
	h := Duration(math.Min(hi, float64(365*24*time.Hour))) + Duration(time.Hour)
	for _, d := range estimateDeps(p.sc) {
		for _, ph := range d.Phases {
			h = max(h, ph.To+Duration(time.Hour))
		}
	}
	return h / Duration(time.Second) * Duration(time.Second) // whole seconds
}

// addWorkers returns phases with add workers more from at until horizon:
// capacity phases before at are kept, one that spans at is split there,
// later ones get add more workers, and the gaps from at on get capacity
// phases of workers + add. Phases of other kinds are kept as they are.
func addWorkers(phases []Phase, workers, add int, at, horizon Duration) []Phase {
	var out, caps []Phase
	for _, ph := range phases {
		if ph.Kind == PhaseCapacity {
			caps = append(caps, ph)
		} else {
			out = append(out, ph)
		}
	}
	slices.SortFunc(caps, func(a, b Phase) int { return cmp.Compare(a.From, b.From) })
	t := at // the remedy covers [at, horizon) from t on
	for _, ph := range caps {
		if ph.To <= at {
			out = append(out, ph)
			continue
		}
		if ph.From < at {
			before := ph
			before.To = at
			out = append(out, before)
			ph.From = at
		}
		if ph.From > t {
			out = append(out, Phase{Kind: PhaseCapacity, From: t, To: ph.From, Workers: workers + add, Label: "probe: workers added"})
		}
		ph.Workers += add
		out = append(out, ph)
		t = ph.To
	}
	if t < horizon {
		out = append(out, Phase{Kind: PhaseCapacity, From: t, To: horizon, Workers: workers + add, Label: "probe: workers added"})
	}
	return out
}

// ends runs the strategy with rm (none when nil) on every seed and
// reports whether the storm ended on each, and the spread of the judged
// window's success rate over the seeds.
func (p *prober) ends(ctx context.Context, rm *remedy) (bool, MinMax, error) {
	sub := p.sc
	if rm != nil && rm.kind != RemedyLoad {
		var err error
		if sub, err = p.remedied(rm.kind, rm.strength); err != nil {
			return false, MinMax{}, err
		}
	}
	judged := *sub
	from, to := p.from, p.to
	judged.Report.AffectedFrom, judged.Report.AffectedTo = &from, &to
	m := compile(&judged)
	if rm != nil && rm.kind == RemedyLoad {
		m.work.cut, m.work.cutAt, m.work.cutRate = true, p.at, m.work.rate*float64(probeUnits-rm.strength)/probeUnits
	}
	set := newSimSet([]*model{m})
	opt := Options{MaxEvents: p.opt.MaxEvents, NoSeries: true, Parallelism: p.opt.Parallelism}
	if err := set.run(ctx, nil, opt, &progress{total: set.len()}, false); err != nil {
		return false, MinMax{}, err
	}
	p.res.Simulations += set.len()
	ok := true
	mm := MinMax{Min: math.Inf(1), Max: math.Inf(-1)}
	for ri := range m.seeds {
		out := &set.outs[0][0][ri]
		x := out.metrics.AffectedSuccessRate
		p.res.Events += set.events[ri]
		// A window without operations cannot be judged: not ended.
		ok = ok && out.metrics.AffectedOperations > 0 && x >= ProbeThreshold
		mm.Min, mm.Max = min(mm.Min, x), max(mm.Max, x)
	}
	return ok, mm, nil
}
