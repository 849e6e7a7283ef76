// This file holds a run's cost estimate: the events its simulations are
// expected to process and the numbers its result holds, which decide
// whether Run refuses it before it runs (CheckCost, CostError), and the
// bounds the estimate is made of (operations, attempts, time spans).

package engine

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
)

// A CostError refuses a scenario whose estimated cost is over the caller's
// limit, or, when Processed is set, reports a simulation that the limit
// stopped: its estimate fell short (unlimited attempts, which the estimate
// bounds by the time they have, can make it so). The latter also wraps
// ErrStopped.
type CostError struct {
	Estimate  int64
	Limit     int64
	Processed int64
	// Detail says what the scenario has that its cost comes from, for the
	// advice. Run sets it (CheckCost); a CostError without it advises in
	// general.
	Detail *CostDetail
}

// A CostDetail is what a refused scenario has that makes its cost: what
// its refusal advises to reduce.
type CostDetail struct {
	Sweep, Search bool
	// Unlimited describes each level that retries without limit and whose
	// attempts the estimate counts over the time they have, more than
	// MaxAttempts, with what would bound them.
	Unlimited []string
	// Unbounded, when set, says why nothing bounds the cost: a level that
	// retries without limit with nothing between its attempts that takes
	// time. The estimate is then infinite.
	Unbounded string
}

func (e *CostError) Error() string {
	if e.Processed > 0 {
		return fmt.Sprintf("it processed more than %d events, the limit for this run; a policy with unlimited attempts (max_attempts 0) and no deadline retries a call that keeps failing until this limit stops it: give it a deadline, or reduce the workload",
			e.Limit)
	}
	d := e.Detail
	if d == nil {
		return fmt.Sprintf("the scenario is estimated at %s events (operations × attempts per operation across layers × 3, plus one per network leg of every hop, plus each simulation's set-up: clients, instances and time span; × strategies × runs × sweep values, plus every search candidate on every seed; plus the numbers of the result), over the limit of %s; reduce the workload, attempts, clients, runs, strategies, sweep values or search candidates",
			humanCount(e.Estimate), humanCount(e.Limit))
	}
	if d.Unbounded != "" {
		return "the scenario's cost has no bound: " + d.Unbounded
	}
	times, reduce := "× strategies × runs", []string{"the workload", "attempts", "clients", "runs", "strategies"}
	if d.Sweep {
		times += " × sweep values"
		reduce = append(reduce, "sweep values")
	}
	if d.Search {
		times += ", plus every search candidate on every seed"
		reduce = append(reduce, "search candidates")
	}
	msg := fmt.Sprintf("the scenario is estimated at %s events (operations × attempts per operation across layers × 3, plus one per network leg of every hop, plus each simulation's set-up: clients, instances and time span; %s; plus the numbers of the result), over the limit of %s; ",
		humanCount(e.Estimate), times, humanCount(e.Limit))
	if len(d.Unlimited) > 0 {
		msg += strings.Join(d.Unlimited, "; ") + "; or "
	}
	return msg + "reduce " + strings.Join(reduce[:len(reduce)-1], ", ") + " or " + reduce[len(reduce)-1]
}

// CheckCost refuses a valid scenario estimated above maxEvents (0: no
// limit) with a CostError that says what the scenario has to reduce, as
// Run does before it runs anything.
func CheckCost(sc *Scenario, maxEvents int64) error {
	if est := Estimate(sc); maxEvents > 0 && est > maxEvents {
		return &CostError{Estimate: est, Limit: maxEvents, Detail: costDetail(sc)}
	}
	return nil
}

// costDetail finds what a scenario has that makes its cost, in it and in
// each of its sweep's values.
func costDetail(sc *Scenario) *CostDetail {
	d := &CostDetail{Sweep: sc.Sweep != nil, Search: sc.Search != nil}
	subs := []*Scenario{sc}
	if sc.Sweep != nil {
		subs = nil
		for i := range sc.Sweep.Values {
			if sub, err := sc.withValue(i); err == nil {
				subs = append(subs, sub)
			}
		}
	}
	for _, sub := range subs {
		for _, st := range sub.Strategies {
			for j, p := range append([]Policy{st.Policy}, st.Layers...) {
				if p.MaxAttempts != 0 || p.Budget != nil && !math.IsInf(budgetRetries(p.Budget, 1, 1, 1), 1) {
					// A budget bounds its retries (estimate counts them so).
					continue
				}
				who := fmt.Sprintf("strategy %q", st.Name)
				if j > 0 {
					who += fmt.Sprintf(" layer %d", j)
				}
				c := estimateAttempts(sub, &p)
				var text string
				switch {
				case math.IsInf(c.n, 1):
					if d.Unbounded == "" {
						d.Unbounded = fmt.Sprintf("%s retries without limit (max_attempts 0) and nothing bounds the time between its attempts: no backoff, and an attempt ends as soon as the dependency refuses it (a full queue, an outage), so an operation refused again and again retries at the same instant without end; give it max_attempts, or a backoff", who)
					}
					continue
				case c.n > MaxAttempts:
					fix := "give it max_attempts or a deadline"
					if p.Deadline > 0 || p.MaxElapsed > 0 {
						fix = "give it max_attempts, a shorter deadline or longer waits"
					}
					text = fmt.Sprintf("%s retries without limit (max_attempts 0): counted as up to %d attempts an operation (%s over %s between attempts); %s", who, int64(c.n), c.window, c.step, fix)
				default:
					continue
				}
				if !slices.Contains(d.Unlimited, text) {
					d.Unlimited = append(d.Unlimited, text)
				}
			}
		}
	}
	return d
}

