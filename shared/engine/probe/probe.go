package probe

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"strings"
	"time"

	"github.com/retrylab/retrylab/shared/engine"
)

// Defaults and bounds of a probe.
const (
	// DefaultSettle is how long after the remedy a probe waits
	// before it judges whether the storm has ended.
	DefaultSettle = engine.Duration(10 * time.Second)
	// DefaultMaxLoad is the largest load reduction a probe tries.
	DefaultMaxLoad = 0.9
	// DefaultBudgetWindow is the window of the ratio budget a probe
	// gives the strategy (Google SRE's per-client ratio over a short
	// window, as DefaultSearch's).
	DefaultBudgetWindow = engine.Duration(time.Second)
	// SuccessTolerance is how far below the strategy's own healthy
	// success rate (the counterfactual's, on the same seed) the judged
	// window's may be and still count as back: one percentage point of
	// its operations, the share of failures the probe's earlier absolute
	// criterion (99%) allowed a healthy run.
	SuccessTolerance = 0.01
	// LoadTolerance is how far above the strategy's own healthy
	// amplification (calls reaching the dependency per operation, the
	// counterfactual's on the same seed) the judged window's may be and
	// still count as back: 10% more calls, the extra load a retry budget
	// of Google SRE's 10% of requests allows.
	LoadTolerance = 0.10
	// segmentsPerQuarter is the most segments each quarter of the
	// span judged for persistence is counted in: of 1 s each, or longer
	// in a span of more than 10 minutes.
	segmentsPerQuarter = 150
	// units is the resolution of a load reduction and of a budget
	// ratio: one percentage point.
	units = 100
	// never is a time after every other.
	never = math.MaxInt64
)

// A Finding is what a probe found of the strategy's state after the
// trigger, without a remedy (see Result).
type Finding string

// Findings.
const (
	// FindingMetastable: in a storm after the trigger, and still in it in
	// the last quarter of the span judged, at unchanged load, not closing
	// fast enough to be back within one more window's length (Huang et
	// al., OSDI 2022: the bad state outlives its trigger). Remedies are
	// looked for.
	FindingMetastable Finding = "metastable"
	// FindingRecovering: slow to recover but recovering: in a bad state
	// after the trigger that ends by itself at unchanged load, within
	// the span judged (Result.Back) or, narrowing quarter after
	// quarter at the pace of its last two, within one more window's
	// length (BackProjected). No remedy is looked for: there is no storm
	// for one to end.
	FindingRecovering Finding = "recovering"
	// FindingUnstable: unstable without a trigger: the scenario has no
	// trigger and the strategy is in the bad state at its nominal load
	// all the same, to the end of the span judged: its operating point
	// is overloaded. Remedies are
	// looked for, as changes of the load or the capacity, not as the end
	// of a storm.
	FindingUnstable Finding = "unstable"
	// FindingHealthy: not in a storm: the judged window is back within
	// the criterion (its success, or its load, is its healthy self's),
	// and its success is not worse at first and back later (that is
	// FindingRecovering).
	FindingHealthy Finding = "healthy"
)

// Findings lists the findings.
var Findings = []Finding{FindingMetastable, FindingRecovering, FindingUnstable, FindingHealthy}

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
	// RemedyBudget gives every level of the strategy that retries (its
	// own policy and each layer with more than one attempt or hedging) a
	// ratio retry budget over DefaultBudgetWindow, in place of its
	// own, for the whole run (a policy has no start time). A budget at
	// the outermost level alone cannot limit the retries of the levels
	// below it, which multiply (failover-incident).
	RemedyBudget RemedyKind = "budget"
	// RemedyOneLevel keeps the retries of one level of a layered strategy
	// and gives every other level one attempt (no retry, no hedging), for
	// the whole run: "retry at one layer only" (Google SRE, "Handling
	// Overload"). The probe tries each level that retries, the innermost
	// first, and reports the innermost that ends the storm: its Enough is
	// that level, 0 for the strategy's own policy and i+1 for Layers[i].
	// It applies to a strategy with two levels or more that retry.
	RemedyOneLevel RemedyKind = "one_level"
)

// RemedyKinds lists the remedies, in the order a probe reports them.
var RemedyKinds = []RemedyKind{RemedyLoad, RemedyCapacity, RemedyBudget, RemedyOneLevel}

// Outcomes of a remedy's probe.
const (
	Found         = "found"          // a bracket was found
	NotFound      = "not_found"      // the strongest remedy tried does not end the storm
	NoStorm       = "no_storm"       // the strategy is not in a storm: no remedy is looked for
	NotApplicable = "not_applicable" // the remedy cannot be applied to this scenario or strategy
)

// Options set a probe.
type Options struct {
	// Strategy names the strategy probed; the first by default.
	Strategy string
	// At is when the load reduction and the capacity addition start. By
	// default, when the trigger ends: the scenario's report.recovery_from,
	// or the end of its last phase that harms the dependency (0 without
	// one). At inside the trigger is refused; at or before its start the
	// remedies prevent a storm rather than end it (Result.Prevents).
	At *engine.Duration
	// Settle is how long after At the judged window starts
	// (DefaultSettle when 0).
	Settle engine.Duration
	// Window is how long the judged window lasts. When 0 it lasts until
	// the first phase of the scenario's own that starts after its start
	// (a later fault or remedy, which the probe must not judge), or the
	// end of the arrivals.
	Window engine.Duration
	// Dependency names the dependency that gets the workers; the first by
	// default.
	Dependency string
	// MaxLoad is the largest fraction of the arrival rate removed, in
	// (0, 0.99] (DefaultMaxLoad when 0). MaxWorkers is the most workers
	// added (4 × the dependency's workers when 0).
	MaxLoad    float64
	MaxWorkers int
	// MaxEvents refuses, before anything runs, a probe whose estimated
	// cost (every simulation bisection can make) is above it; 0: no limit.
	MaxEvents int64
	// Parallelism is Options.Parallelism for each step's simulations (one
	// per seed); the result does not depend on it.
	Parallelism int
	// RunBatch, when set, runs each step's simulations as
	// Options.RunBatch runs a search's: the result is the same, byte for
	// byte.
	RunBatch func(ctx context.Context, b *engine.Batch, put func(*engine.Part) error) error
	// Progress, when set, is called as the probe goes: done simulations
	// (one strategy on one seed) of at most total, the most it can still
	// make, which falls as bisection narrows and as remedies are decided.
	// done reaches total when the probe ends. It is called on the
	// probe's goroutine.
	Progress func(done, total int)
}

