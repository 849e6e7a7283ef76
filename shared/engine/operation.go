// This file holds an operation's life: its start, the steps and calls of
// its plan, their ends (a fallback, a failure), and its own end.

package engine

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
		c.lim &= holdConn | waitConn // cancel gives them back
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
