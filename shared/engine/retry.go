// This file holds the wait before a retry: the backoff with its jitter
// and adaptive factor, and what a level makes of a Retry-After.

package engine

import (
	"math"
)

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
