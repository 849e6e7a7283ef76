package engine

import (
	"cmp"
	"math"
)

// Overload control at the dependency: the order in which its workers take
// queued requests and the drops of its queue discipline (QueueDiscipline,
// CoDel), a token-bucket rate limiter in front of it (ServerRateLimit),
// and an adaptive concurrency limit on the work it takes on
// (ConcurrencyLimit). A dependency with none of them keeps the plain FIFO
// path of dependency.go: its model's overload is nil.

// CoDel sets the two parameters of the "codel" and "adaptive-lifo" queue
// disciplines. Target is the sojourn time the queue aims for and Interval
// the time over which it judges; left out they are DefaultCoDelTarget and
// DefaultCoDelInterval, the values both sources publish (Nichols and
// Jacobson's constants target = 5 ms, interval = 100 ms; Maurer's M = 5 ms
// and N = 100 ms).
type CoDel struct {
	Target   Duration `json:"target,omitzero"`
	Interval Duration `json:"interval,omitzero"`
}

// The defaults of CoDel, as both sources publish them.
const (
	DefaultCoDelTarget   = Duration(5_000_000)   // 5 ms
	DefaultCoDelInterval = Duration(100_000_000) // 100 ms
)

// A ServerRateLimit is a token bucket in front of a dependency: Burst
// tokens, full at the start, refilled at Rate tokens per second. A request
// that reaches the dependency takes a token; without one it is answered
// 429 at once, with a Retry-After of the time until a token is there,
// rounded up to a whole number of RetryAfterUnit (DefaultRetryAfterUnit,
// one second, when left out: an HTTP Retry-After header carries whole
// seconds, RFC 9110 section 10.2.3; "1ms" gives the exact wait to the
// millisecond, as Azure's x-ms-retry-after-ms header does).
//
// The bucket is kept as the generic cell rate algorithm (ITU-T I.371's
// virtual scheduling), which is the same token bucket written in integer
// time: one token every T = 1/Rate s (rounded to the nanosecond), and a
// theoretical arrival time TAT; a request at t conforms when
// TAT − (Burst−1)·T ≤ t, and then TAT becomes max(TAT, t) + T; otherwise
// the wait is TAT − (Burst−1)·T − t. Integer time keeps runs identical on
// every platform.
//
// The limiter is the dependency's front door: a request reaching it is
// counted as a call, then answered by the dependency's script if it has
// one (a replay answers every call as logged), then asks the limiter,
// and only a request with a token meets the phases (outage, errors), the
// error rates, the shedding and the queue. A refused request takes no
// token and counts in rejections.
type ServerRateLimit struct {
	Rate           float64  `json:"rate"`
	Burst          int      `json:"burst"`
	RetryAfterUnit Duration `json:"retry_after_unit,omitzero"`
}

// DefaultRetryAfterUnit is a ServerRateLimit's RetryAfterUnit when left
// out: whole seconds, as HTTP's Retry-After header carries them.
const DefaultRetryAfterUnit = Duration(1_000_000_000)

// RateLimitStatus is the status a ServerRateLimit answers a request
// without a token with: 429 Too Many Requests (RFC 6585 section 4).
const RateLimitStatus = 429

// A ConcurrencyLimit is an adaptive limit on the requests a dependency
// has taken on and not answered yet (held by a freeze, queued, in
// service): a request that finds as many in flight as the limit is
// answered Status (DefaultConcurrencyStatus, 503, when left out) at once,
// and the limit follows AIMD, as Netflix's concurrency-limits library
// has it (AIMDLimit under its SimpleLimiter): each request taken on is a
// sample when it leaves, and
//
//   - a sample dropped, or whose time from being taken on to its answer
//     exceeds Timeout, multiplies the limit by BackoffRatio, rounded
//     down;
//   - any other sample, when the requests in flight as it was taken on
//     (itself included) were at least half the limit, adds 1;
//   - the limit stays within Min and Max; it starts at Initial.
//
// Left out, Initial, Min, Max, BackoffRatio and Timeout are the library's
// AIMDLimit defaults: 20, 20, 200, 0.9 and 5 s. A refused request is no
// sample and counts in rejections.
//
// What the library leaves to its integrations, our reading: a sample is
// dropped when the dependency refused the request after taking it on (a
// full queue, a queue discipline's drop, priority shedding) or when its
// caller had stopped waiting by the time the dependency answered it or
// skipped it (the gRPC server integration counts DEADLINE_EXCEEDED as a
// drop); any other answer, an error included, is a sample like a
// success, as in the library's servlet filter. The limit is on the work
// the dependency takes on: the answers it gives without taking any (a
// script, the rate limiter, an outage, an error phase, random or
// load-driven errors) are neither limited nor samples. The status is
// Envoy's adaptive concurrency filter's default; the library answers
// 429 from its servlet filter and UNAVAILABLE from its gRPC server.
type ConcurrencyLimit struct {
	Initial      int      `json:"initial,omitempty"`
	Min          int      `json:"min,omitempty"`
	Max          int      `json:"max,omitempty"`
	BackoffRatio float64  `json:"backoff_ratio,omitempty"`
	Timeout      Duration `json:"timeout,omitzero"`
	Status       int      `json:"status,omitempty"`
}

