package engine

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"
	"time"
)

// Options control a run.
type Options struct {
	// MaxEvents refuses, before running, a scenario whose estimated cost is
	// above it, and stops a simulation that processes more, at the next
	// multiple of 16,384 events it reaches (where it looks). 0 means no
	// limit.
	MaxEvents int64
	// NoSeries leaves the time series out of the result.
	NoSeries bool
	// Progress, when set, hears after each simulation (one strategy on one
	// seed and sweep value) how many of the total are done. It is called
	// from one goroutine at a time, with done increasing by one each call.
	Progress func(done, total int)
	// Parallelism bounds how many simulations (strategies × seeds × sweep
	// values) run at once, each on its own goroutine: 0 means
	// runtime.GOMAXPROCS(0), 1 runs them one after the other. The Result is the same, byte for byte,
	// whatever the parallelism: every simulation writes its own slot and
	// the slots are merged in a fixed order.
	Parallelism int
	// RunBatch, when set, runs the simulations a search hands off (see
	// Batch) instead of the run: each round's candidates on the seeds it
	// adds. It runs them where it likes, as Batches.Run does elsewhere or
	// the batch's own Run here, and hands put what they measured, in
	// parts, in any order and split as it likes, from one goroutine at a
	// time, before it returns; the run's Progress hears of each simulation
	// as its part is put. The Result is the same, byte for byte. Nil runs
	// them in-process.
	RunBatch func(ctx context.Context, b *Batch, put func(*Part) error) error
}

// ErrStopped is wrapped by the error of a run stopped by its context or by
// the event limit.
var ErrStopped = errStopped

// Run validates the scenario, checks its estimated cost, and simulates every
// strategy on every seed (and every sweep value), then runs its search, if
// it has one (see SearchResult). It honours ctx, checking it
// every few thousand events. The same scenario gives the same Result, byte for
// byte once encoded, on every platform.
func Run(ctx context.Context, sc *Scenario, opt Options) (*Result, error) {
	if err := check(sc, opt.MaxEvents); err != nil {
		return nil, err
	}
	p := &progress{f: opt.Progress, total: len(SeedsOf(sc)) * len(sc.Strategies)}
	if sc.Sweep != nil {
		p.total *= len(sc.Sweep.Values)
	}
	var search *SearchRun
	if sc.Search != nil {
		var err error
		if search, err = newSearchRun(sc); err != nil {
			return nil, err
		}
		p.total += search.Simulations
	}
	// Every sweep value's simulations run together. A value that cannot be
	// applied fails the run as a serial run would: after the values before
	// it ran, and only if none of their simulations failed.
	ms, valueErr := models(sc)
	set := newSimSet(ms)
	withSeries := !opt.NoSeries && sc.Sweep == nil
	if err := set.run(ctx, nil, opt, p, withSeries); err != nil {
		return nil, err
	}
	if valueErr != nil {
		return nil, valueErr
	}
	res := set.result(sc, withSeries)
	if search != nil {
		var err error
		if res.Search, err = search.run(ctx, opt, p); err != nil {
			return nil, err
		}
	}
	return res, nil
}

// check validates the scenario and refuses it when its estimated cost is
// over maxEvents (0: no limit).
func check(sc *Scenario, maxEvents int64) error {
	if err := sc.Validate(); err != nil {
		return err
	}
	return CheckCost(sc, maxEvents)
}

