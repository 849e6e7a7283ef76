// This file holds how a simulation is made, and reset for its next run
// in the memory of its last, and the pool that keeps a run's idle ones.

package engine

import (
	"context"
	"math/rand/v2"
	"sync"
)

// A simPool keeps a run's idle simulations, to be reset for the next
// simulation rather than rebuilt: at most one per goroutine of the run.
// (Not a sync.Pool: what a run keeps must not depend on the garbage
// collector.)
type simPool struct {
	mu   sync.Mutex
	idle []*sim
}

// get returns an idle simulation, or a new one, reset to run strategy st of
// model m on seed (see reset).
func (p *simPool) get(ctx context.Context, m *model, st *strategyModel, seed uint64, limit int64, series bool) *sim {
	p.mu.Lock()
	s := new(sim)
	if n := len(p.idle); n > 0 {
		s = p.idle[n-1]
		p.idle = p.idle[:n-1]
	}
	p.mu.Unlock()
	s.reset(ctx, m, st, seed, limit, series)
	return s
}

// put gives back a simulation whose run and output are done.
func (p *simPool) put(s *sim) {
	p.mu.Lock()
	p.idle = append(p.idle, s)
	p.mu.Unlock()
}

func newSim(ctx context.Context, m *model, st *strategyModel, seed uint64, limit int64) *sim {
	s := new(sim)
	s.reset(ctx, m, st, seed, limit, true)
	return s
}

