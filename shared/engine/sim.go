package engine

import (
	"context"
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"sync"
	"time"
)

// An arrival is an operation start of an open-loop or burst workload.
type arrival struct {
	at     int64
	client int32
}

// arrivals generates a workload's operation starts in time order. Every
// strategy of a run gets its own generator with the same seed, and so the
// same arrivals (common random numbers), without holding them all in memory.
type arrivals struct {
	w     *workModel
	r     rand.PCG
	t     float64 // time of the last arrival, ns
	k     int     // arrivals made
	limit int
	end   float64
	segs  []loadSeg // with load phases: the spans the rate is bounded in
	seg   int       // the span a.t is in
}

func newArrivals(w *workModel, seed uint64) arrivals {
	a := arrivals{w: w, limit: w.operations, end: float64(w.duration)}
	a.r.Seed(seed, drawArrival)
	if a.limit == 0 {
		a.limit = math.MaxInt
	}
	if w.duration == 0 {
		a.end = math.Inf(1)
	}
	if w.arrival == ArrivalClosed {
		a.limit = 0 // closed-loop clients start their own operations
	}
	if len(w.load) > 0 {
		a.segs = w.loadSegs(a.end)
	}
	return a
}

// next returns the next arrival, or false when there is none.
func (a *arrivals) next() (arrival, bool) {
	w := a.w
	if a.k >= a.limit {
		return arrival{}, false
	}
	var x arrival
	switch w.arrival {
	case ArrivalBurst:
		if a.k >= w.clients {
			return arrival{}, false
		}
		x = arrival{at: w.burstAt, client: int32(a.k)}
	case ArrivalPoisson:
		if a.segs != nil {
			if !a.loadGap() {
				return arrival{}, false
			}
		} else if w.cut {
			if !a.cutGap() {
				return arrival{}, false
			}
		} else {
			a.t += float64(exp1(&a.r) * (1e9 / w.rate))
		}
		if a.t >= a.end {
			return arrival{}, false
		}
		if w.fleetCum != nil {
			// A fleet chosen in proportion to its rate, then one of its clients.
			u := float64(a.r.Uint64()>>11) * 0x1p-53
			f := 0
			for f+1 < len(w.fleetCum) && u >= w.fleetCum[f] {
				f++
			}
			hi, _ := bits.Mul64(a.r.Uint64(), uint64(w.fleetClients[f]))
			x = arrival{at: int64(a.t), client: w.fleetFirst[f] + int32(hi)}
			break
		}
		// A client chosen uniformly: the high word of a 64×64-bit product.
		hi, _ := bits.Mul64(a.r.Uint64(), uint64(w.clients))
		x = arrival{at: int64(a.t), client: int32(hi)}
	case ArrivalUniform:
		// Evenly spaced: the clients take turns, one operation every 1/rate.
		t := float64(float64(a.k) * (1e9 / w.rate))
		if w.cut && t >= float64(w.cutAt) {
			// The arrivals from cutAt on are spaced at the new rate.
			kc := math.Ceil(float64(w.cutAt) * w.rate / 1e9)
			if w.cutRate <= 0 {
				return arrival{}, false
			}
			t = kc*(1e9/w.rate) + (float64(a.k)-kc)*(1e9/w.cutRate)
		}
		if t >= a.end {
			return arrival{}, false
		}
		x = arrival{at: int64(t), client: int32(a.k % w.clients)}
	}
	a.k++
	return x, true
}

// cutGap moves a.t to the next Poisson arrival of a workload whose rate
// changes at cutAt, and reports false when none comes. A gap that would
// cross cutAt is drawn again from cutAt at the new rate: the process is
// memoryless, so this is exact, and the arrivals before cutAt are those
// of the workload without the change.
func (a *arrivals) cutGap() bool {
	w := a.w
	at := float64(w.cutAt)
	if a.t >= at {
		if w.cutRate <= 0 {
			return false
		}
		a.t += float64(exp1(&a.r) * (1e9 / w.cutRate))
		return true
	}
	a.t += float64(exp1(&a.r) * (1e9 / w.rate))
	if a.t < at {
		return true
	}
	a.t = at
	if w.cutRate <= 0 {
		return false
	}
	a.t += float64(exp1(&a.r) * (1e9 / w.cutRate))
	return true
}

const (
	opNonIdempotent uint8 = 1 << iota
	opKeyed
	opUnreadable
	opDone     // the operation ended; its slot waits for its refs
	opDegraded // a call of the plan fell back
	// opFailedUnapplied marks a non-idempotent operation that ended failed
	// before the dependency applied it: applying it later counts it in
	// appliedAfterGiveUp.
	opFailedUnapplied
)

// An opState is an operation in progress. Slots are reused once an
// operation ends; what the metrics need of it is recorded then.
type opState struct {
	start    int64
	key      uint64 // client<<32 | the client's operation number: keys its draws
	client   int32
	depCalls uint32
	hops     uint32 // requests sent at any level: keys their network draws
	applied  uint32
	refs     uint32 // requests still at the dependency, and a fallback's wait: the slot waits for them
	flags    uint8
	keyState uint8 // 0 no request holds the key, 1 one is in progress, 2 applied
	step     uint8 // the plan's step in progress
	pending  uint8 // the step's calls not ended yet
	fleet    uint8 // the client's fleet: 0 the workload's own clients
}

// An opCall is one plan call of an operation in progress, with several
// plan calls. The first plan call's depCalls, hops, applied and keyState
// are the operation's.
type opCall struct {
	start          int64 // when it started, its wait for a slot included
	call           int32 // its level-0 call, while live
	depCalls, hops uint32
	applied        uint32
	keyState       uint8
	live           bool
}

// A limiter is the state of a pool or a bulkhead of one client instance.
type limiter struct {
	limitModel
	used    int
	waiting fifo[waiter] // in arrival order; entries whose call stopped waiting are stale
	live    int          // calls still waiting
}

// A waiter is a call waiting for a limiter's slot.
type waiter struct {
	id  int32
	gen uint32
}

// Bits of call.lim: the limiters a level-0 call holds or waits for.
const (
	holdPool uint8 = 1 << iota
	holdBulkhead
	waitPool
	waitBulkhead
)

// A call is one invocation of one level's policy for one operation: its
// attempts, its waits and its deadline.
type call struct {
	start      int64 // when the invocation began, for its deadline
	prevWait   int64 // for decorrelated jitter
	lastRA     int64 // Retry-After of the last answer
	op         int32
	parent     int32 // -1 at the client
	child      int32 // the in-flight inner call, -1 if none or if the level calls the dependency
	instance   int32
	gen        uint32 // bumped whenever pending events or answers become stale
	parentGen  uint32 // the parent's gen when this call was made
	attempts   uint32
	waitFrom   uint32 // the attempts before the backoff last started over (replace_and_reset)
	trialRound uint32 // the half-open round the trial belongs to
	hop        uint32 // the operation's hop that brought this invocation's request
	hedge      int32  // a hedged invocation's state: index+1 in sim.hedges, 0 if none
	// The small fields last, together, so that a call is 80 bytes (not 88).
	level     uint8
	retryPath bool // a retry at this or an outer level led here
	inflight  bool
	trial     bool  // the current attempt is a half-open trial of the inside breaker
	opTrial   bool  // the invocation is a half-open trial of the outside breaker
	copy      bool  // a copy of a hedged invocation (its parent), at the same level
	pc        uint8 // the plan call it is part of
	dep       uint8 // the plan call's dependency
	lim       uint8 // at level 0: the pool and bulkhead slots held or waited for
	charged   uint8 // the cost class a token bucket charged for the coming or current retry, for a refund
	permit    bool  // a retry in progress that a concurrency budget counts
}

// A request is one call waiting at or served by the dependency.
type request struct {
	call    int32
	gen     uint32
	op      int32
	idx     uint32 // the operation's dependency call number, keys its draws
	hop     uint32 // the operation's hop number, keys its network draws
	pending int16  // a delayed answer
	retry   bool
	keyed   bool
	served  bool   // an answer travelling back with the work done: wasted if nobody waits for it
	pc      uint8  // the plan call it is part of
	dep     uint8  // the dependency it is for
	ver     uint32 // with contention: the row's version the call read
}

// sub keys a draw for request r: the plan call's dependency call number,
// with the plan call mixed in from bit 48 (nothing for the first, so
// one-call plans keep their numbers; normal draws shift the key by 8 bits,
// which keeps it).
func (r *request) sub() uint64 { return uint64(r.idx) ^ uint64(r.pc)<<48 }

// instance is the shared state of one client instance of one level: its
// retry budget, circuit breaker, adaptive backoff, client-side throttle and
// rate limiter. With several dependencies each instance has one per
// dependency (instance·deps + dep): a budget or breaker of scope "client",
// the adaptive state and the rate limiter use the first.
type instance struct {
	tokens          float64
	active          int32 // concurrency budget: invocations in progress
	retrying        int32 // concurrency budget: retries granted and not yet ended
	attemptsOut     int32 // concurrency budget of attempts: attempts in flight
	requests        int64
	retries         int64
	adder           *windowedAdder // a ratio budget with slices: its balance
	reqTimes        timeRing
	retryTimes      timeRing
	brState         uint8
	openedAt        int64
	openFor         int64 // how long the breaker stays open this time
	openings        int   // openings since it last closed (resilience4j's attempts)
	consecutive     int
	outcomes, fails timeRing
	lastCalls       fifo[bool] // a count-based window: the last outcomes, true for failures
	lastFails       int
	lastSlow        fifo[bool] // with slow calls: the window's outcomes, true for slow ones
	lastSlows       int
	slows           timeRing // with slow calls and a time window: when slow outcomes came
	trialsStarted   int
	trialsOK        int
	trialsFailed    int
	trialsSlow      int
	round           uint32 // half-open rounds so far
	adTotal, adFail timeRing
	hedgeLat        *latWindow // successful copy latencies, for delay_percentile
	thReq, thAcc    timeRing   // client-side throttle: when requests were attempted, and accepted
	rl              *AWSRateLimiter
	fw              *FixedWindowLimiter
	rlWait          fifo[callRef] // attempts waiting for the rate limiter's token, in turn
}

// A callRef is a call at one generation: stale once the call moves on.
type callRef struct {
	id  int32
	gen uint32
}