// models compiles the scenario, or each of its sweep values, in order. A
// value that cannot be applied ends the list: models returns those before
// it and its error.
func models(sc *Scenario) ([]*model, error) {
	if sc.Sweep == nil {
		return []*model{compile(sc)}, nil
	}
	var ms []*model
	for i := range sc.Sweep.Values {
		sub, err := sc.withValue(i)
		if err != nil {
			return ms, err
		}
		ms = append(ms, compile(sub))
	}
	return ms, nil
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

// runModels simulates every strategy on every seed of every model (the
// scenario, or each sweep value's) and summarizes each model's simulations.
func runModels(ctx context.Context, ms []*model, opt Options, p *progress, withSeries bool) ([][]StrategyResult, int64, error) {
	set := newSimSet(ms)
	if err := set.run(ctx, nil, opt, p, withSeries); err != nil {
		return nil, 0, err
	}
	strats, events := set.summarize(withSeries)
	return strats, events, nil
}

// A simSet is the simulations of a run, one strategy on one seed of one
// model (the scenario, or a sweep value's) each, and what they measured.
// They are numbered seed after seed: first seed 0 of every model, the
// model's strategies in order, model after model; then seed 1; and so on.
// So the simulations of a run's first seeds come first.
type simSet struct {
	ms     []*model
	outs   [][][]runOutput // model, strategy, seed
	events []int64         // by simulation
	starts []int           // the number of each seed's first simulation, and the total last
}

func newSimSet(ms []*model) *simSet {
	set := &simSet{ms: ms, outs: make([][][]runOutput, len(ms)), starts: []int{0}}
	seeds := 0
	for i, m := range ms {
		set.outs[i] = make([][]runOutput, len(m.strategies))
		for si := range set.outs[i] {
			set.outs[i][si] = make([]runOutput, len(m.seeds))
		}
		seeds = max(seeds, len(m.seeds))
	}
	for ri := range seeds {
		n := set.starts[ri]
		for _, m := range ms {
			if ri < len(m.seeds) {
				n += len(m.strategies)
			}
		}
		set.starts = append(set.starts, n)
	}
	set.events = make([]int64, set.len())
	return set
}

// len returns the number of simulations.
func (set *simSet) len() int { return set.starts[len(set.starts)-1] }

// locate returns the model, strategy and seed of simulation k, as indexes.
func (set *simSet) locate(k int) (i, si, ri int) {
	ri, found := slices.BinarySearch(set.starts, k)
	if !found {
		ri--
	}
	j := k - set.starts[ri]
	for i, m := range set.ms {
		if ri < len(m.seeds) {
			if j < len(m.strategies) {
				return i, j, ri
			}
			j -= len(m.strategies)
		}
	}
	panic(fmt.Sprintf("engine: no simulation %d", k))
}

// run runs simulations ks (every one when ks is nil), each writing its own
// slots, on up to opt.Parallelism goroutines: the outputs do not depend on
// their order.
func (set *simSet) run(ctx context.Context, ks []int, opt Options, p *progress, withSeries bool) error {
	n := len(ks)
	if ks == nil {
		n = set.len()
	}
	// simulate runs the j-th simulation to run, k: of model i, strategy si
	// and seed ri. Its sim comes from sims: reset, not rebuilt.
	var sims simPool
	simulate := func(ctx context.Context, j int) error {
		k := j
		if ks != nil {
			k = ks[j]
		}
		i, si, ri := set.locate(k)
		m := set.ms[i]
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("%w: %w", errStopped, err)
		}
		series := withSeries && ri == 0 // the first seed's series only
		s := sims.get(ctx, m, &m.strategies[si], m.seeds[ri], opt.MaxEvents, series)
		defer sims.put(s)
		if err := s.run(); err != nil {
			return err
		}
		set.outs[i][si][ri] = s.output(series)
		set.events[k] = s.events
		return nil
	}
	workers := opt.Parallelism
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = min(workers, n)
	if workers > 1 {
		return runParallel(ctx, n, workers, simulate, p)
	}
	for j := range n {
		if err := simulate(ctx, j); err != nil {
			return err
		}
		p.step()
	}
	return nil
}

// summarize returns each model's strategy results and the events of all
// the simulations, which have all run.
func (set *simSet) summarize(withSeries bool) ([][]StrategyResult, int64) {
	var total int64
	for _, e := range set.events {
		total += e
	}
	res := make([][]StrategyResult, len(set.ms))
	for i, m := range set.ms {
		outs := set.outs[i]
		var span int64
		base := m.base
		for si := range outs {
			out := &outs[si][0]
			span = max(span, int64(out.nbins)*out.base)
			base = max(base, out.base)
		}
		bucket := chooseBucket(m, span, base)
		res[i] = make([]StrategyResult, len(m.strategies))
		for si := range m.strategies {
			res[i][si] = summarize(m, &m.strategies[si], outs[si], bucket, span, withSeries)
		}
	}
	return res, total
}