// reset prepares s to run strategy st of model m on seed, exactly as a new
// sim would (counting the time series only if series), but in the memory
// of its previous run: every slice whose capacity fits is kept, emptied or
// zeroed. Every field starts from its zero value (a field added to sim is
// reset without a word here); only the buffers are taken back. The slices
// a runOutput keeps (levelAttempts, transitions) are new for every run.
func (s *sim) reset(ctx context.Context, m *model, st *strategyModel, seed uint64, limit int64, series bool) {
	old := *s
	*s = sim{m: m, st: st, ctx: ctx, limit: limit, series: series}
	s.arrivals = newArrivals(&m.work, seed)
	s.arrival, s.more = s.arrivals.next()
	s.rnd.seed = seed
	s.dm, s.nd, s.ns = m.depArray, len(m.deps), len(m.servers)
	for i := range s.deps {
		o := &old.deps[i]
		s.deps[i] = depState{queue: o.queue.emptied(), held: o.held.emptied(), loadTimes: timeRing{o.loadTimes.emptied()}}
	}
	for i := range s.ns {
		s.deps[i].workers, s.deps[i].factor = m.servers[i].workers, 1
	}
	s.c.backends = nil
	if s.ns > s.nd {
		s.c.backends = zeroed(old.c.backends, s.ns-s.nd)
		s.ownBackends()
	}
	if m.cached {
		s.caches = resized(old.caches, s.nd)
		for i := range s.nd {
			if cm := m.deps[i].cache; cm != nil {
				s.caches[i] = s.caches[i].emptied()
				if cm.warm {
					s.caches[i].warmed(cm)
				}
			}
		}
	}
	if m.concurrent {
		s.concurrent, s.admitted = true, old.admitted[:0]
	}
	s.multi = len(m.calls) > 1
	nx := 0 // extra bins
	if s.multi {
		s.c.calls = resized(old.c.calls, len(m.calls))
		for i := range s.c.calls {
			lat := s.c.calls[i].lat // its memory, kept
			lat.reset()
			s.c.calls[i] = callCounters{lat: lat}
		}
		nx = 3 * len(m.calls)
	}
	// Each fleet's calls reaching a dependency, successes and failures
	// follow the plan calls', before the pool's.
	s.fleetX = nx
	nx += 3 * len(m.fleets)
	// A cache's hits and misses follow, before the pool's.
	s.cacheX = int32(nx)
	if m.cached {
		nx += 2
	}
	if st.pool.slots > 0 {
		s.pools = resized(old.pools, st.levels[0].instances)
		for i := range s.pools {
			s.pools[i] = limiter{limitModel: st.pool, waiting: s.pools[i].waiting.emptied()}
		}
		nx++
	}
	if nx > 0 {
		// The bins grow as the run goes (tickExtra), in their old memory.
		s.c.xbins = resized(old.c.xbins, nx)
		for k := range s.c.xbins {
			s.c.xbins[k] = s.c.xbins[k][:0]
		}
	}
	if st.bulkheads != nil {
		s.bulks = resized(old.bulks, st.levels[0].instances*s.nd)
		for i := range s.bulks {
			s.bulks[i] = limiter{limitModel: st.bulkheads[i%s.nd], waiting: s.bulks[i].waiting.emptied()}
		}
	}
	s.simple = len(m.calls) == 1 && m.calls[0].share == 1 && st.fallback == nil && s.pools == nil && s.bulks == nil
	s.lastBin = -1
	s.base = m.base
	if d := m.work.duration / s.base; series && d > 0 && d < maxBins/2 {
		// The bins of the workload's duration, and an eighth more for the
		// operations still open at its end, at once: growing them by
		// doubling as the run goes on would allocate twice as much (E03B:
		// 256 kB a strategy instead of 110 kB).
		n := int(d + d/8 + 16)
		for k := range s.c.bins {
			s.c.bins[k] = zeroed(old.c.bins[k], n)
		}
	} else {
		for k := range s.c.bins {
			s.c.bins[k] = old.c.bins[k][:0] // tick grows them, zeroed
		}
	}
	s.c.rec = old.c.rec
	s.c.rec.reset(st.judged)
	if m.segment > 0 {
		// New for every run: a runOutput keeps them.
		s.c.segs = make([]segCounts, (m.affectedTo-m.affectedFrom+m.segment-1)/m.segment)
	}
	s.peaks = old.peaks[:0]
	for _, r := range m.resolutions {
		s.peaks = append(s.peaks, peakTracker{res: r})
	}
	s.clientOps = zeroed(old.clientOps, m.work.clients)
	for i := range m.deps {
		if sm := m.deps[i].script; sm != nil && sm.operations != nil {
			s.opSeq = old.opSeq[:0] // numbered only for a script per operation: not nil
			if s.opSeq == nil {
				s.opSeq = []uint32{}
			}
		}
	}
	s.ops = emptied(old.ops, 256)
	s.c.lat, s.c.okLat = old.c.lat, old.c.okLat
	if s.c.lat.raw == nil {
		ops := int(min(estimateOps(m.sc)+16, exactLatencies))
		s.c.lat, s.c.okLat = newLatencies(ops), newLatencies(ops)
	}
	s.c.lat.reset()
	s.c.okLat.reset()
	s.calls = emptied(old.calls, 256)
	s.reqs = emptied(old.reqs, 256)
	s.q.h = emptied(old.q.h, 1024)
	s.freeOps, s.freeCalls, s.freeReqs = old.freeOps[:0], old.freeCalls[:0], old.freeReqs[:0]
	s.reqRA, s.attemptAt, s.pcs = old.reqRA[:0], old.attemptAt[:0], old.pcs[:0]
	s.hedges, s.freeHedges = old.hedges[:0], old.freeHedges[:0]
	s.timeouts = resized(old.timeouts, len(st.levels))
	for l := range s.timeouts {
		s.timeouts[l] = s.timeouts[l].emptied()
	}
	s.c.fleets = nil
	if m.fleets != nil {
		s.c.fleets = make([]fleetCounts, len(m.fleets))
	}
	s.c.levelAttempts = make([]int64, len(st.levels))
	s.c.levelFirst = make([]int64, len(st.levels))
	s.c.levelDenied = make([]int64, len(st.levels))
	s.inst = resized(old.inst, len(st.levels))
	for i := range st.levels {
		lv := &st.levels[i]
		s.inst[i] = resized(s.inst[i], lv.instances*s.nd)
		for j := range s.inst[i] {
			s.inst[i][j] = s.inst[i][j].emptied()
			if lv.budget != nil {
				s.inst[i][j].tokens = lv.budget.MaxTokens
			}
		}
	}
	for d := range m.servers {
		for i, ph := range m.servers[d].phases {
			s.q.push(ph.from, evPhase, int32(i), uint32(d))
			s.q.push(ph.to, evPhase, int32(i), uint32(d))
		}
	}
	s.startAutoscalers()
	if m.work.arrival == ArrivalClosed {
		r := rand.New(rand.NewPCG(seed, drawArrival))
		for c := range m.work.clients {
			var at int64
			if m.work.think > 0 {
				at = r.Int64N(m.work.think)
			}
			s.q.push(at, evClientNext, int32(c), 0)
		}
		s.waitingClients = m.work.clients
	}
}

// zeroed returns b's memory as n zero values, or new memory when b's
// capacity is too small.
func zeroed[T any](b []T, n int) []T {
	if cap(b) < n {
		return make([]T, n)
	}
	b = b[:n]
	clear(b)
	return b
}

// resized returns b's memory as n elements, which the caller overwrites
// (keeping the buffers they hold), or new memory when b's capacity is too
// small.
func resized[T any](b []T, n int) []T {
	if cap(b) < n {
		return make([]T, n)
	}
	return b[:n]
}

// emptied returns b emptied, or a new empty slice of capacity c when b has
// less.
func emptied[T any](b []T, c int) []T {
	if cap(b) < c {
		return make([]T, 0, c)
	}
	return b[:0]
}