// Estimate returns the approximate cost of a run, in events. For every
// simulation (one strategy on one seed and sweep value) it counts the events
// the simulation processes — operations × the plan's calls (one without a
// plan) × the product of every level's max attempts × 3 events per call,
// plus one event per network leg of the called dependency that takes
// time for every attempt at every level (each is a hop) and two more for
// a contention read when the network takes time, and, for the features
// of several dependencies, a few events more per plan call: its start and
// end in a plan, a wait for a pool slot or a bulkhead, a fallback's
// latency, and a timer and a cancellation for every copy of a hedged
// level (copies count as attempts), taking the costliest strategy for
// all; unlimited attempts count as estimateAttempts says — and the work that does not
// depend on the operations: setting up its clients, instances (with a
// breaker and a budget for every dependency), pools, bulkheads, hedging
// latency windows, dependencies and backends (serversSetup: each backend
// as a dependency, with the phases that hit it, and a warm cache's keys),
// and stepping through the counting bins its virtual time spans. It adds,
// once, the Zipf laws of its caches (cacheSetup), and the numbers the
// result holds (EstimateSize). It overestimates runs where few calls fail.
func Estimate(sc *Scenario) int64 {
	if sc.Sweep != nil {
		// Each value may change the cost: count each one.
		var total int64
		for i := range sc.Sweep.Values {
			sub, err := sc.withValue(i)
			if err != nil {
				return maxEstimate
			}
			total = min(total+estimate(sub, false), maxEstimate) // each at most maxEstimate: no overflow
		}
		return total
	}
	est := estimate(sc, true)
	if sc.Search != nil {
		est = min(est+estimateSearch(sc), maxEstimate)
		est = min(est+capped(estimateSearchSize(sc)), maxEstimate)
	}
	return est
}

func estimate(sc *Scenario, withSeries bool) int64 {
	ops := estimateOps(sc)
	deps := estimateDeps(sc)
	legs := make([]float64, len(deps)) // events per hop for each dependency's network: one per leg that takes time
	for i, dep := range deps {
		if n := dep.Network; n != nil {
			for _, d := range []Delay{n.Request, n.Answer} {
				if compileDelay(&d).on {
					legs[i]++
				}
			}
		}
		if dep.Contention != nil && legs[i] > 0 {
			// The read's two events, request and answer, on every hop (a
			// bound: only the hops to the dependency read); without a
			// network the read takes no event.
			legs[i] += 2
		}
	}
	calls := estimateCalls(sc, deps)
	maxLegs := 0.0
	for _, l := range legs {
		maxLegs = max(maxLegs, l)
	}
	invocations := ops * float64(len(calls)) // level-0 invocations of one simulation
	var span float64
	worst := 1.0 // events per operation, in units of 3
	// Every operation costs at most what the costliest policy's does: a
	// strategy's or, with fleets, a fleet's.
	for _, st := range append(slices.Clone(sc.Strategies), fleetStrategies(&sc.Workload)...) {
		// Every attempt at every level is a hop: a level's attempts are
		// the product of the max attempts down to it. A hedged level's
		// copies are its attempts. A level with unlimited attempts and a
		// retry budget has, over the whole simulation, no more retries
		// than its budget allows (budgetRetries): its attempts per
		// invocation are the fewer of the two counts.
		levels := append([]Policy{st.Policy}, st.Layers...)
		a, hops, copies := 1.0, 0.0, 0.0 // copies of hedged levels, each with a timer and a cancellation
		tokens := 0.0                    // attempts of rate-limited levels, each of which may wait for its token
		conns := 0.0                     // attempts of levels with connection limits, each of which may wait for a connection
		bounded := false
		for i := range levels {
			p := &levels[i]
			n := a * estimateAttempts(sc, p).n
			if p.MaxAttempts == 0 && p.Budget != nil && invocations > 0 && !math.IsInf(invocations, 1) {
				if span == 0 {
					_, span = estimateSpan(sc)
				}
				instances := float64(max(st.Instances, 1))
				if i > 0 {
					instances = float64(max(p.Instances, 1))
				}
				states := instances * float64(len(deps))
				if r := budgetRetries(p.Budget, a*invocations, states, span); r < math.Inf(1) && a+r/invocations < n {
					n, bounded = a+r/invocations, true
				}
			}
			a = n
			hops += a
			if p.Hedging != nil {
				copies += a
			}
			if p.RateLimit != nil {
				tokens += a
			}
			if p.ConnectionLimits != nil {
				conns += a
			}
		}
		bulkheads := map[string]bool{}
		for _, b := range st.Bulkheads {
			bulkheads[b.Dependency] = true
		}
		perOp := 0.0
		for _, c := range calls {
			l := legs[c.dep]
			if bounded {
				// The budget bounds the attempts of all calls together,
				// not of each: count every hop at the costliest network.
				l = maxLegs
			}
			cost := a + l*hops/3
			// A waiting attempt's token event, one more for a wait
			// rounded short (the SDK's waits are truncated to the
			// nanosecond), one each time an answer lowers the rate while
			// it waits (an answer per attempt), and its give-up at the
			// deadline: 4 per attempt. An attempt waiting for a connection
			// has its grant and its give-up at the deadline: 2.
			extra := 2*copies + 4*tokens + 2*conns
			if len(sc.Workload.Plan) > 0 {
				extra += 2 // the call's start and end in its step
			}
			if st.Pool != nil {
				extra += 2 // a wait for a slot, and its time-out
			}
			if bulkheads[c.name] {
				extra += 2
			}
			if fallbackOf(&st, c) > 0 {
				extra++
			}
			if extra > 0 {
				cost += extra / 3
			}
			perOp += cost
		}
		worst = max(worst, perOp)
	}
	sims := float64(max(len(sc.Seeds), sc.Runs, 1)) * float64(max(len(sc.Strategies), 1))
	est := (ops*worst*3+setupCost(sc))*sims + cacheSetup(sc) + estimateSize(sc, withSeries)
	return min(capped(est)+1, maxEstimate)
}

