// This file holds what a run measures as it goes: its counters, turned
// into Metrics at the end, and the bins of its time series and peaks.

package engine

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
	overflowed                                         int64 // attempts that overflowed connection limits, at any level
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
	scaling                                           []scaleEvent     // autoscalers' decisions
	workers                                           []workersChange  // autoscaled dependencies' serving workers
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
	// backends count each backend's requests, in server order after the
	// dependencies (nil without backends).
	backends []backendCounts
	// cacheHits, cacheMisses and coalesced count the lookups of the
	// dependencies' caches (cache.go).
	cacheHits, cacheMisses, coalesced int64
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
// breaker, a budget refusing its retry, the pool, a bulkhead, the
// client-side throttle or a proxy's connection limits.
func failsFast(reason uint8) bool {
	return reason == reasonBreaker || reason == reasonBudget || reason == reasonPool || reason == reasonBulkhead || reason == reasonThrottle || reason == reasonOverflow
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