// emptied returns the zero instance in in's memory: the buffers of its
// windows.
func (in *instance) emptied() instance {
	return instance{
		reqTimes:   timeRing{in.reqTimes.emptied()},
		retryTimes: timeRing{in.retryTimes.emptied()},
		outcomes:   timeRing{in.outcomes.emptied()},
		fails:      timeRing{in.fails.emptied()},
		lastCalls:  in.lastCalls.emptied(),
		lastSlow:   in.lastSlow.emptied(),
		slows:      timeRing{in.slows.emptied()},
		adTotal:    timeRing{in.adTotal.emptied()},
		adFail:     timeRing{in.adFail.emptied()},
		thReq:      timeRing{in.thReq.emptied()},
		thAcc:      timeRing{in.thAcc.emptied()},
		rlWait:     in.rlWait.emptied(),
	}
}

// Breaker states, in the order the series reports them.
const (
	brClosed uint8 = iota
	brHalfOpen
	brOpen
)

// A transition is a breaker state change of instance 0 of a level.
type transition struct {
	at       int64
	level    uint8
	from, to uint8
	dep      uint8 // the dependency, for a breaker per dependency
}

// sim runs one strategy on one seed.
type sim struct {
	m  *model
	st *strategyModel
	// dm and nd are read by every call at a dependency: here, beside m,
	// they share its cache line.
	dm    *[maxDeps]depModel // m.depArray: index it through dep
	nd    int                // the number of dependencies
	rnd   keyed
	ctx   context.Context
	limit int64 // events allowed for this run; 0 = no limit

	now      int64
	q        eventQueue
	timeouts []fifo[timer] // per level: attempt timeouts not cut short by a deadline
	events   int64

	arrivals   arrivals
	arrival    arrival // the next arrival, valid while more
	more       bool
	clientOps  []int32  // operations started per client
	opSeq      []uint32 // by operation slot: its number in the run, from 0, when a script needs it (else nil)
	ops        []opState
	freeOps    []int32
	calls      []call
	freeCalls  []int32
	reqs       []request
	reqRA      []int64 // by request: the Retry-After of an answer travelling back
	attemptAt  []int64 // by call, with slow calls: when its current attempt began
	freeReqs   []int32
	inst       [][]instance // per level, per instance
	hedges     []hedgeState // of hedged invocations, by call.hedge-1
	freeHedges []int32
	inflightOp int
	travelling int // requests on their way to the dependency and answers on their way back
	// closed-loop clients with a start pending
	waitingClients int

	multi  bool // the plan has several calls
	fleetX int  // with fleets, the first of their extra bins
	// simple: the plan is one call, without a fallback, and the strategy
	// has neither pool nor bulkheads. Operations then take the short path
	// of a scenario with one dependency.
	simple bool
	pcs    []opCall  // with several plan calls: by operation·len(m.calls) + plan call
	pools  []limiter // per instance of level 0; nil without a pool
	bulks  []limiter // per instance of level 0 and dependency; nil without bulkheads
	// poolUsed counts the pool's slots in use, all instances.
	poolUsed int

	c counters
	// series: the run's output keeps its time series. Without it (a seed
	// after the first, or no series asked for) the bins are not counted;
	// their width and number still follow the run.
	series  bool
	base    int64 // width of a bin: the model's, doubled each time the bins are coarsened
	lastBin int   // the current bin
	nextBin int64 // when the next bin starts
	peaks   []peakTracker

	// observe, when set (by tests), hears of every attempt starting, every
	// call reaching the dependency and every operation ending.
	observe func(s *sim, what string, id int32)
	// thP and thOut tell observe, at "throttle", the rejection probability
	// the client-side throttle drew against and, at "answer", the outcome
	// it is about to count.
	thP   float64
	thOut int16

	deps [maxDeps]depState // index it through dep
}

// depState is the state of one dependency in a run.
type depState struct {
	busy      int
	workers   int
	queue     fifo[int32]
	held      fifo[int32] // requests that arrived during a freeze
	frozen    int         // index+1 of the active freeze phase, 0 if none
	outage    int         // index+1 of the active outage phase
	errPhase  int         // index+1 of the active errors phase
	factor    float64
	loadTimes timeRing
	version   uint32 // with contention: the row's version, one more per commit
	scripted  uint64 // calls that reached it: the index of the next in its script's answers
	// ov is the overload control's state (overload.go), made at its first use in a run.
	ov *overloadState
}

// callCounters are what a run measures of one plan call, with several.
type callCounters struct {
	calls, succeeded, fellBack, failed, attempts, depCalls       int64
	rejections, shed, fastFailed, poolRejected, bulkheadRejected int64
	lat                                                          latencies
}

// counters are what a run measures, turned into Metrics at the end.
type counters struct {
	operations, succeeded, affected, affectedOK        int64
	affectedCalls                                      int64 // calls reaching the dependency for operations started in the affected window
	lastEnd                                            int64
	lat, okLat                                         latencies      // operation latencies
	rec                                                recoveryCounts // operations by start, per 100 ms after the fault
	attempts, firstAttempts, retriesDenied, fastFailed int64
	throttled                                          int64 // attempts the client-side throttle rejected, at any level
	// levelAttempts, levelFirst and levelDenied are per level, the client
	// first: its attempts, first attempts and retries a budget denied.
	levelAttempts, levelFirst, levelDenied []int64
	// appliedAfterGiveUp counts the non-idempotent operations that ended
	// failed and that the dependency applied, before or after their end.
	appliedAfterGiveUp                                int64
	depCalls, rejections, duplicates, wasted, dropped int64
	degraded, shed                                    int64
	limited                                           [numRejections]int64 // calls refused by the pool or a bulkhead, by reason
	gaveUp                                            [numReasons]int64
	deadLettered                                      [numReasons]int64
	hedges, hedgesWon                                 int64
	transitions                                       []transition
	bins                                              [numBins][]int32 // per base bin, from t=0
	// xbins are the bins of the plan calls (attempts, successes and
	// failures of each, with several) and of the pool's slots in use (a
	// level, last, with a pool).
	xbins [][]int32
	calls []callCounters // per plan call, with several
	// segs count the operations started in the affected window by
	// model.segment of their start: a probe's judged window, segment by
	// segment (nil unless the model has a segment).
	segs []segCounts
	// fleets count each fleet's operations, with fleets (nil without).
	fleets []fleetCounts
}

// A fleetCounts is how one fleet's operations went, and the calls
// they made that reached a dependency (counted there).
type fleetCounts struct {
	ops, ok, affected, affectedOK, depCalls int64
}

// A segCounts is how the operations started in one segment of a probe's
// judged window went: how many, how many succeeded, how many were failed
// fast (a breaker, a budget, the pool or a bulkhead ended them), and the
// calls they made reach the dependency.
type segCounts struct {
	ops, ok, fast, calls int64
}

// seg returns the segment of the operations started at start, nil when
// they are not counted by segment.
func (c *counters) seg(m *model, start int64) *segCounts {
	if c.segs == nil || start < m.affectedFrom || start >= m.affectedTo {
		return nil
	}
	return &c.segs[(start-m.affectedFrom)/m.segment]
}

// failsFast reports whether an operation that ended for reason was
// failed fast by the client's own protection against overload: an open
// breaker, a budget refusing its retry, the pool, a bulkhead or the
// client-side throttle.
func failsFast(reason uint8) bool {
	return reason == reasonBreaker || reason == reasonBudget || reason == reasonPool || reason == reasonBulkhead || reason == reasonThrottle
}

// record measures an operation that ended.
func (c *counters) record(m *model, start, end int64, ok bool) {
	d := end - start
	c.lat.add(d)
	c.lastEnd = max(c.lastEnd, end)
	if ok {
		c.succeeded++
		c.okLat.add(d)
	}
	if start >= m.affectedFrom && start < m.affectedTo {
		c.affected++
		if ok {
			c.affectedOK++
		}
	}
	if m.faultEnd > 0 && start >= m.faultEnd {
		c.rec.end(int((start-m.faultEnd)/recoveryStep), ok)
	}
}

// Per-bin counters. The last two hold the maximum level seen in the bin.
const (
	binCalls = iota
	binRetries
	binOK
	binFail
	binReject
	binFast
	binQueue
	binInflight
	numBins
)

var errStopped = fmt.Errorf("engine: run stopped")

// A simPool keeps a run's idle simulations, to be reset for the next
// simulation rather than rebuilt: at most one per goroutine of the run.
// (Not a sync.Pool: what a run keeps must not depend on the garbage
// collector.)
type simPool struct {
	mu   sync.Mutex
	idle []*sim
}

// get returns an idle simulation, or a new one, reset to run strategy st of
// model m on seed (see reset).
func (p *simPool) get(ctx context.Context, m *model, st *strategyModel, seed uint64, limit int64, series bool) *sim {
	p.mu.Lock()
	s := new(sim)
	if n := len(p.idle); n > 0 {
		s = p.idle[n-1]
		p.idle = p.idle[:n-1]
	}
	p.mu.Unlock()
	s.reset(ctx, m, st, seed, limit, series)
	return s
}

// put gives back a simulation whose run and output are done.
func (p *simPool) put(s *sim) {
	p.mu.Lock()
	p.idle = append(p.idle, s)
	p.mu.Unlock()
}

func newSim(ctx context.Context, m *model, st *strategyModel, seed uint64, limit int64) *sim {
	s := new(sim)
	s.reset(ctx, m, st, seed, limit, true)
	return s
}