// setupCost is the work of one simulation that does not depend on its
// operations, in events (about 125 ns each natively), as measured: a fixed
// part for its allocations and summary, a client's slot, an instance's
// budget and breaker, and a counting bin stepped through. With several
// dependencies, an instance has a budget and a breaker for each, and each
// dependency is set up as the first is (a fixed part and its workers); a
// level-0 instance's pool and bulkheads count as a budget does, and a
// hedged level's latency window as clients do, for every plan call.
func setupCost(sc *Scenario) float64 {
	deps := float64(max(len(sc.Dependencies), 1))
	calls := float64(max(len(estimateCalls(sc, estimateDeps(sc))), 1))
	instances, windows := 0.0, 0.0
	clients := float64(sc.Workload.Clients)
	fleets := 0.0 // the fleets' instances, in every simulation beside the strategy's
	for _, st := range fleetStrategies(&sc.Workload) {
		n := float64(max(st.Instances, 1))
		for _, l := range st.Layers {
			n += float64(max(l.Instances, 1))
		}
		fleets += n * deps
	}
	for _, f := range sc.Workload.Fleets {
		clients += float64(f.Clients)
	}
	for _, st := range sc.Strategies {
		n := float64(max(st.Instances, 1))
		for _, l := range st.Layers {
			n += float64(max(l.Instances, 1))
		}
		if deps > 1 {
			n *= deps
		}
		pools := len(st.Bulkheads)
		if st.Pool != nil {
			pools++
		}
		n += float64(max(st.Instances, 1) * pools)
		instances = max(instances, n)
		w := 0.0
		for _, l := range append([]Policy{st.Policy}, st.Layers...) {
			if h := l.Hedging; h != nil && h.DelayPercentile > 0 {
				w += float64(max(l.Instances, 1)) * float64(cmp.Or(h.Window, 1000)) * calls
			}
		}
		windows = max(windows, w)
	}
	extra := windows / 16
	if len(sc.Dependencies) > 1 {
		for _, d := range sc.Dependencies {
			_, most := autoscaleBounds(&d)
			extra += 1000 + float64(most)/16
		}
	}
	extra += autoscaleSamples(sc)
	for _, d := range estimateDeps(sc) {
		extra += serversSetup(d)
	}
	return 1000 + clients/16 + 2*(instances+fleets) + estimateBins(sc) + extra
}

// serversSetup is the work of one simulation that dependency d's backends
// and cache add, in events: each backend is set up as a dependency is (a
// fixed part and its workers, at most its autoscaler's) and steps through
// the phases that hit it, a start and an end each (the dependency itself
// only counts once), as many backends as it may have (with an autoscaler
// over backends, its max); a warm cache puts its keys, as many as it
// holds, at the start of every simulation (about half an event each, as
// measured: counted as one).
func serversSetup(d *Dependency) float64 {
	n := 0.0
	if b := d.Backends; b != nil {
		_, most := autoscaleBounds(d)
		for k := range min(backendSlots(d), MaxBackends) {
			n += 1000 + float64(most)/16
			for i := range d.Phases {
				if d.Phases[i].hits(k, b.Count) {
					n += 2
				}
			}
		}
	}
	if c := d.Cache; c != nil && c.Warm {
		n += float64(min(c.Capacity, c.Keys.Count))
	}
	return n
}

// cacheSetup is the work of a run, once for all its simulations, that its
// caches' popularity laws take: a Zipf law's cumulative probabilities,
// one logarithm and one exponential for every key (about a fifth of an
// event each, as measured: counted as a quarter).
func cacheSetup(sc *Scenario) float64 {
	n := 0.0
	for _, d := range estimateDeps(sc) {
		if c := d.Cache; c != nil && c.Keys.Law == KeysZipf {
			n += float64(c.Keys.Count) / 4
		}
	}
	return n
}