// A Result is what a metastability probe found.
//
// The criterion compares the strategy with itself. A metastable failure
// is a bad state that outlives its trigger because a sustaining effect,
// typically work amplification such as retries, keeps the system
// overloaded (Bronson et al., "Metastable Failures in Distributed
// Systems", HotOS 2021; Huang et al., "Metastable Failures in the Wild",
// OSDI 2022): low goodput with amplified load. So the probe first runs
// the strategy's healthy counterfactual, on the same seeds (the same
// arrivals and draws: common random numbers): the scenario without its
// trigger (every dependency phase that harms it removed, those of every
// kind but capacity added and faster service) and without the retries'
// feedback on load-dependent errors (load_errors count the first
// attempts only, so the dependency fails as often as its own curve
// gives at the load the operations offer, whatever the retries add).
// In the judged window [WindowFrom, WindowTo), a seed is in a storm when
// both symptoms are there against that seed's counterfactual: the
// operations that start in it succeed less, by more than
// SuccessTolerance (one percentage point), and they load the
// dependency more: more calls reach it per operation (amplification),
// by more than LoadTolerance (10%), or more of them are failed fast
// by the client's own protection (an open breaker, a budget refusing
// the retry, the pool or a bulkhead), by more than SuccessTolerance
// of the operations. A fast-failed operation makes no call, so without
// that count a strategy whose breakers fail most operations would look
// less loaded than its healthy self; it is a failure the overload
// causes, not health. The storm has ended on a seed when either symptom
// is back within its tolerance: a success rate as healthy, or the load
// of a healthy run, whose remaining failures are then the dependency's
// own or the remedy's price, not a storm's. A remedy ends the storm when
// it does so on every seed.
//
// Then the finding (Finding): whether the bad state outlives its
// trigger. It is judged over the operations that start early enough in
// the judged window to live their longest (every attempt timing out
// after the longest waits, or the deadline) before it ends, at the
// scenario's own load: [WindowFrom, SpanTo). Later ones' last attempts
// meet the drain after the arrivals stop, or the next phase, and prove
// nothing about recovery. That span is counted in quarters (Quarters),
// each of whole segments (Segment, 1 s, longer in a span of more than
// 10 minutes). Without a storm over the whole window, the strategy is
// healthy, unless its success is below its healthy self's at first and
// back later: then, as nothing sustains it (its load is its healthy
// one), it is recovering, back from the earliest segment from which
// every run of a quarter's segments, to the span's end, succeeds as
// healthy on every seed (Back). In a storm over the whole window, the
// strategy is recovering when, by the same rule on the storm's
// criterion, it is back from some segment (Back), or when, on every seed
// still in a storm in the last quarter, its success gap to healthy
// narrows quarter after quarter at a pace (the third quarter's to the
// last's) that, carried on in a straight line, closes it no later than
// one more window's length after the window's end (Back, BackProjected:
// a projection, not seen in the run). Otherwise the bad state persists
// to the span's end at unchanged load: metastable when the scenario has
// a trigger it outlives, unstable when it has none (its operating point
// itself is overloaded: there is no trigger to outlive). The span, the
// segments, the quarters and the straight line are assumptions of the
// probe, not fitted to a built-in.
//
// The probe looks for remedies for a metastable or unstable strategy
// only (a healthy or recovering one is not in a storm a remedy could
// end; NoStorm's text says why). For each remedy it runs the strongest
// it tries (not found when that does not end the storm either), then
// bisects between none and that one until the two are one step apart:
// one percentage point of load or of budget ratio, one worker.
// Bisection assumes that a stronger remedy never does worse; both ends
// of each bracket have run, so the bracket is a fact whatever the curve
// between them. A retry budget is not tried on a strategy that never
// retries (one attempt at every level, no hedging).
//
// The load reduction and the workers added start at At and stay: from
// the trigger's end (the default) they end a storm; from before the
// trigger starts, or from 0 without a trigger, they keep one from
// forming (Prevents), which the texts say. At inside the trigger is
// refused: remedies from then would both shape the storm and end it.
type Result struct {
	Scenario   string          `json:"scenario"`
	Strategy   string          `json:"strategy"`
	At         engine.Duration `json:"at"`
	WindowFrom engine.Duration `json:"window_from"`
	WindowTo   engine.Duration `json:"window_to"`
	Seeds      int             `json:"seeds"`
	// Prevents is set when the load reduction and the workers start
	// before the trigger does, or at 0 in a scenario without one: they
	// keep a storm from forming rather than end one.
	Prevents bool `json:"prevents,omitempty"`
	// Criterion says in words when the storm has ended.
	Criterion string `json:"criterion"`
	// Healthy is how the judged window goes in the counterfactual: the
	// strategy's own healthy baseline.
	Healthy WindowStats `json:"healthy"`
	// Baseline is the success rate in the judged window without a
	// remedy, its lowest and highest over the seeds, and
	// BaselineAmplification the amplification there.
	Baseline              engine.MinMax `json:"baseline"`
	BaselineAmplification engine.MinMax `json:"baseline_amplification"`
	// BaselineFastFailed is the share of the judged window's operations
	// failed fast without a remedy (Healthy.FastFailed: healthy).
	BaselineFastFailed engine.MinMax `json:"baseline_fast_failed"`
	// Finding says whether the bad state outlives the trigger (see
	// above), and Persistence says it in words, with the figures it
	// rests on.
	Finding     Finding `json:"finding"`
	Persistence string  `json:"persistence"`
	// Metastable is Finding == FindingMetastable: in a storm that
	// outlives its trigger at unchanged load. (It is not set for every
	// strategy the probe looks for remedies for: an unstable one gets
	// remedies, but is not metastable.)
	Metastable bool `json:"metastable"`
	// Back is when a recovering strategy is back (the start of the
	// segment it is back from), and BackProjected says that it is not
	// back within the judged window but closing at a pace that brings it
	// back then: a projection.
	Back          *engine.Duration `json:"back,omitempty"`
	BackProjected bool             `json:"back_projected,omitempty"`
	// SpanTo ends the span of the judged window that persistence is
	// judged over, [WindowFrom, SpanTo): the operations that can live
	// their longest (every attempt timing out, the longest waits) before
	// WindowTo; WindowTo itself when none can, or the strategy does not
	// bound how long an operation lasts. Segment is the width of the segments it is counted in,
	// and Quarters how each quarter of it went without a remedy.
	SpanTo   engine.Duration `json:"span_to"`
	Segment  engine.Duration `json:"segment"`
	Quarters []WindowStats   `json:"quarters"`
	// NoStorm says why the strategy is not in a storm, when it is
	// healthy or recovering.
	NoStorm string `json:"no_storm,omitempty"`
	// Remedies are the remedies' findings in the order of RemedyKinds;
	// retrying at one level only is listed for a layered strategy only.
	Remedies []RemedyResult `json:"remedies"`
	// Simulations is how many runs of the strategy on one seed the probe
	// made, the counterfactual's and the baseline's included, and Events
	// what they processed.
	Simulations int    `json:"simulations"`
	Events      int64  `json:"events"`
	Summary     string `json:"summary"`
}

// WindowStats are how the operations that start in the judged window
// went: their success rate and their amplification (calls reaching the
// dependency per operation, and per call of the plan with several) and
// the share of them failed fast, each its lowest and highest over the
// seeds.
type WindowStats struct {
	Success       engine.MinMax `json:"success"`
	Amplification engine.MinMax `json:"amplification"`
	// FastFailed is the share of the operations failed fast: by an open
	// breaker, a budget refusing their retry, the pool or a bulkhead.
	FastFailed engine.MinMax `json:"fast_failed"`
}

// A RemedyResult is one remedy's bracket. With outcome "found", Enough
// ends the storm and NotEnough, one step weaker, does not: a fraction of
// the load removed, a number of workers added, or a budget's ratio (a
// smaller ratio is the stronger remedy). With "not_found", NotEnough is
// the strongest remedy tried. Judged is how the judged window went with
// Enough (found) or with the strongest tried (not found).
type RemedyResult struct {
	Kind      RemedyKind `json:"kind"`
	Outcome   string     `json:"outcome"`
	Enough    float64    `json:"enough,omitempty"`
	NotEnough float64    `json:"not_enough,omitempty"`
	// Resolution is the step between remedies tried.
	Resolution float64 `json:"resolution"`
	// Simulations is how many runs on one seed this remedy's probe made.
	Simulations int          `json:"simulations"`
	Judged      *WindowStats `json:"judged,omitempty"`
	// Change says what the remedy changes in the scenario, as a user
	// would write it.
	Change string `json:"change,omitempty"`
	Text   string `json:"text"`
}

// A prober holds what a probe needs between its steps.
type prober struct {
	sc       *engine.Scenario // the probed strategy alone, without sweep or search
	opt      Options
	at       int64
	from, to engine.Duration
	dep      int // index of the dependency that gets workers
	workers  int
	healthy  []windowStat    // the counterfactual's, per seed
	end      int64           // when the trigger ends (model.faultEnd)
	trig     bool            // whether the scenario has a trigger
	trigFrom engine.Duration // when it starts
	seg      int64           // the width of the judged window's segments
	quarter  int             // segments in each quarter of the span judged for persistence
	span     int             // segments in that span, [from, spanTo)
	spanTo   engine.Duration // its end (see segments)
	life     engine.Duration // the longest an operation can last (lifetime), 0 when unbounded
	perOp    float64         // the calls an operation makes, on average (engine.CallsPerOperation)
	res      *Result
	// left is how many steps (simulations on every seed) the probe may
	// still make: the counterfactual's and the baseline's, then each
	// remedy's bisection's; for Progress.
	left struct {
		base   int
		remedy []int
	}
}

// progress tells Options.Progress how far the probe has got.
func (p *prober) progress() {
	if p.opt.Progress == nil {
		return
	}
	steps := p.left.base
	for _, n := range p.left.remedy {
		steps += n
	}
	p.opt.Progress(p.res.Simulations, p.res.Simulations+steps*p.res.Seeds)
}