// reset prepares s to run strategy st of model m on seed, exactly as a new
// sim would (counting the time series only if series), but in the memory
// of its previous run: every slice whose capacity fits is kept, emptied or
// zeroed. Every field starts from its zero value (a field added to sim is
// reset without a word here); only the buffers are taken back. The slices
// a runOutput keeps (levelAttempts, transitions) are new for every run.
func (s *sim) reset(ctx context.Context, m *model, st *strategyModel, seed uint64, limit int64, series bool) {
	old := *s
	*s = sim{m: m, st: st, ctx: ctx, limit: limit, series: series}
	s.arrivals = newArrivals(&m.work, seed)
	s.arrival, s.more = s.arrivals.next()
	s.rnd.seed = seed
	s.dm, s.nd = m.depArray, len(m.deps)
	for i := range s.deps {
		o := &old.deps[i]
		s.deps[i] = depState{queue: o.queue.emptied(), held: o.held.emptied(), loadTimes: timeRing{o.loadTimes.emptied()}}
	}
	for i := range s.nd {
		s.deps[i].workers, s.deps[i].factor = m.deps[i].workers, 1
	}
	s.multi = len(m.calls) > 1
	nx := 0 // extra bins
	if s.multi {
		s.c.calls = resized(old.c.calls, len(m.calls))
		for i := range s.c.calls {
			lat := s.c.calls[i].lat // its memory, kept
			lat.reset()
			s.c.calls[i] = callCounters{lat: lat}
		}
		nx = 3 * len(m.calls)
	}
	// Each fleet's calls reaching a dependency, successes and failures
	// follow the plan calls', before the pool's.
	s.fleetX = nx
	nx += 3 * len(m.fleets)
	if st.pool.slots > 0 {
		s.pools = resized(old.pools, st.levels[0].instances)
		for i := range s.pools {
			s.pools[i] = limiter{limitModel: st.pool, waiting: s.pools[i].waiting.emptied()}
		}
		nx++
	}
	if nx > 0 {
		// The bins grow as the run goes (tickExtra), in their old memory.
		s.c.xbins = resized(old.c.xbins, nx)
		for k := range s.c.xbins {
			s.c.xbins[k] = s.c.xbins[k][:0]
		}
	}
	if st.bulkheads != nil {
		s.bulks = resized(old.bulks, st.levels[0].instances*s.nd)
		for i := range s.bulks {
			s.bulks[i] = limiter{limitModel: st.bulkheads[i%s.nd], waiting: s.bulks[i].waiting.emptied()}
		}
	}
	s.simple = len(m.calls) == 1 && m.calls[0].share == 1 && st.fallback == nil && s.pools == nil && s.bulks == nil
	s.lastBin = -1
	s.base = m.base
	if d := m.work.duration / s.base; series && d > 0 && d < maxBins/2 {
		// The bins of the workload's duration, and an eighth more for the
		// operations still open at its end, at once: growing them by
		// doubling as the run goes on allocated twice as much (E03B:
		// 256 kB a strategy instead of 110 kB).
		n := int(d + d/8 + 16)
		for k := range s.c.bins {
			s.c.bins[k] = zeroed(old.c.bins[k], n)
		}
	} else {
		for k := range s.c.bins {
			s.c.bins[k] = old.c.bins[k][:0] // tick grows them, zeroed
		}
	}
	s.c.rec = old.c.rec
	s.c.rec.reset(st.judged)
	if m.segment > 0 {
		// New for every run: a runOutput keeps them.
		s.c.segs = make([]segCounts, (m.affectedTo-m.affectedFrom+m.segment-1)/m.segment)
	}
	s.peaks = old.peaks[:0]
	for _, r := range m.resolutions {
		s.peaks = append(s.peaks, peakTracker{res: r})
	}
	s.clientOps = zeroed(old.clientOps, m.work.clients)
	for i := range m.deps {
		if sm := m.deps[i].script; sm != nil && sm.operations != nil {
			s.opSeq = old.opSeq[:0] // numbered only for a script per operation: not nil
			if s.opSeq == nil {
				s.opSeq = []uint32{}
			}
		}
	}
	s.ops = emptied(old.ops, 256)
	s.c.lat, s.c.okLat = old.c.lat, old.c.okLat
	if s.c.lat.raw == nil {
		ops := int(min(estimateOps(m.sc)+16, exactLatencies))
		s.c.lat, s.c.okLat = newLatencies(ops), newLatencies(ops)
	}
	s.c.lat.reset()
	s.c.okLat.reset()
	s.calls = emptied(old.calls, 256)
	s.reqs = emptied(old.reqs, 256)
	s.q.h = emptied(old.q.h, 1024)
	s.freeOps, s.freeCalls, s.freeReqs = old.freeOps[:0], old.freeCalls[:0], old.freeReqs[:0]
	s.reqRA, s.attemptAt, s.pcs = old.reqRA[:0], old.attemptAt[:0], old.pcs[:0]
	s.hedges, s.freeHedges = old.hedges[:0], old.freeHedges[:0]
	s.timeouts = resized(old.timeouts, len(st.levels))
	for l := range s.timeouts {
		s.timeouts[l] = s.timeouts[l].emptied()
	}
	s.c.fleets = nil
	if m.fleets != nil {
		s.c.fleets = make([]fleetCounts, len(m.fleets))
	}
	s.c.levelAttempts = make([]int64, len(st.levels))
	s.c.levelFirst = make([]int64, len(st.levels))
	s.c.levelDenied = make([]int64, len(st.levels))
	s.inst = resized(old.inst, len(st.levels))
	for i := range st.levels {
		lv := &st.levels[i]
		s.inst[i] = resized(s.inst[i], lv.instances*s.nd)
		for j := range s.inst[i] {
			s.inst[i][j] = s.inst[i][j].emptied()
			if lv.budget != nil {
				s.inst[i][j].tokens = lv.budget.MaxTokens
			}
		}
	}
	for d := range m.deps {
		for i, ph := range m.deps[d].phases {
			s.q.push(ph.from, evPhase, int32(i), uint32(d))
			s.q.push(ph.to, evPhase, int32(i), uint32(d))
		}
	}
	if m.work.arrival == ArrivalClosed {
		r := rand.New(rand.NewPCG(seed, drawArrival))
		for c := range m.work.clients {
			var at int64
			if m.work.think > 0 {
				at = r.Int64N(m.work.think)
			}
			s.q.push(at, evClientNext, int32(c), 0)
		}
		s.waitingClients = m.work.clients
	}
}

// zeroed returns b's memory as n zero values, or new memory when b's
// capacity is too small.
func zeroed[T any](b []T, n int) []T {
	if cap(b) < n {
		return make([]T, n)
	}
	b = b[:n]
	clear(b)
	return b
}

// resized returns b's memory as n elements, which the caller overwrites
// (keeping the buffers they hold), or new memory when b's capacity is too
// small.
func resized[T any](b []T, n int) []T {
	if cap(b) < n {
		return make([]T, n)
	}
	return b[:n]
}

// emptied returns b emptied, or a new empty slice of capacity c when b has
// less.
func emptied[T any](b []T, c int) []T {
	if cap(b) < c {
		return make([]T, 0, c)
	}
	return b[:0]
}

// run processes events until nothing is left to happen. Three sources feed
// it: the workload's arrivals, the event heap and the per-level timeout
// fifos. At equal times the heap goes first (a phase starting at t applies to
// the calls at t; an answer at the very instant of a timeout is in time),
// then timeouts, then arrivals.
func (s *sim) run() error {
	for !s.idle() {
		src, at := -2, int64(never) // -2 none, -1 heap, ≥ 0 a level's timeouts
		if s.q.len() > 0 {
			src, at = -1, s.q.peek().at
		}
		for l := range s.timeouts {
			if f := &s.timeouts[l]; f.len() > 0 && f.front().at < at {
				src, at = l, f.front().at
			}
		}
		switch {
		case s.more && s.arrival.at < at:
			a := s.arrival
			s.arrival, s.more = s.arrivals.next()
			s.now = a.at
			if s.now >= s.nextBin {
				s.tick()
			}
			s.startOperation(a.client)
		case src == -1:
			e := s.q.pop()
			s.now = e.at
			if s.now >= s.nextBin {
				s.tick()
			}
			if !s.dispatch(&e) {
				continue
			}
		case src >= 0:
			t := s.timeouts[src].pop()
			if c := &s.calls[t.id]; c.gen != t.gen || !c.inflight {
				continue // the attempt ended in time
			}
			s.now = t.at
			if s.now >= s.nextBin {
				s.tick()
			}
			s.timeout(t.id)
		default:
			return nil
		}
		s.events++
		if s.events&0x3fff == 0 {
			if err := s.ctx.Err(); err != nil {
				return fmt.Errorf("%w: %w", errStopped, err)
			}
			if s.limit > 0 && s.events > s.limit {
				return fmt.Errorf("%w: %w", errStopped, &CostError{Limit: s.limit, Processed: s.events})
			}
		}
	}
	return nil
}

// idle reports whether nothing is left to happen but phase boundaries and
// stale timers: no arrivals to come, no operation open, no client about to
// start one, and no request left at the dependency.
func (s *sim) idle() bool {
	if s.more || s.inflightOp != 0 || s.waitingClients != 0 || s.travelling != 0 {
		return false
	}
	for i := range s.nd {
		if d := &s.deps[i]; d.busy != 0 || d.queue.len() != 0 || d.held.len() != 0 {
			return false
		}
	}
	return true
}

// dep returns the model and the state of dependency i (< maxDeps).
func (s *sim) dep(i uint8) (*depModel, *depState) {
	i &= maxDeps - 1
	return &s.dm[i], &s.deps[i]
}

// queued returns the requests queued or held at all the dependencies.
func (s *sim) queued() int {
	n := 0
	for i := range s.nd {
		n += s.deps[i].queue.len() + s.deps[i].held.len()
	}
	return n
}

