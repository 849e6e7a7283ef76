package engine

import "time"

// throttleRejects decides, for the attempt call c is about to make,
// whether level lv's client-side throttle rejects it (see Throttle): with
// probability max(0, (requests − K·accepts)/(requests + 1)) over the
// window, the attempt itself not yet counted. It counts the attempt as a
// request either way.
func (s *sim) throttleRejects(id int32, lv *levelModel) bool {
	c := &s.calls[id]
	in := &s.inst[c.level][s.stateIndex(c, true)]
	from := s.now - lv.throttleWindow
	in.thReq.dropBefore(from)
	in.thAcc.dropBefore(from)
	requests, accepts := float64(in.thReq.size), float64(in.thAcc.size)
	in.thReq.push(s.now)
	p := (requests - float64(lv.throttleK*accepts)) / (requests + 1)
	if s.observe != nil {
		s.thP = max(p, 0)
		s.observe(s, "throttle", id)
	}
	if p <= 0 {
		return false
	}
	depCalls := s.ops[c.op].depCalls
	if c.pc > 0 {
		depCalls = s.opCall(c.op, c.pc).depCalls
	}
	sub := uint64(c.level)<<40 | uint64(c.attempts)<<24 | uint64(depCalls)&0xffffff ^ uint64(c.pc)<<48
	return s.rnd.float(drawThrottle, s.ops[c.op].key, sub) < p
}

// throttleRecord counts the outcome out of call c's attempt for level
// lv's client-side throttle: an accept unless it is an overload
// rejection (429, 503) or no answer (a timeout, a connection error).
func (s *sim) throttleRecord(id int32, lv *levelModel, out int16) {
	if s.observe != nil {
		s.thOut = out
		s.observe(s, "answer", id)
	}
	if throttleRejected(out) {
		return
	}
	c := &s.calls[id]
	in := &s.inst[c.level][s.stateIndex(c, true)]
	in.thAcc.dropBefore(s.now - lv.throttleWindow)
	in.thAcc.push(s.now)
}

// throttleRejected reports whether a client-side throttle counts out as
// not accepted.
func throttleRejected(out int16) bool {
	return out == 429 || out == 503 || out == outTimeout || out == outConnection
}

// takeToken asks the rate limiter of call id's level and instance for the
// token of its next attempt. Without one at once, the call waits in the
// instance's line (tokenTurn sends it) and takeToken returns false; it
// returns false too when the wait would pass the level's deadline, having
// ended the call.
func (s *sim) takeToken(id int32) bool {
	c := &s.calls[id]
	lv := &s.st.levels[c.level]
	si := s.stateIndex(c, false)
	in := &s.inst[c.level][si]
	if in.rl == nil {
		in.rl = NewAWSRateLimiter()
	}
	if in.rlWait.size > 0 {
		s.waitForToken(id, in) // a token event is pending for the first in line
		return false
	}
	ok, wait := in.rl.Acquire(time.Duration(s.now))
	if ok {
		return true
	}
	if lv.deadline > 0 && s.now+int64(wait) >= c.start+lv.deadline {
		s.settle(id, outTimeout, reasonDeadline)
		return false
	}
	s.waitForToken(id, in)
	s.q.push(s.now+max(int64(wait), 1), evToken, si, uint32(c.level))
	return false
}

// waitForToken puts call id in line for its instance's next token. With a
// deadline, it gives up when the deadline comes first (tokenGiveUp), as
// the SDK's sleep ends with its context: its place in line is then stale.
func (s *sim) waitForToken(id int32, in *instance) {
	c := &s.calls[id]
	in.rlWait.push(callRef{id, c.gen})
	if lv := &s.st.levels[c.level]; lv.deadline > 0 {
		s.q.push(c.start+lv.deadline, evTokenGiveUp, id, c.gen)
	}
}

// tokenGiveUp ends call id, still waiting for a token at its deadline.
func (s *sim) tokenGiveUp(id int32) {
	s.settle(id, outTimeout, reasonDeadline) // freeing the call makes its place in line stale
}

// tokenTurn gives the tokens of the rate limiter of instance si of level
// to the attempts waiting for one, in turn, and sets the next token event
// when some still wait. An attempt whose call has ended since (its
// deadline, or its caller gave up) is skipped and takes no token.
func (s *sim) tokenTurn(level uint8, si int32) {
	for {
		in := &s.inst[level][si]
		if in.rlWait.size == 0 {
			return
		}
		r := *in.rlWait.front()
		if s.calls[r.id].gen != r.gen {
			in.rlWait.pop()
			continue
		}
		ok, wait := in.rl.Acquire(time.Duration(s.now))
		if !ok {
			s.q.push(s.now+max(int64(wait), 1), evToken, si, uint32(level))
			return
		}
		in.rlWait.pop()
		s.send(r.id)
	}
}

// takePermit asks the fixed-window rate limiter of call id's level and
// instance for the permit of its next attempt (see FixedWindowLimiter).
// It returns true when the permit is there at once. Otherwise the call
// waits: for its reserved permit (evPermit sends it), or the limiter's
// timeout before it fails (evNoPermit); a wait that would pass the
// level's deadline ends the call with the deadline at once.
func (s *sim) takePermit(id int32) bool {
	c := &s.calls[id]
	lv := &s.st.levels[c.level]
	in := &s.inst[c.level][s.stateIndex(c, false)]
	if in.fw == nil {
		fw := lv.fixedWindow
		in.fw = NewFixedWindowLimiter(fw.LimitForPeriod, time.Duration(fw.RefreshPeriod), time.Duration(fw.Timeout))
	}
	wait, ok := in.fw.Acquire(time.Duration(s.now))
	if ok && wait == 0 {
		return true
	}
	end := s.now + int64(wait)
	if lv.deadline > 0 && end >= c.start+lv.deadline {
		s.settle(id, outTimeout, reasonDeadline)
		return false
	}
	if !ok && wait == 0 {
		s.permitRefused(id)
		return false
	}
	kind := evPermit
	if !ok {
		kind = evNoPermit
	}
	s.q.push(end, kind, id, c.gen)
	return false
}

// permitRefused ends call id's invocation, refused by its fixed-window
// rate limiter (resilience4j's RequestNotPermitted), as a throttle's
// rejection: unretried.
func (s *sim) permitRefused(id int32) {
	s.c.throttled++
	s.calls[id].lastRA = 0
	s.settle(id, outThrottled, reasonThrottle)
}