// result returns the Result of sc, whose simulations (of every sweep
// value) have all run.
func (set *simSet) result(sc *Scenario, withSeries bool) *Result {
	res := &Result{
		Scenario:      sc.Name,
		EngineVersion: EngineVersion,
		Warnings:      Warnings(sc),
	}
	for _, s := range SeedsOf(sc) {
		res.Seeds = append(res.Seeds, int64(s))
	}
	res.Phases = phaseSpans(sc)
	strats, events := set.summarize(withSeries)
	res.Events = events
	if sc.Sweep == nil {
		res.Strategies = strats[0]
		return res
	}
	res.SweepPath = sc.Sweep.Path
	for i, raw := range sc.Sweep.Values {
		var v any
		_ = json.Unmarshal(raw, &v)
		res.Sweep = append(res.Sweep, SweepPoint{Value: v, Strategies: strats[i]})
	}
	return res
}

// runParallel runs simulations 0 to n-1 on the given number of goroutines,
// handing them out in order, and calls p.step after each one that
// succeeds, one call at a time. It returns the error a serial run would:
// that of the lowest-numbered simulation that fails. When simulation k
// fails, those after k that are running are cancelled (each runs under its
// own context) and none after k starts; those before k run to their end,
// since one of them may fail too and its error is the one to return.
func runParallel(ctx context.Context, n, workers int, simulate func(context.Context, int) error, p *progress) error {
	var (
		mu      sync.Mutex
		next    int
		failed  = n // the lowest-numbered simulation that failed
		errs    = make([]error, n)
		cancels = make([]context.CancelFunc, n)
		wg      sync.WaitGroup
	)
	for range workers {
		wg.Go(func() {
			for {
				mu.Lock()
				k := next
				if k >= failed {
					mu.Unlock()
					return
				}
				next++
				kctx, cancel := context.WithCancel(ctx)
				cancels[k] = cancel
				mu.Unlock()

				err := simulate(kctx, k)
				cancel()

				mu.Lock()
				cancels[k] = nil
				if err != nil {
					errs[k] = err
					if k < failed {
						failed = k
						for j := k + 1; j < n; j++ {
							if c := cancels[j]; c != nil {
								c()
							}
						}
					}
				} else {
					p.step()
				}
				mu.Unlock()
				if err != nil {
					return
				}
			}
		})
	}
	wg.Wait()
	if failed < n {
		return errs[failed]
	}
	return nil
}

// Warnings points out policies that cannot do what they seem to promise,
// and scripts that strategies cannot meet alike.
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
			// With unlimited attempts the deadline is meant to cut them.
			if worst, waits, ok := worstCase(p); ok && p.MaxAttempts > 0 && p.Deadline > 0 && worst > p.Deadline.D() {
				ws = append(ws, fmt.Sprintf("%s: worst case %s (%d attempts × %s + %s of waits) exceeds its deadline %s, so the deadline cuts the last attempts (strategies[%d])",
					where, worst, p.MaxAttempts, p.AttemptTimeout, waits, p.Deadline, i))
			}
			if p.MaxAttempts == 0 && p.Deadline == 0 && p.MaxElapsed == 0 {
				ws = append(ws, fmt.Sprintf("%s: retries without limit (max_attempts 0) and without a deadline; against a dependency that keeps failing only the event limit stops it (strategies[%d])", where, i))
			}
			if p.MaxAttempts != 1 && p.AttemptTimeout == 0 && p.Deadline == 0 {
				ws = append(ws, fmt.Sprintf("%s: retries with neither attempt_timeout nor deadline; a frozen dependency holds its calls forever (strategies[%d])", where, i))
			}
			if p.RetryNonIdempotent && !st.IdempotencyKey && sc.Workload.Mix.NonIdempotent > 0 {
				ws = append(ws, fmt.Sprintf("%s: retries non-idempotent operations without an idempotency key; a retry after a timeout can apply them twice (strategies[%d])", where, i))
			}
		}
		if n := len(st.Layers); n > 0 {
			a, unlimited := 1, false
			for _, p := range levels {
				a *= p.MaxAttempts
				unlimited = unlimited || p.MaxAttempts == 0
			}
			if unlimited {
				ws = append(ws, fmt.Sprintf("strategy %q: retries at %d levels, some without limit, multiply to an unbounded number of dependency calls per operation (strategies[%d])", st.Name, n+1, i))
			} else if a > 10 {
				ws = append(ws, fmt.Sprintf("strategy %q: retries at %d levels multiply to up to %d dependency calls per operation (strategies[%d])", st.Name, n+1, a, i))
			}
		}
		ws = append(ws, limitWarnings(i, &st)...)
	}
	ws = append(ws, sheddingWarnings(sc)...)
	ws = append(ws, scriptWarnings(sc)...)
	ws = append(ws, clientsWarnings(&sc.Workload)...)
	return ws
}

