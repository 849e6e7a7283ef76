package engine

import (
	"cmp"
	"math"
)

// Hedging (see the package documentation, "Hedging").
//
// A hedged invocation H does not make attempts itself: each of its copies
// is a call record of its own at the same level (copy set, parent H), made
// by sendCopy and run by attempt like any single attempt: its breaker
// check, its counts, its timeout, its request or inner invocation, its
// answer and its bookkeeping in attemptDone, which then hands the outcome
// to copyDone instead of deciding about retries. The copy's generation
// and in-flight flag so keep telling live answers from stale ones exactly
// as for an unhedged attempt, and a level without hedging runs no code of
// this file. H keeps its copies still out in a hedgeState; H's generation
// keys its one pending timer (evRetry): the next copy's delay, or a copy
// to send at once after a failure.

const (
	// DefaultHedgeWindow is the number of successful copy latencies a
	// level instance keeps for hedging.delay_percentile.
	DefaultHedgeWindow = 1000
	// hedgeMinSamples is how many latencies delay_percentile needs before
	// it replaces hedging.delay.
	hedgeMinSamples = 20
	// hedgeRecompute is how many new latencies pass between two
	// computations of the percentile.
	hedgeRecompute = 64
)

// hedgeModel is a level's hedging, compiled.
type hedgeModel struct {
	delay      int64
	percentile float64 // 0: the delay is always delay
	window     int
	waitNext   bool // a failed copy does not bring the next one forward
}

func compileHedging(h *Hedging) *hedgeModel {
	if h == nil {
		return nil
	}
	return &hedgeModel{delay: int64(h.Delay), percentile: h.DelayPercentile, window: cmp.Or(h.Window, DefaultHedgeWindow), waitNext: h.AfterFailure == HedgeWaitNext}
}

// A copyRef is a copy of a hedged invocation still out.
type copyRef struct {
	id int32
	n  uint32 // the copy's number, 1 for the first
	at int64  // when it was sent
}

// hedgeState is what a hedged invocation knows of its copies.
type hedgeState struct {
	live    []copyRef // copies still out, in the order they were sent
	stop    uint8     // why no further copy will be sent; reasonNone while one may
	lastOut int16     // the last failed copy's outcome
}

// latWindow holds a level instance's last successful copy latencies and
// the percentile of them that delay_percentile asks for.
type latWindow struct {
	ring    []int64
	next    int   // where the next latency goes, once the ring is full
	total   int64 // latencies seen
	delay   int64 // the computed percentile, valid from hedgeMinSamples
	scratch []int64
}

// hedge runs hedged invocation id: its first copy when it starts, a later
// one when its timer fires.
func (s *sim) hedge(id int32) {
	c := &s.calls[id]
	if c.hedge == 0 {
		var h int32
		if n := len(s.freeHedges); n > 0 {
			h = s.freeHedges[n-1]
			s.freeHedges = s.freeHedges[:n-1]
		} else {
			s.hedges = append(s.hedges, hedgeState{})
			h = int32(len(s.hedges) - 1)
		}
		s.hedges[h].live = s.hedges[h].live[:0]
		s.hedges[h].stop, s.hedges[h].lastOut = reasonNone, 0
		c.hedge = h + 1
		if s.ops[c.op].flags&(opNonIdempotent|opKeyed) == opNonIdempotent && !s.st.levels[c.level].retryNonIdem {
			// Copies of an operation that must not be applied twice are
			// retries: only the first is sent.
			s.hedges[h].stop = reasonNonIdempotent
		}
		s.sendCopy(id)
		return
	}
	hs := &s.hedges[c.hedge-1]
	if s.mayHedge(id) {
		s.sendCopy(id)
		return
	}
	if len(hs.live) == 0 {
		s.endHedge(id, hs.lastOut, hs.stop)
	}
}

// mayHedge reports whether hedged invocation id may send another copy now,
// asking its budget; when it may not, the reason is left in stop, and no
// further copy will be sent.
func (s *sim) mayHedge(id int32) bool {
	c := &s.calls[id]
	hs := &s.hedges[c.hedge-1]
	if hs.stop != reasonNone {
		return false
	}
	lv := &s.st.levels[c.level]
	if end := c.start + lv.deadline; lv.deadline > 0 && (s.now >= end || s.now+lv.minAttempt > end) {
		hs.stop = reasonDeadline // a useful copy no longer fits
		return false
	}
	if lv.budget != nil && !s.budgetTake(c, lv, &s.inst[c.level][s.stateIndex(c, lv.budgetPerDep)], outOK) {
		s.c.retriesDenied++
		s.c.levelDenied[c.level]++
		hs.stop = reasonBudget
		return false
	}
	return true
}