// dispatch handles one event and reports whether it still mattered.
func (s *sim) dispatch(e *event) bool {
	switch e.kind() {
	case evRetry:
		c := &s.calls[e.id]
		if c.gen != e.gen {
			return false
		}
		s.attempt(e.id)
	case evTimeout:
		c := &s.calls[e.id]
		if c.gen != e.gen || !c.inflight {
			return false
		}
		s.timeout(e.id)
	case evServed:
		s.served(e.id)
	case evAnswer:
		r := s.reqs[e.id]
		s.freeRequest(e.id)
		s.reply(r, r.pending, s.retryAfter(r.dep, r.pending))
	case evArrive:
		c := &s.calls[e.id]
		if c.gen != e.gen {
			return false // the caller gave up while the request travelled
		}
		c.start = s.now // the invocation's deadline counts from its arrival
		s.invoke(e.id)
	case evReach:
		s.travelling--
		s.reach(s.reqs[e.id])
		s.freeRequest(e.id)
	case evReturn:
		s.travelling--
		r, ra := s.reqs[e.id], s.reqRA[e.id]
		s.freeRequest(e.id)
		if c := &s.calls[r.call]; r.served && (c.gen != r.gen || !c.inflight) {
			s.c.wasted++ // the caller gave up while the answer travelled
		}
		s.answer(r.call, r.gen, r.pending, ra)
	case evRead:
		s.read(e.id)
	case evReadBack:
		s.readBack(e.id)
	case evPhase:
		s.phaseChange(int(e.gen), int(e.id))
	case evGrant:
		if c := &s.calls[e.id]; c.gen != e.gen {
			return false // the call was abandoned: it gave its slots back
		}
		s.acquire(e.id)
	case evWaitTimeout:
		c := &s.calls[e.id]
		if c.gen != e.gen || c.lim&(waitPool|waitBulkhead) == 0 {
			return false
		}
		rej := rejPoolTimeout
		if c.lim&waitBulkhead != 0 {
			rej = rejBulkheadTimeout
		}
		s.stopWaiting(e.id)
		s.refuse(e.id, rej)
	case evToken:
		s.tokenTurn(uint8(e.gen), e.id)
	case evPermit:
		if c := &s.calls[e.id]; c.gen != e.gen {
			return false // it ended meanwhile (its caller gave up)
		}
		s.send(e.id)
	case evNoPermit:
		if c := &s.calls[e.id]; c.gen != e.gen {
			return false
		}
		s.permitRefused(e.id)
	case evTokenGiveUp:
		if c := &s.calls[e.id]; c.gen != e.gen {
			return false // it got its token, or ended otherwise
		}
		s.tokenGiveUp(e.id)
	case evFallback:
		op := &s.ops[e.id]
		op.refs--
		if op.flags&opDone != 0 {
			if op.refs == 0 {
				s.freeOps = append(s.freeOps, e.id)
			}
			return false
		}
		s.stepDone(e.id)
	case evHalfOpen:
		level := uint8(e.gen)
		in := &s.inst[level][e.id]
		if in.brState != brOpen || in.openedAt+in.openFor != s.now {
			return false // a call turned it half-open at this instant, or it opened again
		}
		s.breakerHalfOpen(level, e.id)
	case evClientNext:
		s.waitingClients--
		if s.now >= s.m.work.duration {
			return false
		}
		s.startOperation(e.id)
	}
	return true
}

// startOperation starts one operation of client c at s.now.
func (s *sim) startOperation(client int32) {
	w := &s.m.work
	if w.operations > 0 && s.c.operations >= int64(w.operations) {
		return
	}
	s.c.operations++
	if f := s.m.faultEnd; f > 0 && s.now >= f {
		s.c.rec.start(int((s.now - f) / recoveryStep))
	}
	seq := s.clientOps[client]
	s.clientOps[client]++
	key := uint64(client)<<32 | uint64(seq)
	op := opState{start: s.now, client: client, key: key}
	keyed := s.st.keyed
	if w.fleetCum != nil {
		op.fleet = w.fleetOf(client)
		keyed = s.st.fleetKeyed[op.fleet]
	}
	if w.mix.NonIdempotent > 0 && s.rnd.float(drawMix, key, 1) < w.mix.NonIdempotent {
		op.flags |= opNonIdempotent
		if keyed || (w.mix.Keyed > 0 && s.rnd.float(drawMix, key, 2) < w.mix.Keyed) {
			op.flags |= opKeyed
		}
	}
	if w.mix.Unreadable > 0 && s.rnd.float(drawMix, key, 3) < w.mix.Unreadable {
		op.flags |= opUnreadable
	}
	var id int32
	if n := len(s.freeOps); n > 0 {
		id = s.freeOps[n-1]
		s.freeOps = s.freeOps[:n-1]
		s.ops[id] = op
	} else {
		id = int32(len(s.ops))
		s.ops = append(s.ops, op)
	}
	if s.opSeq != nil {
		for len(s.opSeq) <= int(id) {
			s.opSeq = append(s.opSeq, 0)
		}
		s.opSeq[id] = uint32(s.c.operations - 1)
	}
	if s.multi {
		n := len(s.m.calls)
		for len(s.pcs) < (int(id)+1)*n {
			s.pcs = append(s.pcs, opCall{})
		}
		clear(s.pcs[int(id)*n : (int(id)+1)*n])
	}
	s.inflightOp++
	s.level(binInflight, s.inflightOp)
	if op.flags&opUnreadable != 0 {
		s.finishOperation(id, outUnreadable, reasonUnreadable)
		return
	}
	if s.simple {
		s.invoke(s.newCall(id, -1, 0, s.firstLevel(id), false, 0, s.m.calls[0].dep))
		return
	}
	s.startStep(id)
}

// startStep starts the calls of the operation's current step, those
// the operation makes (see PlanCall.Share); a step that makes none is
// over at once.
func (s *sim) startStep(op int32) {
	for {
		o := &s.ops[op]
		from, to := s.m.steps[o.step], s.m.steps[o.step+1]
		var made uint16
		for pc := from; pc < to; pc++ {
			if s.makes(o.key, pc) {
				made |= 1 << pc
				o.pending++
			}
		}
		if made != 0 {
			for pc := from; pc < to; pc++ {
				if made&(1<<pc) == 0 {
					continue
				}
				s.startCall(op, uint8(pc))
				if s.ops[op].flags&opDone != 0 {
					return // the call failed at once, and the operation with it
				}
			}
			return
		}
		o.step++
		if int(o.step) == len(s.m.steps)-1 {
			s.finishOperation(op, outOK, reasonNone)
			return
		}
	}
}

// makes reports whether the operation keyed key makes plan call pc: a draw
// per operation and call, the same for every strategy.
func (s *sim) makes(key uint64, pc int) bool {
	share := s.m.calls[pc].share
	return share >= 1 || s.rnd.float(drawMix, key, uint64(16+pc)) < share
}

// startCall starts plan call pc of operation op: its level-0 invocation,
// once it has the pool's and the bulkhead's slots.
func (s *sim) startCall(op int32, pc uint8) {
	id := s.newCall(op, -1, 0, s.firstLevel(op), false, pc, s.m.calls[pc].dep)
	if s.multi {
		oc := s.opCall(op, pc)
		oc.start, oc.call, oc.live = s.now, id, true
		s.c.calls[pc].calls++
	}
	if s.pools == nil && s.bulks == nil || s.ops[op].fleet != 0 {
		s.invoke(id)
		return
	}
	s.acquire(id)
}

// firstLevel returns the level an operation's calls start at: 0, or its
// fleet's first level.
func (s *sim) firstLevel(op int32) uint8 {
	if s.st.fleetLevel == nil {
		return 0
	}
	return s.st.fleetLevel[s.ops[op].fleet]
}

// opCall returns the state of plan call pc of operation op; there are several.
func (s *sim) opCall(op int32, pc uint8) *opCall {
	return &s.pcs[int(op)*len(s.m.calls)+int(pc)]
}

// acquire takes the slots level-0 call id needs before its first attempt,
// the pool's and then its dependency's bulkhead's, and invokes it; when a
// slot is not free it waits in line, or is refused.
func (s *sim) acquire(id int32) {
	c := &s.calls[id]
	if s.pools != nil && c.lim&holdPool == 0 && !s.take(id, &s.pools[c.instance], holdPool) {
		return
	}
	c = &s.calls[id]
	if s.bulks != nil && c.lim&holdBulkhead == 0 {
		if l := &s.bulks[int(c.instance)*s.nd+int(c.dep)]; l.slots > 0 && !s.take(id, l, holdBulkhead) {
			return
		}
	}
	c = &s.calls[id]
	c.start = s.now // the deadline counts from the first attempt
	s.invoke(id)
}

// take gives call id a slot of l (kind holdPool or holdBulkhead) and
// reports whether it did; otherwise the call waits in line or is refused.
// Calls take slots in the order they asked.
func (s *sim) take(id int32, l *limiter, kind uint8) bool {
	c := &s.calls[id]
	if l.used < l.slots && l.live == 0 {
		l.used++
		c.lim |= kind
		if kind == holdPool {
			s.poolUsed++
			s.xlevel(len(s.c.xbins)-1, s.poolUsed)
		}
		return true
	}
	full := rejPoolFull
	if kind == holdBulkhead {
		full = rejBulkheadFull
	}
	if l.live >= l.maxWaiting {
		s.refuse(id, full)
		return false
	}
	c.gen++
	c.lim |= kind << 2 // the wait bit of the kind
	l.waiting.push(waiter{id: id, gen: c.gen})
	l.live++
	if l.maxWait > 0 {
		s.q.push(s.now+l.maxWait, evWaitTimeout, id, c.gen)
	}
	return false
}

// limiterOf returns the limiter call c holds or waits for, of kind
// holdPool or holdBulkhead.
func (s *sim) limiterOf(c *call, kind uint8) *limiter {
	if kind == holdPool {
		return &s.pools[c.instance]
	}
	return &s.bulks[int(c.instance)*s.nd+int(c.dep)]
}

// stopWaiting takes call id out of the line it waits in.
func (s *sim) stopWaiting(id int32) {
	c := &s.calls[id]
	kind := holdPool
	if c.lim&waitBulkhead != 0 {
		kind = holdBulkhead
	}
	s.limiterOf(c, kind).live--
	c.lim &^= waitPool | waitBulkhead
}

// releaseLimits gives back the slots (and the place in line) of level-0
// call c, which ended or was abandoned: each slot goes to the first call
// waiting for it, which goes on at once.
func (s *sim) releaseLimits(c *call) {
	if c.lim&(waitPool|waitBulkhead) != 0 {
		kind := holdPool
		if c.lim&waitBulkhead != 0 {
			kind = holdBulkhead
		}
		s.limiterOf(c, kind).live--
	}
	for _, kind := range [2]uint8{holdBulkhead, holdPool} {
		if c.lim&kind == 0 {
			continue
		}
		l := s.limiterOf(c, kind)
		granted := false
		for l.waiting.len() > 0 {
			w := l.waiting.pop()
			wc := &s.calls[w.id]
			if wc.gen != w.gen || wc.lim&(kind<<2) == 0 {
				continue // it stopped waiting
			}
			l.live--
			wc.lim = wc.lim&^(kind<<2) | kind
			wc.gen++ // its wait's timeout is stale
			s.q.push(s.now, evGrant, w.id, wc.gen)
			granted = true
			break
		}
		if !granted {
			l.used--
			if kind == holdPool {
				s.poolUsed--
			}
		}
	}
	c.lim = 0
}