// clientsWarnings says that a total rate is shared by the clients when
// there are so many that each averages less than one operation in the
// run: the rate sets the load, not the number of clients (which only
// decides how a strategy's instances split them, and each operation's
// random draws).
func clientsWarnings(w *Workload) []string {
	if (w.Arrival != "" && w.Arrival != ArrivalPoisson && w.Arrival != ArrivalUniform) || w.Rate <= 0 || w.Clients <= 1 || w.Duration <= 0 {
		return nil
	}
	each := w.Rate * w.Duration.D().Seconds() / float64(w.Clients)
	if each >= 1 {
		return nil
	}
	return []string{fmt.Sprintf("workload: rate %g is the total of all %d clients, so each sends %.3g operations in the %s run on average; more clients do not add load (the rate sets it), they only split it; give rate_per_client for a rate per client (workload.clients)",
		w.Rate, w.Clients, each, w.Duration)}
}

// scriptWarnings points out scripts in arrival order that several
// strategies replay: once their retries differ, the same answer goes to
// other calls, so the strategies no longer meet the same outcomes.
func scriptWarnings(sc *Scenario) []string {
	if len(sc.Strategies) < 2 {
		return nil
	}
	var ws []string
	for i, d := range estimateDeps(sc) {
		if d.Script == nil || len(d.Script.Answers) == 0 {
			continue
		}
		p := "dependency.script"
		if len(sc.Dependencies) > 0 {
			p = fmt.Sprintf("dependencies[%d].script", i)
		}
		ws = append(ws, fmt.Sprintf("%s answers calls in arrival order: each strategy replays it from the start, so once their retries differ an answer goes to another call under each; a script per operation (operations) gives every strategy's calls the same answers (%s)", p, p))
	}
	return ws
}

// limitWarnings points out a strategy's pool and bulkheads that do nothing
// or can hold calls without end, and hedging that only retries.
func limitWarnings(i int, st *Strategy) []string {
	var ws []string
	if p := st.Pool; p != nil && p.MaxWaiting > 0 && p.MaxWait == 0 {
		ws = append(ws, fmt.Sprintf("strategy %q: calls wait for a pool slot without max_wait; while a frozen dependency holds every slot, they wait as long as it does (strategies[%d].pool)", st.Name, i))
	}
	for j, b := range st.Bulkheads {
		if p := st.Pool; p != nil && b.MaxConcurrent >= p.Slots {
			ws = append(ws, fmt.Sprintf("strategy %q: the bulkhead of %q allows %d concurrent calls, no fewer than the pool's %d slots, so it never limits them (strategies[%d].bulkheads[%d])", st.Name, b.Dependency, b.MaxConcurrent, p.Slots, i, j))
		}
		if b.MaxWaiting > 0 && b.MaxWait == 0 {
			ws = append(ws, fmt.Sprintf("strategy %q: calls wait for the bulkhead of %q without max_wait; while a frozen dependency holds it, they wait as long as it does (strategies[%d].bulkheads[%d])", st.Name, b.Dependency, i, j))
		}
	}
	for j, p := range append([]Policy{st.Policy}, st.Layers...) {
		h := p.Hedging
		if h == nil || h.DelayPercentile != 0 || p.AttemptTimeout == 0 || h.Delay < p.AttemptTimeout {
			continue
		}
		where := fmt.Sprintf("strategy %q", st.Name)
		if j > 0 {
			where = fmt.Sprintf("strategy %q layer %d", st.Name, j)
		}
		ws = append(ws, fmt.Sprintf("%s: the hedging delay %s is no shorter than the attempt_timeout %s, so a copy times out before the next leaves: the copies never overlap, they are retries without backoff (strategies[%d])", where, h.Delay, p.AttemptTimeout, i))
	}
	return ws
}