// estimateDeps returns the scenario's dependencies: the one, or the list.
func estimateDeps(sc *Scenario) []*Dependency {
	if len(sc.Dependencies) == 0 {
		return []*Dependency{&sc.Dependency}
	}
	ds := make([]*Dependency, len(sc.Dependencies))
	for i := range sc.Dependencies {
		ds[i] = &sc.Dependencies[i]
	}
	return ds
}

// An estimateCall is a plan call as the estimates see it.
type estimateCall struct {
	step int    // the step it belongs to
	dep  int    // its dependency, an index in estimateDeps
	name string // its dependency's name
	call string // its own name
}

// fallbackOf returns the latency of strategy st's fallback for call c, in
// nanoseconds, or -1 when it has none.
func fallbackOf(st *Strategy, c estimateCall) float64 {
	for _, f := range st.Fallbacks {
		if f.Call == c.call {
			return max(0, float64(f.Latency))
		}
	}
	return -1
}

// estimateCalls returns the calls of the plan, in order, or, without a
// plan, the one call to the first dependency. A call to no dependency (the
// scenario is not valid) counts as one to the first.
func estimateCalls(sc *Scenario, deps []*Dependency) []estimateCall {
	name := func(i int) string {
		if len(sc.Dependencies) == 0 {
			return cmp.Or(deps[i].Name, singularName)
		}
		return deps[i].Name
	}
	if len(sc.Workload.Plan) == 0 {
		return []estimateCall{{name: name(0), call: name(0)}}
	}
	index := make(map[string]int, len(deps))
	for j := len(deps) - 1; j >= 0; j-- {
		index[name(j)] = j // the first of a name
	}
	var calls []estimateCall
	for i, st := range sc.Workload.Plan {
		for _, c := range st.Calls {
			ec := estimateCall{step: i, name: c.Dependency, dep: index[c.Dependency], call: cmp.Or(c.Name, c.Dependency)}
			calls = append(calls, ec)
		}
	}
	return calls
}

// EstimateSize returns about how many numbers the result of a run holds:
// per strategy (and sweep value), its metrics, their spread over runs, its
// peaks and breaker transitions, the metrics of each plan call when the
// plan makes several, and, for a scenario without a sweep, its
// time series: buckets × 9 series, plus two per window of every fine
// resolution kept, plus, with several plan calls or a pool, the slots in
// use and three series per plan call; and the phases of several
// dependencies. In memory a series number takes 4 bytes, others 8 to 16;
// encoded, from 2 to 12.
func EstimateSize(sc *Scenario) int64 {
	if sc.Sweep != nil {
		var total float64
		for i := range sc.Sweep.Values {
			sub, err := sc.withValue(i)
			if err != nil {
				return maxEstimate
			}
			total += estimateSize(sub, false)
		}
		return capped(total)
	}
	size := estimateSize(sc, true)
	if sc.Search != nil {
		size += estimateSearchSize(sc)
	}
	return capped(size)
}

func estimateSize(sc *Scenario, withSeries bool) float64 {
	per := 3 * 80.0 // metrics, and their minimum and maximum over runs
	resolutions := []int64{int64(10 * time.Millisecond), int64(100 * time.Millisecond), int64(time.Second)}
	for _, d := range sc.Report.PeakResolutions {
		if !slices.Contains(resolutions, int64(d)) {
			resolutions = append(resolutions, int64(d))
		}
	}
	per += 3 * float64(len(resolutions))
	breakers := false
	for _, st := range sc.Strategies {
		breakers = breakers || st.Breaker != nil || slices.ContainsFunc(st.Layers, func(p Policy) bool { return p.Breaker != nil })
	}
	if breakers {
		per += 4 * 1000 // transitions, at most 1,000 kept
	}
	scaled := 0.0 // autoscaled dependencies
	for _, d := range estimateDeps(sc) {
		if d.Autoscale != nil {
			scaled++
		}
	}
	if scaled > 0 {
		per += 5 * maxScaling // scaling events, at most 1,000 kept
	}
	calls := float64(len(estimateCalls(sc, estimateDeps(sc))))
	if calls > 1 {
		per += calls * 3 * 20 // a call's metrics, and their minimum and maximum over runs
	}
	if withSeries {
		lo, hi := estimateSpan(sc)
		base0 := modelBase(sc)
		n := 601.0 // chooseBucket's 1-2-5 widths give at most 600 buckets
		if b := float64(sc.Report.SeriesBucket); b > 0 {
			n = min(math.Ceil(hi/b), maxBins) // a bucket is at least series_bucket
		}
		per += (9 + 2*scaled) * n // and each autoscaled dependency's workers
		// A fine series at r is kept when the run's bins, coarsened to fit
		// its span, still divide r and the span has at most 20,000 windows
		// of r. Over the spans the run may have, from lo to hi, the most
		// windows are at the longest span that keeps it.
		for _, r := range resolutions {
			if r%base0 != 0 {
				continue
			}
			base := base0
			for r%(2*base) == 0 {
				base *= 2
			}
			if longest := min(hi, 20000*float64(r), maxBins*float64(base)); longest >= lo {
				per += 2 * math.Ceil(longest/float64(r))
			}
		}
		if calls > 1 || slices.ContainsFunc(sc.Strategies, func(st Strategy) bool { return st.Pool != nil }) {
			per += (1 + 3*calls) * n // slots in use, and each call's attempts, successes and failures
		}
	}
	phases := 0.0 // the result's, once; those of one dependency fit in the margin
	if len(sc.Dependencies) > 1 {
		for _, d := range sc.Dependencies {
			phases += 2 * float64(len(d.Phases))
		}
	}
	return per*float64(max(len(sc.Strategies), 1)) + phases
}