// The defaults of a ConcurrencyLimit: Netflix's AIMDLimit's, and Envoy's
// adaptive concurrency status.
const (
	DefaultConcurrencyInitial = 20
	DefaultConcurrencyMin     = 20
	DefaultConcurrencyMax     = 200
	DefaultBackoffRatio       = 0.9
	DefaultConcurrencyTimeout = Duration(5_000_000_000) // 5 s
	DefaultConcurrencyStatus  = 503
)

// Effective returns c with its defaults filled in.
func (c ConcurrencyLimit) Effective() ConcurrencyLimit {
	c.Initial = cmp.Or(c.Initial, DefaultConcurrencyInitial)
	c.Min = cmp.Or(c.Min, DefaultConcurrencyMin)
	c.Max = cmp.Or(c.Max, DefaultConcurrencyMax)
	c.BackoffRatio = cmp.Or(c.BackoffRatio, DefaultBackoffRatio)
	c.Timeout = cmp.Or(c.Timeout, DefaultConcurrencyTimeout)
	c.Status = cmp.Or(c.Status, DefaultConcurrencyStatus)
	return c
}

// overloadModel is a dependency's overload control, compiled.
type overloadModel struct {
	discipline QueueDiscipline
	target     int64 // ns
	interval   int64 // ns
	// The rate limiter, when limited: a token every emission ns, at most
	// tolerance ns of tokens saved ((burst − 1) · emission), a
	// Retry-After rounded up to a multiple of unit ns.
	limited   bool
	emission  int64
	tolerance int64
	unit      int64
	// The concurrency limit, when limited (concurrency is its settings
	// with their defaults, timeout in ns).
	concurrent  bool
	concurrency ConcurrencyLimit
}

// compileOverload compiles d's overload control: nil for a FIFO queue
// and no rate limiter, the plain path.
func compileOverload(d *Dependency) *overloadModel {
	disc := d.QueueDiscipline
	if (disc == "" || disc == QueueFIFO) && d.RateLimit == nil && d.ConcurrencyLimit == nil {
		return nil
	}
	om := &overloadModel{discipline: disc, target: int64(DefaultCoDelTarget), interval: int64(DefaultCoDelInterval)}
	if om.discipline == "" {
		om.discipline = QueueFIFO
	}
	if c := d.CoDel; c != nil {
		if c.Target > 0 {
			om.target = int64(c.Target)
		}
		if c.Interval > 0 {
			om.interval = int64(c.Interval)
		}
	}
	if rl := d.RateLimit; rl != nil {
		om.limited = true
		om.emission = max(int64(math.Round(1e9/rl.Rate)), 1)
		om.tolerance = int64(rl.Burst-1) * om.emission
		om.unit = int64(DefaultRetryAfterUnit)
		if rl.RetryAfterUnit > 0 {
			om.unit = int64(rl.RetryAfterUnit)
		}
	}
	if c := d.ConcurrencyLimit; c != nil {
		om.concurrent, om.concurrency = true, c.Effective()
	}
	return om
}

// overloadState is what a dependency's overload control remembers during
// a run. stamps runs beside the dependency's queue, one per queued
// request, taken from the same end: the time it was queued ("codel") or
// the time its queue timeout passes ("adaptive-lifo").
type overloadState struct {
	stamps fifo[int64]
	// lastEmpty is when the queue last became empty (while it is empty,
	// it is empty now).
	lastEmpty int64
	// CoDel's state, as Nichols and Jacobson name it: firstAbove is 0
	// while the sojourn time is below target.
	firstAbove, dropNext int64
	count                uint32
	dropping             bool
	// tat is the rate limiter's theoretical arrival time.
	tat int64
	// The concurrency limit's state: the limit (0 until the first request
	// reaches it) and the requests in flight under it.
	limit, inflight int
}

