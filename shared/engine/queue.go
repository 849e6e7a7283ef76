package engine

// Kinds of events.
const (
	evRetry      uint8 = iota + 1 // a call's backoff ends: start its next attempt
	evTimeout                     // a call's attempt times out (or its deadline passes)
	evServed                      // the dependency finishes a request
	evAnswer                      // a delayed answer (outage or error latency) reaches its caller
	evPhase                       // a dependency phase starts or ends
	evClientNext                  // a closed-loop client starts its next operation
)

// An event is a small value: no pointer, no closure, so the queue holds them in
// one slice and the garbage collector never looks inside.
type event struct {
	at   int64  // virtual time, nanoseconds
	seq  uint64 // insertion order, breaks ties so order never depends on the heap
	id   int32  // call, request, phase or client, by kind
	gen  uint32 // the call's generation when scheduled; stale events are skipped
	kind uint8
}

func (a *event) before(b *event) bool {
	return a.at < b.at || (a.at == b.at && a.seq < b.seq)
}

// An eventQueue is a binary min-heap of events ordered by (at, seq).
type eventQueue struct {
	h   []event
	seq uint64
}

func (q *eventQueue) len() int { return len(q.h) }

func (q *eventQueue) push(e event) {
	q.seq++
	e.seq = q.seq
	q.h = append(q.h, e)
	h := q.h
	i := len(h) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !h[i].before(&h[p]) {
			break
		}
		h[i], h[p] = h[p], h[i]
		i = p
	}
}

// peek returns the earliest event; the queue must not be empty.
func (q *eventQueue) peek() *event { return &q.h[0] }

func (q *eventQueue) pop() event {
	h := q.h
	top := h[0]
	n := len(h) - 1
	h[0] = h[n]
	q.h = h[:n]
	h = q.h
	i := 0
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		m := l
		if r := l + 1; r < n && h[r].before(&h[l]) {
			m = r
		}
		if !h[m].before(&h[i]) {
			break
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
	return top
}

func (q *eventQueue) reset() {
	q.h = q.h[:0]
	q.seq = 0
}

// A ring is a FIFO of int32 over a growable circular buffer.
type ring struct {
	buf        []int32
	head, size int
}

func (r *ring) len() int { return r.size }

func (r *ring) push(x int32) {
	if r.size == len(r.buf) {
		n := max(16, 2*len(r.buf))
		nb := make([]int32, n)
		for i := range r.size {
			nb[i] = r.buf[(r.head+i)%len(r.buf)]
		}
		r.buf, r.head = nb, 0
	}
	r.buf[(r.head+r.size)%len(r.buf)] = x
	r.size++
}

func (r *ring) pop() int32 {
	x := r.buf[r.head]
	r.head = (r.head + 1) % len(r.buf)
	r.size--
	return x
}

func (r *ring) reset() { r.head, r.size = 0, 0 }

// A timeRing is a FIFO of timestamps, for counts over a sliding window.
type timeRing struct {
	buf        []int64
	head, size int
}

func (r *timeRing) push(t int64) {
	if r.size == len(r.buf) {
		n := max(16, 2*len(r.buf))
		nb := make([]int64, n)
		for i := range r.size {
			nb[i] = r.buf[(r.head+i)%len(r.buf)]
		}
		r.buf, r.head = nb, 0
	}
	r.buf[(r.head+r.size)%len(r.buf)] = t
	r.size++
}

// dropBefore removes the timestamps earlier than t.
func (r *timeRing) dropBefore(t int64) {
	for r.size > 0 && r.buf[r.head] < t {
		r.head = (r.head + 1) % len(r.buf)
		r.size--
	}
}

func (r *timeRing) reset() { r.head, r.size = 0, 0 }