// refuse ends level-0 call id, refused by the pool or a bulkhead for
// reason rej (a rej* constant): a failed call.
func (s *sim) refuse(id int32, rej int) {
	s.c.limited[rej]++
	c := &s.calls[id]
	reason := reasonPool
	if rej >= rejBulkheadFull {
		reason = reasonBulkhead
	}
	if s.multi {
		if reason == reasonPool {
			s.c.calls[c.pc].poolRejected++
		} else {
			s.c.calls[c.pc].bulkheadRejected++
		}
	}
	s.settle(id, outRejected, reason)
}

func (s *sim) newCall(op, parent int32, parentGen uint32, level uint8, retryPath bool, pc, dep uint8) int32 {
	var id int32
	if n := len(s.freeCalls); n > 0 {
		id = s.freeCalls[n-1]
		s.freeCalls = s.freeCalls[:n-1]
	} else {
		id = int32(len(s.calls))
		s.calls = append(s.calls, call{})
	}
	c := &s.calls[id]
	gen := c.gen + 1 // generations survive reuse, so old events stay stale
	inst := int32(0)
	if n := s.st.levels[level].instances; n > 1 {
		inst = s.ops[op].client % int32(n)
	}
	*c = call{start: s.now, op: op, parent: parent, child: -1, instance: inst, gen: gen,
		parentGen: parentGen, level: level, retryPath: retryPath, pc: pc, dep: dep}
	return id
}

// endCall ends invocation id, which ended or was abandoned: it gives back
// its concurrency budget's share and frees it.
func (s *sim) endCall(id int32) {
	if c := &s.calls[id]; s.st.levels[c.level].budgetKind == budgetConcurrency && c.attempts > 0 {
		s.releaseConcurrency(c, true)
	}
	s.freeCall(id)
}

// freeCall frees call id, whose concurrency budget's share is given back
// (see endCall). Small enough to be inlined, which saves about 1% of
// BenchmarkMillionEvents's instructions (callgrind).
func (s *sim) freeCall(id int32) {
	c := &s.calls[id]
	c.gen++
	// An invocation that ended is no longer its caller's child: a caller
	// that gives up while its answer travels back must not cancel it (free
	// it) a second time. A live id is the child of its parent only.
	if p := c.parent; p >= 0 && s.calls[p].child == id {
		s.calls[p].child = -1
	}
	s.freeCalls = append(s.freeCalls, id)
}

// stateIndex returns the index in s.inst[level] of call c's budget or
// breaker: per dependency when perDep, else the instance's first.
func (s *sim) stateIndex(c *call, perDep bool) int32 {
	i := c.instance * int32(s.nd)
	if perDep {
		i += int32(c.dep)
	}
	return i
}

// fastFail counts a call of plan call pc failed fast by a breaker.
func (s *sim) fastFail(pc uint8) {
	s.c.fastFailed++
	s.bin(binFast)
	if s.multi {
		s.c.calls[pc].fastFailed++
	}
}

// invoke begins an invocation: the outside breaker decides whether it runs.
func (s *sim) invoke(id int32) {
	c := &s.calls[id]
	lv := &s.st.levels[c.level]
	if lv.breaker != nil && lv.breakerOutside {
		bi := s.stateIndex(c, lv.breakerPerDep)
		ok, trial := s.breakerAllow(c.level, bi)
		if !ok {
			s.fastFail(c.pc)
			s.settle(id, outBreakerOpen, reasonBreaker)
			return
		}
		c.opTrial, c.trialRound = trial, s.inst[c.level][bi].round
	}
	s.attempt(id)
}

// attempt makes the next attempt of call id.
func (s *sim) attempt(id int32) {
	c := &s.calls[id]
	lv := &s.st.levels[c.level]
	if lv.hedging != nil && !c.copy {
		s.hedge(id) // its copies make the attempts
		return
	}
	if lv.rateLimit && !s.takeToken(id) {
		return // it waits for its token (tokenTurn), or its deadline ended it
	}
	if lv.fixedWindow != nil && !s.takePermit(id) {
		return // it waits for its permit, or to be refused, or its deadline ended it
	}
	s.send(id)
}

// send makes the next attempt of call id, which has its rate limiter's
// token if the level has one: the throttle and then the breaker decide
// first (the throttle first, so that the breaker never lets a half-open
// trial through that the throttle then rejects: the trial would never end).
func (s *sim) send(id int32) {
	c := &s.calls[id]
	lv := &s.st.levels[c.level]
	if lv.throttle && s.throttleRejects(id, lv) {
		// As a breaker's fast-fail: the invocation ends here, unretried.
		s.c.throttled++
		c.lastRA = 0
		s.settle(id, outThrottled, reasonThrottle)
		return
	}
	if lv.breaker != nil && !lv.breakerOutside {
		bi := s.stateIndex(c, lv.breakerPerDep)
		ok, trial := s.breakerAllow(c.level, bi)
		if !ok {
			// A fast-fail is not retried: the invocation ends here.
			s.fastFail(c.pc)
			c.lastRA = 0
			if c.copy {
				s.copyDone(id, outBreakerOpen, 0)
				return
			}
			s.settle(id, outBreakerOpen, reasonBreaker)
			return
		}
		c.trial, c.trialRound = trial, s.inst[c.level][bi].round
	}
	c.attempts++
	if lv.slowCall > 0 {
		for len(s.attemptAt) <= int(id) {
			s.attemptAt = append(s.attemptAt, 0)
		}
		s.attemptAt[id] = s.now
	}
	retry := c.attempts > 1
	if s.observe != nil {
		s.observe(s, "attempt", id)
	}
	if b := lv.budget; b != nil && !retry {
		// A token bucket has nothing to count here: its state is not
		// looked up.
		switch lv.budgetKind {
		case budgetRatio:
			in := &s.inst[c.level][s.stateIndex(c, lv.budgetPerDep)]
			in.requests++
			switch {
			case b.Slices > 0:
				s.adder(in, b).add(s.now, sliceDeposit)
			case b.Window > 0:
				// Times the next look would drop go now: without retries
				// nothing looks, and a long run would keep them all.
				in.reqTimes.dropBefore(s.now - int64(b.Window))
				in.reqTimes.push(s.now)
			}
		case budgetConcurrency:
			s.inst[c.level][s.stateIndex(c, lv.budgetPerDep)].active++
		}
	}
	s.c.levelAttempts[c.level]++
	if !retry {
		s.c.levelFirst[c.level]++
	}
	if lv.first {
		s.c.attempts++
		if !retry {
			s.c.firstAttempts++
		}
		if s.multi {
			s.c.calls[c.pc].attempts++
		}
	}
	c.gen++
	c.inflight = true
	if lv.shareAttempts {
		s.inst[c.level][s.stateIndex(c, lv.budgetPerDep)].attemptsOut++
	}
	gen := c.gen
	switch end := s.now + lv.attemptTimeout; {
	case lv.attemptTimeout > 0 && (lv.deadline == 0 || end <= c.start+lv.deadline):
		s.timeouts[c.level].push(timer{at: end, id: id, gen: gen})
	case lv.deadline > 0:
		s.q.push(c.start+lv.deadline, evTimeout, id, gen)
	}
	retryPath := c.retryPath || retry
	opID, pc, dep := c.op, c.pc, c.dep
	var hop uint32
	if pc == 0 {
		hop = s.ops[opID].hops
		s.ops[opID].hops++
	} else {
		oc := s.opCall(opID, pc)
		hop = oc.hops
		oc.hops++
	}
	if s.st.levels[c.level].inner {
		s.sendToDependency(id, gen, retryPath, hop)
		return
	}
	child := s.newCall(opID, id, gen, c.level+1, retryPath, pc, dep)
	s.calls[id].child = child // c may have moved: newCall can grow s.calls
	s.calls[child].hop = hop
	if d, _ := s.dep(dep); d.net[legRequest].on {
		s.q.push(s.now+s.travel(legRequest, dep, pc, opID, hop), evArrive, child, s.calls[child].gen)
		return
	}
	s.invoke(child)
}

// travel draws the time one leg of hop number hop of plan call pc of
// operation op takes over dependency dep's network, from the operation's
// own stream (common random numbers).
func (s *sim) travel(leg int, dep, pc uint8, op int32, hop uint32) int64 {
	dm, _ := s.dep(dep)
	d := &dm.net[leg]
	var t float64
	switch d.kind {
	case DelayConstant:
		t = d.mean
	case DelayNormal:
		t = d.mean + float64(d.sd*s.rnd.normal(drawNetwork, s.ops[op].key, uint64(hop)<<1|uint64(leg)^uint64(pc)<<48))
	case DelayLognormal:
		t = exp(d.mu + float64(d.sigma*s.rnd.normal(drawNetwork, s.ops[op].key, uint64(hop)<<1|uint64(leg)^uint64(pc)<<48)))
	}
	return clampNs(t) // a normal draw below 0 takes no time
}

// reply sends the answer out to the caller of request r: over the network's
// answer leg, or at once when it takes no time. An answer nobody waits for
// any more is not sent.
func (s *sim) reply(r request, out int16, retryAfter int64) {
	if d, _ := s.dep(r.dep); !d.net[legAnswer].on {
		s.answer(r.call, r.gen, out, retryAfter)
		return
	}
	if c := &s.calls[r.call]; c.gen != r.gen || !c.inflight {
		return
	}
	r.pending = out
	s.travelling++
	rid := s.newRequest(r)
	for len(s.reqRA) <= int(rid) {
		s.reqRA = append(s.reqRA, 0)
	}
	s.reqRA[rid] = retryAfter
	s.q.push(s.now+s.travel(legAnswer, r.dep, r.pc, r.op, r.hop), evReturn, rid, 0)
}

// answer delivers the outcome of call id's attempt number gen.
func (s *sim) answer(id int32, gen uint32, out int16, retryAfter int64) {
	c := &s.calls[id]
	if c.gen != gen || !c.inflight {
		return // the attempt timed out or was cancelled: nobody is listening
	}
	c.inflight = false
	c.gen++ // the attempt's timeout is now stale
	c.child = -1
	s.attemptDone(id, out, retryAfter)
}

// timeout ends call id's attempt: its per-attempt timeout or its deadline passed.
func (s *sim) timeout(id int32) {
	c := &s.calls[id]
	c.inflight = false
	c.gen++
	if c.child >= 0 {
		s.cancel(c.child)
		c = &s.calls[id]
		c.child = -1
	}
	s.attemptDone(id, outTimeout, 0)
}