// overload returns the dependency's overload control state, made at its
// first use in a run: a dependency without overload control pays for it
// only a nil pointer in its depState.
func (ds *depState) overload() *overloadState {
	if ds.ov == nil {
		ds.ov = &overloadState{}
	}
	return ds.ov
}

// rateLimited asks dependency d's rate limiter for request r's token at
// s.now, and reports whether it refused it: then r has been answered 429
// with a Retry-After of the time until a token is there, rounded up to
// the limiter's unit.
func (s *sim) rateLimited(r request, d *depModel, ds *depState) bool {
	om := d.overload
	if !om.limited {
		return false
	}
	wait := ds.overload().take(om, s.now)
	if wait == 0 {
		return false
	}
	s.rejected(&r)
	s.reply(r, RateLimitStatus, (wait+om.unit-1)/om.unit*om.unit)
	return true
}

// An admission is what the concurrency limit remembers of a request it
// took on, by request id, until the request leaves the dependency.
type admission struct {
	at       int64 // when it was taken on
	inflight int32 // the requests in flight then, itself included
	on       bool  // it holds a place under the limit
	refused  bool  // the dependency refused it after taking it on: a drop
}

// takeOn takes request r on at dependency d, under its concurrency limit
// when it has one, and returns its request id; or it answers r at once
// with the limit's status, a rejection, and returns -1.
func (s *sim) takeOn(r request, d *depModel, ds *depState) int32 {
	om := d.overload
	if om == nil || !om.concurrent {
		return s.newRequest(r)
	}
	ov := ds.overload()
	if ov.limit == 0 {
		ov.limit = om.concurrency.Initial
	}
	if ov.inflight >= ov.limit {
		s.rejected(&r)
		st := int16(om.concurrency.Status)
		s.reply(r, st, s.retryAfter(r.dep, st))
		return -1
	}
	ov.inflight++
	rid := s.newRequest(r)
	for len(s.admitted) <= int(rid) {
		s.admitted = append(s.admitted, admission{})
	}
	s.admitted[rid] = admission{at: s.now, inflight: int32(ov.inflight), on: true}
	return rid
}

// refusedAfterAdmission marks request rid, which the dependency refuses
// at once, as a dropped sample of its concurrency limit.
func (s *sim) refusedAfterAdmission(rid int32) {
	if s.concurrent {
		s.admitted[rid].refused = true
	}
}

// leave takes request rid, leaving its dependency, from under the
// concurrency limit that took it on, if one did, and feeds the limit its
// sample (AIMDLimit's update).
func (s *sim) leave(rid int32) {
	a := &s.admitted[rid]
	if !a.on {
		return
	}
	r := &s.reqs[rid]
	d, ds := s.dep(r.dep)
	c, ov := &d.overload.concurrency, ds.ov
	ov.inflight--
	call := &s.calls[r.call]
	dropped := a.refused || call.gen != r.gen || !call.inflight || s.now-a.at > int64(c.Timeout)
	limit := ov.limit
	switch {
	case dropped:
		limit = int(float64(float64(limit) * c.BackoffRatio))
	case 2*int(a.inflight) >= limit:
		limit++
	}
	ov.limit = min(c.Max, max(c.Min, limit))
	*a = admission{}
}

// take takes a token of the rate limiter at now and returns 0, or
// returns the time until a token is there (more than 0), taking none.
func (ov *overloadState) take(om *overloadModel, now int64) (wait int64) {
	if at := ov.tat - om.tolerance; at > now {
		return at - now
	}
	ov.tat = max(ov.tat, now) + om.emission
	return 0
}

// queuedAt records, for dependency d's queue discipline, the request just
// pushed onto ds's queue at s.now.
func (s *sim) queuedAt(d *depModel, ds *depState) {
	om, ov := d.overload, ds.overload()
	if ds.queue.len() == 1 {
		ov.lastEmpty = s.now // it was empty until now
	}
	switch om.discipline {
	case QueueCoDel:
		ov.stamps.push(s.now)
	case QueueAdaptiveLIFO:
		// Maurer's controlled delay: a queue that has not been empty
		// for the last N lets a request wait at most M, otherwise N.
		timeout := om.interval
		if ov.lastEmpty < s.now-om.interval {
			timeout = om.target
		}
		ov.stamps.push(s.now + timeout)
	}
}