// Size returns how many numbers the result holds, counted as EstimateSize
// counts them, so that a caller can hold results to a budget.
func (r *Result) Size() int64 {
	n := int64(len(r.Seeds) + len(r.Phases)*2)
	strategies := func(ss []StrategyResult) {
		for i := range ss {
			st := &ss[i]
			n += 80 + 2*int64(len(st.Spread)) + 3*int64(len(st.Peaks)) + int64(len(st.LayerAttempts)+len(st.LayerRetries)+len(st.LayerRetriesDenied)) + 4*int64(len(st.Transitions)) + 5*int64(len(st.Scaling))
			if se := st.Series; se != nil {
				n += int64(len(se.Attempts) + len(se.Retries) + len(se.Successes) + len(se.Failures) + len(se.Rejections) +
					len(se.FastFailed) + len(se.QueueLength) + len(se.InFlight) + len(se.BreakerState))
				for _, w := range se.Workers {
					n += int64(len(w.Serving) + len(w.Target))
				}
				for _, f := range se.Fine {
					n += int64(len(f.Attempts) + len(f.Retries))
				}
			}
		}
	}
	strategies(r.Strategies)
	for _, p := range r.Sweep {
		strategies(p.Strategies)
	}
	return n
}

// estimateBins returns about how many counting bins one simulation fills:
// its span at the model's bin width, at most maxBins.
func estimateBins(sc *Scenario) float64 {
	_, hi := estimateSpan(sc)
	return min(math.Ceil(hi/float64(modelBase(sc)))+1, maxBins)
}

// modelBase is the width of a simulation's counting bins before any
// coarsening: compile sets it, and the estimates use it.
func modelBase(sc *Scenario) int64 {
	base := int64(10 * time.Millisecond)
	for _, d := range sc.Report.PeakResolutions {
		base = gcd(base, int64(d))
	}
	if sc.Report.SeriesBucket != 0 {
		base = gcd(base, int64(sc.Report.SeriesBucket))
	}
	return max(base, int64(time.Millisecond))
}

// estimateSpan returns bounds on how long a simulation runs in virtual
// time, in nanoseconds. It runs at least until arrivals stop (lo, less ten
// mean gaps for random arrivals), and at most until then and the phases
// release the calls they hold, plus as long as the slowest strategy's
// invocation can last and the queue takes to drain (hi).
func estimateSpan(sc *Scenario) (lo, hi float64) {
	w := &sc.Workload
	end := lastArrival(sc)
	lo = end
	if w.Arrival != ArrivalBurst && w.Arrival != ArrivalClosed && w.Arrival != ArrivalUniform {
		rate := w.totalRate()
		lo = max(0, end-10e9/max(rate, 1e-9))
	}
	// A simulation ends with its last event: phases and report times after
	// the last operation do not lengthen it, but a freeze holds the calls
	// that arrive during it until it ends.
	hold := 0.0 // the longest of any dependency
	for _, d := range estimateDeps(sc) {
		for _, ph := range d.Phases {
			switch ph.Kind {
			case PhaseOutage, PhaseErrors:
				hold = max(hold, float64(ph.Latency))
			case PhaseFreeze:
				if float64(ph.From) <= end {
					hold = max(hold, float64(ph.To)-end)
				}
			}
		}
	}
	ops, drain, rtt := operationBounds(sc)
	longest := 0.0
	for _, op := range ops {
		longest = max(longest, op)
	}
	return lo, end + hold + longest + drain + rtt
}

