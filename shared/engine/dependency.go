package engine

// The dependency: a pool of workers in front of a queue, FIFO unless its
// queue discipline says otherwise (overload.go), changed over time by
// phases. It answers each request once; an answer whose caller has
// stopped waiting is dropped by the caller (stale generation).

// sendToDependency sends attempt gen of call id, the operation's hop number
// hop, to the dependency at s.now: it reaches it after the request leg.
func (s *sim) sendToDependency(id int32, gen uint32, retry bool, hop uint32) {
	c := &s.calls[id]
	op := &s.ops[c.op]
	r := request{call: id, gen: gen, op: c.op, hop: hop, retry: retry,
		keyed: op.flags&opKeyed != 0, pc: c.pc, dep: c.dep}
	if c.pc == 0 {
		r.idx = op.depCalls
		op.depCalls++
	} else {
		oc := s.opCall(c.op, c.pc)
		r.idx = oc.depCalls
		oc.depCalls++
	}
	d, ds := s.dep(r.dep)
	if d.bal != nil && d.cache == nil {
		// Behind a cache the balancer routes only the misses: in reach.
		s.route(&r, d.bal)
		d, ds = s.dep(r.dep)
	}
	if d.contention {
		if d.net[legRequest].on || d.net[legAnswer].on {
			// The read travels to the dependency and back before the write
			// leaves; the request is on its way all that time.
			s.travelling++
			rid := s.newRequest(r)
			s.q.push(s.now+s.travel(legRequest, r.dep, r.pc, r.op, readHop(hop)), evRead, rid, 0)
			return
		}
		r.ver = ds.version // no travel: the read and the write are at once
	}
	if d.net[legRequest].on {
		// On its way it holds the operation's slot, and the run goes on
		// until it arrives, whether or not its caller still waits.
		s.travelling++
		rid := s.newRequest(r)
		s.q.push(s.now+s.travel(legRequest, r.dep, r.pc, r.op, hop), evReach, rid, 0)
		return
	}
	s.reach(r)
}

// readHop keys the network draws of the read that precedes the write of hop
// number hop under contention, apart from the write's own legs.
func readHop(hop uint32) uint32 { return hop | 1<<31 }

// read answers, at s.now, the read of request rid with the row's version:
// at once, with no worker, whatever the dependency's phases (Brooker's
// server answers every read at once). The answer travels back.
func (s *sim) read(rid int32) {
	r := &s.reqs[rid]
	_, ds := s.dep(r.dep)
	r.ver = ds.version
	s.q.push(s.now+s.travel(legAnswer, r.dep, r.pc, r.op, readHop(r.hop)), evReadBack, rid, 0)
}

// readBack takes the answer to a read at its caller at s.now: the caller
// sends the write, unless it has given up, in which case nothing is sent.
func (s *sim) readBack(rid int32) {
	r := &s.reqs[rid]
	if c := &s.calls[r.call]; c.gen != r.gen || !c.inflight {
		s.travelling--
		s.freeRequest(rid)
		return
	}
	s.q.push(s.now+s.travel(legRequest, r.dep, r.pc, r.op, r.hop), evReach, rid, 0)
}

