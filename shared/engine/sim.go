// This file holds the core of a simulation: its state (calls, requests,
// instances, dependencies), the event loop that processes the arrivals,
// the event heap and the attempt timeouts in time order, and a call's
// invocations and attempts from its start to its settling. The other
// mechanisms have files of their own: arrivals.go, operation.go,
// limiter.go, retry.go, budget.go, breaker.go, counters.go, reset.go.

package engine

import (
	"context"
	"fmt"
	"time"
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
	tried     uint8 // the backends its attempts were routed to, a bit each (see Backends)
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
	fetch   bool   // a cache's miss forwarded: its answer fills the cache (cache.go)
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
	// With connection limits (connlimit.go): the attempts in progress, the
	// pending line and how many in it still wait.
	connOut     int32
	connWaiting int32
	connLine    fifo[callRef]
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
		connLine:   in.connLine.emptied(),
	}
}

// sim runs one strategy on one seed.
type sim struct {
	m  *model
	st *strategyModel
	// dm and nd are read by every call at a dependency: here, beside m,
	// they share its cache line.
	dm    *[maxDeps]depModel // m.depArray: index it through dep
	nd    int                // the number of dependencies
	ns    int                // the number of servers: dependencies, then backends
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
	cacheX int32     // with a cache, the first of its extra bins: hits, then misses (in simple's padding)
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
	// caches are the dependencies' caches, by dependency, with a cache
	// (nil without; cache.go): last, so that a run without one reads
	// nothing new where every event looks.
	caches []*lruCache
	// concurrent: a dependency has a concurrency limit; admitted is, by
	// request id, what it remembers of the requests it took on (overload.go).
	concurrent bool
	admitted   []admission
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
	ov     *overloadState
	active int         // a backend's requests not answered yet (see Backends)
	next   uint32      // a round-robin balancer's next backend
	sweep  int64       // with outlier detection: when its next analysis sweep is due
	scale  *scaleState // its autoscaler's, nil without one
}

var errStopped = fmt.Errorf("engine: run stopped")

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
	for i := range s.ns {
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
	for i := range s.ns {
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
	case evConnGrant:
		if c := &s.calls[e.id]; c.gen != e.gen {
			return false // it was abandoned: it gave its connection back
		}
		s.send(e.id)
	case evConnGiveUp:
		if c := &s.calls[e.id]; c.gen != e.gen || c.lim&waitConn == 0 {
			return false // it got its connection, or ended otherwise
		}
		s.connGiveUp(e.id)
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
	case evScaleSample:
		s.scaleSample(uint8(e.gen))
	case evWarm:
		s.warmed(uint8(e.gen), int(e.id))
	case evClientNext:
		s.waitingClients--
		if s.now >= s.m.work.duration {
			return false
		}
		s.startOperation(e.id)
	}
	return true
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
	if lv.conns != nil && c.lim&holdConn == 0 && !s.connect(id, lv.conns) {
		return // it waits for a connection (evConnGrant), or overflowed
	}
	if lv.throttle && s.throttleRejects(id, lv) {
		// As a breaker's fast-fail: the invocation ends here, unretried.
		s.dropConn(c)
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
			s.dropConn(c)
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
	if int(r.dep) >= s.nd {
		s.backendAnswered(r.dep, out)
	}
	if r.fetch {
		s.fetched(&r, out, retryAfter)
	}
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
	s.dropConn(c)
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
	if c.lim&holdConn != 0 {
		s.dropConn(c) // the attempt is over: its connection is free
	}
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