// operationBounds returns how long an operation of each of sc's
// strategies can last (estimateOperation), and the longest any
// dependency's queue takes to drain and any hop's round trip, in
// nanoseconds. The span bound and recovery's judged span (see
// recoveryCounts) both take them from here.
func operationBounds(sc *Scenario) (ops []float64, drain, rtt float64) {
	deps := estimateDeps(sc)
	drains, rtts := make([]float64, len(deps)), make([]float64, len(deps))
	for i, d := range deps {
		factor := 1.0
		for _, ph := range d.Phases {
			if ph.Kind == PhaseLatency {
				factor = max(factor, ph.Factor)
			}
		}
		st := d.ServiceTime
		service := float64(st.Mean)
		switch st.Kind {
		case ServiceExponential:
			service *= 10 // the tail of the longest of many draws
		case ServiceLognormal:
			service = 2 * float64(st.P99)
		}
		service *= factor
		if l := d.LoadLatency; l != nil {
			service *= cmp.Or(l.MaxFactor, DefaultLoadLatencyMax)
		}
		least, _ := autoscaleBounds(d) // an autoscaler may leave it fewer
		workers := float64(max(least, 1))
		drains[i] = (float64(d.QueueCapacity)/workers + 1) * service
		// A scripted answer takes its latency instead.
		drains[i] = max(drains[i], scriptLatency(d.Script))
		// The longest round trip of a hop.
		if n := d.Network; n != nil {
			rtts[i] = travelBound(&n.Request) + travelBound(&n.Answer)
		}
		if d.Contention != nil {
			rtts[i] *= 2 // the read's round trip before the write's
		}
		drain, rtt = max(drain, drains[i]), max(rtt, rtts[i])
	}
	calls := estimateCalls(sc, deps)
	// The strategies', then the fleets' (which the span bound needs too).
	all := append(slices.Clone(sc.Strategies), fleetStrategies(&sc.Workload)...)
	ops = make([]float64, len(all))
	for i := range all {
		ops[i] = estimateOperation(&all[i], calls, drains, rtts)
	}
	return ops, drain, rtt
}

// fleetStrategies returns the workload's fleets as strategies of their
// policies, for the estimates.
func fleetStrategies(w *Workload) []Strategy {
	var out []Strategy
	for _, f := range w.Fleets {
		out = append(out, Strategy{Name: f.Name, Policy: f.Policy, Layers: f.Layers})
	}
	return out
}

// totalRate returns the workload's operations per second in all: its own
// clients' and, with fleets, every fleet's.
func (w *Workload) totalRate() float64 {
	rate := w.Rate
	if rate == 0 {
		rate = w.RatePerClient * float64(w.Clients)
	}
	for _, f := range w.Fleets {
		if f.RatePerClient != 0 {
			rate += f.RatePerClient * float64(f.Clients)
		} else {
			rate += f.Rate
		}
	}
	return rate
}

// scriptLatency returns the longest latency of a script's answers, in
// nanoseconds; 0 without a script.
func scriptLatency(sc *Script) float64 {
	var longest Duration
	if sc == nil {
		return 0
	}
	for _, a := range sc.Answers {
		longest = max(longest, a.Latency)
	}
	for _, as := range sc.Operations {
		for _, a := range as {
			longest = max(longest, a.Latency)
		}
	}
	return float64(longest)
}

// estimateOperation bounds how long an operation of strategy st can last:
// its plan's steps one after the other, each as long as its longest call.
// A call waits for a pool slot and a bulkhead (each as long as max_wait, or
// for every call ahead of it in line to end, slots at a time), then makes
// its invocation, then may fall back.
func estimateOperation(st *Strategy, calls []estimateCall, drains, rtts []float64) float64 {
	levels := append([]Policy{st.Policy}, st.Layers...)
	times := make([]float64, len(calls)) // each call's, without the wait for a pool slot
	longest := make([]float64, len(drains))
	for i, c := range calls {
		times[i] = invocationTime(levels, drains[c.dep], rtts[c.dep])
		if f := fallbackOf(st, c); f > 0 {
			times[i] += f
		}
		longest[c.dep] = max(longest[c.dep], times[i]) // the longest a call holds its bulkhead
	}
	bulkheads := map[string]*Bulkhead{}
	for i := range st.Bulkheads {
		if b := &st.Bulkheads[i]; b.MaxWaiting > 0 {
			bulkheads[b.Dependency] = b
		}
	}
	held := 0.0 // the longest a call holds a pool slot
	for i, c := range calls {
		if b := bulkheads[c.name]; b != nil {
			times[i] += estimateWait(b.MaxWaiting, b.MaxConcurrent, b.MaxWait, longest[c.dep])
		}
		held = max(held, times[i])
	}
	wait := 0.0
	if p := st.Pool; p != nil && p.MaxWaiting > 0 {
		wait = estimateWait(p.MaxWaiting, p.Slots, p.MaxWait, held)
	}
	total, step := 0.0, 0.0
	for i, c := range calls {
		if i > 0 && c.step != calls[i-1].step {
			total, step = total+step, 0
		}
		if wait > 0 {
			step = max(step, wait+times[i])
		} else {
			step = max(step, times[i])
		}
	}
	return total + step
}

// estimateWait bounds a wait in a line of at most waiting calls for one of
// slots, each held at most held, cut at maxWait when it is set.
func estimateWait(waiting, slots int, maxWait Duration, held float64) float64 {
	w := (float64(waiting)/float64(max(slots, 1)) + 1) * held
	if maxWait > 0 {
		w = min(w, float64(maxWait))
	}
	return w
}

// travelBound bounds one leg's travel time as the span bound does service
// times: the mean, six standard deviations above it, or twice the p99.
func travelBound(d *Delay) float64 {
	switch d.Kind {
	case DelayNormal:
		return float64(d.Mean) + 6*float64(d.Stddev)
	case DelayLognormal:
		return 2 * float64(d.P99)
	}
	return float64(d.Mean)
}