// sendCopy sends the next copy of hedged invocation id, and sets the timer
// of the one after it. It may end id before it returns (an answer can come
// at once): the caller must not look at id afterwards.
func (s *sim) sendCopy(id int32) {
	c := &s.calls[id]
	lv := &s.st.levels[c.level]
	hs := &s.hedges[c.hedge-1]
	c.attempts++
	n := c.attempts
	c.gen++ // a pending timer is stale: the next copy's delay counts from now
	if hs.stop == reasonNone && lv.maxAttempts > 0 && int(n) >= lv.maxAttempts {
		hs.stop = reasonAttempts
	}
	if hs.stop == reasonNone {
		s.q.push(s.now+s.hedgeDelay(c), evRetry, id, c.gen)
	}
	if n > 1 {
		s.c.hedges++
	}
	k := s.newCall(c.op, id, c.gen, c.level, c.retryPath, c.pc, c.dep)
	c = &s.calls[id] // newCall may move s.calls
	kc := &s.calls[k]
	// The copy's deadline is the invocation's; attempt counts it as
	// attempt number n, so copies after the first are retries.
	kc.start, kc.copy, kc.attempts = c.start, true, n-1
	hs.live = append(hs.live, copyRef{id: k, n: n, at: s.now})
	s.attempt(k)
}

// hedgeDelay returns the wait before the next copy of hedged invocation c.
func (s *sim) hedgeDelay(c *call) int64 {
	h := s.st.levels[c.level].hedging
	if h.percentile > 0 {
		if w := s.inst[c.level][s.stateIndex(c, true)].hedgeLat; w != nil && w.total >= hedgeMinSamples {
			return w.delay
		}
	}
	return h.delay
}

// copyDone takes the outcome of copy k of a hedged invocation, after
// attemptDone has fed it to the breaker, the budget and the adaptive
// state; outBreakerOpen means that the inside breaker failed it fast and
// it was never sent.
func (s *sim) copyDone(k int32, out int16, retryAfter int64) {
	id := s.calls[k].parent
	c := &s.calls[id]
	hs := &s.hedges[c.hedge-1]
	var ref copyRef
	for i, r := range hs.live {
		if r.id == k {
			ref = r
			hs.live = append(hs.live[:i], hs.live[i+1:]...)
			break
		}
	}
	s.endCall(k)
	lv := &s.st.levels[c.level]
	c.lastRA = retryAfter
	switch {
	case out == outOK:
		if lv.hedging.percentile > 0 {
			s.hedgeSample(c.level, s.stateIndex(c, true), s.now-ref.at)
		}
		if ref.n > 1 {
			s.c.hedgesWon++
		}
		s.endHedge(id, out, reasonNone)
		return
	case out == outBreakerOpen:
		// Failed fast, never sent: no further copy either (the breaker is
		// open); the copies out may still win.
		if ref.n > 1 {
			s.c.hedges--
		}
		hs.stop = reasonBreaker
		if len(hs.live) == 0 {
			s.endHedge(id, out, reasonBreaker)
		}
		return
	case !lv.retries(out):
		s.endHedge(id, out, reasonNotRetryable)
		return
	case lv.deadline > 0 && s.now >= c.start+lv.deadline:
		s.endHedge(id, out, reasonDeadline)
		return
	}
	hs.lastOut = out
	if hs.stop != reasonNone {
		if len(hs.live) == 0 {
			s.endHedge(id, out, hs.stop)
		}
		return
	}
	if lv.hedging.waitNext {
		return // the next copy's timer is pending: it leaves at its delay
	}
	// A copy that failed with an outcome the level retries brings the
	// next one forward: it leaves now (an event, not a nested call, so that
	// copies failing at once cannot recurse).
	c.gen++
	s.q.push(s.now, evRetry, id, c.gen)
}

// endHedge ends hedged invocation id: the copies still out are cancelled
// (as a caller that gave up), then it settles with out.
func (s *sim) endHedge(id int32, out int16, reason uint8) {
	s.cancelCopies(id)
	s.settle(id, out, reason)
}

// cancelCopies abandons the copies of hedged invocation id still out and
// releases its hedge state.
func (s *sim) cancelCopies(id int32) {
	h := s.calls[id].hedge - 1
	for i := 0; i < len(s.hedges[h].live); i++ {
		s.cancel(s.hedges[h].live[i].id) // may grow s.hedges: index anew
	}
	s.hedges[h].live = s.hedges[h].live[:0]
	s.calls[id].hedge = 0
	s.freeHedges = append(s.freeHedges, h)
}

// hedgeSample records the latency d of a successful copy at a level's
// instance for delay_percentile, and recomputes the percentile when
// hedgeMinSamples are known and then every hedgeRecompute latencies.
func (s *sim) hedgeSample(level uint8, inst int32, d int64) {
	h := s.st.levels[level].hedging
	in := &s.inst[level][inst]
	w := in.hedgeLat
	if w == nil {
		w = &latWindow{ring: make([]int64, 0, min(h.window, 1024))}
		in.hedgeLat = w
	}
	if len(w.ring) < h.window {
		w.ring = append(w.ring, d)
	} else {
		w.ring[w.next] = d
		w.next++
		if w.next == len(w.ring) {
			w.next = 0
		}
	}
	w.total++
	if w.total == hedgeMinSamples || w.total > hedgeMinSamples && (w.total-hedgeMinSamples)%hedgeRecompute == 0 {
		w.scratch = append(w.scratch[:0], w.ring...)
		n := len(w.scratch)
		rank := min(max(int(math.Ceil(float64(h.percentile/100*float64(n))))-1, 0), n-1)
		w.delay = selectNth(w.scratch, rank)
	}
}