// sheddingWarnings points out shedding that never sheds: thresholds above
// the queue that they measure, or for classes that no call has.
func sheddingWarnings(sc *Scenario) []string {
	var ws []string
	classes := map[string]map[Class]bool{} // the classes of the calls to each dependency
	for _, st := range sc.Workload.Plan {
		for _, c := range st.Calls {
			if classes[c.Dependency] == nil {
				classes[c.Dependency] = map[Class]bool{}
			}
			classes[c.Dependency][cmp.Or(c.Class, ClassCritical)] = true
		}
	}
	for i, d := range estimateDeps(sc) {
		sh := d.Shedding
		if sh == nil {
			continue
		}
		name, path := cmp.Or(d.Name, singularName), "dependency.shedding"
		if len(sc.Dependencies) > 0 {
			path = fmt.Sprintf("dependencies[%d].shedding", i)
		}
		for _, c := range Classes {
			th, ok := sh.Thresholds[c]
			switch {
			case ok && sh.Measure == ShedQueue && th >= d.QueueCapacity:
				ws = append(ws, fmt.Sprintf("dependency %q: the %q threshold %d is not below the queue capacity %d, so the queue is full, and refuses those calls, before it sheds them (%s)", name, c, th, d.QueueCapacity, path))
			case ok && sh.Measure == ShedLoad && th >= d.QueueCapacity+d.Workers:
				ws = append(ws, fmt.Sprintf("dependency %q: the %q threshold %d is not below the queue capacity and the workers (%d), so the queue is full, and refuses those calls, before it sheds them (%s)", name, c, th, d.QueueCapacity+d.Workers, path))
			}
		}
		called := classes[name]
		if len(sc.Workload.Plan) == 0 {
			called = map[Class]bool{ClassCritical: true}
		}
		var shed []Class
		for _, c := range Classes {
			if _, ok := sh.Thresholds[c]; ok {
				shed = append(shed, c)
			}
		}
		if len(shed) > 0 && !slices.ContainsFunc(shed, func(c Class) bool { return called[c] }) {
			ws = append(ws, fmt.Sprintf("dependency %q: sheds %s, but no call to it has such a class (calls are \"critical\" unless the plan says otherwise), so it never sheds (%s)", name, quoteList(shed), path))
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
	waits = longestWaits(p)
	return time.Duration(p.MaxAttempts)*p.AttemptTimeout.D() + waits, waits, true
}

func phaseLabel(ph *Phase) string {
	switch ph.Kind {
	case PhaseFreeze:
		return "freeze"
	case PhaseOutage:
		if ph.Error != "" {
			return "outage (" + ph.Error + ")"
		}
		return fmt.Sprintf("outage (%d)", cmp.Or(ph.Status, DefaultStatus))
	case PhaseCapacity:
		return fmt.Sprintf("capacity %d workers", ph.Workers)
	case PhaseErrors:
		return fmt.Sprintf("errors %g%%", ph.Rate*100)
	case PhaseLatency:
		return fmt.Sprintf("latency ×%g", ph.Factor)
	case PhaseFlush:
		return "cache flush"
	}
	return string(ph.Kind)
}

// loadLabel names a load phase on charts, when it has no label.
func loadLabel(lp *LoadPhase) string {
	switch lp.Kind {
	case LoadStep:
		if lp.Factor < 1 {
			return fmt.Sprintf("load −%g%%", math.Round((1-lp.Factor)*1000)/10)
		}
		return fmt.Sprintf("load ×%g", lp.Factor)
	case LoadRamp:
		return fmt.Sprintf("ramp to ×%g", lp.Factor)
	case LoadDaily:
		return fmt.Sprintf("daily ±%g%%", math.Round(lp.Amplitude*1000)/10)
	case LoadSpike:
		return fmt.Sprintf("spike +%g/s", lp.Rate)
	case LoadFlash:
		return fmt.Sprintf("flash crowd %s", humanCount(int64(lp.Operations)))
	}
	return string(lp.Kind)
}

// humanCount writes n whole below a million, else in millions or billions
// to one decimal.
func humanCount(n int64) string {
	switch {
	case n >= 999_950_000: // from what would round to "1000.0 million"
		return fmt.Sprintf("%.1f billion", float64(n)/1e9)
	case n >= 1e6:
		return fmt.Sprintf("%.1f million", float64(n)/1e6)
	}
	return fmt.Sprint(n)
}
