package engine

// Kinds of events.
const (
	evRetry       uint8 = iota + 1 // a call's backoff ends: start its next attempt
	evTimeout                      // a call's attempt times out (or its deadline passes)
	evServed                       // the dependency finishes a request
	evAnswer                       // a delayed answer (outage or error latency) reaches its caller
	evPhase                        // a dependency phase starts or ends
	evClientNext                   // a closed-loop client starts its next operation
	evArrive                       // a request reaches the next layer: its invocation begins
	evReach                        // a request reaches the dependency
	evReturn                       // an answer reaches its caller over the network
	evRead                         // a contention read reaches the dependency
	evReadBack                     // a contention read's answer reaches its caller
	evGrant                        // a call that waited gets its slot: it goes on
	evWaitTimeout                  // a call has waited for a slot as long as it may
	evFallback                     // a fallback answers in a failed call's place
	evToken                        // a rate limiter's next token may be there: the first waiting attempt asks
	evTokenGiveUp                  // an attempt waiting for a token reaches its deadline
	evHalfOpen                     // an auto_half_open breaker's break ends: id the instance, gen the level
	evPermit                       // a fixed-window rate limiter's reserved permit is there: the attempt leaves
	evNoPermit                     // an attempt has waited a fixed-window rate limiter's timeout: it is refused
	evScaleSample                  // an autoscaler samples its metric (and evaluates): gen the dependency
	evWarm                         // id workers of an autoscaler end their warm-up: gen the dependency
	evConnGrant                    // an attempt that waited in the pending line has its connection: it is sent
	evConnGiveUp                   // an attempt waiting in the pending line reaches its deadline
)

// An event is a small value: no pointer, no closure, so the queue holds them in
// one slice of 24-byte elements and the garbage collector never looks inside.
type event struct {
	at  int64  // virtual time, nanoseconds
	seq uint64 // insertion number << 8 | kind: ties go by insertion order
	id  int32  // call, request, phase or client, by kind
	gen uint32 // the call's generation when scheduled; stale events are skipped
}

func (e *event) kind() uint8 { return uint8(e.seq) }

func (a *event) before(b *event) bool {
	return a.at < b.at || (a.at == b.at && a.seq < b.seq)
}

// An eventQueue is a binary min-heap of events ordered by (at, seq). Sifts
// move a hole rather than swapping. (A 4-ary heap measured no faster natively
// and slower under WebAssembly.)
type eventQueue struct {
	h   []event
	seq uint64
}

func (q *eventQueue) len() int { return len(q.h) }

// push schedules an event of a kind at a time. Timeouts go after every other
// event of the same instant, so that an answer at the very instant of a
// deadline is in time, as it is for attempt timeouts (see sim.run).
func (q *eventQueue) push(at int64, kind uint8, id int32, gen uint32) {
	q.seq++
	e := event{at: at, seq: q.seq<<8 | uint64(kind), id: id, gen: gen}
	if kind == evTimeout {
		e.seq |= 1 << 63
	}
	q.h = append(q.h, e)
	h := q.h
	i := len(h) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !e.before(&h[p]) {
			break
		}
		h[i] = h[p]
		i = p
	}
	h[i] = e
}

// peek returns the earliest event; the queue must not be empty.
func (q *eventQueue) peek() *event { return &q.h[0] }

func (q *eventQueue) pop() event {
	h := q.h
	top := h[0]
	n := len(h) - 1
	last := h[n]
	h = h[:n]
	q.h = h
	i := 0
	for {
		c := 2*i + 1
		if c >= n {
			break
		}
		if c+1 < n && h[c+1].before(&h[c]) {
			c++
		}
		if !h[c].before(&last) {
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

// A fifo is a queue over a growable circular buffer.
type fifo[T any] struct {
	buf        []T
	head, size int
}

func (f *fifo[T]) len() int { return f.size }

func (f *fifo[T]) push(x T) {
	if f.size == len(f.buf) {
		nb := make([]T, max(16, 2*len(f.buf)))
		n := copy(nb, f.buf[f.head:])
		copy(nb[n:], f.buf[:f.head])
		f.buf, f.head = nb, 0
	}
	i := f.head + f.size
	if i >= len(f.buf) {
		i -= len(f.buf)
	}
	f.buf[i] = x
	f.size++
}

// front returns the oldest element; the fifo must not be empty.
func (f *fifo[T]) front() *T { return &f.buf[f.head] }

func (f *fifo[T]) pop() T {
	x := f.buf[f.head]
	f.head++
	if f.head == len(f.buf) {
		f.head = 0
	}
	f.size--
	return x
}

// popBack removes and returns the newest element; the fifo must not be
// empty.
func (f *fifo[T]) popBack() T {
	f.size--
	i := f.head + f.size
	if i >= len(f.buf) {
		i -= len(f.buf)
	}
	return f.buf[i]
}

func (f *fifo[T]) reset() { f.head, f.size = 0, 0 }

// emptied returns an empty fifo in f's memory.
func (f *fifo[T]) emptied() fifo[T] { return fifo[T]{buf: f.buf} }

// A timeRing holds timestamps in order, for counts over a sliding window.
type timeRing struct{ fifo[int64] }

// dropBefore removes the timestamps earlier than t.
func (r *timeRing) dropBefore(t int64) {
	for r.size > 0 && *r.front() < t {
		r.pop()
	}
}

// A timer is an attempt timeout waiting in its level's fifo. Timeouts of a
// level all last the same, so they expire in the order they were set and a
// fifo holds them in time order without a heap.
type timer struct {
	at  int64
	id  int32
	gen uint32
}