// cancel abandons an inner invocation whose caller stopped waiting. Its
// pending retry and answers become stale; requests it left at the dependency
// stay there, to be served as wasted work or dropped.
func (s *sim) cancel(id int32) {
	c := &s.calls[id]
	if c.trial || c.opTrial {
		s.breakerRecord(c.level, s.stateIndex(c, s.st.levels[c.level].breakerPerDep), true, false, true, c.trialRound)
	}
	if c.inflight && c.child >= 0 {
		s.cancel(c.child)
	}
	if c.hedge != 0 {
		s.cancelCopies(id)
	}
	s.endCall(id)
}

// attemptDone decides what follows an attempt's outcome: success, another
// attempt after a wait, or the end of the invocation.
func (s *sim) attemptDone(id int32, out int16, retryAfter int64) {
	c := &s.calls[id]
	lv := &s.st.levels[c.level]
	var in *instance // the budget's
	if lv.budget != nil {
		in = &s.inst[c.level][s.stateIndex(c, lv.budgetPerDep)]
	}
	failed := out != outOK
	if lv.breaker != nil && !lv.breakerOutside {
		slow := lv.slowCall > 0 && s.now-s.attemptAt[id] > lv.slowCall
		s.breakerRecord(c.level, s.stateIndex(c, lv.breakerPerDep), breakerFailure(out), slow, c.trial, c.trialRound)
		c.trial = false
	}
	retryable := failed && lv.retries(out)
	if b := lv.budget; b != nil {
		switch lv.budgetKind {
		case budgetTokens:
			switch {
			case !failed && b.Refund && c.charged != costNone:
				in.tokens = min(in.tokens+lv.budgetCost[c.charged], b.MaxTokens)
			case !failed:
				in.tokens = min(in.tokens+b.TokenRatio, b.MaxTokens)
			case retryable && !lv.chargeRetry:
				k := costClass(out)
				in.tokens = max(in.tokens-lv.budgetCost[k], 0)
				c.charged = k
			}
		case budgetConcurrency:
			if lv.shareAttempts {
				in.attemptsOut-- // this attempt is over
			}
			if c.permit {
				s.releaseConcurrency(c, false)
			}
		}
	}
	if lv.throttle {
		s.throttleRecord(id, lv, out)
	}
	if lv.rateLimit {
		s.inst[c.level][s.stateIndex(c, false)].rl.Update(time.Duration(s.now), out == throttleStatus)
	}
	if ad := lv.adaptive; ad != nil {
		ai := &s.inst[c.level][s.stateIndex(c, false)]
		// Dropped as in backoff, which only runs on a retry: a long
		// run without retries would keep every time.
		ai.adTotal.dropBefore(s.now - int64(ad.Window))
		ai.adFail.dropBefore(s.now - int64(ad.Window))
		ai.adTotal.push(s.now)
		if failed {
			ai.adFail.push(s.now)
		}
	}
	if c.copy {
		s.copyDone(id, out, retryAfter)
		return
	}
	c.lastRA = retryAfter
	switch {
	case !failed:
		s.settle(id, out, reasonNone)
		return
	case !retryable:
		s.settle(id, out, reasonNotRetryable)
		return
	case s.ops[c.op].flags&(opNonIdempotent|opKeyed) == opNonIdempotent && !lv.retryNonIdem:
		s.settle(id, out, reasonNonIdempotent)
		return
	case lv.deadline > 0 && s.now >= c.start+lv.deadline:
		s.settle(id, out, reasonDeadline) // the deadline cut the attempt short
		return
	case lv.maxAttempts > 0 && int(c.attempts) >= lv.maxAttempts: // 0: unlimited
		s.settle(id, out, reasonAttempts)
		return
	}
	wait, stop := s.retryWait(id, out, retryAfter)
	if stop != reasonNone {
		s.settle(id, out, stop)
		return
	}
	if lv.deadline > 0 && s.now+wait+lv.minAttempt > c.start+lv.deadline {
		// The wait and a useful attempt no longer fit in what is left.
		s.settle(id, out, reasonDeadline)
		return
	}
	if lv.budget != nil && !s.budgetTake(c, lv, in, out) {
		s.c.retriesDenied++
		s.c.levelDenied[c.level]++
		s.settle(id, out, reasonBudget)
		return
	}
	c.gen++
	s.q.push(s.now+wait, evRetry, id, c.gen)
}

// settle ends invocation id with outcome out: the caller hears of it, or, at
// the client, the operation is over.
func (s *sim) settle(id int32, out int16, reason uint8) {
	pc := &s.calls[id]
	lv := &s.st.levels[pc.level]
	if lv.breaker != nil && lv.breakerOutside && out != outBreakerOpen && out != outRejected {
		slow := lv.slowCall > 0 && s.now-pc.start > lv.slowCall
		s.breakerRecord(pc.level, s.stateIndex(pc, lv.breakerPerDep), breakerFailure(out), slow, pc.opTrial, pc.trialRound)
		pc = &s.calls[id]
	}
	// endCall, written out: settle is on the path of every call.
	if lv.budgetKind == budgetConcurrency && pc.attempts > 0 {
		s.releaseConcurrency(pc, true)
	}
	if pc.parent < 0 && s.simple {
		// The short path: the operation ends with its only call, which
		// is not copied.
		op := pc.op
		s.freeCall(id)
		s.finishOperation(op, out, reason)
		return
	}
	c := *pc // the slot is free once freeCall returns, for the next call: what follows reads a copy
	s.freeCall(id)
	if c.parent < 0 {
		s.callEnded(&c, out, reason)
		return
	}
	if out == outBreakerOpen || out == outThrottled {
		out = 503 // an inner service whose breaker is open, or that throttles itself, answers 503
	}
	s.reply(request{call: c.parent, gen: c.parentGen, op: c.op, hop: c.hop, pc: c.pc, dep: c.dep}, out, c.lastRA)
}

// callEnded ends plan call c (its level-0 call, already freed) with
// outcome out: the operation goes on, falls back, or fails.
func (s *sim) callEnded(c *call, out int16, reason uint8) {
	if c.lim != 0 {
		s.releaseLimits(c)
	}
	fallback := int64(-1)
	if s.st.fallback != nil && s.ops[c.op].fleet == 0 {
		fallback = s.st.fallback[c.pc]
	}
	ok := out == outOK
	if s.multi {
		oc := s.opCall(c.op, c.pc)
		oc.live = false
		cc := &s.c.calls[c.pc]
		cc.lat.add(s.now - oc.start)
		switch {
		case ok:
			cc.succeeded++
			s.xbin(3*int(c.pc) + 1)
		case fallback >= 0:
			cc.fellBack++
			s.xbin(3*int(c.pc) + 2)
		default:
			cc.failed++
			s.xbin(3*int(c.pc) + 2)
		}
	}
	if !ok {
		if fallback < 0 {
			s.failOperation(c.op, out, reason)
			return
		}
		s.ops[c.op].flags |= opDegraded
		if fallback > 0 {
			s.ops[c.op].refs++ // the slot waits for the fallback's answer
			s.q.push(s.now+fallback, evFallback, c.op, 0)
			return
		}
	}
	s.stepDone(c.op)
}

// stepDone counts the end of one call of operation op's current step; the
// last one starts the next step or ends the operation.
func (s *sim) stepDone(op int32) {
	o := &s.ops[op]
	o.pending--
	if o.pending > 0 {
		return
	}
	o.step++
	if int(o.step) < len(s.m.steps)-1 {
		s.startStep(op)
		return
	}
	s.finishOperation(op, outOK, reasonNone)
}

// failOperation ends operation op, failed by a call with outcome out: the
// other calls of its step still in progress are abandoned.
func (s *sim) failOperation(op int32, out int16, reason uint8) {
	if s.multi {
		o := &s.ops[op]
		for pc := s.m.steps[o.step]; pc < s.m.steps[o.step+1]; pc++ {
			if oc := s.opCall(op, uint8(pc)); oc.live {
				oc.live = false
				s.abandon(oc.call)
			}
		}
	}
	s.finishOperation(op, out, reason)
}

// abandon gives up level-0 call id, as a caller that stops waiting: its
// slots go back, and its attempts in progress are cancelled.
func (s *sim) abandon(id int32) {
	c := &s.calls[id]
	if c.lim != 0 {
		cc := *c
		s.releaseLimits(&cc)
		c = &s.calls[id]
		c.lim = 0
	}
	s.cancel(id)
}

func (s *sim) finishOperation(id int32, out int16, reason uint8) {
	if s.observe != nil {
		s.observe(s, "end", id)
	}
	op := &s.ops[id]
	ok := out == outOK && op.flags&opDegraded == 0
	s.c.record(s.m, op.start, s.now, ok)
	if s.c.fleets != nil {
		s.countFleet(id, ok, out)
	}
	if g := s.c.seg(s.m, op.start); g != nil {
		g.ops++
		switch {
		case ok:
			g.ok++
		case out != outOK && failsFast(reason):
			g.fast++
		}
	}
	s.inflightOp--
	switch {
	case ok:
		s.bin(binOK)
	case out == outOK:
		s.c.degraded++ // counted in neither successes nor failures
	default:
		s.bin(binFail)
		s.c.gaveUp[reason]++
		if op.flags&opNonIdempotent != 0 {
			if s.applied(id) {
				s.c.appliedAfterGiveUp++
			} else {
				op.flags |= opFailedUnapplied
			}
		}
		if s.st.levels[s.firstLevel(id)].deadLetter {
			s.c.deadLettered[reason]++
		}
	}
	if s.m.work.arrival == ArrivalClosed && s.now+s.m.work.think < s.m.work.duration {
		s.waitingClients++
		s.q.push(s.now+s.m.work.think, evClientNext, op.client, 0)
	}
	op.flags |= opDone
	if op.refs == 0 {
		s.freeOps = append(s.freeOps, id)
	}
}

// countFleet counts operation id, which has ended, in its fleet's counts.
func (s *sim) countFleet(id int32, ok bool, out int16) {
	op := &s.ops[id]
	f := &s.c.fleets[op.fleet]
	f.ops++
	switch {
	case ok:
		s.xbin(s.fleetX + 3*int(op.fleet) + 1)
	case out != outOK: // a degraded operation is neither, as in the strategy's series
		s.xbin(s.fleetX + 3*int(op.fleet) + 2)
	}
	affected := op.start >= s.m.affectedFrom && op.start < s.m.affectedTo
	if affected {
		f.affected++
	}
	if ok {
		f.ok++
		if affected {
			f.affectedOK++
		}
	}
}