// A windowStat is how the judged window, or a part of it, went on one
// seed.
type windowStat struct {
	ops, calls float64 // operations started in it, calls they made reach the dependency
	success    float64
	amp        float64
	fast       float64     // the share of its operations failed fast
	segs       []segCounts // the judged window's, segment by segment
}

// stat returns how segments segs of a seed's judged window went; a part
// without operations succeeds (as affected_success_rate does).
func (p *prober) stat(segs []segCounts) windowStat {
	var t segCounts
	for _, g := range segs {
		t.ops, t.ok, t.fast, t.calls = t.ops+g.ops, t.ok+g.ok, t.fast+g.fast, t.calls+g.calls
	}
	w := windowStat{ops: float64(t.ops), calls: float64(t.calls), success: 1, segs: segs}
	if t.ops > 0 {
		w.success = float64(t.ok) / w.ops
		w.amp = w.calls / (w.ops * p.perOp)
		w.fast = float64(t.fast) / w.ops
	}
	return w
}

// part returns how segments [i, j) of the judged window went on the
// seed w is of.
func (p *prober) part(w windowStat, i, j int) windowStat {
	return p.stat(w.segs[min(i, len(w.segs)):min(j, len(w.segs))])
}

// ended reports whether w, on a seed whose counterfactual went as h, is
// out of a storm: its success or its load is back within its tolerance
// of h's. A window without operations cannot be judged: not ended.
func ended(w, h windowStat) bool {
	return w.ops > 0 && (succeeds(w, h) || loadBack(w, h))
}

// succeeds reports whether w succeeds within SuccessTolerance of h.
func succeeds(w, h windowStat) bool {
	return w.ops > 0 && w.success >= h.success-SuccessTolerance
}

// loadBack reports whether w's load on the dependency is back within its
// tolerance of h's: its amplification within LoadTolerance, and
// its share of operations failed fast within SuccessTolerance (a
// fast-failed operation makes no call: counted, it cannot pass for less
// load).
func loadBack(w, h windowStat) bool {
	return w.amp <= h.amp*(1+LoadTolerance) && w.fast <= h.fast+SuccessTolerance
}

// Run looks for the smallest remedy that ends the retry storm of a
// strategy of a metastable scenario: a load reduction, a capacity
// addition and a ratio retry budget, each by bisection. The storm is
// judged against the strategy's own healthy counterfactual (see
// Result). The scenario is validated, and the probe refused when
// every simulation it can make is estimated over opt.MaxEvents, or when
// opt.At is inside the trigger. The result is the same whatever
// opt.Parallelism.
func Run(ctx context.Context, sc *engine.Scenario, opt Options) (*Result, error) {
	p, err := newProber(sc, opt)
	if err != nil {
		return nil, err
	}
	trigFrom, hasTrigger := p.trigFrom, p.trig
	res := p.res
	res.Criterion = p.criterion(trigFrom, hasTrigger)
	if err := p.checkCost(); err != nil {
		return nil, err
	}
	p.left.base = 2
	for _, k := range RemedyKinds {
		p.left.remedy = append(p.left.remedy, p.runs(k))
	}
	p.progress()
	healthy, err := p.simulate(ctx, true, nil)
	if err != nil {
		return nil, err
	}
	p.left.base--
	p.progress()
	p.healthy = healthy
	res.Healthy = stats(healthy)
	ws, err := p.window1(ctx, nil)
	if err != nil {
		return nil, err
	}
	base := stats(ws)
	res.Baseline, res.BaselineAmplification, res.BaselineFastFailed = base.Success, base.Amplification, base.FastFailed
	p.left.base--
	p.judge(ws, hasTrigger)
	if res.Finding == FindingHealthy || res.Finding == FindingRecovering {
		clear(p.left.remedy)
		p.progress()
		res.NoStorm = res.Persistence
		why := "not tried: not in a storm"
		if res.Finding == FindingRecovering {
			why = "not tried: it recovers by itself, so there is no storm for a remedy to end"
		}
		for _, k := range RemedyKinds {
			if p.unlayered(k) {
				continue
			}
			r := RemedyResult{Kind: k, Outcome: NoStorm, Resolution: p.resolution(k), Text: why}
			if why := p.notApplicable(k); why != "" {
				r.Outcome, r.Text = NotApplicable, why
			}
			res.Remedies = append(res.Remedies, r)
		}
		res.Summary = fmt.Sprintf("%s is %s.", res.Strategy, res.NoStorm)
		return res, nil
	}
	return p.remedies(ctx)
}