// reach takes request r at the dependency at s.now.
func (s *sim) reach(r request) {
	if d, _ := s.dep(r.dep); d.cache != nil {
		if !r.fetch && s.cached(&r, d) {
			return // a hit, or coalesced on a fetch: it does not reach the dependency
		}
		if d.bal != nil {
			s.route(&r, d.bal) // a miss goes through the balancer to a backend
		}
	}
	retry := r.retry
	s.c.depCalls++
	if s.c.fleets != nil {
		f := s.ops[r.op].fleet
		s.c.fleets[f].depCalls++
		s.xbin(s.fleetX + 3*int(f))
	}
	if s.observe != nil {
		s.observe(s, "call", r.call)
	}
	s.bin(binCalls)
	if st := s.ops[r.op].start; st >= s.m.affectedFrom && st < s.m.affectedTo {
		s.c.affectedCalls++
		if g := s.c.seg(s.m, st); g != nil {
			g.calls++
		}
	}
	if retry {
		s.bin(binRetries)
	}
	for k := range s.peaks {
		s.peaks[k].add(s.now, retry)
	}
	if s.multi {
		s.c.calls[r.pc].depCalls++
		s.xbin(3 * int(r.pc))
	}
	d, ds := s.dep(r.dep)
	if d.loadErrors {
		// Dropped here too: scripted answers and outages return before
		// the load is looked at, and would keep every time.
		ds.loadTimes.dropBefore(s.now - d.loadWindow + 1)
		if !retry || !s.m.firstLoad {
			ds.loadTimes.push(s.now)
		}
	}
	if d.script != nil {
		if a, ok := s.scripted(&r, d.script, ds); ok {
			s.respond(r, a.status, a.latency)
			return
		}
	}
	if d.overload != nil && s.rateLimited(r, d, ds) {
		return
	}
	if ds.outage > 0 {
		ph := &d.phases[ds.outage-1]
		s.respond(r, ph.status, ph.latency)
		return
	}
	if ds.errPhase > 0 {
		ph := &d.phases[ds.errPhase-1]
		if s.rnd.float(drawPhase, s.ops[r.op].key, r.sub()) < ph.rate {
			s.respond(r, ph.status, ph.latency)
			return
		}
	}
	if d.errorRate > 0 && s.rnd.float(drawError, s.ops[r.op].key, r.sub()) < d.errorRate {
		s.respond(r, d.errorStatus, 0)
		return
	}
	if d.loadErrors {
		ds.loadTimes.dropBefore(s.now - d.loadWindow + 1)
		// The curve describes the dependency at its usual size: with more
		// or fewer workers the same rate comes at a proportionally other load.
		load := float64(ds.loadTimes.size) / (float64(d.loadWindow) / 1e9)
		if ds.workers != d.workers {
			load = float64(load*float64(d.workers)) / float64(max(ds.workers, 1))
		}
		if s.rnd.float(drawLoadError, s.ops[r.op].key, r.sub()) < interpolate(d.loadPoints, load) {
			s.respond(r, d.loadStatus, 0)
			return
		}
	}
	rid := s.takeOn(r, d, ds)
	if rid < 0 {
		return // over its concurrency limit: refused
	}
	if ds.frozen > 0 {
		ds.held.push(rid)
		s.level(binQueue, s.queued())
		return
	}
	s.admit(rid)
}

// scripted returns the answer of the dependency's script to request r,
// which has just reached it, or false when the request is to be served.
func (s *sim) scripted(r *request, sm *scriptModel, ds *depState) (answerModel, bool) {
	if sm.operations == nil {
		k := ds.scripted
		ds.scripted++
		return sm.pick(sm.answers, k)
	}
	n := s.opSeq[r.op]
	if int(n) >= len(sm.operations) {
		return answerModel{}, false
	}
	return sm.pick(sm.operations[n], uint64(r.idx))
}

// admit takes a request into service or the queue, or refuses it.
func (s *sim) admit(rid int32) {
	r := &s.reqs[rid]
	if r.keyed {
		keyState, _ := s.applyState(r)
		switch *keyState {
		case 2: // applied before: answer with the stored result
			rr := *r
			s.freeRequest(rid)
			s.reply(rr, outOK, 0)
			return
		case 1: // another attempt with the same key is still in progress
			rr := *r
			s.freeRequest(rid)
			s.reply(rr, 409, s.retryAfter(rr.dep, 409))
			return
		}
		*keyState = 1
	}
	d, ds := s.dep(r.dep)
	idle := ds.busy < ds.workers && ds.queue.len() == 0
	// Shedding refuses early, while there is room: a request that a full
	// queue refuses is a rejection, whatever its class.
	if d.shedding && (idle || ds.queue.len() < d.queueCap) && s.shed(rid, d, ds) {
		return
	}
	switch {
	case idle:
		s.serve(rid)
	case ds.queue.len() < d.queueCap:
		ds.queue.push(rid)
		if d.overload != nil {
			s.queuedAt(d, ds)
		}
		s.level(binQueue, s.queued())
	default:
		s.refuseQueued(rid, d)
	}
}

// refuseQueued answers request rid at once with the dependency's queue-full
// answer: a full queue's refusal, and a queue discipline's drop.
func (s *sim) refuseQueued(rid int32, d *depModel) {
	s.refusedAfterAdmission(rid)
	s.rejected(&s.reqs[rid])
	s.release(rid)
	r := s.reqs[rid]
	s.freeRequest(rid)
	s.reply(r, d.fullStatus, s.retryAfter(r.dep, d.fullStatus))
}

// rejected counts request r as refused by the dependency.
func (s *sim) rejected(r *request) {
	s.c.rejections++
	s.bin(binReject)
	if s.multi {
		s.c.calls[r.pc].rejections++
	}
}

