// This file holds the circuit breakers at work during a run: their
// states, what they let pass, the outcomes they count, and their
// transitions.

package engine

import (
	"math"
)

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