// newProber checks the scenario and the options of a probe and sets up
// its prober, as far as its first simulation: its result has the
// scenario, strategy, judged window and seeds.
func newProber(sc *engine.Scenario, opt Options) (*prober, error) {
	if err := sc.Validate(); err != nil {
		return nil, err
	}
	if sc.Sweep != nil {
		return nil, fmt.Errorf("the scenario sweeps %s; a probe runs a scenario without a sweep", sc.Sweep.Path)
	}
	si := 0
	if opt.Strategy != "" {
		si = slices.IndexFunc(sc.Strategies, func(st engine.Strategy) bool { return st.Name == opt.Strategy })
		if si < 0 {
			return nil, fmt.Errorf("%q is not a strategy of the scenario", opt.Strategy)
		}
	}
	sub := *sc
	sub.Sweep, sub.Search = nil, nil
	sub.Strategies = []engine.Strategy{sc.Strategies[si]}
	p := &prober{sc: &sub, opt: opt}
	if w := &sub.Workload; w.Arrival == engine.ArrivalBurst {
		return nil, fmt.Errorf("the judged window is empty: the workload is a burst (arrival \"burst\"), %s at %s, so no operation starts after the trigger and there is nothing to judge whether a storm ends; a probe needs arrivals that go on after the trigger (poisson or uniform, over a duration)",
			countText(w.Clients, "its one operation starting", "all its %d operations starting"), w.BurstAt)
	}
	end := engine.FaultEnd(&sub)
	p.at, p.end = int64(end), int64(end)
	if opt.At != nil {
		p.at = int64(*opt.At)
	}
	if p.at < 0 {
		return nil, fmt.Errorf("at %s must be a non-negative duration within the scenario's duration, 0s..%s: the load reduction and the workers added start then",
			engine.Duration(p.at), arrivalsEnd(&sub))
	}
	trigFrom, trigTo, hasTrigger := trigger(&sub, end)
	p.trig = hasTrigger
	if hasTrigger && engine.Duration(p.at) > trigFrom && engine.Duration(p.at) < trigTo {
		return nil, fmt.Errorf("at %s is inside the trigger (%s to %s): the load reduction and the workers added stay from then on, so from inside the trigger they would both change the storm it starts and end it; give at %s or earlier to see whether they prevent the storm, or %s or later to see whether they end it",
			engine.Duration(p.at), trigFrom, trigTo, trigFrom, trigTo)
	}
	ds := deps(&sub)
	if opt.Dependency != "" {
		p.dep = slices.IndexFunc(ds, func(d *engine.Dependency) bool { return d.Name == opt.Dependency })
		if p.dep < 0 {
			return nil, fmt.Errorf("%q is not a dependency of the scenario", opt.Dependency)
		}
	}
	p.workers = ds[p.dep].Workers
	if opt.MaxLoad == 0 {
		p.opt.MaxLoad = DefaultMaxLoad
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
	seeds, _, err := engine.Simulations(&sub) // one strategy: a simulation a seed
	if err != nil {
		return nil, err
	}
	p.perOp = engine.CallsPerOperation(&sub)
	res := &Result{
		Scenario: sc.Name, Strategy: sub.Strategies[0].Name, At: engine.Duration(p.at),
		WindowFrom: p.from, WindowTo: p.to, Seeds: seeds, Remedies: []RemedyResult{},
		Prevents: hasTrigger && p.at <= int64(trigFrom) || !hasTrigger && p.at == 0,
	}
	p.res = res
	p.trigFrom = trigFrom
	return p, nil
}

// remedies looks for each remedy of a strategy in a storm, and sums up
// what the probe found.
func (p *prober) remedies(ctx context.Context) (*Result, error) {
	res := p.res
	res.Metastable = res.Finding == FindingMetastable
	p.progress()
	var found, others []string
	for i, k := range RemedyKinds {
		if p.unlayered(k) {
			continue
		}
		r, err := p.bisect(ctx, k, &p.left.remedy[i])
		if err != nil {
			return nil, err
		}
		p.left.remedy[i] = 0
		p.progress()
		res.Remedies = append(res.Remedies, r)
		if r.Outcome == Found {
			found = append(found, r.Text)
		} else {
			others = append(others, string(r.Kind)+": "+r.Text)
		}
	}
	verb, none := "Ending its storm needs %s", "No remedy tried ends its storm"
	switch {
	case res.Finding == FindingUnstable && res.Prevents:
		verb, none = "Keeping it out of overload needs %s (changes of the load it offers or of the capacity it meets, not the end of a storm)", "No remedy tried keeps it out of overload"
	case res.Finding == FindingUnstable:
		verb, none = "Bringing it out of overload from "+engine.Duration(p.at).String()+" on needs %s (changes of the load it offers or of the capacity it meets, not the end of a storm)", "No remedy tried brings it out of overload"
	case res.Prevents:
		verb, none = "Keeping it out of the storm needs %s", "No remedy tried keeps it out of the storm"
	}
	res.Summary = fmt.Sprintf("%s is %s. ", res.Strategy, res.Persistence)
	if len(found) > 0 {
		res.Summary += fmt.Sprintf(verb, strings.Join(found, ", or "))
	} else {
		res.Summary += none
	}
	if len(others) > 0 {
		res.Summary += "; " + strings.Join(others, "; ")
	}
	res.Summary += "."
	return res, nil
}

// judge sets the finding of the strategy that went as ws without a
// remedy on each seed (see Result): its Finding, Persistence, Back
// and Quarters.
func (p *prober) judge(ws []windowStat, hasTrigger bool) {
	res := p.res
	res.Segment, res.SpanTo = engine.Duration(p.seg), p.spanTo
	quarters := make([][]windowStat, 4)
	for q := range quarters {
		for _, w := range ws {
			quarters[q] = append(quarters[q], p.quarterOf(w, q))
		}
		res.Quarters = append(res.Quarters, stats(quarters[q]))
	}
	if p.allEnded(ws) {
		res.Finding = FindingHealthy
		if back, ok := p.backFrom(ws, succeeds); ok && back > p.from {
			// Worse at first, at its healthy load: nothing sustains it.
			res.Finding, res.Back = FindingRecovering, &back
		}
		res.Persistence = p.noStorm(ws)
		return
	}
	if back, ok := p.backFrom(ws, ended); ok {
		res.Finding, res.Back = FindingRecovering, &back
		res.Persistence = fmt.Sprintf("slow to recover but recovering: in a storm %s (%s; healthy %s), it is back by itself from %s on, at unchanged load (in the span's last quarter, %s; healthy %s)%s",
			p.after(hasTrigger), p.quarterText(0), p.quarterHealthy(0), back, p.quarterText(3), p.quarterHealthy(3), p.sinceTrigger(back))
		return
	}
	if back, ok := p.projected(ws); ok {
		res.Finding, res.Back, res.BackProjected = FindingRecovering, &back, true
		res.Persistence = fmt.Sprintf("slow to recover but recovering: still in a storm at the window's end, %s, at unchanged load, but closing: its success rises from %s in the third quarter to %s in the last (healthy %s), a pace that, carried on in a straight line, brings it back around %s (a projection, not seen in the run)",
			p.to, SuccessRange(res.Quarters[2].Success), SuccessRange(res.Quarters[3].Success), SuccessRange(p.healthyQuarter(3).Success), back)
		return
	}
	last := fmt.Sprintf("%s; in the last, %s, healthy %s%s", p.byQuarter(), p.quarterText(3), p.quarterHealthy(3), p.shut())
	if !hasTrigger {
		res.Finding = FindingUnstable
		res.Persistence = "unstable without a trigger: the scenario has no trigger for a bad state to outlive, yet at its nominal load the strategy is in the bad state all the same, its operating point itself overloaded: " + last
		return
	}
	res.Finding = FindingMetastable
	res.Persistence = fmt.Sprintf("metastable: the bad state outlives its trigger, which ended at %s, at unchanged load, and is not closing fast enough to be back within one more window's length: %s",
		engine.Duration(p.end), last)
}

// backFrom returns when every seed of ws is back by test (against its
// counterfactual over the same operations): the start of the earliest
// segment from which every run of a quarter's segments, to the span's
// end, passes it on every seed; false when the last quarter's does not
// on some seed. Runs of a quarter, not the rest of the span: over the
// rest, a short bad spell would pass diluted in the good that follows.
func (p *prober) backFrom(ws []windowStat, test func(w, h windowStat) bool) (engine.Duration, bool) {
	first := 0
	for i, w := range ws {
		h, n := p.healthy[i], min(p.span, len(w.segs))
		j := max(n-p.quarter, 0)
		if n == 0 || !test(p.part(w, j, n), p.part(h, j, n)) {
			return 0, false
		}
		for j > 0 && test(p.part(w, j-1, j-1+p.quarter), p.part(h, j-1, j-1+p.quarter)) {
			j--
		}
		first = max(first, j)
	}
	return p.from + engine.Duration(int64(first)*p.seg), true
}

// projected returns when, at the pace of the success gap's closing from
// the third quarter to the last, every seed still in a storm in the last
// quarter would be back within SuccessTolerance of its healthy
// success; false when on one the gap does not narrow quarter after
// quarter (a storm that swings, as breakers opening and closing make
// one, is not closing), or would close only after one more window's
// length from the window's end.
func (p *prober) projected(ws []windowStat) (engine.Duration, bool) {
	mid := func(q int) float64 {
		lo, hi := p.quarterFrom(q), p.quarterFrom(q+1)
		return float64(lo+hi) / 2
	}
	limit := float64(p.to + (p.to - p.from))
	back := float64(p.to)
	for i, w := range ws {
		h := p.healthy[i]
		if ended(p.quarterOf(w, 3), p.quarterOf(h, 3)) {
			continue
		}
		var g [4]float64 // the success gap to healthy, quarter by quarter
		for q := range g {
			wq := p.quarterOf(w, q)
			if wq.ops == 0 {
				return 0, false
			}
			g[q] = p.quarterOf(h, q).success - wq.success
			if q > 0 && g[q] >= g[q-1] {
				return 0, false // not closing quarter after quarter
			}
		}
		g3, g4 := g[2], g[3]
		t := mid(3) + (g4-SuccessTolerance)*(mid(3)-mid(2))/(g3-g4)
		if t > limit {
			return 0, false
		}
		back = max(back, t)
	}
	return engine.Duration(math.Ceil(back/float64(time.Second))) * engine.Duration(time.Second), true
}

// quarterOf returns how quarter q of the span judged for persistence
// went on the seed w is of.
func (p *prober) quarterOf(w windowStat, q int) windowStat {
	return p.part(w, min(q*p.quarter, p.span), min((q+1)*p.quarter, p.span))
}

// quarterFrom returns when quarter q of the span judged for persistence
// starts (q 4: when it ends).
func (p *prober) quarterFrom(q int) engine.Duration {
	return min(p.from+engine.Duration(int64(q*p.quarter)*p.seg), p.spanTo)
}

// healthyQuarter returns how quarter q went in the counterfactual.
func (p *prober) healthyQuarter(q int) WindowStats {
	var hs []windowStat
	for _, h := range p.healthy {
		hs = append(hs, p.quarterOf(h, q))
	}
	return stats(hs)
}

// byQuarter writes the success rates of the span judged, quarter by
// quarter, without a remedy and healthy.
func (p *prober) byQuarter() string {
	var got, healthy []string
	for q := range 4 {
		got = append(got, SuccessRange(p.res.Quarters[q].Success))
		healthy = append(healthy, SuccessRange(p.healthyQuarter(q).Success))
	}
	which := "those that can live their longest before the judged window ends"
	switch {
	case p.life == 0:
		which = "the whole judged window: the strategy does not bound how long an operation lasts"
	case p.spanTo == p.to:
		which = fmt.Sprintf("the whole judged window, shorter than the %s an operation can last", p.life)
	}
	return fmt.Sprintf("the operations started from %s to %s (%s) succeed, quarter by quarter, %s (healthy %s)",
		p.from, p.spanTo, which, quarterList(got), quarterList(healthy))
}

// quarterList writes the quarters' rates, once when they are the same.
func quarterList(rates []string) string {
	if !slices.ContainsFunc(rates, func(r string) bool { return r != rates[0] }) {
		return rates[0] + " in each"
	}
	return strings.Join(rates, ", ")
}

// quarterText writes how quarter q went without a remedy.
func (p *prober) quarterText(q int) string { return statsText(p.res.Quarters[q]) }

// quarterHealthy writes how quarter q went in the counterfactual.
func (p *prober) quarterHealthy(q int) string { return statsText(p.healthyQuarter(q)) }

// statsText writes window stats: "16.36%..17.03% succeed, amplification
// 5.974..5.997", and the share failed fast when there is one.
func statsText(ws WindowStats) string {
	s := fmt.Sprintf("%s succeed, amplification %s", SuccessRange(ws.Success), AmplificationRange(ws.Amplification))
	if ws.FastFailed.Max > 0 {
		s += fmt.Sprintf(", %s failed fast", SuccessRange(ws.FastFailed))
	}
	return s
}

// protection names what fails an operation fast (failsFast), for
// sentences about a strategy's own refusals.
const protection = "its own protection (an open breaker, a budget refusing a retry, the pool, a bulkhead or its client-side throttle)"

// shut says, of a strategy in the bad state to the span's end, that in
// the span's last quarter it fails every operation fast without a call
// reaching the dependency on every seed (a breaker that stays open):
// nothing there is the retries' load, so less load or more workers
// have nothing to act on. "" otherwise.
func (p *prober) shut() string {
	q := p.res.Quarters[3]
	if q.FastFailed.Min < 1 || q.Amplification.Max > 0 {
		return ""
	}
	return "; in that last quarter " + protection + " fails every operation fast and no call reaches the dependency, so what keeps it in the bad state is the client refusing to call, not a retry storm's load on the dependency"
}

// after writes when the span judged starts, after the trigger or not.
func (p *prober) after(hasTrigger bool) string {
	if hasTrigger && !p.res.Prevents {
		return fmt.Sprintf("after the trigger, in the first quarter of the span judged from %s", p.from)
	}
	return fmt.Sprintf("in the first quarter of the span judged from %s", p.from)
}

// sinceTrigger writes how long after the trigger's end back is.
func (p *prober) sinceTrigger(back engine.Duration) string {
	end := engine.Duration(p.end)
	if !p.trig || back <= end {
		return ""
	}
	return fmt.Sprintf(", %s after the trigger ended at %s", back-end, end)
}

// trigger returns when the scenario's trigger starts and ends: from the
// start of its first phase that harms a dependency or raises the load to
// end, the end of the last (engine.FaultEnd), and whether it has one.
func trigger(sc *engine.Scenario, end engine.Duration) (from, to engine.Duration, ok bool) {
	from = engine.Duration(never)
	for _, d := range deps(sc) {
		for _, ph := range d.Phases {
			if ph.Harms(d.Workers) {
				from = min(from, ph.From)
			}
		}
	}
	for _, lp := range sc.Workload.Load {
		if lp.Raises() {
			from = min(from, lp.From)
		}
	}
	if from == engine.Duration(never) {
		return 0, 0, false
	}
	return from, end, true
}

// counterfactual returns the probed scenario without its trigger: every
// phase that harms a dependency, and every load phase that raises the
// load, removed.
func (p *prober) counterfactual() *engine.Scenario {
	sub := *p.sc
	sub.Workload.Load = slices.DeleteFunc(slices.Clone(sub.Workload.Load), func(lp engine.LoadPhase) bool { return lp.Raises() })
	keep := func(d *engine.Dependency) {
		d.Phases = slices.DeleteFunc(slices.Clone(d.Phases), func(ph engine.Phase) bool { return ph.Harms(d.Workers) })
	}
	keep(&sub.Dependency)
	sub.Dependencies = slices.Clone(sub.Dependencies)
	for i := range sub.Dependencies {
		keep(&sub.Dependencies[i])
	}
	return &sub
}

// stats returns the spread of ws over the seeds.
func stats(ws []windowStat) WindowStats {
	inf := engine.MinMax{Min: math.Inf(1), Max: math.Inf(-1)}
	s := WindowStats{Success: inf, Amplification: inf, FastFailed: inf}
	for _, w := range ws {
		s.Success.Min, s.Success.Max = min(s.Success.Min, w.success), max(s.Success.Max, w.success)
		s.Amplification.Min, s.Amplification.Max = min(s.Amplification.Min, w.amp), max(s.Amplification.Max, w.amp)
		s.FastFailed.Min, s.FastFailed.Max = min(s.FastFailed.Min, w.fast), max(s.FastFailed.Max, w.fast)
	}
	return s
}

// noStorm says why the strategy, which went as ws without a remedy on
// each seed, is not in a storm: healthy, or recovering at its healthy
// load (judge has set the finding).
func (p *prober) noStorm(ws []windowStat) string {
	h, base := p.res.Healthy, stats(ws)
	after := fmt.Sprintf("from %s on", p.from)
	if !p.res.Prevents {
		after = "after the trigger"
	}
	load := fmt.Sprintf("amplification %s, healthy %s", AmplificationRange(base.Amplification), AmplificationRange(h.Amplification))
	if base.FastFailed.Max > 0 || h.FastFailed.Max > 0 {
		load += fmt.Sprintf("; %s failed fast, healthy %s", SuccessRange(base.FastFailed), SuccessRange(h.FastFailed))
	}
	if p.res.Finding == FindingRecovering {
		return fmt.Sprintf("slow to recover but recovering: %s its load on the dependency is its healthy one (%s), so nothing sustains the bad state, and its success, %s in the judged window's first quarter (healthy %s), is back by itself from %s on, at unchanged load%s",
			after, load, SuccessRange(p.res.Quarters[0].Success), SuccessRange(p.healthyQuarter(0).Success), *p.res.Back, p.sinceTrigger(*p.res.Back))
	}
	same := true
	for i, w := range ws {
		same = same && succeeds(w, p.healthy[i])
	}
	if same && h.FastFailed.Min == 1 && base.FastFailed.Min == 1 {
		// Every operation failed fast, healthy too: nothing here is the
		// dependency's, nor a storm's.
		calls := ""
		if h.Amplification.Max == 0 && base.Amplification.Max == 0 {
			calls = ", and none of them makes a call to the dependency"
		}
		return fmt.Sprintf("not in a storm: it fails every operation on its own: %s, as in its healthy run without the trigger, %s fails every operation fast (%s success, %s failed fast, healthy %s)%s; so there is no storm to end: the failures are the strategy's own, not the dependency's",
			after, protection, SuccessRange(base.Success), SuccessRange(base.FastFailed), SuccessRange(h.FastFailed), calls)
	}
	if same {
		healthy := fmt.Sprintf("; healthy %s and %s", SuccessRange(h.Success), AmplificationRange(h.Amplification))
		if SuccessRange(h.Success) == SuccessRange(base.Success) && AmplificationRange(h.Amplification) == AmplificationRange(base.Amplification) {
			healthy = ", as without the trigger"
		}
		floor := ""
		if h.Success.Min < 1-SuccessTolerance {
			floor = p.floor()
		}
		return fmt.Sprintf("not in a storm: %s it is at its own baseline (%s success, amplification %s%s%s)",
			after, SuccessRange(base.Success), AmplificationRange(base.Amplification), healthy, floor)
	}
	cause := ""
	for _, d := range deps(p.sc) {
		if d.LoadErrors != nil {
			cause = ": it is the dependency's load-dependent errors at the load the strategy offers, its retries included (the healthy run's load_errors count the first attempts only)"
		}
	}
	return fmt.Sprintf("not in a storm: %s its load on the dependency is at its own baseline (%s), so the gap in success (%s, healthy %s), which does not close by the judged window's last quarter (%s, healthy %s), is not sustained by retries%s",
		after, load, SuccessRange(base.Success), SuccessRange(h.Success), SuccessRange(p.res.Quarters[3].Success), SuccessRange(p.healthyQuarter(3).Success), cause)
}

// floor says what the failures of the strategy's healthy self are: the
// dependency's own errors, the operations its own protection fails fast,
// or both, as the counterfactual's share failed fast says.
func (p *prober) floor() string {
	h := p.res.Healthy
	if h.FastFailed.Max == 0 {
		return "; the floor is the dependency's own errors"
	}
	fastOnly := true
	for _, w := range p.healthy {
		fastOnly = fastOnly && w.fast >= 1-w.success-1e-9
	}
	if fastOnly {
		return fmt.Sprintf("; the floor is %s failing %s of the operations fast, not the dependency's errors", protection, SuccessRange(h.FastFailed))
	}
	return fmt.Sprintf("; the floor is the dependency's own errors and %s failing %s of the operations fast", protection, SuccessRange(h.FastFailed))
}

// SuccessRange writes a success rate's spread over the seeds: "95.28%",
// or "94.05%..95.28%", as the probe's sentences and the CLI's table do.
func SuccessRange(mm engine.MinMax) string {
	lo, hi := fmt.Sprintf("%.2f%%", mm.Min*100), fmt.Sprintf("%.2f%%", mm.Max*100)
	if lo == hi {
		return lo
	}
	return lo + ".." + hi
}

// AmplificationRange writes an amplification's spread over the seeds:
// "1.102", or "1.100..1.120", as the probe's sentences and the CLI's table
// do.
func AmplificationRange(mm engine.MinMax) string {
	lo, hi := fmt.Sprintf("%.3f", mm.Min), fmt.Sprintf("%.3f", mm.Max)
	if lo == hi {
		return lo
	}
	return lo + ".." + hi
}

// criterion says in words when the storm has ended, and from when the
// load reduction and the workers added apply.
func (p *prober) criterion(trigFrom engine.Duration, hasTrigger bool) string {
	when := ", when the trigger ends"
	switch {
	case !hasTrigger && p.at == 0:
		when = " on; the scenario has no trigger, so from the start they keep its operating point out of overload rather than end a storm"
	case !hasTrigger:
		when = " on; the scenario has no trigger: a storm builds from the start, and they come after it"
	case p.at <= int64(trigFrom):
		when = fmt.Sprintf(" on, before the trigger starts at %s: they prevent a storm rather than end one", trigFrom)
	case p.at > p.end:
		when = " on, after the trigger ends"
	}
	what := "the storm"
	if !hasTrigger {
		what = "the overload"
	}
	return fmt.Sprintf("%s has ended when the operations started from %s to %s, on %s, succeed within %g percentage point of the strategy's own healthy success rate, or make at most %g%% more calls per operation than its own healthy amplification with at most %g percentage point more of them failed fast (healthy: the same seed without the trigger and without the retries' feedback on load-dependent errors), with the load reduction or the workers added from %s%s",
		what, p.from, p.to, seedsText(p.res.Seeds), SuccessTolerance*100, LoadTolerance*100, SuccessTolerance*100, engine.Duration(p.at), when)
}

// deps returns the scenario's dependencies: the one, or the list.
func deps(sc *engine.Scenario) []*engine.Dependency {
	if len(sc.Dependencies) == 0 {
		return []*engine.Dependency{&sc.Dependency}
	}
	ds := make([]*engine.Dependency, len(sc.Dependencies))
	for i := range sc.Dependencies {
		ds[i] = &sc.Dependencies[i]
	}
	return ds
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
	settle := cmp.Or(p.opt.Settle, DefaultSettle)
	p.from = engine.Duration(p.at) + settle
	end := arrivalsEnd(p.sc)
	if p.opt.Window > 0 {
		p.to = min(p.from+p.opt.Window, end)
	} else {
		p.to = end
		for _, d := range deps(p.sc) {
			for _, ph := range d.Phases {
				if ph.From > p.from {
					p.to = min(p.to, ph.From)
				}
			}
		}
	}
	p.segments()
	if p.to <= p.from {
		return fmt.Errorf("the judged window is empty: it starts %s after the remedy, at %s, and the arrivals or the scenario's next phase end it at %s; give an earlier remedy time or a shorter settle",
			settle, p.from, p.to)
	}
	return nil
}

// segments sets the span of the judged window that persistence is
// judged over, and cuts it into quarters of whole segments of 1 s, or
// of more when a quarter would hold more than segmentsPerQuarter
// of them. The span holds the operations that start early enough to
// live their longest (lifetime) before the window ends: later ones'
// last attempts meet the drain after the arrivals stop, or the
// scenario's next phase, and prove nothing about recovery at unchanged
// load. When no operation does, or their longest is not bounded, the
// span is the whole window.
func (p *prober) segments() {
	if p.to <= p.from {
		return
	}
	p.spanTo, p.life = p.to, lifetime(&p.sc.Strategies[0])
	if p.life > 0 && p.to-p.life > p.from {
		p.spanTo = p.to - p.life
	}
	q := (int64(p.spanTo-p.from) + 3) / 4
	p.quarter = int(min(max((q+int64(time.Second)-1)/int64(time.Second), 1), segmentsPerQuarter))
	ms := int64(time.Millisecond)
	p.seg = ((q+int64(p.quarter)-1)/int64(p.quarter) + ms - 1) / ms * ms // whole milliseconds
	p.span = int((int64(p.spanTo-p.from) + p.seg - 1) / p.seg)
}

// lifetime returns the longest an operation of strategy st can last, as
// its outermost level bounds it: every attempt timing out after the
// longest waits (engine.Policy.WorstCase), or its deadline when
// shorter; 0 when neither bounds it.
func lifetime(st *engine.Strategy) engine.Duration {
	pl := &st.Policy
	total, ok := pl.WorstCase()
	ok = ok && pl.MaxAttempts > 0
	if pl.Deadline > 0 && (!ok || pl.Deadline.D() < total) {
		total, ok = pl.Deadline.D(), true
	}
	if !ok {
		return 0
	}
	return engine.Duration(total)
}

// arrivalsEnd returns when the workload stops starting operations, as far
// as a probe judges: its duration, or its last operation's start for a
// count of operations at a rate, or the burst.
func arrivalsEnd(sc *engine.Scenario) engine.Duration {
	w := &sc.Workload
	lo, _ := engine.EstimateSpan(sc)
	if w.Arrival == engine.ArrivalBurst {
		return w.BurstAt + 1
	}
	if w.Duration > 0 {
		return w.Duration
	}
	return lo
}

// resolution returns the step of remedy k, in its own unit.
func (p *prober) resolution(k RemedyKind) float64 {
	if k == RemedyCapacity || k == RemedyOneLevel {
		return 1
	}
	return 1.0 / units
}

// steps returns the strongest strength bisection tries for remedy k, in
// steps of its resolution.
func (p *prober) steps(k RemedyKind) int {
	switch k {
	case RemedyLoad:
		return int(math.Round(p.opt.MaxLoad * units))
	case RemedyCapacity:
		return p.opt.MaxWorkers
	case RemedyOneLevel:
		if n := len(retryingLevels(&p.sc.Strategies[0])); n > 1 {
			return n
		}
		return 0
	}
	return units // ratios from 1 down to 0.01
}

// runs returns the most simulations remedy k can make on one seed:
// bisection's (runsFor), or one for each level retrying at one level
// only tries.
func (p *prober) runs(k RemedyKind) int {
	if k == RemedyOneLevel {
		return p.steps(k)
	}
	return runsFor(p.steps(k))
}

// value returns remedy k's setting at strength s (1..steps): a fraction
// of the load, a number of workers, or a budget ratio.
func (p *prober) value(k RemedyKind, s int) float64 {
	switch k {
	case RemedyLoad:
		return float64(s) / units
	case RemedyCapacity:
		return float64(s)
	}
	return float64(units+1-s) / units
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
	runs := 2 // the counterfactual and the baseline
	for _, k := range RemedyKinds {
		runs += p.runs(k)
	}
	per := float64(engine.EstimateTuned(p.sc))
	if sub, err := p.remedied(RemedyCapacity, p.steps(RemedyCapacity)); err == nil {
		per = max(per, float64(engine.EstimateTuned(sub)))
	}
	est := int64(min(per*float64(runs), math.MaxInt64/2))
	if est > p.opt.MaxEvents {
		return &CostError{Runs: runs, Seeds: p.res.Seeds, CostError: engine.CostError{Estimate: est, Limit: p.opt.MaxEvents}}
	}
	return nil
}

// A CostError refuses a probe whose every possible simulation is
// estimated over its event limit: Runs simulations on each of Seeds
// seeds. IsCost reports it.
type CostError struct {
	Runs, Seeds int
	engine.CostError
}

func (e *CostError) Error() string {
	return fmt.Sprintf("a probe runs the strategy up to %d times on %s (the strategy without the trigger, then as it is, then each remedy: bisection, or each level in turn for retrying at one level only), estimated at %s events in all (every simulation at the costliest remedy's estimate), over the limit of %s; reduce its cost: probe fewer seeds (runs), or raise the probe's event limit",
		e.Runs, seedsText(e.Seeds), engine.HumanCount(e.Estimate), engine.HumanCount(e.Limit))
}

func (e *CostError) Unwrap() error { return &e.CostError }

// bisect finds remedy k's bracket, keeping *left, the steps it may still
// make, up to date for Progress.
func (p *prober) bisect(ctx context.Context, k RemedyKind, left *int) (RemedyResult, error) {
	r := RemedyResult{Kind: k, Resolution: p.resolution(k)}
	before := p.res.Simulations
	hi := p.steps(k)
	if k == RemedyLoad && p.sc.Workload.Arrival != engine.ArrivalPoisson && p.sc.Workload.Arrival != "" && p.sc.Workload.Arrival != engine.ArrivalUniform {
		r.Outcome = NotApplicable
		r.Text = fmt.Sprintf("no load reduction (the probe reduces poisson and uniform arrivals only, not %s)", p.sc.Workload.Arrival)
		return r, nil
	}
	if why := p.notApplicable(k); why != "" {
		r.Outcome, r.Text = NotApplicable, why
		return r, nil
	}
	if k == RemedyOneLevel {
		return p.oneLevel(ctx, r, left)
	}
	ok, ws, err := p.ends(ctx, &remedy{k, hi})
	if err != nil {
		return r, err
	}
	if ok {
		*left = runsFor(hi) - 1 // the bisection of (0, hi]
		p.progress()
	}
	r.Change = p.change(k, hi)
	if !ok {
		r.Outcome = NotFound
		r.NotEnough = p.value(k, hi)
		r.Judged = &ws
		r.Text = fmt.Sprintf("not found in range (%s does not end it)", p.phrase(k, hi))
		r.Simulations = p.res.Simulations - before
		return r, nil
	}
	lo := 0 // no remedy: known not to end it
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		ok, w, err := p.ends(ctx, &remedy{k, mid})
		if err != nil {
			return r, err
		}
		if ok {
			hi, ws = mid, w
		} else {
			lo = mid
		}
		if *left = runsFor(hi-lo) - 1; *left > 0 {
			p.progress()
		}
	}
	r.Judged = &ws
	r.Outcome = Found
	r.Enough = p.value(k, hi)
	r.Change = p.change(k, hi)
	if lo > 0 {
		r.NotEnough = p.value(k, lo)
	}
	r.Simulations = p.res.Simulations - before
	switch k {
	case RemedyLoad:
		r.Text = fmt.Sprintf("%d%% less load (between %d%% and %d%%", hi, lo, hi)
	case RemedyCapacity:
		r.Text = fmt.Sprintf("%d more workers (between %d and %d", hi, lo, hi)
	default:
		where := p.budgetWhere()
		if lo == 0 {
			// hi is 1: the weakest budget tried ends the storm, and so
			// (bisection assumes) does any stronger one.
			r.Text = fmt.Sprintf("any retry budget up to %d%%%s (the weakest tried ends it", units+1-hi, where)
		} else {
			r.Text = fmt.Sprintf("a %d%% retry budget%s (between %d%% and %d%%", units+1-hi, where, units+1-hi, units+1-lo)
		}
	}
	if h := p.res.Healthy.Success; ws.Success.Min < h.Min-SuccessTolerance {
		// It ends the storm by the retry load alone: say what it costs.
		r.Text += fmt.Sprintf("; at a price: %s succeed, against %s healthy", SuccessRange(ws.Success), SuccessRange(h))
	}
	r.Text += ")"
	return r, nil
}

