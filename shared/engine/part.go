package engine

import (
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"math/bits"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// A Part holds what some of a run's simulations measured, as RunPart made
// it, for Merge: a run split into parts, run by as many goroutines, Web
// Workers or processes, merges into the Result Run gives, byte for byte.
// Parts travel as JSON, whose numbers round-trip exactly.
type Part struct {
	EngineVersion string `json:"engine_version"`
	// Scenario is a digest of the scenario, its seeds aside: Merge refuses
	// the parts of another.
	Scenario string `json:"scenario"`
	// Series tells whether the simulations of the first seed kept their
	// bins for the time series.
	Series      bool               `json:"series"`
	Simulations []SimulationOutput `json:"simulations"`
}

// A SimulationOutput is what one simulation, numbered K as Simulations
// says, measured on its seed.
type SimulationOutput struct {
	K       int           `json:"k"`
	Seed    uint64        `json:"seed"`
	Events  int64         `json:"events"`
	Metrics Metrics       `json:"metrics"`
	Calls   []CallMetrics `json:"calls,omitempty"`
	// Fleets are each fleet's, with fleets.
	Fleets []FleetMetrics `json:"fleets,omitempty"`
	// Backends are each backend's, with backends.
	Backends []BackendMetrics `json:"backends,omitempty"`
	// Levels are the attempts made at each level, the client first.
	Levels []int64 `json:"levels"`
	// LevelRetries and LevelDenied are the retries made and those a
	// budget denied at each level.
	LevelRetries []int64 `json:"level_retries"`
	LevelDenied  []int64 `json:"level_retries_denied"`
	// Peaks are those at the report's own resolutions.
	Peaks []Peak `json:"peaks,omitempty"`
	// Transitions are the breaker's, each [at (ns), level, from, to,
	// dependency].
	Transitions  [][5]int64 `json:"transitions,omitempty"`
	OuterBreaker int        `json:"outer_breaker"`
	// Scaling are the autoscalers' decisions, each [at (ns), dependency,
	// from, to, by a phase (1) or not (0)], and Workers the changes of
	// the autoscaled dependencies' serving workers, each [at (ns),
	// dependency, workers].
	Scaling [][5]int64 `json:"scaling,omitempty"`
	Workers [][3]int64 `json:"workers,omitempty"`
	// Base is the width of the counting bins, in ns, and NBins their number.
	Base  int64 `json:"base"`
	NBins int   `json:"nbins"`
	// Bins and XBins are the counting bins, by counter: the strategy's and
	// those of the plan's calls and its pool. Only the first seed's keep
	// them, for the series.
	Bins  []Counts `json:"bins,omitempty"`
	XBins []Counts `json:"xbins,omitempty"`
	// Segments are a probe step's counts of the judged window, segment by
	// segment: its operations, those that succeeded, those failed fast,
	// and the calls they made reach the dependency (RunBatch only).
	Segments [][4]int64 `json:"segments,omitempty"`
}

// Counts are a counter's bins. In JSON they are a base64 string of their
// varints (encoding/binary's AppendVarint), one after the other: a
// simulation has tens of thousands, mostly small, and a list of numbers
// is ten times slower to decode, twice as long.
type Counts []int32

// MarshalJSON encodes the counts as a string of varints in base64.
func (c Counts) MarshalJSON() ([]byte, error) {
	b := make([]byte, 0, len(c))
	for _, v := range c {
		b = binary.AppendVarint(b, int64(v))
	}
	return json.Marshal(b)
}

// UnmarshalJSON decodes counts that MarshalJSON encoded.
func (c *Counts) UnmarshalJSON(data []byte) error {
	if len(data) < 2 || data[0] != '"' || data[len(data)-1] != '"' {
		return fmt.Errorf("engine: counts that are not a string")
	}
	// MarshalJSON's base64 needs no escapes: decode it in place.
	b := make([]byte, base64.StdEncoding.DecodedLen(len(data)-2))
	n, err := base64.StdEncoding.Decode(b, data[1:len(data)-1])
	if err != nil {
		return fmt.Errorf("engine: counts: %w", err)
	}
	b = b[:n]
	out := make(Counts, 0, len(b))
	for len(b) > 0 {
		v, n := binary.Varint(b)
		if n <= 0 || v != int64(int32(v)) {
			return fmt.Errorf("engine: counts that are not 32-bit varints")
		}
		out = append(out, int32(v))
		b = b[n:]
	}
	*c = out
	return nil
}

// Simulations returns how many simulations a run of sc makes (strategies ×
// seeds × sweep values) and how many each seed has. RunPart numbers them
// from 0, seed after seed: first seed 0 of every sweep value, its
// strategies in order, value after value; then seed 1; and so on. So the
// simulations of the first j seeds are numbered 0 to j×perSeed-1, and
// merged alone they give the Result of FirstSeeds(sc, j). A sweep that
// changes the seeds (its path is seed, seeds or runs) has no such
// prefix: perSeed is then n. A scenario with a search is refused: it runs
// whole, through Run.
func Simulations(sc *Scenario) (n, perSeed int, err error) {
	if err := sc.Validate(); err != nil {
		return 0, 0, err
	}
	if err := noSearch(sc); err != nil {
		return 0, 0, err
	}
	ms, err := models(sc)
	if err != nil {
		return 0, 0, err
	}
	set := newSimSet(ms)
	n = set.len()
	if sweepsSeeds(sc) {
		return n, n, nil
	}
	return n, set.starts[1], nil
}

// sweepsSeeds reports whether the scenario's sweep changes its seeds.
func sweepsSeeds(sc *Scenario) bool {
	if sc.Sweep == nil {
		return false
	}
	key, _, _ := strings.Cut(sc.Sweep.Path, ".")
	key, _, _ = strings.Cut(key, "[")
	return key == "seed" || key == "seeds" || key == "runs"
}

// FirstSeeds returns a copy of sc that runs on its first n seeds only.
func FirstSeeds(sc *Scenario, n int) *Scenario {
	c := *sc
	if len(sc.Seeds) > 0 {
		c.Seeds = sc.Seeds[:min(n, len(sc.Seeds)):min(n, len(sc.Seeds))]
		if c.Runs != 0 {
			c.Runs = len(c.Seeds)
		}
		return &c
	}
	c.Runs = min(n, max(sc.Runs, 1))
	return &c
}

// RunPart runs simulations ks of a run of sc, numbered as Simulations
// says, and returns what they measured, for Merge. It validates the
// scenario and checks the whole run's estimated cost as Run does;
// opt.MaxEvents stops each simulation as it does in Run, opt.Parallelism
// bounds the part's goroutines and opt.Progress counts its simulations.
// Like Simulations and Merge, it refuses a scenario with a search.
func RunPart(ctx context.Context, sc *Scenario, opt Options, ks []int) (*Part, error) {
	if err := check(sc, opt.MaxEvents); err != nil {
		return nil, err
	}
	if err := noSearch(sc); err != nil {
		return nil, err
	}
	ms, err := models(sc)
	if err != nil {
		return nil, err
	}
	set := newSimSet(ms)
	if ks == nil {
		ks = []int{} // none: nil would run them all
	}
	seen := make(map[int]bool, len(ks))
	for _, k := range ks {
		if k < 0 || k >= set.len() {
			return nil, fmt.Errorf("engine: simulation %d is not of this run, which has %d", k, set.len())
		}
		if seen[k] {
			return nil, fmt.Errorf("engine: simulation %d is asked for twice", k)
		}
		seen[k] = true
	}
	withSeries := !opt.NoSeries && sc.Sweep == nil
	p := &progress{f: opt.Progress, total: len(ks)}
	if err := set.run(ctx, ks, opt, p, withSeries); err != nil {
		return nil, err
	}
	part := &Part{EngineVersion: EngineVersion, Scenario: digest(sc), Series: withSeries, Simulations: make([]SimulationOutput, len(ks))}
	for j, k := range ks {
		i, si, ri := set.locate(k)
		part.Simulations[j] = simulationOutput(&set.outs[i][si][ri], k, ms[i].seeds[ri], set.events[k])
	}
	return part, nil
}

// Merge returns the Result of a run of sc from parts that hold each of its
// simulations once: exactly Run's, byte for byte once encoded, however the
// run was split. For the first j seeds' simulations alone, merge with
// FirstSeeds(sc, j). A simulation missing or given twice, of another
// scenario, seed or engine version, is an error.
func Merge(sc *Scenario, parts ...*Part) (*Result, error) {
	if err := sc.Validate(); err != nil {
		return nil, err
	}
	if err := noSearch(sc); err != nil {
		return nil, err
	}
	ms, err := models(sc)
	if err != nil {
		return nil, err
	}
	if len(parts) == 0 {
		return nil, fmt.Errorf("engine: no parts to merge")
	}
	set := newSimSet(ms)
	have := make([]bool, set.len())
	dig := digest(sc)
	withSeries := parts[0].Series
	for _, p := range parts {
		switch {
		case p.EngineVersion != EngineVersion:
			return nil, fmt.Errorf("engine: a part of engine version %q, not %q", p.EngineVersion, EngineVersion)
		case p.Scenario != dig:
			return nil, fmt.Errorf("engine: a part of another scenario")
		case p.Series != withSeries:
			return nil, fmt.Errorf("engine: parts with the time series and parts without")
		}
		for j := range p.Simulations {
			o := &p.Simulations[j]
			if o.K < 0 || o.K >= set.len() {
				return nil, fmt.Errorf("engine: simulation %d is not of this run, which has %d", o.K, set.len())
			}
			if have[o.K] {
				return nil, fmt.Errorf("engine: simulation %d is in two parts", o.K)
			}
			i, si, ri := set.locate(o.K)
			m := ms[i]
			if o.Seed != m.seeds[ri] {
				return nil, fmt.Errorf("engine: simulation %d ran on seed %d, not %d", o.K, o.Seed, m.seeds[ri])
			}
			out, err := o.runOutput(m, &m.strategies[si], withSeries && ri == 0)
			if err != nil {
				return nil, fmt.Errorf("engine: simulation %d: %w", o.K, err)
			}
			set.outs[i][si][ri] = out
			set.events[o.K] = o.Events
			have[o.K] = true
		}
	}
	for k, ok := range have {
		if !ok {
			i, si, ri := set.locate(k)
			return nil, fmt.Errorf("engine: simulation %d (strategy %q on seed %d) is missing", k, ms[i].strategies[si].name, ms[i].seeds[ri])
		}
	}
	return set.result(sc, withSeries), nil
}

// noSearch refuses a scenario with a search: its rounds depend on each
// other's results, so only Run runs it, and a run in parts would leave it
// out of the merged Result.
func noSearch(sc *Scenario) error {
	if sc.Search != nil {
		return fmt.Errorf("engine: a scenario with a search runs whole (Run), not in parts")
	}
	return nil
}

// digest returns a digest of the scenario, its seeds aside.
func digest(sc *Scenario) string {
	c := *sc
	c.Seed, c.Runs, c.Seeds = 0, 0, nil
	b, err := json.Marshal(&c)
	if err != nil {
		return ""
	}
	h := fnv.New64a()
	h.Write(b)
	return strconv.FormatUint(h.Sum64(), 16)
}

// simulationOutput returns what simulation k, on the given seed, measured.
func simulationOutput(r *runOutput, k int, seed uint64, events int64) SimulationOutput {
	o := SimulationOutput{K: k, Seed: seed, Events: events, Metrics: r.metrics, Calls: r.calls, Fleets: r.fleets, Backends: r.backends, Levels: r.levels, LevelRetries: r.levelRetries,
		LevelDenied: r.levelDenied, Peaks: r.peaks, OuterBreaker: r.outerBreaker, Base: r.base, NBins: r.nbins}
	o.Scaling, o.Workers = scalingOutput(r)
	for _, t := range r.transitions {
		o.Transitions = append(o.Transitions, [5]int64{t.at, int64(t.level), int64(t.from), int64(t.to), int64(t.dep)})
	}
	if r.bins != nil {
		o.Bins = make([]Counts, numBins)
		for c := range r.bins {
			o.Bins[c] = r.bins[c][:r.nbins]
		}
		o.XBins = make([]Counts, len(r.xbins))
		for c, b := range r.xbins {
			o.XBins[c] = b[:r.nbins]
		}
	}
	return o
}

// runOutput returns o as the output of a simulation of strategy st in
// model m, checking that it fits them (with its bins when withBins).
func (o *SimulationOutput) runOutput(m *model, st *strategyModel, withBins bool) (runOutput, error) {
	r := runOutput{metrics: o.Metrics, calls: o.Calls, fleets: o.Fleets, backends: o.Backends, levels: o.Levels, levelRetries: o.LevelRetries, levelDenied: o.LevelDenied, peaks: o.Peaks, outerBreaker: o.OuterBreaker, base: o.Base, nbins: o.NBins}
	calls := 0
	if len(m.calls) > 1 {
		calls = len(m.calls)
	}
	switch {
	case len(o.Levels) != len(st.levels):
		return r, fmt.Errorf("%d levels of attempts, not %d", len(o.Levels), len(st.levels))
	case len(o.LevelRetries) != len(st.levels) || len(o.LevelDenied) != len(st.levels):
		return r, fmt.Errorf("%d levels of retries and %d of retries denied, not %d", len(o.LevelRetries), len(o.LevelDenied), len(st.levels))
	case len(o.Peaks) != len(m.resolutions)-3:
		return r, fmt.Errorf("%d peaks, not %d", len(o.Peaks), len(m.resolutions)-3)
	case len(o.Calls) != calls:
		return r, fmt.Errorf("%d plan calls, not %d", len(o.Calls), calls)
	case len(o.Fleets) != len(m.fleets):
		return r, fmt.Errorf("%d fleets, not %d", len(o.Fleets), len(m.fleets))
	case len(o.Backends) != len(m.servers)-len(m.deps):
		return r, fmt.Errorf("%d backends, not %d", len(o.Backends), len(m.servers)-len(m.deps))
	case o.OuterBreaker < -1 || o.OuterBreaker >= len(st.levels):
		return r, fmt.Errorf("outer breaker %d of %d levels", o.OuterBreaker, len(st.levels))
	case o.Base < m.base || o.Base%m.base != 0 || bits.OnesCount64(uint64(o.Base/m.base)) != 1:
		return r, fmt.Errorf("bins of %d ns, not %d ns doubled", o.Base, m.base)
	case o.NBins < 0:
		return r, fmt.Errorf("%d bins", o.NBins)
	}
	for _, t := range o.Transitions {
		if t[1] < 0 || t[1] >= int64(len(st.levels)) || t[2] < 0 || t[2] > int64(brOpen) || t[3] < 0 || t[3] > int64(brOpen) || t[4] < 0 || t[4] >= int64(len(m.deps)) {
			return r, fmt.Errorf("a breaker transition %v out of range", t)
		}
		r.transitions = append(r.transitions, transition{at: t[0], level: uint8(t[1]), from: uint8(t[2]), to: uint8(t[3]), dep: uint8(t[4])})
	}
	if err := o.scalingInput(m, &r); err != nil {
		return r, err
	}
	if (o.Bins != nil) != withBins {
		return r, fmt.Errorf("bins where none belong, or none where they do")
	}
	if !withBins {
		if len(o.XBins) > 0 {
			return r, fmt.Errorf("bins where none belong")
		}
		return r, nil
	}
	xbins := 3*calls + 3*len(m.fleets)
	if m.cached {
		xbins += 2
	}
	if st.pool.slots > 0 {
		xbins++
	}
	if len(o.Bins) != numBins || len(o.XBins) != xbins {
		return r, fmt.Errorf("%d and %d counters of bins, not %d and %d", len(o.Bins), len(o.XBins), numBins, xbins)
	}
	r.bins = new([numBins][]int32)
	for c, b := range o.Bins {
		if len(b) != o.NBins {
			return r, fmt.Errorf("%d bins, not %d", len(b), o.NBins)
		}
		r.bins[c] = b
	}
	for _, b := range o.XBins {
		if len(b) != o.NBins {
			return r, fmt.Errorf("%d bins, not %d", len(b), o.NBins)
		}
		r.xbins = append(r.xbins, b)
	}
	return r, nil
}

// A Batch is simulations that a search or a tuned run (RunTuned) hands
// off through Options.RunBatch, for Batches.Run to run where the caller
// likes (on other goroutines, Web Workers or processes), or its own Run
// where it was handed off. It names them by what derives them from the
// scenario run, so that RunBatch builds the very simulations the search
// or the tuned run would have run itself: a search's candidates are more
// strategies than a scenario may list, and a tuned run's simulations are
// tuned beyond what a scenario says.
type Batch struct {
	// Scenario and Tuning are a tuned run's scenario and tuning; a
	// search's batch has neither (its scenario is the one Batches was
	// made for).
	Scenario *Scenario `json:"scenario,omitempty"`
	Tuning   *Tuning   `json:"tuning,omitempty"`
	// Simulations are their numbers: a search's, as its candidates on its
	// seeds and variants are numbered (seed after seed, within a seed
	// variant after variant, candidates in order); a tuned run's, as
	// Simulations numbers them.
	Simulations []int `json:"simulations"`
	// MaxEvents is the run's Options.MaxEvents, which stops each
	// simulation that processes more.
	MaxEvents int64 `json:"max_events,omitempty"`
	// set and sc are the simulations and the scenario the batch is of,
	// where it was handed off (see Run).
	set *simSet
	sc  *Scenario
}

// Batches runs the batches that a scenario's search or tuned runs hand
// off, elsewhere: in a Web Worker or a process of its own. It compiles
// the search's candidates once, for every batch of it (compiling them
// takes as long as dozens of their simulations). Its Run may be called
// from several goroutines at once.
type Batches struct {
	sc     *Scenario
	mu     sync.Mutex
	search *simSet
}

// NewBatches returns the Batches of sc, the scenario as the search was
// given it.
func NewBatches(sc *Scenario) *Batches { return &Batches{sc: sc} }

// Run runs the simulations of batch b and returns what they measured,
// for the search or the tuned run that handed them off: the same as it
// would have measured itself. A tuned run's batch is of its own scenario,
// which must be valid. opt.Parallelism bounds its goroutines and
// opt.Progress counts its simulations; the cost was checked by the run
// that handed the batch off, and b.MaxEvents stops each simulation.
func (bs *Batches) Run(ctx context.Context, b *Batch, opt Options) (*Part, error) {
	var set *simSet
	sc := bs.sc
	if b.Scenario != nil {
		sc = b.Scenario
		if err := sc.Validate(); err != nil {
			return nil, err
		}
		if err := checkTuned(sc, b.Tuning); err != nil {
			return nil, err
		}
		set = tunedSet(sc, b.Tuning)
	} else {
		var err error
		if set, err = bs.searchSet(); err != nil {
			return nil, err
		}
	}
	opt.MaxEvents = b.MaxEvents
	return set.part(ctx, sc, b.Simulations, opt)
}

// searchSet returns the simulations of the scenario's search, compiled
// the first time.
func (bs *Batches) searchSet() (*simSet, error) {
	bs.mu.Lock()
	defer bs.mu.Unlock()
	if bs.search != nil {
		return bs.search, nil
	}
	if err := bs.sc.Validate(); err != nil {
		return nil, err
	}
	if bs.sc.Search == nil {
		return nil, fmt.Errorf("engine: a batch of a search, of a scenario without one")
	}
	r, err := newSearchRun(bs.sc)
	if err != nil {
		return nil, err
	}
	bs.search = r.Candidates.set
	return bs.search, nil
}

// Run runs simulations ks of the batch, which Options.RunBatch was
// handed, where it was handed off, on the simulations the search or the
// probe compiled (nothing is compiled again), and returns what they
// measured, as Batches.Run elsewhere would. It may be called from
// several goroutines at once, on distinct simulations. A batch decoded
// from JSON has nowhere to run: it must be run by Batches.
func (b *Batch) Run(ctx context.Context, ks []int, opt Options) (*Part, error) {
	if b.set == nil {
		return nil, fmt.Errorf("engine: a batch that was not handed off here")
	}
	for _, k := range ks {
		if !slices.Contains(b.Simulations, k) {
			return nil, fmt.Errorf("engine: simulation %d is not of the batch", k)
		}
	}
	opt.MaxEvents = b.MaxEvents
	return b.set.part(ctx, b.sc, ks, opt)
}

// part runs simulations ks of the set, of scenario sc, without series,
// and returns what they measured.
func (set *simSet) part(ctx context.Context, sc *Scenario, ks []int, opt Options) (*Part, error) {
	if err := set.checkBatch(ks); err != nil {
		return nil, err
	}
	opt.RunBatch = nil
	p := &progress{f: opt.Progress, total: len(ks)}
	if err := set.run(ctx, ks, opt, p, false); err != nil {
		return nil, err
	}
	return set.output(sc, ks), nil
}

// output returns what simulations ks of the set, of scenario sc, run
// without series, measured, their segments included.
func (set *simSet) output(sc *Scenario, ks []int) *Part {
	part := &Part{EngineVersion: EngineVersion, Scenario: digest(sc), Simulations: make([]SimulationOutput, len(ks))}
	for j, k := range ks {
		i, si, ri := set.locate(k)
		out := &set.outs[i][si][ri]
		o := simulationOutput(out, k, set.ms[i].seeds[ri], set.events[k])
		for _, g := range out.segs {
			o.Segments = append(o.Segments, [4]int64{g.ops, g.ok, g.fast, g.calls})
		}
		part.Simulations[j] = o
	}
	return part
}

// checkBatch refuses simulation numbers that are not of the set, or
// given twice.
func (set *simSet) checkBatch(ks []int) error {
	seen := make(map[int]bool, len(ks))
	for _, k := range ks {
		if k < 0 || k >= set.len() {
			return fmt.Errorf("engine: simulation %d is not of this batch's run, which has %d", k, set.len())
		}
		if seen[k] {
			return fmt.Errorf("engine: simulation %d is asked for twice", k)
		}
		seen[k] = true
	}
	return nil
}

// runBatch runs simulations b.Simulations of the set, a search's or a
// probe step's (of scenario sc), without series: in-process, or, when
// opt.RunBatch is set, through it. Either way each simulation fills its
// own slot with the same outputs, so the run's result is the same bytes.
func (set *simSet) runBatch(ctx context.Context, sc *Scenario, b *Batch, opt Options, p *progress) error {
	if opt.RunBatch == nil {
		return set.run(ctx, b.Simulations, opt, p, false)
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("%w: %w", errStopped, err)
	}
	b.MaxEvents, b.set, b.sc = opt.MaxEvents, set, sc
	want := make(map[int]bool, len(b.Simulations))
	for _, k := range b.Simulations {
		want[k] = true
	}
	dig := digest(sc)
	put := func(part *Part) error {
		switch {
		case part.EngineVersion != EngineVersion:
			return fmt.Errorf("engine: a part of engine version %q, not %q", part.EngineVersion, EngineVersion)
		case part.Scenario != dig:
			return fmt.Errorf("engine: a part of another scenario")
		case part.Series:
			return fmt.Errorf("engine: a part of a batch with the time series")
		}
		for j := range part.Simulations {
			o := &part.Simulations[j]
			if !want[o.K] {
				return fmt.Errorf("engine: simulation %d is not of the batch, or given twice", o.K)
			}
			i, si, ri := set.locate(o.K)
			m := set.ms[i]
			if o.Seed != m.seeds[ri] {
				return fmt.Errorf("engine: simulation %d ran on seed %d, not %d", o.K, o.Seed, m.seeds[ri])
			}
			out, err := o.runOutput(m, &m.strategies[si], false)
			if err != nil {
				return fmt.Errorf("engine: simulation %d: %w", o.K, err)
			}
			if o.Segments != nil {
				out.segs = make([]segCounts, len(o.Segments))
				for g, c := range o.Segments {
					out.segs[g] = segCounts{ops: c[0], ok: c[1], fast: c[2], calls: c[3]}
				}
			}
			set.outs[i][si][ri] = out
			set.events[o.K] = o.Events
			delete(want, o.K)
			p.step()
		}
		return nil
	}
	if err := opt.RunBatch(ctx, b, put); err != nil {
		return err
	}
	for _, k := range b.Simulations {
		if want[k] {
			i, si, ri := set.locate(k)
			return fmt.Errorf("engine: simulation %d (strategy %q on seed %d) of the batch is missing", k, set.ms[i].strategies[si].name, set.ms[i].seeds[ri])
		}
	}
	return nil
}