// applied reports whether the dependency applied operation id, any call
// of its plan.
func (s *sim) applied(id int32) bool {
	if s.ops[id].applied > 0 {
		return true
	}
	if s.multi {
		n := len(s.m.calls)
		for _, oc := range s.pcs[int(id)*n+1 : int(id+1)*n] {
			if oc.applied > 0 {
				return true
			}
		}
	}
	return false
}

// retryNow is the Retry-After of an answer whose dependency attaches one
// of 0 (gRPC's grpc-retry-pushback-ms of 0): told apart from no
// Retry-After (0), it makes the modes that replace the backoff retry at
// once, and the others wait the backoff as max(backoff, 0) would.
const retryNow = math.MinInt64

// retryWait returns the wait before the next attempt of call id, whose
// attempt failed with out carrying retryAfter: the backoff, and what the
// level's retry_after mode makes of the Retry-After (or pushback). It
// returns a reason other than reasonNone when the retry is not to be
// made: a negative pushback that replaces the backoff (not_retryable), or
// max_elapsed, checked before the wait (deadline).
func (s *sim) retryWait(id int32, out int16, retryAfter int64) (wait int64, stop uint8) {
	wait = s.backoff(id, out)
	c := &s.calls[id]
	lv := &s.st.levels[c.level]
	ra := retryAfter
	if lv.raSome && !(out >= 100 && out < 600 && lv.raStatus[out]) {
		ra = 0 // the level does not read Retry-After on this status
	}
	switch lv.raMode {
	case RetryAfterAtLeast:
		wait = max(wait, ra)
	case RetryAfterReplace, RetryAfterReplaceAndReset:
		if ra < 0 && ra != retryNow {
			return 0, reasonNotRetryable // the server asked not to retry
		}
		if ra != 0 {
			wait = max(ra, 0) // retryNow: a pushback of 0 retries at once
			if lv.raMode == RetryAfterReplaceAndReset {
				c.waitFrom, c.prevWait = c.attempts, 0 // the next backoff is a first retry's
			}
		}
	}
	if lv.maxElapsed > 0 && s.now+wait-c.start > lv.maxElapsed {
		return 0, reasonDeadline // the retry would start past the elapsed-time limit
	}
	return wait, reasonNone
}

// backoff returns the wait before the next attempt of call id, whose
// last attempt ended with out.
func (s *sim) backoff(id int32, out int16) int64 {
	c := &s.calls[id]
	lv := &s.st.levels[c.level]
	if lv.backoff == BackoffNone {
		return 0
	}
	var u float64
	if lv.jitter != JitterNone {
		depCalls := s.ops[c.op].depCalls
		if c.pc > 0 {
			depCalls = s.opCall(c.op, c.pc).depCalls
		}
		sub := uint64(c.level)<<40 | uint64(c.attempts)<<24 | uint64(depCalls)&0xffffff ^ uint64(c.pc)<<48
		u = s.rnd.float(drawJitter, s.ops[c.op].key, sub)
	}
	var d int64
	if out == throttleStatus && lv.throttleBase > 0 {
		w := lv.waitModel
		w.base = w.throttleBase
		d = w.wait(int64(c.attempts-c.waitFrom), c.prevWait, u)
	} else {
		d = lv.wait(int64(c.attempts-c.waitFrom), c.prevWait, u) // the coming retry is retry number c.attempts, counted from the last reset
	}
	if ad := lv.adaptive; ad != nil {
		in := &s.inst[c.level][s.stateIndex(c, false)]
		in.adTotal.dropBefore(s.now - int64(ad.Window))
		in.adFail.dropBefore(s.now - int64(ad.Window))
		if in.adTotal.size > 0 && float64(in.adFail.size) > float64(ad.Above*float64(in.adTotal.size)) {
			d = clampNs(float64(float64(d) * ad.Factor))
		}
	}
	c.prevWait = d
	return d
}

// budgetTake asks level lv's budget, whose state is in, for one retry of
// call c after outcome out. A granted retry counts against a ratio or
// concurrency budget at once, so retries granted during the same wait
// cannot together overshoot it; a token bucket charging retries takes
// the retry's cost.
func (s *sim) budgetTake(c *call, lv *levelModel, in *instance, out int16) bool {
	b := lv.budget
	switch lv.budgetKind {
	case budgetTokens:
		if !lv.chargeRetry {
			return in.tokens > b.Threshold
		}
		k := costClass(out)
		cost := lv.budgetCost[k]
		// The small tolerance absorbs rounding in fractional costs.
		if in.tokens-cost < b.Threshold-1e-9 {
			return false
		}
		in.tokens = max(in.tokens-cost, 0)
		c.charged = k
		return true
	case budgetConcurrency:
		r := in.retrying
		if lv.shareAttempts {
			// Envoy's RetryBudgetImpl (resource_manager_impl.h): canCreate
			// while count() < max(budget_percent × active, min), the
			// product truncated to an integer.
			if int64(r) >= max(int64(float64(b.Ratio*float64(in.attemptsOut))), int64(b.MinConcurrency)) {
				return false
			}
		} else if int(r) >= b.MinConcurrency && in.active+r > 0 && float64(r)/float64(in.active+r) > b.Ratio {
			// failsafe-go's budget.go TryAcquirePermit: refused when at
			// least min_concurrency retries are in progress and they make
			// up more than ratio of the executions in progress. The share
			// is divided, as there, so that a boundary such as 5 of 25
			// against 0.2 rounds the same.
			return false
		}
		in.retrying++
		c.permit = true
		return true
	}
	if b.Slices > 0 {
		// Finagle's TokenBucket.newLeakyBucket tryGet: the balance must
		// cover the withdrawal, which then counts in the current slice.
		w := int64(sliceDeposit / b.Ratio)
		reserve := int64(b.MinPerSecond * Duration(b.Window).D().Seconds() * float64(w))
		a := s.adder(in, b)
		if a.sum(s.now)+reserve < w {
			return false
		}
		a.add(s.now, -w)
		in.retries++
		return true
	}
	requests, retries := in.requests, in.retries
	reserve := 0.0
	if b.Window > 0 {
		in.reqTimes.dropBefore(s.now - int64(b.Window))
		in.retryTimes.dropBefore(s.now - int64(b.Window))
		requests, retries = int64(in.reqTimes.size), int64(in.retryTimes.size)
		reserve = float64(b.MinPerSecond * Duration(b.Window).D().Seconds())
	}
	// The retry itself must fit: retries+1 ≤ ratio·requests. The small
	// tolerance absorbs rounding in ratio·requests.
	if float64(retries+1) > float64(b.Ratio*float64(requests))+reserve+1e-9 {
		return false
	}
	in.retries++
	if b.Window > 0 {
		in.retryTimes.push(s.now)
	}
	return true
}

// sliceDeposit is what a first attempt deposits in a ratio budget with
// slices (Finagle's RetryBudget ScaleFactor); a retry withdraws
// ⌊sliceDeposit/ratio⌋.
const sliceDeposit = 1000

// adder returns the windowed balance of ratio budget b's state in,
// made at its first use (as Finagle's is when its client is made: the
// first use is at or after time 0, its clock's start).
func (s *sim) adder(in *instance, b *Budget) *windowedAdder {
	if in.adder == nil {
		in.adder = &windowedAdder{window: int64(b.Window) / int64(b.Slices), buf: make([]int64, b.Slices-1)}
	}
	return in.adder
}

// A windowedAdder is a sum over a window of time kept in slices: the
// current one (cur) and the n−1 before it (buf), as twitter/util's
// WindowedAdder (util-core, WindowedAdder.scala): a new slice starts at
// the first use at least window after the current one started (old), and
// slices skipped meanwhile are cleared.
type windowedAdder struct {
	window int64 // a slice's length
	buf    []int64
	i      int
	old    int64
	cur    int64
}

// expire starts a new slice if the current one is over.
func (a *windowedAdder) expire(now int64) {
	if now-a.old < a.window {
		return
	}
	n := len(a.buf)
	a.buf[a.i] = a.cur
	a.cur = 0
	a.i = (a.i + 1) % n
	if skip := int(min((now-a.old)/a.window-1, int64(n))); skip > 0 {
		for k := range skip {
			a.buf[(a.i+k)%n] = 0
		}
		a.i = (a.i + skip) % n
	}
	a.old = now
}

func (a *windowedAdder) add(now, x int64) {
	a.expire(now)
	a.cur += x
}

func (a *windowedAdder) sum(now int64) int64 {
	a.expire(now)
	t := a.cur
	for _, v := range a.buf {
		t += v
	}
	return t
}

// releaseConcurrency ends call c's retry in progress, if it has one, for
// its concurrency budget; and its invocation too when ended.
func (s *sim) releaseConcurrency(c *call, ended bool) {
	lv := &s.st.levels[c.level]
	in := &s.inst[c.level][s.stateIndex(c, lv.budgetPerDep)]
	if c.permit {
		in.retrying--
		c.permit = false
	}
	if ended {
		in.active--
		if c.inflight && lv.shareAttempts {
			in.attemptsOut-- // an attempt cancelled in flight
		}
	}
}

// breakerAllow asks the breaker of a level's instance whether a call may pass,
// and whether it passes as a half-open trial. Open turns half-open lazily, at
// the first call after the break, as Polly and resilience4j do.
func (s *sim) breakerAllow(level uint8, inst int32) (ok, trial bool) {
	lv := &s.st.levels[level]
	in := &s.inst[level][inst]
	switch in.brState {
	case brClosed:
		return true, false
	case brOpen:
		if end := in.openedAt + in.openFor; s.now < end || lv.strictEnd && !lv.autoHalfOpen && s.now == end {
			return false, false
		}
		s.breakerHalfOpen(level, inst)
	}
	if in.trialsStarted < lv.halfOpenCalls {
		in.trialsStarted++
		return true, true
	}
	return false, false
}

