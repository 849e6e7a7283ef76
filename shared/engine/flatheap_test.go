package engine

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"testing"
)

// flatHeap is the practical speed limit for BenchmarkE03B: a minimal
// discrete-event loop over one flat binary heap that simulates E03-B
// (testdata/e03b.json) with nothing but what E03-B uses. The same Poisson
// arrivals as the engine's (its generator, same seed), one level of retries
// (max attempts, attempt timeout, deadline, exponential backoff, full
// jitter, a ratio budget), one dependency (workers, a bounded FIFO queue
// refusing with 503 when full, a constant service time) and its phases (a
// freeze that pauses service and answers its backlog with 503, a capacity
// change).
//
// It leaves out everything E03-B does not need and everything the engine
// keeps for its results: operation slots and free lists (an operation is
// its own call), layers, plans, networks, idempotency keys and duplicates,
// breakers, pools and bulkheads, hedging, scripts, the per-operation keyed
// random streams (its jitter comes from one sequential stream, so its
// strategy C differs from the engine's by a little), the time series bins,
// peak trackers, latencies and percentiles, recovery, the result's summary,
// and the context and event-limit checks. It counts operations, attempts,
// successes and events as the engine does: TestFlatHeapAgrees keeps its
// totals within a few percent of the engine's, so that it stays the same
// workload.
//
// With fifo, attempt timeouts wait in a FIFO, as the engine's do (they all
// last the same, so they expire in order), instead of piling up in the
// heap until they expire: the heap stays a few entries deep. That is the
// engine's one trick the plain flat heap lacks; the benchmark reports both.
type flatHeap struct {
	// The scenario, from the engine's model.
	work              *workModel
	workers, queueCap int
	service           int64
	phases            []phaseModel
	fifo              bool // attempt timeouts in a FIFO, not the heap

	// The state of a run.
	h       []flatEvent
	seq     uint64
	now     int64
	ops     []flatOp
	queue   []flatReq // FIFO: queue[head:]
	head    int
	held    []flatReq // arrived during a freeze
	busy    int
	cap     int // workers now
	frozen  int // index+1 of the active freeze
	rng     rand.PCG
	st      *levelModel
	reqs    int64 // first attempts, for the budget
	retries int64 // retries the budget granted
	t       flatTotals
	tq      []flatEvent // with fifo: attempt timeouts, in time order (tq[tqHead:])
	tqHead  int
}

// flatTotals are what a flatHeap run counts.
type flatTotals struct {
	operations, attempts, succeeded, events int64
}

// A flatEvent is 24 bytes, as the engine's.
type flatEvent struct {
	at  int64
	seq uint64 // insertion number << 8 | kind; bit 63 puts timeouts and arrivals last at equal times
	id  int32
	gen uint32
}

type flatOp struct {
	start    int64
	attempts int32
	gen      uint32
	inflight bool
}

// A flatReq is an attempt at the dependency: its operation and generation.
type flatReq struct {
	op  int32
	gen uint32
}

const (
	flatArrive uint8 = iota
	flatTimeout
	flatServed
	flatRetry
	flatPhase
)

func newFlatHeap(tb testing.TB, m *model, fifo bool) *flatHeap {
	tb.Helper()
	d := &m.deps[0]
	if len(m.deps) != 1 || d.service.Kind != ServiceConstant || m.work.arrival != ArrivalPoisson {
		tb.Fatal("flatHeap simulates E03-B: one dependency, a constant service time, Poisson arrivals")
	}
	return &flatHeap{work: &m.work, workers: d.workers, queueCap: d.queueCap, service: int64(d.mean), phases: d.phases, fifo: fifo}
}

func (f *flatHeap) push(at int64, kind uint8, id int32, gen uint32) {
	f.seq++
	e := flatEvent{at: at, seq: f.seq<<8 | uint64(kind), id: id, gen: gen}
	if kind == flatTimeout || kind == flatArrive {
		e.seq |= 1 << 63
	}
	f.h = append(f.h, e)
	h := f.h
	i := len(h) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !(e.at < h[p].at || e.at == h[p].at && e.seq < h[p].seq) {
			break
		}
		h[i] = h[p]
		i = p
	}
	h[i] = e
}

func (f *flatHeap) pop() flatEvent {
	h := f.h
	top := h[0]
	n := len(h) - 1
	last := h[n]
	h = h[:n]
	f.h = h
	i := 0
	for {
		c := 2*i + 1
		if c >= n {
			break
		}
		if c+1 < n && (h[c+1].at < h[c].at || h[c+1].at == h[c].at && h[c+1].seq < h[c].seq) {
			c++
		}
		if !(h[c].at < last.at || h[c].at == last.at && h[c].seq < last.seq) {
			break
		}
		h[i] = h[c]
		i = c
	}
	if n > 0 {
		h[i] = last
	}
	return top
}

