// This file holds the pool and the bulkheads: the limiters whose slots a
// level-0 call takes before its first attempt, the line it waits in for
// one, and its refusal when the line is full or the wait too long.

package engine

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