// breakerRecord feeds an outcome to a breaker: failed, and slow (longer
// than the breaker's slow_call). Outcomes arriving while it is not closed
// count only if they are trials of the current half-open round.
func (s *sim) breakerRecord(level uint8, inst int32, failed, slow, trial bool, round uint32) {
	lv := &s.st.levels[level]
	br := lv.breaker
	in := &s.inst[level][inst]
	switch {
	case trial && round != in.round:
		// A trial of an earlier half-open round that outlived it: its
		// outcome decides nothing now.
	case trial && in.brState == brHalfOpen:
		s.halfOpenRecord(level, inst, failed, slow)
	case trial || in.brState != brClosed:
	case br.Kind == BreakerConsecutive:
		if !failed {
			in.consecutive = 0
			return
		}
		in.consecutive++
		if in.consecutive >= br.Failures {
			s.breakerOpen(level, inst)
		}
	default:
		var total, fails, slows int
		if br.WindowCalls > 0 {
			in.lastCalls.push(failed)
			if failed {
				in.lastFails++
			}
			if in.lastCalls.len() > br.WindowCalls && in.lastCalls.pop() {
				in.lastFails--
			}
			total, fails = in.lastCalls.len(), in.lastFails
			if lv.slowCall > 0 {
				in.lastSlow.push(slow)
				if slow {
					in.lastSlows++
				}
				if in.lastSlow.len() > br.WindowCalls && in.lastSlow.pop() {
					in.lastSlows--
				}
				slows = in.lastSlows
			}
		} else {
			in.outcomes.push(s.now)
			if failed {
				in.fails.push(s.now)
			}
			// The window is (now-W, now]: an outcome exactly W old has left it.
			from := s.now - int64(br.Window) + 1
			if lv.epochBuckets {
				// Whole seconds: the W/1s seconds up to now's, now's included.
				from = (s.now/1e9 - int64(br.Window)/1e9 + 1) * 1e9
			}
			in.outcomes.dropBefore(from)
			in.fails.dropBefore(from)
			total, fails = in.outcomes.size, in.fails.size
			if lv.slowCall > 0 {
				if slow {
					in.slows.push(s.now)
				}
				in.slows.dropBefore(from)
				slows = in.slows.size
			}
		}
		if total < br.MinThroughput {
			return
		}
		var open bool
		if br.Failures > 0 { // k of the last n
			open = fails >= br.Failures
		} else {
			open = float64(fails) >= float64(br.Ratio*float64(total))
		}
		if lv.slowCall > 0 && float64(slows) >= float64(br.SlowRatio*float64(total)) {
			open = true
		}
		if open {
			s.breakerOpen(level, inst)
		}
	}
}

// halfOpenRecord feeds a trial's outcome to a half-open breaker, which
// reopens once halfOpenFails trials failed (or enough were slow) and
// closes once the others succeeded: as soon as that is settled, or, with
// all_trials, once all the trials are in.
func (s *sim) halfOpenRecord(level uint8, inst int32, failed, slow bool) {
	lv := &s.st.levels[level]
	in := &s.inst[level][inst]
	if failed {
		in.trialsFailed++
	} else {
		in.trialsOK++
	}
	if slow {
		in.trialsSlow++
	}
	n, k := lv.halfOpenCalls, lv.halfOpenFails
	reopen := in.trialsFailed >= k
	if lv.slowCall > 0 && float64(in.trialsSlow) >= math.Ceil(float64(lv.breaker.SlowRatio*float64(n))-1e-9) {
		reopen = true
	}
	if lv.allTrials && in.trialsFailed+in.trialsOK < n {
		return
	}
	switch {
	case reopen:
		s.breakerOpen(level, inst)
	case in.trialsOK >= n-k+1 || lv.allTrials:
		s.breakerTo(level, inst, brClosed)
		s.breakerClear(in)
		in.openings = 0
	}
}

// breakerOpen opens a level's instance's breaker for its break, or, with
// open_multiplier, for the break lengthened by each opening since it last
// closed (openWait).
func (s *sim) breakerOpen(level uint8, inst int32) {
	in := &s.inst[level][inst]
	lv := &s.st.levels[level]
	s.breakerTo(level, inst, brOpen)
	in.openedAt = s.now
	in.openings++
	in.openFor = openWait(lv.breaker, in.openings)
	s.breakerClear(in)
	if lv.autoHalfOpen {
		s.q.push(s.now+in.openFor, evHalfOpen, inst, uint32(level))
	}
}

// openWait is how long breaker br stays open at its nth opening in a row
// (n ≥ 1): Break, multiplied by OpenMultiplier n−1 times and capped by
// MaxOpen, as resilience4j's IntervalFunction.ofExponentialBackoff with a
// maximum (IntervalFunction.java at af9e7c9) gives the OpenState of
// attempts n.
func openWait(br *Breaker, n int) int64 {
	if br.OpenMultiplier == 0 {
		return int64(br.Break)
	}
	w := float64(br.Break)
	limit := math.Inf(1)
	if br.MaxOpen > 0 {
		limit = float64(br.MaxOpen)
	}
	limit = min(limit, float64(MaxSpan))
	for i := 1; i < n && w < limit; i++ {
		w *= br.OpenMultiplier
	}
	return int64(min(w, limit))
}

// breakerHalfOpen turns an open breaker half-open and starts a round of
// trials.
func (s *sim) breakerHalfOpen(level uint8, inst int32) {
	in := &s.inst[level][inst]
	s.breakerTo(level, inst, brHalfOpen)
	in.trialsStarted, in.trialsOK, in.trialsFailed, in.trialsSlow = 0, 0, 0, 0
	in.round++
}

// breakerClear drops the breaker's samples: at every half-open decision and
// when it opens.
func (s *sim) breakerClear(in *instance) {
	in.consecutive = 0
	in.outcomes.reset()
	in.fails.reset()
	in.lastCalls.reset()
	in.lastFails = 0
	in.lastSlow.reset()
	in.lastSlows = 0
	in.slows.reset()
}

func (s *sim) breakerTo(level uint8, inst int32, to uint8) {
	in := &s.inst[level][inst]
	if inst < int32(s.nd) { // instance 0's, of any dependency
		s.c.transitions = append(s.c.transitions, transition{at: s.now, level: level, from: in.brState, to: to, dep: uint8(inst)})
	}
	in.brState = to
}

// tick moves the current bin to s.now's, when s.now has passed nextBin
// (checked by the caller, so that the common case costs no call), carrying the queue and in-flight
// levels into the bins that no event touched.
func (s *sim) tick() {
	i := int(s.now / s.base)
	for i >= maxBins {
		s.coarsen()
		i = int(s.now / s.base)
	}
	s.nextBin = int64(i+1) * s.base
	if !s.series {
		s.lastBin = i
		return
	}
	b := &s.c.bins
	if i >= len(b[0]) {
		n := min(max(2*len(b[0]), i+1, 256), maxBins) // i < maxBins
		for k := range b {
			b[k] = append(b[k], make([]int32, n-len(b[k]))...)
		}
	}
	q, f := int32(s.queued()), int32(s.inflightOp)
	for j := s.lastBin + 1; j <= i; j++ {
		b[binQueue][j], b[binInflight][j] = q, f
	}
	if len(s.c.xbins) > 0 {
		s.tickExtra(i)
	}
	s.lastBin = i
}

// tickExtra grows the plan calls' and the pool's bins to bin i, carrying
// the pool's level.
func (s *sim) tickExtra(i int) {
	x := s.c.xbins
	if i >= len(x[0]) {
		n := min(max(2*len(x[0]), i+1, 256), maxBins)
		for k := range x {
			x[k] = append(x[k], make([]int32, n-len(x[k]))...)
		}
	}
	if s.pools != nil {
		p := x[len(x)-1]
		for j := s.lastBin + 1; j <= i; j++ {
			p[j] = int32(s.poolUsed)
		}
	}
}

// xbin counts one in extra bin k at s.now.
func (s *sim) xbin(k int) {
	if s.series {
		s.c.xbins[k][s.lastBin]++
	}
}

// xlevel records a level in extra bin k at s.now.
func (s *sim) xlevel(k, v int) {
	if !s.series {
		return
	}
	if p := &s.c.xbins[k][s.lastBin]; int32(v) > *p {
		*p = int32(v)
	}
}

// maxBins bounds the bins of a run: a long run gets coarser bins, not more
// memory (at most maxBins of each counter, 2 MiB for the eight of
// counters.bins). Peaks do not depend on them (see peakTracker).
const maxBins = 1 << 16

// coarsen halves the bins' resolution, merging neighbours: counts add up,
// levels keep their maximum.
func (s *sim) coarsen() {
	last := s.lastBin
	n := (last + 2) / 2
	s.lastBin = n - 1
	s.base *= 2
	if !s.series {
		return
	}
	for k := range s.c.bins {
		b := s.c.bins[k]
		for j := range n {
			a, c := b[2*j], int32(0)
			if 2*j+1 <= last {
				c = b[2*j+1]
			}
			if k == binQueue || k == binInflight {
				b[j] = max(a, c)
			} else {
				b[j] = a + c
			}
		}
		clear(b[n:])
	}
	for k, b := range s.c.xbins {
		level := s.pools != nil && k == len(s.c.xbins)-1
		for j := range n {
			a, c := b[2*j], int32(0)
			if 2*j+1 <= last {
				c = b[2*j+1]
			}
			if level {
				b[j] = max(a, c)
			} else {
				b[j] = a + c
			}
		}
		clear(b[n:])
	}
}

// A peakTracker finds the most calls in any window of res aligned at 0, as
// the calls come, without keeping them.
type peakTracker struct {
	res, end               int64 // resolution; end of the current window
	calls, retries         int32 // in the current window
	bestCalls, bestRetries int32
}

func (p *peakTracker) add(now int64, retry bool) {
	if now >= p.end {
		p.flush()
		p.end = (now/p.res + 1) * p.res
	}
	p.calls++
	if retry {
		p.retries++
	}
}

func (p *peakTracker) flush() {
	p.bestCalls, p.bestRetries = max(p.bestCalls, p.calls), max(p.bestRetries, p.retries)
	p.calls, p.retries = 0, 0
}

// bin counts one in counter k at s.now.
func (s *sim) bin(k int) {
	if s.series {
		s.c.bins[k][s.lastBin]++
	}
}

// level records a level (queue length, operations in flight) at s.now.
func (s *sim) level(k, v int) {
	if !s.series {
		return
	}
	if p := &s.c.bins[k][s.lastBin]; int32(v) > *p {
		*p = int32(v)
	}
}