// invocationTime bounds how long an invocation of levels[0] (with the
// levels below it) can last when every attempt waits for the dependency's
// queue to drain (drain) and every hop takes the longest round trip (rtt).
func invocationTime(levels []Policy, drain, rtt float64) float64 {
	p := &levels[0]
	attempt := drain
	if len(levels) > 1 {
		attempt = invocationTime(levels[1:], drain, rtt)
	}
	attempt += rtt
	if p.AttemptTimeout > 0 {
		attempt = min(attempt, float64(p.AttemptTimeout))
	}
	total := float64(attemptsBound(p))*attempt + float64(longestWaits(p))
	if p.Deadline > 0 {
		total = min(total, float64(p.Deadline))
	}
	return total
}

// An attemptCount is how many attempts an operation makes at one level
// of a strategy, as the cost estimate counts them.
type attemptCount struct {
	n float64 // math.Inf(1): nothing bounds them
	// For unlimited attempts: what bounds their time, and the shortest
	// time from one attempt's start to the next's.
	window string
	step   time.Duration
}

// budgetRetries bounds the retries that budget b allows over a whole
// simulation whose level makes firsts first attempts (invocations) in all,
// shared among states budgets (its instances × dependencies), over span
// nanoseconds of virtual time; +Inf when the budget bounds nothing (a
// concurrency budget, a token bucket refilled as fast as it is charged).
//
// A ratio budget with a window W allows a retry at t only while the
// retries in the window ending at t are within Ratio of the first
// attempts in it plus the reserve: cut the span into consecutive pieces W
// long, the retries of each piece are all in the window of its last retry,
// whose first attempts lie in that piece and the one before it. So the
// retries are at most 2 × Ratio × firsts plus one reserve per piece and
// state (with slices, Ratio is 1000/⌊1000/Ratio⌋, what a withdrawal
// rounds it to, and a window of n slices reaches back at most W). Without
// a window the ratio is of all first attempts since the start. A token
// bucket lets a retry spend its cost only from tokens above its threshold
// (taken as 0 here: more tokens, a larger bound): its retries spend at most
// MaxTokens per state plus what successes add, TokenRatio each (at most
// one per attempt), and a refund gives back at most one retry's cost per
// invocation.
func budgetRetries(b *Budget, firsts, states, span float64) float64 {
	switch b.Kind {
	case BudgetRatio:
		ratio := b.Ratio
		if b.Slices > 0 {
			if w := math.Floor(sliceDeposit / b.Ratio); w > 0 {
				ratio = sliceDeposit / w
			}
		}
		if b.Window <= 0 {
			if b.Slices > 0 {
				return math.Inf(1)
			}
			return ratio*firsts + 1
		}
		window := float64(b.Window)
		pieces := math.Ceil(span/window) + 1
		reserve := math.Ceil(b.MinPerSecond*Duration(b.Window).D().Seconds()) + 1
		return 2*ratio*firsts + pieces*states*reserve
	case BudgetTokenBucket:
		cost := cmp.Or(b.FailureCost, 1)
		most := cost
		for _, c := range []float64{b.ThrottleCost, b.TimeoutCost} {
			if c > 0 {
				cost, most = min(cost, c), max(most, c)
			}
		}
		gain := b.TokenRatio
		if cost <= gain || cost <= 0 {
			return math.Inf(1)
		}
		spend := states*b.MaxTokens + gain*firsts
		if b.Refund {
			return firsts + (spend+most*firsts)/(cost-gain)
		}
		return spend/(cost-gain) + 1
	}
	return math.Inf(1)
}

// estimateAttempts counts the attempts of level p. Unlimited attempts
// (max_attempts 0) are counted as MaxAttempts, or as many as fit in the
// time they have, if more: the deadline or max_elapsed, else the
// workload's arrivals (an operation may retry as long as the incident
// lasts), from one attempt's start to the next the shortest an attempt
// takes (a refusal answered at once takes only the network's round trip,
// each leg counted as its mean less three standard deviations; the
// attempt time-out if shorter) plus the backoff's wait before that retry,
// at the middle of its jitter's range (over many retries the waits add up
// to about their mean; the shortest a jitter allows, 0 for full jitter,
// would find no bound for every policy with full jitter). When both are 0,
// with no backoff, nothing bounds them: the count is infinite.
func estimateAttempts(sc *Scenario, p *Policy) attemptCount {
	if p.MaxAttempts > 0 {
		return attemptCount{n: float64(p.MaxAttempts)}
	}
	var window time.Duration
	var what string
	switch {
	case p.Deadline > 0 && (p.MaxElapsed == 0 || p.Deadline <= p.MaxElapsed):
		window, what = p.Deadline.D(), fmt.Sprintf("its deadline of %s", p.Deadline)
	case p.MaxElapsed > 0:
		window, what = p.MaxElapsed.D(), fmt.Sprintf("its max_elapsed of %s", p.MaxElapsed)
	default:
		// Operations keep retrying while a fault lasts, and arrive until
		// the workload ends: the later of the two.
		window = time.Duration(max(lastArrival(sc), float64(phasesEnd(sc))))
		what = fmt.Sprintf("the %s to the end of its arrivals and faults", window)
	}
	attempt := math.Inf(1)
	for _, d := range estimateDeps(sc) {
		rtt := 0.0
		if n := d.Network; n != nil {
			rtt = travelFloor(&n.Request) + travelFloor(&n.Answer)
		}
		attempt = min(attempt, rtt)
	}
	if p.AttemptTimeout > 0 {
		attempt = min(attempt, float64(p.AttemptTimeout))
	}
	w := compileWait(p)
	var t, last, prev int64 = 0, -1, 0
	n := 1.0
	for k := int64(1); ; k++ {
		d := w.wait(k, prev, 0.5)
		prev = d
		step := attempt + float64(d)
		if step <= 0 {
			return attemptCount{n: math.Inf(1), window: what}
		}
		// From here on every step is as long (the wait no longer grows),
		// or the count would take too long to walk: the steps left, at
		// this one's length, bound it.
		if d == last || k > 1<<16 {
			n += math.Floor(float64(int64(window)-t) / step)
			return attemptCount{n: max(n, MaxAttempts), window: what, step: time.Duration(step)}
		}
		last = d
		if float64(t)+step > float64(window) {
			return attemptCount{n: max(n, MaxAttempts), window: what, step: time.Duration(step)}
		}
		t += int64(step)
		n++
	}
}

