package engine

import (
	"cmp"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Outcomes of an attempt besides HTTP statuses.
const (
	outOK          int16 = 200
	outTimeout     int16 = -1 // the caller's attempt timeout or deadline passed
	outConnection  int16 = -2 // connection refused or reset
	outBreakerOpen int16 = -3 // failed fast by an open circuit breaker
	outUnreadable  int16 = -4 // a message the consumer cannot parse
	outRejected    int16 = -5 // refused by the client's pool or a bulkhead
	outThrottled   int16 = -6 // rejected locally by the client-side throttle
)

// overflowStatus is the answer of an attempt that overflowed its level's
// connection limits: Envoy's local 503.
const overflowStatus = 503

// Why an operation (or an inner invocation) ended without success.
const (
	reasonNone uint8 = iota
	reasonAttempts
	reasonDeadline
	reasonBudget
	reasonBreaker
	reasonNotRetryable
	reasonNonIdempotent
	reasonUnreadable
	reasonPool     // the client's pool refused the call
	reasonBulkhead // a bulkhead refused the call
	reasonThrottle // the client-side throttle rejected an attempt
	reasonOverflow // an attempt overflowed its level's connection limits
	numReasons
)

// Why a pool or a bulkhead refused a call, indexing counters.Limited.
const (
	rejPoolFull = iota
	rejPoolTimeout
	rejBulkheadFull
	rejBulkheadTimeout
	numRejections
)

// Defaults of fields left zero. compile applies them, and only compile;
// descriptions may quote them.
const (
	// DefaultStatus is the dependency's answer when it fails and the
	// scenario names no status: queue_full_status, error_status,
	// load_errors.status and the status of outage and errors phases.
	DefaultStatus = 503
	// DefaultMultiplier is the multiplier of exponential backoff.
	DefaultMultiplier = 2.0
	// DefaultFraction is the fraction of proportional jitter.
	DefaultFraction = 0.2
	// DefaultFailureCost is the tokens a failed attempt costs a token bucket.
	DefaultFailureCost = 1.0
	// DefaultThrottleK is a client-side throttle's K: the Google SRE book's
	// 2 ("Handling Overload").
	DefaultThrottleK = 2.0
	// DefaultThrottleWindow is the window a client-side throttle counts
	// requests and accepts over: the book's two minutes.
	DefaultThrottleWindow = Duration(2 * time.Minute)
	// DefaultHalfOpenCalls is the number of a half-open breaker's trial calls.
	DefaultHalfOpenCalls = 1
	// DefaultLoadWindow is the window over which load_errors counts the load.
	DefaultLoadWindow = Duration(time.Second)
)

const never = math.MaxInt64

// model is a validated scenario compiled for the simulator: defaults applied,
// durations in integer nanoseconds, names turned into small integers.
type model struct {
	sc       *Scenario
	work     workModel
	deps     []depModel // the dependencies, over depArray; a scenario with one has one
	depArray *[maxDeps]depModel
	// servers are what serves calls, over depArray: the dependencies,
	// then the backends of those with backends (see Backends).
	servers    []depModel
	calls      []planCallModel // the plan's calls, step after step
	steps      []int           // the index in calls of each step's first call, and len(calls) last
	strategies []strategyModel
	seeds      []uint64
	fleets     []string // with fleets: their names, the workload's own clients first
	cached     bool     // a dependency has a cache: the run counts its hits and misses
	concurrent bool     // a dependency has a concurrency limit

	affectedFrom, affectedTo int64 // operation start times counted as affected
	faultEnd                 int64 // end of the last phase; 0 when there is none
	base                     int64 // width of the counting bins behind every series and peak
	resolutions              []int64
	seriesBucket             int64   // 0: chosen after the run
	callsPerOp               float64 // the calls an operation makes, on average: the shares of the plan's calls added up
	// firstLoad makes load_errors count the first attempts only, not
	// the retries (Tuning.FirstLoad).
	firstLoad bool
	// segment, when set, counts the operations started in the affected
	// window by segments of this width (Tuning.Segment).
	segment int64
}

type workModel struct {
	arrival    ArrivalKind
	clients    int
	rate       float64 // total operations per second (open loop)
	think      int64
	burstAt    int64
	duration   int64
	operations int // 0: no limit
	mix        Mix
	// cut, when set, changes an open-loop workload's rate to cutRate
	// from cutAt on (Tuning.CutPercent).
	cut     bool
	cutAt   int64
	cutRate float64
	// load is the workload's load phases: the rate changes over time.
	load []loadPhase
	// With fleets: fleetCum[f] is the share of arrivals of fleets 0..f
	// (fleet 0 the workload's own clients), fleetFirst[f] fleet f's first
	// client and fleetClients[f] its number of clients; rate and clients
	// are then every fleet's together. nil without fleets.
	fleetCum     []float64
	fleetFirst   []int32
	fleetClients []int
}

// fleetOf returns the fleet of client c (0 without fleets).
func (w *workModel) fleetOf(c int32) uint8 {
	f := 0
	for f+1 < len(w.fleetFirst) && c >= w.fleetFirst[f+1] {
		f++
	}
	return uint8(f)
}

type depModel struct {
	name           string
	bal            *balancerModel // nil: the dependency serves its calls itself, without backends
	workers        int
	queueCap       int
	fullStatus     int16
	dropAbandoned  bool
	errorRate      float64
	errorStatus    int16
	service        Distribution
	mean           float64 // ns
	mu, sigma      float64 // lognormal, in ln(ns)
	loadErrors     bool
	loadWindow     int64
	loadStatus     int16
	loadPoints     []LoadPoint
	retryAfterTime int64
	phases         []phaseModel
	net            [2]delayModel // legRequest, legAnswer
	contention     bool          // calls read a version, then write if it is unchanged
	conflictStatus int16
	shedding       bool
	shedLoad       bool            // the measure counts requests in service too
	shedAt         [numClasses]int // by class (index in Classes): the threshold, -1 for none
	shedStatus     int16
	script         *scriptModel      // nil: calls are served
	loadLatency    *loadLatencyModel // nil: service times do not grow with load
	overload       *overloadModel    // nil: a FIFO queue and no rate limiter
	autoscale      *autoscaleModel   // nil: the workers change only by capacity phases
	cache          *cacheModel       // nil: no cache in front of it
	// The table last, so that the fields above, read by every call,
	// share a few cache lines.
	retryAfter [600]bool
}

// A scriptModel is a dependency's script, compiled: answers (per run)
// or operations (per operation), each answer's status an outcome.
type scriptModel struct {
	answers    []answerModel
	operations [][]answerModel
	then       ScriptThen
}

type answerModel struct {
	status  int16
	latency int64
}

// pick returns the answer at index k of list, or false when the call is
// to be served: the list has run out and then is "serve", or it is empty.
func (sm *scriptModel) pick(list []answerModel, k uint64) (answerModel, bool) {
	n := uint64(len(list))
	switch {
	case k < n:
		return list[k], true
	case n == 0 || sm.then == ThenServe:
		return answerModel{}, false
	case sm.then == ThenRepeat:
		return list[k%n], true
	}
	return list[n-1], true
}

func compileAnswers(as []Answer) []answerModel {
	ms := make([]answerModel, len(as))
	for i, a := range as {
		ms[i] = answerModel{status: int16(a.Status), latency: int64(a.Latency)}
		if a.Error == "connection" {
			ms[i].status = outConnection
		}
	}
	return ms
}

// numClasses is len(Classes): the simulation numbers classes by their index there.
const numClasses = 4

// maxDeps bounds the dependencies of a scenario (MaxDependencies). A power
// of two: the simulation masks indexes with maxDeps-1 instead of checking
// their bounds.
const maxDeps = 16

// A planCallModel is one call of the plan, compiled.
type planCallModel struct {
	name  string
	dep   uint8
	class uint8   // index in Classes
	share float64 // the probability that an operation makes the call
}

// A limitModel is a pool or a bulkhead, compiled; slots 0 means none.
type limitModel struct {
	slots, maxWaiting int
	maxWait           int64
}

// The legs of a hop.
const (
	legRequest = iota
	legAnswer
)

// A delayModel is one leg of the network, compiled. A leg that always takes
// no time is off, and the simulation then schedules nothing for it.
type delayModel struct {
	on        bool
	kind      DelayKind
	mean, sd  float64 // ns
	mu, sigma float64 // lognormal, in ln(ns)
}

func compileDelay(d *Delay) delayModel {
	m := delayModel{kind: d.Kind, mean: float64(d.Mean), sd: float64(d.Stddev)}
	switch d.Kind {
	case DelayConstant, DelayNormal:
		m.on = d.Mean > 0 || d.Stddev > 0
	case DelayLognormal:
		m.on = true
		m.mu, m.sigma = lognormalFit(d.P50, d.P99)
	}
	return m
}

// lognormalFit returns the parameters of the lognormal distribution with
// median p50 and 99th percentile p99.
func lognormalFit(p50, p99 Duration) (mu, sigma float64) {
	mu = ln(float64(p50))
	// z(0.99) of the standard normal.
	return mu, (ln(float64(p99)) - mu) / 2.3263478740408408
}

type phaseModel struct {
	kind     PhaseKind
	from, to int64
	status   int16 // answer of an outage or errors phase; backlog answer of a freeze (0: serve)
	latency  int64
	workers  int
	rate     float64
	factor   float64
}

type strategyModel struct {
	name      string
	levels    []levelModel
	keyed     bool         // the client attaches an idempotency key to every operation
	pool      limitModel   // per instance of level 0
	bulkheads []limitModel // per dependency, per instance of level 0; nil without bulkheads
	fallback  []int64      // per plan call: its fallback's latency, or -1 for none; nil without fallbacks
	// own is the number of the strategy's own levels, first in levels;
	// with fleets, fleetLevel[f] is fleet f's first level (the strategy's
	// own clients are fleet 0) and fleetKeyed[f] whether its client keys
	// every operation. The pool, bulkheads and fallbacks are the
	// strategy's own clients' only.
	own        int
	fleetLevel []uint8
	fleetKeyed []bool
	// judged is how many recoveryStep steps from the end of the fault
	// recovery is judged over (see judgedSteps); 0 without a fault.
	judged int
}

type levelModel struct {
	inner          bool // the innermost level of its fleet's: its calls reach the dependency
	reselect       int  // with previous_hosts: the host reselections a retry may make; 0 without
	first          bool // its fleet's first level: its attempts are the clients'
	maxAttempts    int
	attemptTimeout int64
	deadline       int64
	minAttempt     int64
	waitModel
	retryTimeout    bool
	retryConnection bool
	retryNonIdem    bool
	deadLetter      bool
	budget          *Budget
	breaker         *Breaker
	breakerOutside  bool
	breakerPerDep   bool  // one breaker per dependency (scope "dependency")
	budgetPerDep    bool  // one budget per dependency
	chargeRetry     bool  // a token bucket charges retries made, not failures
	shareAttempts   bool  // a concurrency budget's ratio is of the attempts in flight
	budgetKind      uint8 // the budget's Kind (a budget* constant), switched on by every attempt
	// budgetCost is a token bucket's cost by costClass (none, failure,
	// throttling, timeout).
	budgetCost    [numCosts]float64
	halfOpenCalls int
	// The retry decision's and the wait's options: raMode is "" when
	// Retry-After is not honoured.
	raMode     RetryAfterMode
	raSome     bool
	maxElapsed int64
	// The breaker's options, compiled.
	halfOpenFails int   // failed trials that reopen it
	allTrials     bool  // decide once all trials are in
	strictEnd     bool  // a call at exactly the break's end is refused
	epochBuckets  bool  // the time window counts whole seconds (resilience4j's TIME_BASED)
	autoHalfOpen  bool  // open turns half-open at the break's end, not at the next call
	slowCall      int64 // an outcome slower than this is slow; 0: none is
	adaptive      *Adaptive
	// The client-side throttle's K and window (throttle is false without
	// one), and whether the level's attempts take a rate limiter's token.
	throttle       bool
	throttleK      float64
	throttleWindow int64
	rateLimit      bool       // an aws-adaptive rate limiter
	fixedWindow    *RateLimit // a fixed-window rate limiter
	instances      int
	hedging        *hedgeModel
	conns          *connModel // connection limits; nil without
	// The tables last, so that the fields above, read by every attempt,
	// share a few cache lines.
	retryStatus [600]bool
	raStatus    [600]bool // the statuses whose Retry-After is read, when raSome (last: rarely read)
}

// Budget kinds, compiled: the hot path switches on a small integer, not
// on a string.
const (
	budgetNone uint8 = iota
	budgetTokens
	budgetRatio
	budgetConcurrency
)

var budgetKinds = map[BudgetKind]uint8{BudgetTokenBucket: budgetTokens, BudgetRatio: budgetRatio, BudgetConcurrency: budgetConcurrency}

var defaultRetryOn = RetryOn{Statuses: []int{408, 429, 502, 503, 504}, Timeout: true, Connection: true}

// compile turns a valid scenario into a model. The caller has validated it.
func compile(sc *Scenario) *model {
	m := &model{sc: sc}
	w := &sc.Workload
	m.work = workModel{
		clients:    w.Clients,
		think:      int64(w.ThinkTime),
		burstAt:    int64(w.BurstAt),
		duration:   int64(w.Duration),
		operations: w.Operations,
		mix:        w.Mix,
		arrival:    cmp.Or(w.Arrival, ArrivalPoisson),
	}
	m.work.rate = w.Rate
	if w.RatePerClient != 0 {
		m.work.rate = w.RatePerClient * float64(w.Clients)
	}
	m.work.load = compileLoad(w.Load)
	if len(w.Fleets) > 0 {
		m.fleets = []string{cmp.Or(w.Fleet, DefaultFleet)}
		rates := []float64{m.work.rate}
		m.work.fleetFirst = []int32{0}
		m.work.fleetClients = []int{w.Clients}
		for _, f := range w.Fleets {
			r := f.Rate
			if f.RatePerClient != 0 {
				r = f.RatePerClient * float64(f.Clients)
			}
			m.fleets = append(m.fleets, f.Name)
			rates = append(rates, r)
			m.work.fleetFirst = append(m.work.fleetFirst, int32(m.work.clients))
			m.work.fleetClients = append(m.work.fleetClients, f.Clients)
			m.work.clients += f.Clients
		}
		total := 0.0
		for _, r := range rates {
			total += r
		}
		sum := 0.0
		for _, r := range rates {
			sum += r
			m.work.fleetCum = append(m.work.fleetCum, sum/total)
		}
		m.work.fleetCum[len(rates)-1] = 1
		m.work.rate = total
	}

	deps := sc.Dependencies
	if len(deps) == 0 {
		deps = []Dependency{sc.Dependency}
	}
	m.depArray = new([maxDeps]depModel)
	m.deps = m.depArray[:len(deps)]
	for i := range deps {
		var faultEnd int64
		m.deps[i], faultEnd = compileDependency(&deps[i])
		if m.deps[i].name == "" {
			m.deps[i].name = "dependency"
		}
		m.faultEnd = max(m.faultEnd, faultEnd)
		m.cached = m.cached || m.deps[i].cache != nil
		m.concurrent = m.concurrent || deps[i].ConcurrencyLimit != nil
	}
	m.compileBackends(deps)
	for _, lp := range w.Load {
		if lp.Raises() {
			m.faultEnd = max(m.faultEnd, int64(lp.To))
		}
	}
	m.compilePlan(w.Plan)
	if rf := sc.Report.RecoveryFrom; rf != nil {
		m.faultEnd = int64(*rf)
	}

	for _, st := range sc.Strategies {
		sm := strategyModel{name: st.Name, keyed: st.IdempotencyKey}
		sm.levels = append(sm.levels, compilePolicy(&st.Policy, len(m.deps)))
		for i := range st.Layers {
			sm.levels = append(sm.levels, compilePolicy(&st.Layers[i], len(m.deps)))
		}
		sm.own = len(sm.levels)
		sm.levels[0].first, sm.levels[sm.own-1].inner = true, true
		if len(w.Fleets) > 0 {
			// The other fleets' levels follow the strategy's own: each
			// fleet's calls start at its first level and go down to its
			// innermost, with budgets and breakers of their own.
			sm.fleetLevel, sm.fleetKeyed = []uint8{0}, []bool{st.IdempotencyKey}
			for i := range w.Fleets {
				f := &w.Fleets[i]
				sm.fleetLevel = append(sm.fleetLevel, uint8(len(sm.levels)))
				sm.fleetKeyed = append(sm.fleetKeyed, f.IdempotencyKey)
				sm.levels = append(sm.levels, compilePolicy(&f.Policy, len(m.deps)))
				sm.levels[len(sm.levels)-1].first = true
				for j := range f.Layers {
					sm.levels = append(sm.levels, compilePolicy(&f.Layers[j], len(m.deps)))
				}
				sm.levels[len(sm.levels)-1].inner = true
			}
		}
		if p := st.Pool; p != nil {
			sm.pool = limitModel{slots: p.Slots, maxWaiting: p.MaxWaiting, maxWait: int64(p.MaxWait)}
		}
		for _, b := range st.Bulkheads {
			if sm.bulkheads == nil {
				sm.bulkheads = make([]limitModel, len(m.deps))
			}
			sm.bulkheads[m.depIndex(b.Dependency)] = limitModel{slots: b.MaxConcurrent, maxWaiting: b.MaxWaiting, maxWait: int64(b.MaxWait)}
		}
		for _, f := range st.Fallbacks {
			if sm.fallback == nil {
				sm.fallback = slices.Repeat([]int64{-1}, len(m.calls))
			}
			sm.fallback[m.callIndex(f.Call)] = int64(f.Latency)
		}
		m.strategies = append(m.strategies, sm)
	}

	if m.faultEnd > 0 {
		ops, _, _ := operationBounds(sc)
		for i := range m.strategies {
			m.strategies[i].judged = judgedSteps(m.faultEnd, lastArrival(sc), ops[i])
		}
	}

	m.seeds = SeedsOf(sc)

	r := &sc.Report
	if aw := sc.AffectedWindow(); aw.Whole {
		m.affectedFrom, m.affectedTo = 0, never
	} else {
		m.affectedFrom, m.affectedTo = int64(aw.From), int64(aw.To)
	}
	m.resolutions = []int64{int64(10 * time.Millisecond), int64(100 * time.Millisecond), int64(time.Second)}
	for _, d := range r.PeakResolutions {
		if !slices.Contains(m.resolutions, int64(d)) {
			m.resolutions = append(m.resolutions, int64(d))
		}
	}
	m.seriesBucket = int64(r.SeriesBucket)
	m.base = modelBase(sc)
	return m
}

// compileDependency compiles d, and returns the end of its last phase that
// harms it (0 when none does).
func compileDependency(d *Dependency) (depModel, int64) {
	dm := depModel{
		name:          d.Name,
		workers:       d.Workers,
		queueCap:      d.QueueCapacity,
		fullStatus:    statusOr(d.QueueFullStatus, DefaultStatus),
		dropAbandoned: d.DropAbandoned,
		errorRate:     d.ErrorRate,
		errorStatus:   statusOr(d.ErrorStatus, DefaultStatus),
		service:       d.ServiceTime,
		mean:          float64(d.ServiceTime.Mean),
		loadLatency:   compileLoadLatency(d.LoadLatency),
		overload:      compileOverload(d),
		autoscale:     compileAutoscale(d.Autoscale),
	}
	if d.ServiceTime.Kind == ServiceLognormal {
		dm.mu, dm.sigma = lognormalFit(d.ServiceTime.P50, d.ServiceTime.P99)
	}
	if n := d.Network; n != nil {
		dm.net = [2]delayModel{compileDelay(&n.Request), compileDelay(&n.Answer)}
	}
	if c := d.Contention; c != nil {
		dm.contention = true
		dm.conflictStatus = statusOr(c.Status, 409)
	}
	if le := d.LoadErrors; le != nil {
		dm.loadErrors = true
		dm.loadWindow = int64(cmp.Or(le.Window, DefaultLoadWindow))
		dm.loadStatus = statusOr(le.Status, DefaultStatus)
		dm.loadPoints = le.Points
	}
	if ra := d.RetryAfter; ra != nil {
		for _, s := range ra.Statuses {
			dm.retryAfter[s] = true
		}
		dm.retryAfterTime = int64(ra.After)
		if ra.After == 0 {
			dm.retryAfterTime = retryNow
		}
	}
	if sh := d.Shedding; sh != nil {
		dm.shedding = true
		dm.shedLoad = sh.Measure == ShedLoad
		dm.shedStatus = statusOr(sh.Status, DefaultStatus)
		for i, c := range Classes {
			dm.shedAt[i] = -1
			if t, ok := sh.Thresholds[c]; ok {
				dm.shedAt[i] = t
			}
		}
	}
	if sc := d.Script; sc != nil {
		sm := &scriptModel{answers: compileAnswers(sc.Answers), then: cmp.Or(sc.Then, ThenServe)}
		for _, as := range sc.Operations {
			sm.operations = append(sm.operations, compileAnswers(as))
		}
		dm.script = sm
	}
	if d.Cache != nil {
		dm.cache = compileCache(d.Cache)
	}
	var faultEnd int64
	for _, ph := range d.Phases {
		kind := ph.Kind
		pm := phaseModel{kind: kind, from: int64(ph.From), to: int64(ph.To), latency: int64(ph.Latency),
			workers: ph.Workers, rate: ph.Rate, factor: ph.Factor, status: int16(ph.Status)}
		switch {
		case ph.Error == "connection":
			pm.status = outConnection
		case pm.status == 0 && kind != PhaseFreeze:
			pm.status = DefaultStatus
		}
		dm.phases = append(dm.phases, pm)
		if ph.Harms(d.Workers) {
			faultEnd = max(faultEnd, pm.to)
		}
	}
	return dm, faultEnd
}

// Harms reports whether phase ph harms a dependency of workers workers:
// every kind does but a capacity phase that does not remove workers and a
// latency phase that does not slow service. The trigger a run recovers
// from (FaultEnd) is the phases that harm.
func (ph *Phase) Harms(workers int) bool {
	switch ph.Kind {
	case PhaseCapacity:
		return ph.Workers < workers
	case PhaseLatency:
		return ph.Factor > 1
	}
	return true
}

// compilePlan compiles the workload's plan: without one, an operation
// makes one call to the only dependency.
func (m *model) compilePlan(plan []Step) {
	if len(plan) == 0 {
		plan = []Step{{Calls: []PlanCall{{Dependency: m.deps[0].name}}}}
	}
	for _, st := range plan {
		m.steps = append(m.steps, len(m.calls))
		for _, pc := range st.Calls {
			cm := planCallModel{name: pc.Name, dep: uint8(m.depIndex(pc.Dependency)), share: 1}
			if pc.Share != nil {
				cm.share = *pc.Share
			}
			if cm.name == "" {
				cm.name = m.deps[cm.dep].name
			}
			cm.class = uint8(max(slices.Index(Classes, cmp.Or(pc.Class, ClassCritical)), 0))
			m.calls = append(m.calls, cm)
			m.callsPerOp += cm.share
		}
	}
	m.steps = append(m.steps, len(m.calls))
}

// callIndex returns the index of the plan call named name.
func (m *model) callIndex(name string) int {
	for i := range m.calls {
		if m.calls[i].name == name {
			return i
		}
	}
	return 0 // validated: the name exists
}

// depIndex returns the index of the dependency named name; the one
// dependency of a scenario answers to any name.
func (m *model) depIndex(name string) int {
	if len(m.deps) == 1 {
		return 0
	}
	for i := range m.deps {
		if m.deps[i].name == name {
			return i
		}
	}
	return 0 // a valid scenario names only its dependencies
}

func compilePolicy(p *Policy, deps int) levelModel {
	l := levelModel{
		maxAttempts:    p.MaxAttempts,
		attemptTimeout: int64(p.AttemptTimeout),
		deadline:       int64(p.Deadline),
		minAttempt:     int64(p.MinAttemptTime),
		waitModel:      compileWait(p),
		retryNonIdem:   p.RetryNonIdempotent,
		deadLetter:     p.DeadLetter,
		breaker:        p.Breaker,
		adaptive:       p.Adaptive,
		rateLimit:      p.RateLimit != nil && p.RateLimit.Kind == RateLimitAWSAdaptive,
		fixedWindow:    fixedWindowOf(p.RateLimit),
		reselect:       reselections(p),
		instances:      max(p.Instances, 1),
		hedging:        compileHedging(p.Hedging),
		conns:          compileConns(p.ConnectionLimits),
	}
	if th := p.Throttle; th != nil {
		l.throttle = true
		l.throttleK = cmp.Or(th.K, DefaultThrottleK)
		l.throttleWindow = int64(cmp.Or(th.Window, DefaultThrottleWindow))
	}
	ro := p.RetryOn
	if ro == nil {
		ro = &defaultRetryOn
	}
	for _, s := range ro.Statuses {
		l.retryStatus[s] = true
	}
	for _, r := range ro.StatusRanges {
		lo, hi, _ := parseStatusRange(r)
		for s := lo; s <= hi; s++ {
			l.retryStatus[s] = true
		}
	}
	for _, s := range ro.Except {
		l.retryStatus[s] = false
	}
	l.maxElapsed = int64(p.MaxElapsed)
	if p.HonorRetryAfter {
		l.raMode = RetryAfterAtLeast
		if ra := p.RetryAfter; ra != nil {
			l.raMode = cmp.Or(ra.Mode, RetryAfterAtLeast)
			for _, s := range ra.Statuses {
				l.raStatus[s] = true
			}
			l.raSome = len(ra.Statuses) > 0
		}
	}
	l.retryTimeout, l.retryConnection = ro.Timeout, ro.Connection
	if b := p.Budget; b != nil {
		bu := *b
		bu.FailureCost = cmp.Or(bu.FailureCost, DefaultFailureCost)
		bu.Charge = cmp.Or(bu.Charge, ChargeFailure)
		if bu.Kind == BudgetTokenBucket && bu.Threshold == 0 && bu.Charge == ChargeFailure {
			bu.Threshold = bu.MaxTokens / 2
		}
		l.budgetCost = [numCosts]float64{bu.FailureCost, bu.FailureCost, cmp.Or(bu.ThrottleCost, bu.FailureCost), cmp.Or(bu.TimeoutCost, bu.FailureCost)}
		l.chargeRetry = bu.Charge == ChargeRetry
		l.shareAttempts = bu.Kind == BudgetConcurrency && bu.ShareOf == ShareAttempts
		l.budgetKind = budgetKinds[bu.Kind]
		l.budget = &bu
		l.budgetPerDep = deps > 1 && b.Scope != ScopeClient
	}
	if b := p.Breaker; b != nil {
		l.breakerOutside = b.Placement == PlaceOutside
		l.halfOpenCalls = max(b.HalfOpenCalls, DefaultHalfOpenCalls)
		l.halfOpenFails = max(b.HalfOpenFailures, 1)
		l.allTrials = b.HalfOpenDecision == HalfOpenAllTrials
		l.strictEnd = b.BreakEnd == BreakStrict
		l.epochBuckets = b.WindowBuckets == WindowEpochSeconds && b.Window > 0
		l.autoHalfOpen = b.AutoHalfOpen
		l.slowCall = int64(b.SlowCall)
		if b.SlowCall > 0 && b.SlowRatio == 0 {
			bb := *b
			bb.SlowRatio = 1
			l.breaker = &bb
		}
		l.breakerPerDep = deps > 1 && b.Scope != ScopeClient
	}
	return l
}

// A waitModel is a level's backoff and jitter, compiled: the one formula for
// the wait before a retry, which the simulation draws from and the
// worst-case warning and the cost estimate bound.
type waitModel struct {
	backoff    BackoffKind
	base, max  int64
	multiplier float64
	jitter     JitterKind
	fraction   float64 // proportional jitter
	amount     int64   // additive jitter
	// throttleBase replaces base after a throttling answer; 0: base.
	throttleBase int64
}

// Classes of a token bucket's cost, by the outcome a retry follows
// (call.charged keeps the one charged, for a refund).
const (
	costNone uint8 = iota
	costFailure
	costThrottle
	costTimeout
	numCosts
)

// throttleStatus is the answer of a throttling error: its retry may cost
// a token bucket ThrottleCost and wait from Backoff.ThrottleBase.
const throttleStatus = 429

// costClass returns the class of the cost of a retry after outcome out.
func costClass(out int16) uint8 {
	switch out {
	case throttleStatus:
		return costThrottle
	case outTimeout:
		return costTimeout
	}
	return costFailure
}

// compileWait returns p's backoff and jitter with their defaults applied.
// It reads p as it is: p need not be valid.
func compileWait(p *Policy) waitModel {
	w := waitModel{
		backoff:      cmp.Or(p.Backoff.Kind, BackoffNone),
		base:         int64(p.Backoff.Base),
		max:          int64(p.Backoff.Max),
		multiplier:   p.Backoff.Multiplier,
		jitter:       cmp.Or(p.Jitter.Kind, JitterNone),
		fraction:     p.Jitter.Fraction,
		amount:       int64(p.Jitter.Amount),
		throttleBase: int64(p.Backoff.ThrottleBase),
	}
	if w.backoff == BackoffExponential && w.multiplier == 0 {
		w.multiplier = DefaultMultiplier
	}
	if w.jitter == JitterProportional && w.fraction == 0 {
		w.fraction = DefaultFraction
	}
	return w
}

// wait returns the wait before retry n (n = 1 for the first): the backoff,
// capped by max, randomised by the jitter with u, a uniform draw in [0, 1).
// prev is the invocation's previous wait (0 before the first retry), for
// decorrelated jitter. With u = 1 it is the longest wait the jitter allows.
// The adaptive factor and Retry-After come on top.
func (w *waitModel) wait(n, prev int64, u float64) int64 {
	var d int64
	switch w.backoff {
	case BackoffConstant:
		d = w.base
	case BackoffLinear:
		d = w.base * n
	case BackoffExponential:
		f := float64(w.base)
		for range n - 1 {
			f = float64(f * w.multiplier)
			// Past the cap, or past what clampNs keeps, or not growing:
			// more rounds change nothing (unlimited attempts make n large).
			if w.max > 0 && f >= float64(w.max) || f >= float64(MaxSpan)*4 || w.multiplier == 1 {
				break
			}
		}
		d = clampNs(f)
	default:
		return 0
	}
	if w.max > 0 && d > w.max {
		d = w.max
	}
	// The explicit float64 conversions keep the products rounded the same
	// on every platform (no fused multiply-add).
	switch w.jitter {
	case JitterFull:
		d = clampNs(float64(float64(d) * u))
	case JitterEqual:
		d = d/2 + clampNs(float64(float64(d/2)*u))
	case JitterDecorrelated:
		if prev == 0 {
			prev = w.base
		}
		hi := 3 * prev
		d = w.base + clampNs(float64(float64(hi-w.base)*u))
		if w.max > 0 && d > w.max {
			d = w.max
		}
	case JitterAdditive:
		d += clampNs(float64(float64(w.amount) * u))
	case JitterProportional:
		v := 2*u - 1 // in [-1, 1)
		d = clampNs(float64(d) * (1 + float64(w.fraction*v)))
	}
	return d
}

func clampNs(f float64) int64 {
	if f >= float64(MaxSpan)*4 {
		return int64(MaxSpan) * 4
	}
	if f <= 0 {
		return 0
	}
	return int64(f)
}

// retries reports whether the level retries outcome out.
func (l *levelModel) retries(out int16) bool {
	switch {
	case out == outTimeout:
		return l.retryTimeout
	case out == outConnection:
		return l.retryConnection
	case out >= 100 && out < 600:
		return l.retryStatus[out]
	}
	return false // breaker fast-fails and unreadable messages are never retried
}

// parseStatusRange reads a status range "from-to", such as "500-599".
func parseStatusRange(r string) (lo, hi int, ok bool) {
	a, b, found := strings.Cut(r, "-")
	if !found {
		return 0, 0, false
	}
	lo, err1 := strconv.Atoi(strings.TrimSpace(a))
	hi, err2 := strconv.Atoi(strings.TrimSpace(b))
	if err1 != nil || err2 != nil || lo < 100 || hi > 599 || lo > hi {
		return 0, 0, false
	}
	return lo, hi, true
}

// breakerFailure reports whether a circuit breaker counts out as a failure:
// timeouts, connection errors, 408, 429 and every 5xx; for a breaker
// outside the retry, an invocation that ended on the throttle too.
func breakerFailure(out int16) bool {
	return out == outTimeout || out == outConnection || out == outBreakerOpen || out == outThrottled || out == 408 || out == 429 || out >= 500
}

func statusOr(s, def int) int16 {
	if s == 0 {
		return int16(def)
	}
	return int16(s)
}

// SeedsOf returns the seeds each strategy of sc runs on: its seeds, or
// runs seeds from its seed (one without runs).
func SeedsOf(sc *Scenario) []uint64 {
	if len(sc.Seeds) > 0 {
		s := make([]uint64, len(sc.Seeds))
		for i, x := range sc.Seeds {
			s[i] = uint64(x)
		}
		return s
	}
	n := max(sc.Runs, 1)
	s := make([]uint64, n)
	for i := range s {
		s[i] = uint64(sc.Seed) + uint64(i)
	}
	return s
}

func gcd(a, b int64) int64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// fixedWindowOf is rl when it is a fixed-window rate limiter, else nil.
func fixedWindowOf(rl *RateLimit) *RateLimit {
	if rl == nil || rl.Kind != RateLimitFixedWindow {
		return nil
	}
	return rl
}