// unlayered reports whether remedy k is retrying at one level only and
// the strategy has one level: the probe does not list it then.
func (p *prober) unlayered(k RemedyKind) bool {
	return k == RemedyOneLevel && len(p.sc.Strategies[0].Layers) == 0
}

// notApplicable says why remedy k cannot be tried on the probed strategy
// ("" when it can): a budget on a strategy that never retries, retrying
// at one level only on one with fewer than two levels that retry.
func (p *prober) notApplicable(k RemedyKind) string {
	st := &p.sc.Strategies[0]
	switch {
	case k == RemedyBudget && !retries(st):
		return neverRetries
	case k == RemedyOneLevel && !retries(st):
		return neverRetries
	case k == RemedyOneLevel && p.steps(k) == 0:
		return "not tried: only one level of the strategy is allowed to retry already"
	}
	return ""
}

// oneLevel tries retrying at each level that retries only, the innermost
// first, and reports the innermost that ends the storm.
func (p *prober) oneLevel(ctx context.Context, r RemedyResult, left *int) (RemedyResult, error) {
	before := p.res.Simulations
	levels := retryingLevels(&p.sc.Strategies[0])
	var last WindowStats
	for i := len(levels) - 1; i >= 0; i-- {
		l := levels[i]
		ok, ws, err := p.ends(ctx, &remedy{RemedyOneLevel, l})
		if err != nil {
			return r, err
		}
		*left = i
		p.progress()
		last = ws
		if ok {
			r.Outcome, r.Enough, r.Judged = Found, float64(l), &ws
			r.Change = p.change(RemedyOneLevel, l)
			r.Text = "retrying at " + levelName(l) + " only"
			if i < len(levels)-1 {
				var not []string
				for _, m := range levels[i+1:] {
					not = append(not, levelName(m))
				}
				r.Text += " (at " + strings.Join(not, " or ") + " only does not end it"
			} else {
				r.Text += " (the innermost level allowed to retry"
			}
			if h := p.res.Healthy.Success; ws.Success.Min < h.Min-SuccessTolerance {
				r.Text += fmt.Sprintf("; at a price: %s succeed, against %s healthy", SuccessRange(ws.Success), SuccessRange(h))
			}
			r.Text += ")"
			r.Simulations = p.res.Simulations - before
			return r, nil
		}
	}
	r.Outcome, r.Judged = NotFound, &last
	r.Text = fmt.Sprintf("not found (retrying at any one of its %d levels that retry only does not end it)", len(levels))
	r.Simulations = p.res.Simulations - before
	return r, nil
}