// phasesEnd returns when the last phase of any dependency ends, in
// nanoseconds (0 without phases).
func phasesEnd(sc *Scenario) int64 {
	var end int64
	for _, d := range estimateDeps(sc) {
		for _, ph := range d.Phases {
			end = max(end, int64(ph.To))
		}
	}
	return end
}

// lastArrival returns when the workload's last operation starts at the
// latest, in nanoseconds: the end of its duration, or of its operations at
// its rate, or the burst's time.
func lastArrival(sc *Scenario) float64 {
	w := &sc.Workload
	end := float64(w.Duration)
	switch w.Arrival {
	case ArrivalBurst:
		end = float64(w.BurstAt)
	case ArrivalClosed:
	default:
		rate := w.totalRate()
		rate = max(rate, 1e-9)
		// With load phases the rate changes: the operations may last the whole duration.
		if w.Operations > 0 && len(w.Load) == 0 && (w.Duration == 0 || float64(w.Operations)/rate*1e9 < end) {
			end = float64(w.Operations) / rate * 1e9
		}
	}
	return end
}

// travelFloor is the shortest one leg's travel is counted as: the mean,
// less three standard deviations (not below 0), or a lognormal's three
// below its median.
func travelFloor(d *Delay) float64 {
	switch d.Kind {
	case DelayNormal:
		return max(0, float64(d.Mean)-3*float64(d.Stddev))
	case DelayLognormal:
		mu, sigma := lognormalFit(d.P50, d.P99)
		return exp(mu - 3*sigma)
	}
	return float64(d.Mean)
}

// estimateOps returns about how many operations one run starts.
func estimateOps(sc *Scenario) float64 {
	w := &sc.Workload
	var ops float64
	switch w.Arrival {
	case ArrivalBurst:
		ops = float64(w.Clients)
	case ArrivalClosed:
		// A client whose calls fail at once cycles every think time.
		cycle := max(float64(w.ThinkTime), float64(time.Millisecond))
		ops = float64(w.Clients) * float64(w.Duration) / cycle
	default:
		rate := w.totalRate()
		ops = rate * w.Duration.D().Seconds()
		if w.Duration == 0 {
			ops = math.Inf(1)
		}
		if len(w.Load) > 0 {
			ops = loadOperations(w, rate)
		}
	}
	if w.Operations > 0 {
		ops = min(ops, float64(w.Operations))
	}
	return ops
}

// maxEstimate is the most an estimate says, in events or numbers: half
// the largest int64, so that two estimates add up without overflow.
const maxEstimate = math.MaxInt64 / 2

// capped returns f as an int64, maxEstimate when f is that large or more
// (the constant is 2⁶² as a float64, one past it as an int64), or NaN.
func capped(f float64) int64 {
	if !(f < maxEstimate) {
		return maxEstimate
	}
	return int64(f)
}

// IsCost reports whether err refuses a scenario for its cost.
func IsCost(err error) bool {
	var ce *CostError
	return errors.As(err, &ce)
}

// attemptsBound returns p's max attempts, or MaxAttempts when they are
// unlimited (0): the cap the cost estimate and the span bound assume.
func attemptsBound(p *Policy) int {
	if p.MaxAttempts == 0 {
		return MaxAttempts
	}
	return p.MaxAttempts
}

// longestWaits returns the sum of the longest waits before each retry of p
// that its backoff and jitter allow.
func longestWaits(p *Policy) time.Duration {
	w := compileWait(p)
	w.base = max(w.base, w.throttleBase) // the longer base bounds both
	var sum, prev int64
	for n := int64(1); n < int64(attemptsBound(p)); n++ {
		prev = w.wait(n, prev, 1)
		sum += prev
	}
	return time.Duration(sum)
}
