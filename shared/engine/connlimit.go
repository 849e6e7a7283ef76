// This file holds a level's connection limits (Policy.ConnectionLimits):
// the attempts in progress to each dependency per instance, the pending
// line of attempts waiting for a connection, and the overflow an attempt
// past them meets.

package engine

// A connModel is a level's connection limits, compiled: each limit set or
// the largest int32 for none.
type connModel struct {
	maxRequests int32 // attempts in progress
	maxConns    int32 // connections, one attempt each
	maxPending  int32 // attempts waiting for a connection
}

// compileConns returns the connection limits of cl, nil without.
func compileConns(cl *ConnectionLimits) *connModel {
	if cl == nil {
		return nil
	}
	none := func(n int) int32 {
		if n == 0 {
			return 1<<31 - 1
		}
		return int32(n)
	}
	return &connModel{maxRequests: none(cl.MaxRequests), maxConns: none(cl.MaxConnections), maxPending: int32(cl.MaxPending)}
}

// Bits of call.lim for the connection limits, above the pool's and the
// bulkhead's (which only level-0 calls use).
const (
	holdConn uint8 = 1 << (iota + 4) // the attempt holds a connection: it is counted in progress
	waitConn                         // the attempt waits in the pending line
)

// connect asks the connection limits of call id's level for its coming
// attempt, in the order Envoy's connection pool decides (conn_pool_base.cc
// at v1.30: a ready connection first, then the requests limit checked as
// the stream attaches, else the pending line): true when the attempt may
// go now. Otherwise it waits in the pending line (evConnGrant sends it) or
// overflowed, which ended the invocation.
func (s *sim) connect(id int32, cm *connModel) bool {
	c := &s.calls[id]
	in := &s.inst[c.level][s.stateIndex(c, true)]
	switch {
	case in.connOut < cm.maxRequests && in.connOut < cm.maxConns:
		in.connOut++
		c.lim |= holdConn
		return true
	case in.connOut < cm.maxConns:
		// A connection is free (or made at once) but the requests limit
		// is reached: the stream overflows as it attaches.
	case in.connWaiting < cm.maxPending:
		// Every connection is busy (and then connOut = maxConns ≤
		// maxRequests: the first freed one can take it).
		c.lim |= waitConn
		in.connLine.push(callRef{id, c.gen})
		in.connWaiting++
		if lv := &s.st.levels[c.level]; lv.deadline > 0 {
			s.q.push(c.start+lv.deadline, evConnGiveUp, id, c.gen)
		}
		return false
	}
	s.overflow(id)
	return false
}

// overflow ends call id's invocation: its attempt overflowed the
// connection limits and is answered at once with Envoy's local 503, which
// Envoy's router never retries (RetryStateImpl::wouldRetryFromReset).
func (s *sim) overflow(id int32) {
	s.c.overflowed++
	s.calls[id].lastRA = 0
	s.settle(id, overflowStatus, reasonOverflow)
}

// dropConn gives back what call c holds of its level's connection limits:
// its place in the pending line, or its connection, which goes to the
// first attempt still waiting.
func (s *sim) dropConn(c *call) {
	if c.lim&(holdConn|waitConn) == 0 {
		return
	}
	in := &s.inst[c.level][s.stateIndex(c, true)]
	if c.lim&waitConn != 0 {
		c.lim &^= waitConn
		in.connWaiting--
		return
	}
	c.lim &^= holdConn
	for in.connLine.len() > 0 {
		w := in.connLine.pop()
		wc := &s.calls[w.id]
		if wc.gen != w.gen || wc.lim&waitConn == 0 {
			continue // it stopped waiting
		}
		in.connWaiting--
		wc.lim = wc.lim&^waitConn | holdConn
		wc.gen++ // its give-up at the deadline is stale
		s.q.push(s.now, evConnGrant, w.id, wc.gen)
		return // the connection passes on: connOut stays
	}
	in.connOut--
}

// connGiveUp ends call id, still waiting in the pending line at its
// deadline.
func (s *sim) connGiveUp(id int32) {
	s.dropConn(&s.calls[id])
	s.settle(id, outTimeout, reasonDeadline)
}