// levelName names level l of a strategy as the form does: 0 its own
// policy, l the layer Layers[l-1] ("layer l below it").
func levelName(l int) string {
	if l == 0 {
		return "the strategy's own level (the outermost)"
	}
	return fmt.Sprintf("layer %d (layers[%d])", l, l-1)
}

// phrase writes remedy k at strength s.
func (p *prober) phrase(k RemedyKind, s int) string {
	switch k {
	case RemedyLoad:
		return fmt.Sprintf("%d%% less load", s)
	case RemedyCapacity:
		return fmt.Sprintf("%d more workers", s)
	case RemedyOneLevel:
		return "retrying at " + levelName(s) + " only"
	}
	return fmt.Sprintf("a %d%% retry budget%s", units+1-s, p.budgetWhere())
}

// change says what remedy k at strength s changes in the scenario.
func (p *prober) change(k RemedyKind, s int) string {
	switch k {
	case RemedyLoad:
		return fmt.Sprintf("the arrival rate times %g from %s on", float64(units-s)/units, engine.Duration(p.at))
	case RemedyCapacity:
		return fmt.Sprintf("%d workers more from %s on (a capacity phase from then, and %d more in each later capacity phase)", s, engine.Duration(p.at), s)
	case RemedyOneLevel:
		var others []string
		for l := range 1 + len(p.sc.Strategies[0].Layers) {
			if l != s {
				others = append(others, levelName(l))
			}
		}
		return fmt.Sprintf(`"max_attempts": 1 and no hedging at %s of strategy %q, keeping the retries of %s`, strings.Join(others, ", "), p.sc.Strategies[0].Name, levelName(s))
	}
	st := &p.sc.Strategies[0]
	return fmt.Sprintf(`budget {"kind":"ratio","ratio":%g,"window":%q} for strategy %q%s`, p.value(k, s), DefaultBudgetWindow.String(), st.Name, budgetLevels(st))
}