// shed answers request rid at once with the shedding status, and reports
// whether it did: when its class has a threshold and the dependency's
// measure (queued requests, or queued and in service) has reached it.
func (s *sim) shed(rid int32, d *depModel, ds *depState) bool {
	r := &s.reqs[rid]
	t := d.shedAt[s.m.calls[r.pc].class]
	if t < 0 {
		return false
	}
	n := ds.queue.len()
	if d.shedLoad {
		n += ds.busy
	}
	if n < t {
		return false
	}
	s.c.shed++
	if s.multi {
		s.c.calls[r.pc].shed++
	}
	s.refusedAfterAdmission(rid)
	s.release(rid)
	rr := *r
	s.freeRequest(rid)
	s.reply(rr, d.shedStatus, s.retryAfter(rr.dep, d.shedStatus))
	return true
}

// applyState returns the idempotency key's state and the count of times
// applied of request r's plan call: each call of a plan is a request of
// its own, with its own key.
func (s *sim) applyState(r *request) (keyState *uint8, applied *uint32) {
	if r.pc == 0 {
		op := &s.ops[r.op]
		return &op.keyState, &op.applied
	}
	oc := s.opCall(r.op, r.pc)
	return &oc.keyState, &oc.applied
}

// release frees the idempotency key a request held without applying it.
func (s *sim) release(rid int32) {
	r := &s.reqs[rid]
	if !r.keyed {
		return
	}
	k := &s.ops[r.op].keyState
	if r.pc > 0 {
		k = &s.pcs[int(r.op)*len(s.m.calls)+int(r.pc)].keyState
	}
	if *k == 1 {
		*k = 0
	}
}

// serve starts a worker on a request.
func (s *sim) serve(rid int32) {
	r := &s.reqs[rid]
	_, ds := s.dep(r.dep)
	ds.busy++
	s.q.push(s.now+s.serviceTime(r), evServed, rid, 0)
}

// serviceTime draws the service time of a request from the operation's own
// stream, so every strategy sees the same time for the same call.
func (s *sim) serviceTime(r *request) int64 {
	d, ds := s.dep(r.dep)
	var t float64
	switch d.service.Kind {
	case ServiceConstant:
		t = d.mean
	case ServiceExponential:
		t = float64(s.rnd.exp1(drawService, s.ops[r.op].key, r.sub()) * d.mean)
	case ServiceLognormal:
		t = exp(d.mu + float64(d.sigma*s.rnd.normal(drawService, s.ops[r.op].key, r.sub())))
	}
	if f := ds.factor; f != 1 {
		t = float64(t * f)
	}
	if l := d.loadLatency; l != nil {
		n := ds.busy // the request starting included
		if l.inSystem {
			n += ds.queue.len()
		}
		t = float64(t * l.factor(n, ds.workers))
	}
	return clampNs(t)
}

// served finishes a request: the operation's effect is applied, the answer
// goes to the caller if it still waits, and the worker takes the next request.
func (s *sim) served(rid int32) {
	r := s.reqs[rid]
	d, ds := s.dep(r.dep)
	if ds.frozen > 0 {
		// Work in service pauses during a freeze and resumes where it stopped.
		ph := &d.phases[ds.frozen-1]
		s.q.push(ph.to+(s.now-ph.from), evServed, rid, 0)
		return
	}
	ds.busy--
	op := &s.ops[r.op]
	if d.contention && r.ver != ds.version {
		// Another write committed since this one's read: a conflict,
		// not applied (Brooker's simulator, src/backoff_simulator.py lines 66-89).
		s.release(rid)
		s.freeRequest(rid)
		s.reply(r, d.conflictStatus, s.retryAfter(r.dep, d.conflictStatus))
		s.startNext(r.dep)
		return
	}
	if d.contention {
		ds.version++
	}
	keyState, applied := s.applyState(&r)
	*applied++
	if r.keyed {
		*keyState = 2
	} else if op.flags&opNonIdempotent != 0 && *applied > 1 {
		s.c.duplicates++
	}
	if op.flags&opFailedUnapplied != 0 {
		// Its client saw it fail; the dependency applies it now.
		op.flags &^= opFailedUnapplied
		s.c.appliedAfterGiveUp++
	}
	s.freeRequest(rid)
	if c := &s.calls[r.call]; c.gen != r.gen || !c.inflight {
		s.c.wasted++
		s.backendDropped(r.dep)
		if r.fetch {
			s.fetched(&r, outOK, 0)
		}
	} else {
		r.served = true
		s.reply(r, outOK, 0)
	}
	s.startNext(r.dep)
}

