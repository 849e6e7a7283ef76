package engine

// The dependency: a pool of workers in front of a FIFO queue, changed over
// time by phases. It answers each request once; an answer whose caller has
// stopped waiting is dropped by the caller (stale generation).

// sendToDependency sends attempt gen of call id, the operation's hop number
// hop, to the dependency at s.now: it reaches it after the request leg.
func (s *sim) sendToDependency(id int32, gen uint32, retry bool, hop uint32) {
	c := &s.calls[id]
	op := &s.ops[c.op]
	r := request{call: id, gen: gen, op: c.op, idx: op.depCalls, hop: hop, retry: retry,
		keyed: op.flags&opKeyed != 0}
	op.depCalls++
	if s.m.dep.contention {
		if s.m.dep.net[legRequest].on || s.m.dep.net[legAnswer].on {
			// The read travels to the dependency and back before the write
			// leaves; the request is on its way all that time.
			s.travelling++
			rid := s.newRequest(r)
			s.q.push(s.now+s.travel(legRequest, r.op, readHop(hop)), evRead, rid, 0)
			return
		}
		r.ver = s.version // no travel: the read and the write are at once
	}
	if s.m.dep.net[legRequest].on {
		// On its way it holds the operation's slot, and the run goes on
		// until it arrives, whether or not its caller still waits.
		s.travelling++
		rid := s.newRequest(r)
		s.q.push(s.now+s.travel(legRequest, r.op, hop), evReach, rid, 0)
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
	r.ver = s.version
	s.q.push(s.now+s.travel(legAnswer, r.op, readHop(r.hop)), evReadBack, rid, 0)
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
	s.q.push(s.now+s.travel(legRequest, r.op, r.hop), evReach, rid, 0)
}

// reach takes request r at the dependency at s.now.
func (s *sim) reach(r request) {
	retry := r.retry
	s.c.depCalls++
	if s.observe != nil {
		s.observe(s, "call", r.call)
	}
	s.bin(binCalls)
	if retry {
		s.bin(binRetries)
	}
	for k := range s.peaks {
		s.peaks[k].add(s.now, retry)
	}
	d := &s.m.dep
	if d.loadErrors {
		s.loadTimes.push(s.now)
	}
	if s.outage > 0 {
		ph := &d.phases[s.outage-1]
		s.respond(r, ph.status, ph.latency)
		return
	}
	if s.errPhase > 0 {
		ph := &d.phases[s.errPhase-1]
		if s.rnd.float(drawPhase, s.ops[r.op].key, uint64(r.idx)) < ph.rate {
			s.respond(r, ph.status, ph.latency)
			return
		}
	}
	if d.errorRate > 0 && s.rnd.float(drawError, s.ops[r.op].key, uint64(r.idx)) < d.errorRate {
		s.respond(r, d.errorStatus, 0)
		return
	}
	if d.loadErrors {
		s.loadTimes.dropBefore(s.now - d.loadWindow + 1)
		// The curve describes the dependency at its usual size: with more
		// or fewer workers the same rate comes at a proportionally other load.
		load := float64(s.loadTimes.size) / (float64(d.loadWindow) / 1e9)
		if s.workers != d.workers {
			load = float64(load*float64(d.workers)) / float64(max(s.workers, 1))
		}
		if s.rnd.float(drawLoadError, s.ops[r.op].key, uint64(r.idx)) < interpolate(d.loadPoints, load) {
			s.respond(r, d.loadStatus, 0)
			return
		}
	}
	rid := s.newRequest(r)
	if s.frozen > 0 {
		s.held.push(rid)
		s.level(binQueue, s.queue.len()+s.held.len())
		return
	}
	s.admit(rid)
}

// admit takes a request into service or the queue, or refuses it.
func (s *sim) admit(rid int32) {
	r := &s.reqs[rid]
	if r.keyed {
		op := &s.ops[r.op]
		switch op.keyState {
		case 2: // applied before: answer with the stored result
			rr := *r
			s.freeRequest(rid)
			s.reply(rr, outOK, 0)
			return
		case 1: // another attempt with the same key is still in progress
			rr := *r
			s.freeRequest(rid)
			s.reply(rr, 409, s.retryAfter(409))
			return
		}
		op.keyState = 1
	}
	switch {
	case s.busy < s.workers && s.queue.len() == 0:
		s.serve(rid)
	case s.queue.len() < s.m.dep.queueCap:
		s.queue.push(rid)
		s.level(binQueue, s.queue.len()+s.held.len())
	default:
		s.c.rejections++
		s.bin(binReject)
		s.release(rid)
		r := s.reqs[rid]
		s.freeRequest(rid)
		s.reply(r, s.m.dep.fullStatus, s.retryAfter(s.m.dep.fullStatus))
	}
}

// release frees the idempotency key a request held without applying it.
func (s *sim) release(rid int32) {
	if r := &s.reqs[rid]; r.keyed && s.ops[r.op].keyState == 1 {
		s.ops[r.op].keyState = 0
	}
}

// serve starts a worker on a request.
func (s *sim) serve(rid int32) {
	s.busy++
	r := &s.reqs[rid]
	s.q.push(s.now+s.serviceTime(r), evServed, rid, 0)
}

// serviceTime draws the service time of a request from the operation's own
// stream, so every strategy sees the same time for the same call.
func (s *sim) serviceTime(r *request) int64 {
	d := &s.m.dep
	var t float64
	switch d.service.Kind {
	case ServiceConstant:
		t = d.mean
	case ServiceExponential:
		t = float64(s.rnd.exp1(drawService, s.ops[r.op].key, uint64(r.idx)) * d.mean)
	case ServiceLognormal:
		t = exp(d.mu + float64(d.sigma*s.rnd.normal(drawService, s.ops[r.op].key, uint64(r.idx))))
	}
	if s.factor != 1 {
		t = float64(t * s.factor)
	}
	return clampNs(t)
}

// served finishes a request: the operation's effect is applied, the answer
// goes to the caller if it still waits, and the worker takes the next request.
func (s *sim) served(rid int32) {
	if s.frozen > 0 {
		// Work in service pauses during a freeze and resumes where it stopped.
		ph := &s.m.dep.phases[s.frozen-1]
		s.q.push(ph.to+(s.now-ph.from), evServed, rid, 0)
		return
	}
	s.busy--
	r := s.reqs[rid]
	op := &s.ops[r.op]
	if s.m.dep.contention && r.ver != s.version {
		// Another write committed since this one's read: a conflict,
		// not applied (Brooker's simulator, src/backoff_simulator.py lines 66-89).
		s.release(rid)
		s.freeRequest(rid)
		s.reply(r, s.m.dep.conflictStatus, s.retryAfter(s.m.dep.conflictStatus))
		s.startNext()
		return
	}
	if s.m.dep.contention {
		s.version++
	}
	op.applied++
	if r.keyed {
		op.keyState = 2
	} else if op.flags&opNonIdempotent != 0 && op.applied > 1 {
		s.c.duplicates++
	}
	s.freeRequest(rid)
	if c := &s.calls[r.call]; c.gen != r.gen || !c.inflight {
		s.c.wasted++
	} else {
		r.served = true
		s.reply(r, outOK, 0)
	}
	s.startNext()
}

// startNext fills free workers from the queue.
func (s *sim) startNext() {
	for s.frozen == 0 && s.busy < s.workers && s.queue.len() > 0 {
		rid := s.queue.pop()
		if s.dropIfAbandoned(rid) {
			continue
		}
		s.serve(rid)
	}
}

// dropIfAbandoned drops a request whose caller has given up, when the
// dependency is set to, and reports whether it did.
func (s *sim) dropIfAbandoned(rid int32) bool {
	if !s.m.dep.dropAbandoned {
		return false
	}
	r := &s.reqs[rid]
	if c := &s.calls[r.call]; c.gen == r.gen && c.inflight {
		return false
	}
	s.c.dropped++
	s.release(rid)
	s.freeRequest(rid)
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
	s.reply(r, status, s.retryAfter(status))
}

func (s *sim) retryAfter(status int16) int64 {
	if status >= 100 && status < 600 && s.m.dep.retryAfter[status] {
		return s.m.dep.retryAfterTime
	}
	return 0
}

// phaseChange applies the start or end of phase i at s.now.
func (s *sim) phaseChange(i int) {
	ph := &s.m.dep.phases[i]
	starting := s.now == ph.from
	switch ph.kind {
	case PhaseFreeze:
		if starting {
			s.frozen = i + 1
			return
		}
		s.frozen = 0
		if ph.status != 0 {
			// The backlog, queued and held alike, is answered with the status.
			for _, rg := range []*fifo[int32]{&s.queue, &s.held} {
				for rg.len() > 0 {
					rid := rg.pop()
					s.release(rid)
					r := s.reqs[rid]
					s.freeRequest(rid)
					s.reply(r, ph.status, s.retryAfter(ph.status))
				}
			}
		} else {
			for s.held.len() > 0 {
				rid := s.held.pop()
				if s.dropIfAbandoned(rid) {
					continue
				}
				s.admit(rid)
			}
		}
	case PhaseOutage:
		s.outage = 0
		if starting {
			s.outage = i + 1
		}
	case PhaseErrors:
		s.errPhase = 0
		if starting {
			s.errPhase = i + 1
		}
	case PhaseCapacity:
		s.workers = s.m.dep.workers
		if starting {
			s.workers = ph.workers
		}
	case PhaseLatency:
		s.factor = 1
		if starting {
			s.factor = ph.factor
		}
	}
	s.startNext()
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
	s.freeReqs = append(s.freeReqs, id)
	op := &s.ops[s.reqs[id].op]
	op.refs--
	if op.done && op.refs == 0 {
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