// budgetWhere says, for a layered strategy, where the budget remedy
// goes: " at each of its N levels allowed to retry" ("" without layers).
func (p *prober) budgetWhere() string {
	st := &p.sc.Strategies[0]
	if len(st.Layers) == 0 {
		return ""
	}
	if n := len(retryingLevels(st)); n > 1 {
		return fmt.Sprintf(" at each of its %d levels allowed to retry", n)
	}
	return " at its one level allowed to retry"
}

// budgetLevels says, for a layered strategy, which of its levels a retry
// budget remedy sets: those allowed to retry, whether or not they get to.
func budgetLevels(st *engine.Strategy) string {
	if len(st.Layers) == 0 {
		return ""
	}
	var names []string
	for _, l := range retryingLevels(st) {
		if l == 0 {
			names = append(names, "its own policy")
		} else {
			names = append(names, fmt.Sprintf("layers[%d]", l-1))
		}
	}
	return ", at every level allowed to retry (max_attempts other than 1, or hedging): " + strings.Join(names, ", ")
}

// retryingLevels returns the levels of st that can send a call more than
// once, 0 for its own policy and i+1 for Layers[i].
func retryingLevels(st *engine.Strategy) []int {
	var out []int
	for l, pl := range append([]engine.Policy{st.Policy}, st.Layers...) {
		if pl.MaxAttempts != 1 || pl.Hedging != nil {
			out = append(out, l)
		}
	}
	return out
}