// startNext fills dependency dep's free workers from its queue.
func (s *sim) startNext(dep uint8) {
	d, ds := s.dep(dep)
	for ds.frozen == 0 && ds.busy < ds.workers && ds.queue.len() > 0 {
		var rid int32
		if d.overload == nil {
			rid = ds.queue.pop()
		} else if rid = s.dequeue(dep); rid < 0 {
			continue
		}
		if s.dropIfAbandoned(rid) {
			continue
		}
		s.serve(rid)
	}
}

// dropIfAbandoned drops a request whose caller has given up, when the
// dependency is set to, and reports whether it did.
func (s *sim) dropIfAbandoned(rid int32) bool {
	r := &s.reqs[rid]
	if d, _ := s.dep(r.dep); !d.dropAbandoned {
		return false
	}
	if c := &s.calls[r.call]; c.gen == r.gen && c.inflight {
		return false
	}
	s.c.dropped++
	s.backendDropped(r.dep)
	s.release(rid)
	rr := *r
	s.freeRequest(rid)
	if rr.fetch {
		s.refetch(&rr)
	}
	return true
}

// respond answers a request without queueing it, at once or after a latency.
func (s *sim) respond(r request, status int16, latency int64) {
	if latency > 0 {
		r.pending = status
		rid := s.newRequest(r)
		s.q.push(s.now+latency, evAnswer, rid, 0)
		return
	}
	s.reply(r, status, s.retryAfter(r.dep, status))
}

func (s *sim) retryAfter(dep uint8, status int16) int64 {
	if d, _ := s.dep(dep); status >= 100 && status < 600 && d.retryAfter[status] {
		return d.retryAfterTime
	}
	return 0
}

// phaseChange applies the start or end of phase i of dependency dep at s.now.
func (s *sim) phaseChange(dep, i int) {
	d, ds := s.dep(uint8(dep))
	ph := &d.phases[i]
	starting := s.now == ph.from
	switch ph.kind {
	case PhaseFreeze:
		if starting {
			ds.frozen = i + 1
			return
		}
		ds.frozen = 0
		if ph.status != 0 {
			// The backlog, queued and held alike, is answered with the status.
			for _, rg := range []*fifo[int32]{&ds.queue, &ds.held} {
				for rg.len() > 0 {
					rid := rg.pop()
					s.release(rid)
					r := s.reqs[rid]
					s.freeRequest(rid)
					s.reply(r, ph.status, s.retryAfter(r.dep, ph.status))
				}
			}
			if ds.ov != nil {
				ds.ov.flushed(s.now)
			}
		} else {
			for ds.held.len() > 0 {
				rid := ds.held.pop()
				if s.dropIfAbandoned(rid) {
					continue
				}
				s.admit(rid)
			}
		}
	case PhaseOutage:
		ds.outage = 0
		if starting {
			ds.outage = i + 1
		}
	case PhaseErrors:
		ds.errPhase = 0
		if starting {
			ds.errPhase = i + 1
		}
	case PhaseCapacity:
		if ds.scale != nil {
			s.scaleCapacity(uint8(dep), ph, starting)
			return
		}
		ds.workers = d.workers
		if starting {
			ds.workers = ph.workers
		}
	case PhaseLatency:
		ds.factor = 1
		if starting {
			ds.factor = ph.factor
		}
	case PhaseFlush:
		if starting {
			s.caches[dep].flush()
		}
	}
	s.startNext(uint8(dep))
}

func (s *sim) newRequest(r request) int32 {
	s.ops[r.op].refs++
	if n := len(s.freeReqs); n > 0 {
		id := s.freeReqs[n-1]
		s.freeReqs = s.freeReqs[:n-1]
		s.reqs[id] = r
		return id
	}
	s.reqs = append(s.reqs, r)
	return int32(len(s.reqs) - 1)
}

func (s *sim) freeRequest(id int32) {
	if s.concurrent && int(id) < len(s.admitted) {
		s.leave(id)
	}
	s.freeReqs = append(s.freeReqs, id)
	op := &s.ops[s.reqs[id].op]
	op.refs--
	if op.flags&opDone != 0 && op.refs == 0 {
		s.freeOps = append(s.freeOps, s.reqs[id].op)
	}
}

// interpolate returns the failure rate at load from sorted points, linear
// between points and flat beyond the ends.
func interpolate(pts []LoadPoint, load float64) float64 {
	if load <= pts[0].Load {
		return pts[0].Rate
	}
	for i := 1; i < len(pts); i++ {
		if load <= pts[i].Load {
			a, b := pts[i-1], pts[i]
			return a.Rate + (b.Rate-a.Rate)*(load-a.Load)/(b.Load-a.Load)
		}
	}
	return pts[len(pts)-1].Rate
}