// dequeue takes the next request that a free worker of dependency dep is
// to serve from its queue, under its queue discipline, answering the
// requests the discipline drops; it returns -1 when it dropped every
// request left.
func (s *sim) dequeue(dep uint8) int32 {
	d, ds := s.dep(dep)
	om, ov := d.overload, ds.overload()
	var rid int32 = -1
	switch om.discipline {
	case QueueFIFO:
		rid = ds.queue.pop()
	case QueueLIFO:
		rid = ds.queue.popBack()
	case QueueCoDel:
		rid = s.codel(d, ds)
	case QueueAdaptiveLIFO:
		for ds.queue.len() > 0 {
			var deadline int64
			if ov.lastEmpty < s.now-om.interval { // congested: newest first
				rid, deadline = ds.queue.popBack(), ov.stamps.popBack()
			} else {
				rid, deadline = ds.queue.pop(), ov.stamps.pop()
			}
			if ds.queue.len() == 0 {
				ov.lastEmpty = s.now
			}
			if s.now <= deadline {
				break
			}
			s.refuseQueued(rid, d)
			rid = -1
		}
	default:
		panic("engine: queue discipline " + string(om.discipline) + " has no dequeue") // TestEveryQueueDisciplineServes
	}
	if ds.queue.len() == 0 {
		ov.lastEmpty = s.now
	}
	return rid
}

// codelPop is Nichols and Jacobson's dodeque: it takes the oldest queued
// request and says whether CoDel may drop it: its sojourn time, and
// every one since firstAbove, has been at or above target for an
// interval. Requests are packets of one size, and the source's "fewer
// bytes queued than one packet" is a queue left empty.
func (s *sim) codelPop(d *depModel, ds *depState) (rid int32, okToDrop bool) {
	om, ov := d.overload, ds.overload()
	if ds.queue.len() == 0 {
		ov.firstAbove = 0
		return -1, false
	}
	rid = ds.queue.pop()
	sojourn := s.now - ov.stamps.pop()
	switch {
	case sojourn < om.target || ds.queue.len() == 0:
		ov.firstAbove = 0
	case ov.firstAbove == 0:
		ov.firstAbove = s.now + om.interval
	case s.now >= ov.firstAbove:
		okToDrop = true
	}
	return rid, okToDrop
}

// codel is Nichols and Jacobson's deque ("Controlling Queue Delay", ACM
// Queue 10(5), 2012, and its pseudocode appendix): it returns the request
// to serve, or -1, having dropped (answered at once) those CoDel drops.
func (s *sim) codel(d *depModel, ds *depState) int32 {
	om, ov := d.overload, ds.overload()
	rid, ok := s.codelPop(d, ds)
	if ov.dropping {
		if !ok {
			ov.dropping = false // sojourn time below target: leave the drop state
		}
		for ov.dropping && s.now >= ov.dropNext {
			s.refuseQueued(rid, d)
			ov.count++
			if rid, ok = s.codelPop(d, ds); !ok {
				ov.dropping = false
			} else {
				ov.dropNext = ov.controlLaw(ov.dropNext, om.interval)
			}
		}
	} else if ok && (s.now-ov.dropNext < om.interval || s.now-ov.firstAbove >= om.interval) {
		s.refuseQueued(rid, d)
		rid, _ = s.codelPop(d, ds)
		ov.dropping = true
		// Back in the drop state soon after leaving it: start from the
		// drop rate that controlled the queue last time.
		if s.now-ov.dropNext < om.interval && ov.count > 2 {
			ov.count -= 2
		} else {
			ov.count = 1
		}
		ov.dropNext = ov.controlLaw(s.now, om.interval)
	}
	return rid
}

// controlLaw is CoDel's spacing of drops: the next one interval/√count
// after t. math.Sqrt and the division are correctly rounded, the same on
// every platform.
func (ov *overloadState) controlLaw(t, interval int64) int64 {
	return t + int64(float64(interval)/math.Sqrt(float64(ov.count)))
}

// flushed forgets the queue's stamps at s.now, when a freeze's end has
// answered every queued request.
func (ov *overloadState) flushed(now int64) {
	ov.stamps.reset()
	ov.lastEmpty = now
}