// A remedy is one remedy at one strength.
type remedy struct {
	kind     RemedyKind
	strength int
}

// remedied returns the scenario with remedy k at strength s for the
// capacity and the budget; the load reduction is a model's (see model).
func (p *prober) remedied(k RemedyKind, s int) (*engine.Scenario, error) {
	sub := *p.sc
	switch k {
	case RemedyCapacity:
		deps := slices.Clone(sub.Dependencies)
		d := &sub.Dependency
		if len(deps) > 0 {
			d = &deps[p.dep]
			sub.Dependencies = deps
		}
		d.Phases = addWorkers(d.Phases, d.Workers, s, engine.Duration(p.at), p.horizon())
	case RemedyBudget:
		st := sub.Strategies[0]
		st.Layers = slices.Clone(st.Layers)
		for _, l := range retryingLevels(&st) {
			b := &engine.Budget{Kind: engine.BudgetRatio, Ratio: p.value(k, s), Window: DefaultBudgetWindow}
			if l == 0 {
				st.Budget = b
			} else {
				st.Layers[l-1].Budget = b
			}
		}
		sub.Strategies = []engine.Strategy{st}
	case RemedyOneLevel:
		st := sub.Strategies[0]
		st.Layers = slices.Clone(st.Layers)
		for l := range 1 + len(st.Layers) {
			pl := &st.Policy
			if l > 0 {
				pl = &st.Layers[l-1]
			}
			if l != s {
				pl.MaxAttempts, pl.Hedging = 1, nil
			}
		}
		sub.Strategies = []engine.Strategy{st}
	}
	return &sub, nil
}

// horizon returns a time after any simulation of the scenario ends.
func (p *prober) horizon() engine.Duration {
	_, hi := engine.EstimateSpan(p.sc)
	h := min(hi, engine.Duration(365*24*time.Hour)) + engine.Duration(time.Hour)
	for _, d := range deps(p.sc) {
		for _, ph := range d.Phases {
			h = max(h, ph.To+engine.Duration(time.Hour))
		}
	}
	return h / engine.Duration(time.Second) * engine.Duration(time.Second) // whole seconds
}

// addWorkers returns phases with add workers more from at until horizon:
// capacity phases before at are kept, one that spans at is split there,
// later ones get add more workers, and the gaps from at on get capacity
// phases of workers + add. Phases of other kinds are kept as they are.
func addWorkers(phases []engine.Phase, workers, add int, at, horizon engine.Duration) []engine.Phase {
	var out, caps []engine.Phase
	for _, ph := range phases {
		if ph.Kind == engine.PhaseCapacity {
			caps = append(caps, ph)
		} else {
			out = append(out, ph)
		}
	}
	slices.SortFunc(caps, func(a, b engine.Phase) int { return cmp.Compare(a.From, b.From) })
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
			out = append(out, engine.Phase{Kind: engine.PhaseCapacity, From: t, To: ph.From, Workers: workers + add, Label: "probe: workers added"})
		}
		ph.Workers += add
		out = append(out, ph)
		t = ph.To
	}
	if t < horizon {
		out = append(out, engine.Phase{Kind: engine.PhaseCapacity, From: t, To: horizon, Workers: workers + add, Label: "probe: workers added"})
	}
	return out
}

// neverRetries is why a retry budget is not tried on a strategy that
// never retries.
const neverRetries = "not tried: the strategy never retries (one attempt at every level, no hedging), so a retry budget has nothing to limit"

// retries reports whether strategy st can send a call more than once: a
// level with more than one attempt (or no limit), or hedging.
func retries(st *engine.Strategy) bool {
	return len(retryingLevels(st)) > 0
}

// ends runs the strategy with rm (none when nil) on every seed and
// reports whether the storm ended on each (see ended), and the judged
// window's success rate and amplification over the seeds.
func (p *prober) ends(ctx context.Context, rm *remedy) (bool, WindowStats, error) {
	ws, err := p.window1(ctx, rm)
	if err != nil {
		return false, WindowStats{}, err
	}
	return p.allEnded(ws), stats(ws), nil
}

// allEnded reports whether the storm has ended on every seed, ws being
// how the judged window went on each.
func (p *prober) allEnded(ws []windowStat) bool {
	for i, w := range ws {
		if !ended(w, p.healthy[i]) {
			return false
		}
	}
	return true
}

// window1 runs the strategy with rm (none when nil) on every seed and
// returns how the judged window went on each.
func (p *prober) window1(ctx context.Context, rm *remedy) ([]windowStat, error) {
	return p.simulate(ctx, false, rm)
}

// tuned returns the scenario and the tuning of a step's simulations, the
// probed strategy on every seed: of the counterfactual (healthy;
// load_errors then count the first attempts only), or of the strategy
// with remedy rm (none when nil), its judged window counted by segment.
func (p *prober) tuned(healthy bool, rm *remedy) (*engine.Scenario, *engine.Tuning, error) {
	sc := p.sc
	switch {
	case healthy:
		sc = p.counterfactual()
	case rm != nil && rm.kind != RemedyLoad:
		var err error
		if sc, err = p.remedied(rm.kind, rm.strength); err != nil {
			return nil, nil, err
		}
	}
	judged := *sc
	from, to := p.from, p.to
	judged.Report.AffectedFrom, judged.Report.AffectedTo = &from, &to
	t := &engine.Tuning{FirstLoad: healthy, Segment: engine.Duration(p.seg)}
	if !healthy && rm != nil && rm.kind == RemedyLoad {
		t.CutPercent, t.CutAt = rm.strength, engine.Duration(p.at) // units are percentage points
	}
	return &judged, t, nil
}

// simulate runs a step on every seed, the counterfactual (healthy) or
// the strategy with remedy rm (none when nil), and returns how the
// judged window went on each.
func (p *prober) simulate(ctx context.Context, healthy bool, rm *remedy) ([]windowStat, error) {
	sc, t, err := p.tuned(healthy, rm)
	if err != nil {
		return nil, err
	}
	opt := engine.Options{MaxEvents: p.opt.MaxEvents, NoSeries: true, Parallelism: p.opt.Parallelism, RunBatch: p.opt.RunBatch}
	part, err := engine.RunTuned(ctx, sc, t, opt)
	if err != nil {
		return nil, err
	}
	p.res.Simulations += len(part.Simulations)
	ws := make([]windowStat, len(part.Simulations))
	for ri, o := range part.Simulations {
		p.res.Events += o.Events
		segs := make([]segCounts, len(o.Segments))
		for g, c := range o.Segments {
			segs[g] = segCounts{ops: c[0], ok: c[1], fast: c[2], calls: c[3]}
		}
		ws[ri] = p.stat(segs)
	}
	return ws, nil
}

// A segCounts is how the operations started in one segment of the
// judged window went (engine.SimulationOutput.Segments): how many, how
// many succeeded, how many were failed fast, and the calls they made
// reach the dependency.
type segCounts struct {
	ops, ok, fast, calls int64
}