// run simulates strategy st on seed, reusing the flatHeap's memory.
func (f *flatHeap) run(st *strategyModel, seed uint64) flatTotals {
	f.h, f.seq, f.now = f.h[:0], 0, 0
	f.ops, f.queue, f.head, f.held = f.ops[:0], f.queue[:0], 0, f.held[:0]
	f.busy, f.cap, f.frozen = 0, f.workers, 0
	f.rng.Seed(seed, drawJitter)
	f.st = &st.levels[0]
	f.reqs, f.retries, f.t = 0, 0, flatTotals{}
	f.tq, f.tqHead = f.tq[:0], 0
	for i, ph := range f.phases {
		f.push(ph.from, flatPhase, int32(i), 0)
		f.push(ph.to, flatPhase, int32(i), 0)
	}
	arr := newArrivals(f.work, seed)
	next, more := arr.next()
	if more {
		f.push(next.at, flatArrive, 0, 0)
	}
	for len(f.h) > 0 || f.tqHead < len(f.tq) {
		var e flatEvent
		// At equal times the heap goes first, as in the engine.
		if f.tqHead < len(f.tq) && (len(f.h) == 0 || f.tq[f.tqHead].at < f.h[0].at) {
			e = f.tq[f.tqHead]
			if f.tqHead++; f.tqHead == len(f.tq) {
				f.tq, f.tqHead = f.tq[:0], 0
			}
		} else {
			e = f.pop()
		}
		f.now = e.at
		switch uint8(e.seq) {
		case flatArrive:
			if next, more = arr.next(); more {
				f.push(next.at, flatArrive, 0, 0)
			}
			f.t.operations++
			f.ops = append(f.ops, flatOp{start: f.now})
			f.attempt(int32(len(f.ops) - 1))
		case flatTimeout:
			o := &f.ops[e.id]
			if o.gen != e.gen || !o.inflight {
				continue
			}
			o.inflight = false
			o.gen++
			f.attemptDone(e.id, false)
		case flatServed:
			if f.frozen > 0 {
				ph := &f.phases[f.frozen-1]
				f.push(ph.to+(f.now-ph.from), flatServed, e.id, e.gen)
			} else {
				f.busy--
				f.answer(e.id, e.gen, true)
				f.startNext()
			}
		case flatRetry:
			if f.ops[e.id].gen != e.gen {
				continue
			}
			f.attempt(e.id)
		case flatPhase:
			f.phase(int(e.id))
		}
		f.t.events++
	}
	return f.t
}

func (f *flatHeap) attempt(id int32) {
	o := &f.ops[id]
	o.attempts++
	o.gen++
	o.inflight = true
	f.t.attempts++
	if o.attempts == 1 {
		f.reqs++
	}
	lv := f.st
	switch end := f.now + lv.attemptTimeout; {
	case end <= o.start+lv.deadline && f.fifo:
		f.tq = append(f.tq, flatEvent{at: end, seq: uint64(flatTimeout), id: id, gen: o.gen})
	case end <= o.start+lv.deadline:
		f.push(end, flatTimeout, id, o.gen)
	default:
		f.push(o.start+lv.deadline, flatTimeout, id, o.gen)
	}
	r := flatReq{op: id, gen: o.gen}
	switch {
	case f.frozen > 0:
		f.held = append(f.held, r)
	case f.busy < f.cap && f.head == len(f.queue):
		f.serve(r)
	case len(f.queue)-f.head < f.queueCap:
		f.queue = append(f.queue, r)
	default:
		f.answer(id, o.gen, false)
	}
}

func (f *flatHeap) serve(r flatReq) {
	f.busy++
	f.push(f.now+f.service, flatServed, r.op, r.gen)
}

func (f *flatHeap) startNext() {
	for f.frozen == 0 && f.busy < f.cap && f.head < len(f.queue) {
		f.serve(f.queue[f.head])
		f.head++
	}
	if f.head == len(f.queue) {
		f.queue, f.head = f.queue[:0], 0
	}
}

func (f *flatHeap) answer(id int32, gen uint32, ok bool) {
	o := &f.ops[id]
	if o.gen != gen || !o.inflight {
		return // nobody waits for it any more
	}
	o.inflight = false
	o.gen++
	f.attemptDone(id, ok)
}

func (f *flatHeap) attemptDone(id int32, ok bool) {
	o := &f.ops[id]
	lv := f.st
	if ok {
		f.t.succeeded++
		return
	}
	if f.now >= o.start+lv.deadline || int(o.attempts) >= lv.maxAttempts {
		return
	}
	var wait int64
	if lv.backoff == BackoffExponential {
		d := float64(lv.base) * math.Pow(lv.multiplier, float64(o.attempts-1))
		wait = min(int64(d), lv.max)
		if lv.jitter == JitterFull {
			wait = int64(float64(wait) * float64(f.rng.Uint64()>>11) / (1 << 53))
		}
	}
	if f.now+wait > o.start+lv.deadline {
		return
	}
	if b := lv.budget; b != nil {
		if float64(f.retries+1) > b.Ratio*float64(f.reqs)+1e-9 {
			return
		}
		f.retries++
	}
	o.gen++
	f.push(f.now+wait, flatRetry, id, o.gen)
}

func (f *flatHeap) phase(i int) {
	ph := &f.phases[i]
	starting := f.now == ph.from
	switch ph.kind {
	case PhaseFreeze:
		if starting {
			f.frozen = i + 1
			return
		}
		f.frozen = 0
		// The backlog, queued and held, is answered with the freeze's status.
		for _, q := range [][]flatReq{f.queue[f.head:], f.held} {
			for _, r := range q {
				f.answer(r.op, r.gen, false)
			}
		}
		f.queue, f.head, f.held = f.queue[:0], 0, f.held[:0]
	case PhaseCapacity:
		f.cap = f.workers
		if starting {
			f.cap = ph.workers
		}
	}
	f.startNext()
}

// e03b returns testdata/e03b.json with one run.
func e03b(tb testing.TB) *Scenario {
	tb.Helper()
	data, err := os.ReadFile("testdata/e03b.json")
	if err != nil {
		tb.Fatal(err)
	}
	sc, err := Parse(data)
	if err != nil {
		tb.Fatal(err)
	}
	if err := sc.Validate(); err != nil {
		tb.Fatal(err)
	}
	sc.Runs = 1
	return sc
}

// TestFlatHeapAgrees keeps the baseline honest: on E03-B its operations,
// attempts, success rate and events stay within 3% of the engine's, for
// every strategy and a few seeds, with timeouts in the heap or a FIFO. (They are equal but for C's jitter, drawn
// from another stream: the flat heap has the engine's semantics.)
func TestFlatHeapAgrees(t *testing.T) {
	sc := e03b(t)
	m := compile(sc)
	flats := []*flatHeap{newFlatHeap(t, m, false), newFlatHeap(t, m, true)}
	near := func(what, strategy string, seed uint64, got, want, tol float64) {
		t.Helper()
		if math.Abs(got-want) > tol*math.Abs(want) {
			t.Errorf("strategy %s, seed %d: %s %g, the engine's %g (more than %g%% apart)", strategy, seed, what, got, want, 100*tol)
		}
	}
	for seed := uint64(1); seed <= 3; seed++ {
		sc.Seed = int64(seed)
		res, err := Run(context.Background(), sc, Options{NoSeries: true, Parallelism: 1})
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range flats {
			for i := range m.strategies {
				st := &m.strategies[i]
				got := f.run(st, seed)
				want := res.Strategies[i].Metrics
				what := func(s string) string { return fmt.Sprintf("%s (fifo %v)", s, f.fifo) }
				near(what("operations"), st.name, seed, float64(got.operations), want.Operations, 0)
				near(what("attempts"), st.name, seed, float64(got.attempts), want.Attempts, 0.03)
				near(what("success rate"), st.name, seed, float64(got.succeeded)/float64(got.operations), want.SuccessRate, 0.03)
				near(what("events"), st.name, seed, float64(got.events), want.Events, 0.03)
			}
		}
	}
}

// BenchmarkFlatHeapE03B runs the flatHeap baseline over E03-B's four
// strategies on one seed, as BenchmarkE03B runs the engine: compare their
// events/s in one `go test -bench E03B` run. Its sub-benchmark heap is the
// plain flat heap; fifo keeps attempt timeouts out of the heap, as the
// engine does.
func BenchmarkFlatHeapE03B(b *testing.B) {
	m := compile(e03b(b))
	for _, fifo := range []bool{false, true} {
		name := "heap"
		if fifo {
			name = "fifo"
		}
		b.Run(name, func(b *testing.B) {
			f := newFlatHeap(b, m, fifo)
			var events int64
			b.ReportAllocs()
			for b.Loop() {
				for i := range m.strategies {
					events += f.run(&m.strategies[i], m.seeds[0]).events
				}
			}
			b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
			b.ReportMetric(float64(events)/float64(b.N), "events/op")
		})
	}
}
