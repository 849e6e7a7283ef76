package engine

import (
	"bytes"
	"encoding/json"
	"maps"
	"math"
	"slices"
	"strings"
	"testing"
	"time"
)

// An ending is how and when an operation ended.
type ending struct {
	at time.Duration
	ok bool
}

// endings runs strategy 0 of the scenario in js on its first seed and
// returns how each client's operation ended (each client makes one).
func endings(t *testing.T, js string) map[int32]ending {
	t.Helper()
	sc, err := Parse([]byte(js))
	if err != nil {
		t.Fatal(err)
	}
	got := map[int32]ending{}
	pending, done := int32(-1), int64(0)
	// An operation's success is counted just after its "end": settled at
	// the next one, or after the run.
	settle := func(s *sim) {
		if pending >= 0 {
			e := got[pending]
			e.ok = s.c.succeeded > done
			got[pending] = e
		}
		done = s.c.succeeded
	}
	s := simPlan(t, sc, 0, func(s *sim, what string, id int32) {
		if what != "end" {
			return
		}
		settle(s)
		pending = s.ops[id].client
		if _, twice := got[pending]; twice {
			t.Fatalf("client %d ended twice", pending)
		}
		got[pending] = ending{at: time.Duration(s.now)}
	})
	settle(s)
	return got
}

// overloadScript is 17 operations, one every 3.7 ms from 0 (the j-th at
// 3.7·j ms, by client j), at one worker serving each in 10 ms: about 2.7
// times its capacity, with no time-out, so that every request queued is
// taken by the worker or dropped. No arrival falls on a service's end.
func overloadScript(dep string) string {
	return `{"version": 1, "name": "o",
	"workload": {"clients": 20, "arrival": "uniform", "rate": 270.27027027027026, "duration": "60ms"},
	"dependency": {"workers": 1, "service_time": {"kind": "constant", "mean": "10ms"}, "queue_capacity": 100` + dep + `},
	"strategies": [{"name": "a", "max_attempts": 1}]}`
}

// checkEndings compares endings with want: client → end in ms, negative
// for a failure at that time.
func checkEndings(t *testing.T, got map[int32]ending, want map[int32]float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%d operations ended, want %d", len(got), len(want))
	}
	for _, c := range slices.Sorted(maps.Keys(want)) {
		w := want[c]
		ok := w > 0
		at := time.Duration(max(w, -w) * float64(time.Millisecond))
		if g := got[c]; g.at != at || g.ok != ok {
			t.Errorf("operation %d: ended at %v (success %t), want %v (success %t)", c, g.at, g.ok, at, ok)
		}
	}
}

func TestQueueDisciplineOrder(t *testing.T) {
	// FIFO serves them back to back in arrival order.
	fifo := map[int32]float64{}
	for j := range int32(17) {
		fifo[j] = float64(10 * (j + 1))
	}
	checkEndings(t, endings(t, overloadScript("")), fifo)
	checkEndings(t, endings(t, overloadScript(`, "queue_discipline": "fifo"`)), fifo)
	// LIFO: at each service's end the newest queued request; the first
	// arrivals wait until the arrivals stop (a16 at 59.2 ms).
	checkEndings(t, endings(t, overloadScript(`, "queue_discipline": "lifo"`)), map[int32]float64{
		0: 10, 2: 20, 5: 30, 8: 40, 10: 50, 13: 60, 16: 70,
		15: 80, 14: 90, 12: 100, 11: 110, 9: 120, 7: 130, 6: 140, 4: 150, 3: 160, 1: 170,
	})
}

func TestCoDelDropTimes(t *testing.T) {
	// Target 5 ms, interval 20 ms. The j-th request taken at 10·j ms has
	// waited 6.3·j ms: above target from the first. a1 at 10 ms sets
	// first_above_time to 30 ms; from 30 ms CoDel may drop, and it enters
	// its drop state at 50 ms, an interval later (now − first_above_time
	// ≥ interval): a5 is dropped, a6 served, the next drop planned at
	// 50 + 20/√1 = 70 ms. At 70 ms a8 goes (count 2; next at
	// 70 + 20/√2 = 84.14 ms), at 90 ms a11 (count 3; next at
	// 84.14 + 20/√3 = 95.69 ms), at 100 ms a13 (count 4; next at
	// 105.69 ms), at 110 ms a15 (count 5): the request after it, a16,
	// leaves the queue empty, which ends the drop state.
	checkEndings(t, endings(t, overloadScript(`, "queue_discipline": "codel", "codel": {"target": "5ms", "interval": "20ms"}`)), map[int32]float64{
		0: 10, 1: 20, 2: 30, 3: 40, 4: 50, 5: -50, 6: 60, 7: 70, 8: -70, 9: 80, 10: 90,
		11: -90, 12: 100, 13: -100, 14: 110, 15: -110, 16: 120,
	})
}

func TestAdaptiveLIFO(t *testing.T) {
	// M = 5 ms, N = 20 ms. The queue last became empty at 3.7 ms (a1
	// joins it empty). Until 23.7 ms requests may wait N and the worker
	// takes the oldest; from then, the queue not empty for N, requests
	// queued may wait M (a7 from 25.9 ms: until 30.9 ms) and the worker
	// takes the newest: a8 at 30 ms, a10 at 40, a13 at 50, a16 at 60. At
	// 70 ms every request left is past its time: all dropped at once.
	checkEndings(t, endings(t, overloadScript(`, "queue_discipline": "adaptive-lifo", "codel": {"target": "5ms", "interval": "20ms"}`)), map[int32]float64{
		0: 10, 1: 20, 2: 30, 8: 40, 10: 50, 13: 60, 16: 70,
		3: -70, 4: -70, 5: -70, 6: -70, 7: -70, 9: -70, 11: -70, 12: -70, 14: -70, 15: -70,
	})
	// With the sources' N = 100 ms every request may wait 100 ms, and the
	// queue, not empty since 3.7 ms, is congested from 103.7 ms: FIFO
	// until a10 (served 100..110 ms), then the newest first, a16 to a13;
	// at 150 ms a12 (queued at 44.4 ms) and a11 are past their 100 ms.
	checkEndings(t, endings(t, overloadScript(`, "queue_discipline": "adaptive-lifo"`)), map[int32]float64{
		0: 10, 1: 20, 2: 30, 3: 40, 4: 50, 5: 60, 6: 70, 7: 80, 8: 90, 9: 100, 10: 110,
		16: 120, 15: 130, 14: 140, 13: 150, 12: -150, 11: -150,
	})
}

// TestEveryQueueDisciplineServes walks the vocabulary: each discipline
// has its dequeue, and the first request, which finds the worker free,
// is served at 10 ms whatever the discipline.
func TestEveryQueueDisciplineServes(t *testing.T) {
	for _, k := range QueueDisciplines {
		got := endings(t, overloadScript(`, "queue_discipline": "`+string(k)+`"`))
		if len(got) != 17 || got[0] != (ending{at: 10 * time.Millisecond, ok: true}) {
			t.Errorf("%s: %d operations ended, the first %+v", k, len(got), got[0])
		}
	}
}

// TestDisciplineDropAnswer: a drop is answered as a full queue is, with
// its status and Retry-After, and counted as a rejection.
func TestDisciplineDropAnswer(t *testing.T) {
	js := strings.Replace(overloadScript(`, "queue_discipline": "codel", "codel": {"target": "5ms", "interval": "20ms"}, "queue_full_status": 429, "retry_after": {"statuses": [429], "after": "2s"}`),
		`"max_attempts": 1`, `"max_attempts": 2, "retry_on": {"statuses": [429]}, "honor_retry_after": true, "retry_after": {"mode": "replace"}`, 1)
	res := runScenario(t, js)
	m := res.Strategies[0].Metrics
	// Five drops (TestCoDelDropTimes), each retried 2 s later, alone.
	if m.Rejections != 5 || m.Retries != 5 || m.Succeeded != 17 {
		t.Errorf("rejections %g, retries %g, succeeded %g; want 5, 5, 17", m.Rejections, m.Retries, m.Succeeded)
	}
}

func runScenario(t *testing.T, js string) *Result {
	t.Helper()
	sc, err := Parse([]byte(js))
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(t.Context(), sc, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// attemptTimes runs the scenario in js and returns each client's attempt
// start times.
func attemptTimes(t *testing.T, js string) (map[int32][]time.Duration, *sim) {
	t.Helper()
	sc, err := Parse([]byte(js))
	if err != nil {
		t.Fatal(err)
	}
	got := map[int32][]time.Duration{}
	s := simPlan(t, sc, 0, func(s *sim, what string, id int32) {
		if what == "attempt" {
			c := s.ops[s.calls[id].op].client
			got[c] = append(got[c], time.Duration(s.now))
		}
	})
	return got, s
}

func TestServerRateLimit(t *testing.T) {
	// Four clients at once against a bucket of 2 tokens refilled at
	// 10 per second (one every 100 ms). c0 and c1 take the tokens; c2
	// and c3 get 429 with a Retry-After of 100 ms, the time until the
	// next token. Honoured exactly, both come back at 100 ms: c2 takes
	// the token, c3 is told 100 ms again and gets the one at 200 ms.
	script := func(unit string) string {
		return `{"version": 1, "name": "r",
		"workload": {"clients": 4, "arrival": "burst"},
		"dependency": {"workers": 10, "service_time": {"kind": "constant", "mean": "1ms"}, "queue_capacity": 10,
			"rate_limit": {"rate": 10, "burst": 2` + unit + `}},
		"strategies": [{"name": "a", "max_attempts": 3, "honor_retry_after": true, "retry_after": {"mode": "replace"}}]}`
	}
	ms := func(xs ...int) []time.Duration {
		var ds []time.Duration
		for _, x := range xs {
			ds = append(ds, time.Duration(x)*time.Millisecond)
		}
		return ds
	}
	got, s := attemptTimes(t, script(`, "retry_after_unit": "1ms"`))
	want := map[int32][]time.Duration{0: ms(0), 1: ms(0), 2: ms(0, 100), 3: ms(0, 100, 200)}
	if !maps.EqualFunc(got, want, slices.Equal) {
		t.Errorf("attempts %v, want %v", got, want)
	}
	if s.c.rejections != 3 || s.c.succeeded != 4 {
		t.Errorf("%d rejections and %d successes; want 3 and 4", s.c.rejections, s.c.succeeded)
	}
	// HTTP's whole seconds (the default): 100 ms rounds up to 1 s; by
	// then the bucket is full again and both retries pass.
	got, s = attemptTimes(t, script(""))
	want = map[int32][]time.Duration{0: ms(0), 1: ms(0), 2: ms(0, 1000), 3: ms(0, 1000)}
	if !maps.EqualFunc(got, want, slices.Equal) {
		t.Errorf("whole seconds: attempts %v, want %v", got, want)
	}
	if s.c.rejections != 2 {
		t.Errorf("whole seconds: %d rejections, want 2", s.c.rejections)
	}
}

// TestServerRateLimitRetryAfter: the Retry-After is the time until a
// token, at the token interval 1/rate in whole nanoseconds: 1/3 s.
func TestServerRateLimitRetryAfter(t *testing.T) {
	sc, err := Parse([]byte(`{"version": 1, "name": "r",
		"workload": {"clients": 2, "arrival": "burst"},
		"dependency": {"workers": 10, "service_time": {"kind": "constant", "mean": "1ms"}, "queue_capacity": 10,
			"rate_limit": {"rate": 3, "burst": 1, "retry_after_unit": "1ns"}},
		"strategies": [{"name": "a", "max_attempts": 1}]}`))
	if err != nil {
		t.Fatal(err)
	}
	m := compile(sc)
	s := newSim(t.Context(), m, &m.strategies[0], m.seeds[0], 0)
	d, ds := s.dep(0)
	if d.overload.emission != 333_333_333 {
		t.Fatalf("token interval %d ns, want 333333333", d.overload.emission)
	}
	var waits []int64
	for _, now := range []int64{0, 1, 333_333_332, 333_333_333, 333_333_334} {
		waits = append(waits, ds.overload().take(d.overload, now))
	}
	want := []int64{0, 333_333_332, 1, 0, 333_333_332}
	if !slices.Equal(waits, want) {
		t.Errorf("waits %v, want %v (0: a token taken)", waits, want)
	}
}

// TestOverloadLeavesFIFOAlone: the overload fields left out, or set to
// their defaults, give the same bytes as a plain FIFO queue, so that the
// goldens of scenarios without them stay as they are.
func TestOverloadLeavesFIFOAlone(t *testing.T) {
	base := overloadScript("")
	a := runScenario(t, base)
	b := runScenario(t, overloadScript(`, "queue_discipline": "fifo"`))
	ja, _ := json.Marshal(a.Strategies)
	jb, _ := json.Marshal(b.Strategies)
	if !bytes.Equal(ja, jb) {
		t.Error(`"queue_discipline": "fifo" changed the run`)
	}
	sc, err := Parse([]byte(base))
	if err != nil {
		t.Fatal(err)
	}
	if m := compile(sc); m.deps[0].overload != nil {
		t.Error("a FIFO dependency without a rate limiter has an overload model: it leaves the plain path")
	}
}

func TestConcurrencyLimitAIMD(t *testing.T) {
	// Limit 4 at first (min 1, max 10), halved on a drop, a sample over
	// 25 ms a drop. The j-th arrival at 3.7·j ms; the worker ends one
	// every 10 ms. a5 finds 4 in flight: refused. At 20 ms a1 leaves
	// (16.3 ms, taken on with 2 in flight: 2·2 ≥ 4): limit 5; at 30 ms
	// a2 (22.6 ms, 3 in flight): 6. a8 at 29.6 ms finds 5 of 5: refused.
	// At 40 ms a3 leaves after 28.9 ms, a drop: 3; a4, a6, a7, a9 and a10
	// leave late too: 1, 1 (its minimum)... so a11 to a16 are refused
	// while 5 to 3 are in flight. The others are served in order.
	got := endings(t, overloadScript(`, "concurrency_limit": {"initial": 4, "min": 1, "max": 10, "backoff_ratio": 0.5, "timeout": "25ms"}`))
	checkEndings(t, got, map[int32]float64{
		0: 10, 1: 20, 2: 30, 3: 40, 4: 50, 6: 60, 7: 70, 9: 80, 10: 90,
		5: -18.5, 8: -29.6, 11: -40.7, 12: -44.4, 13: -48.1, 14: -51.8, 15: -55.5, 16: -59.2,
	})
	// The limit moves as the comment above says: 4 at first, up by one at
	// 20 and 30 ms, halved at each late sample from 40 ms.
	sc, err := Parse([]byte(overloadScript(`, "concurrency_limit": {"initial": 4, "min": 1, "max": 10, "backoff_ratio": 0.5, "timeout": "25ms"}`)))
	if err != nil {
		t.Fatal(err)
	}
	var limits []int
	s := simPlan(t, sc, 0, func(s *sim, what string, id int32) {
		if what != "end" {
			return
		}
		if ov := s.deps[0].ov; ov != nil && (len(limits) == 0 || limits[len(limits)-1] != ov.limit) {
			limits = append(limits, ov.limit)
		}
	})
	if want := []int{4, 5, 6, 3, 1}; !slices.Equal(limits, want) {
		t.Errorf("limits as operations ended %v, want %v", limits, want)
	}
	if ov := s.deps[0].ov; ov.inflight != 0 || s.c.rejections != 8 {
		t.Errorf("%d in flight after the run, %d rejections; want 0 and 8", ov.inflight, s.c.rejections)
	}
}

func TestConcurrencyLimitDrops(t *testing.T) {
	limitAfter := func(t *testing.T, js string) (*sim, int) {
		t.Helper()
		sc, err := Parse([]byte(js))
		if err != nil {
			t.Fatal(err)
		}
		s := simPlan(t, sc, 0, nil)
		return s, s.deps[0].ov.limit
	}
	// A full queue's refusal is a drop: three clients at once, one
	// worker, no queue, limit 3 halved on a drop. c0 is served; c1,
	// taken on, finds the queue full: 3 → 1; c2 finds 1 in flight and
	// the limit 1: refused by the limit. c0's sample (taken on alone,
	// 2·1 ≥ 1) adds one: 2.
	s, limit := limitAfter(t, `{"version": 1, "name": "q",
		"workload": {"clients": 3, "arrival": "burst"},
		"dependency": {"workers": 1, "service_time": {"kind": "constant", "mean": "10ms"}, "queue_capacity": 0,
			"concurrency_limit": {"initial": 3, "min": 1, "max": 10, "backoff_ratio": 0.5, "status": 429}},
		"strategies": [{"name": "a", "max_attempts": 1}]}`)
	if limit != 2 || s.c.rejections != 2 || s.c.succeeded != 1 {
		t.Errorf("queue full: limit %d, %d rejections, %d successes; want 2, 2 and 1", limit, s.c.rejections, s.c.succeeded)
	}
	// A caller that has stopped waiting makes its request's sample a
	// drop: it times out at 5 ms, the dependency answers at 10 ms; the
	// limit, 4, is halved.
	s, limit = limitAfter(t, `{"version": 1, "name": "c",
		"workload": {"clients": 1, "arrival": "burst"},
		"dependency": {"workers": 1, "service_time": {"kind": "constant", "mean": "10ms"}, "queue_capacity": 5,
			"concurrency_limit": {"initial": 4, "min": 1, "backoff_ratio": 0.5}},
		"strategies": [{"name": "a", "max_attempts": 1, "attempt_timeout": "5ms"}]}`)
	if limit != 2 || s.c.wasted != 1 {
		t.Errorf("caller gone: limit %d, wasted %d; want 2 and 1", limit, s.c.wasted)
	}
	// Served in time, taken on with 1 in flight of a limit of 2: 2·1 ≥ 2
	// adds one.
	_, limit = limitAfter(t, `{"version": 1, "name": "ok",
		"workload": {"clients": 1, "arrival": "burst"},
		"dependency": {"workers": 1, "service_time": {"kind": "constant", "mean": "10ms"}, "queue_capacity": 5,
			"concurrency_limit": {"initial": 2, "min": 1}},
		"strategies": [{"name": "a", "max_attempts": 1}]}`)
	if limit != 3 {
		t.Errorf("served in time: limit %d, want 3", limit)
	}
}

func TestConcurrencyLimitStatus(t *testing.T) {
	// Two clients at once, a limit of 1: the second is refused at once
	// with the limit's status. The policy retries 429 only, once: the
	// default 503 ends the operation, a 429 is retried (and refused again,
	// the first still in service).
	for status, attempts := range map[string]float64{"": 2, `, "status": 429`: 3} {
		res := runScenario(t, `{"version": 1, "name": "s",
			"workload": {"clients": 2, "arrival": "burst"},
			"dependency": {"workers": 1, "service_time": {"kind": "constant", "mean": "10ms"}, "queue_capacity": 5,
				"concurrency_limit": {"initial": 1, "min": 1`+status+`}},
			"strategies": [{"name": "a", "max_attempts": 2, "retry_on": {"statuses": [429]}}]}`)
		if m := res.Strategies[0].Metrics; m.Attempts != attempts || m.Rejections != attempts-1 {
			t.Errorf("status %q: %g attempts, %g rejections; want %g and %g", status, m.Attempts, m.Rejections, attempts, attempts-1)
		}
	}
}

// TestAdaptiveLIFOCongestedOnlyPastN: a queue counts as congested once it
// has not been empty for more than N; a request queued exactly N after
// the queue last emptied may still wait N. M = 1 ms, N = 18.5 ms: the
// queue last emptied at 3.7 ms, so a6, queued at 22.2 ms, may wait until
// 40.7 ms; a7 and later only 1 ms. a1 and a2 are served oldest first; at
// 30 ms the newest, a8, is served; at 40 ms a10, a9 and a7 are past
// their time and dropped, and a6 is served. At 50 ms the rest are past
// theirs: the queue empties, and a14 to a16 find it calm.
func TestAdaptiveLIFOCongestedOnlyPastN(t *testing.T) {
	checkEndings(t, endings(t, overloadScript(`, "queue_discipline": "adaptive-lifo", "codel": {"target": "1ms", "interval": "18.5ms"}`)), map[int32]float64{
		0: 10, 1: 20, 2: 30, 8: 40, 6: 50, 7: -40, 9: -40, 10: -40,
		3: -50, 4: -50, 5: -50, 11: -50, 12: -50, 13: -50,
		14: 61.8, 15: 71.8, 16: 81.8,
	})
}

// TestCoDelKeepsRequestsBelowTarget: CoDel drops nothing while the
// requests it takes have waited less than its target, however long the
// queue has been standing. 30 operations, one every 9 ms, at one worker
// of 10 ms: the k-th is taken at 10·k ms having waited k ms, and from a9
// on the queue is never left empty; with a target of 40 ms every one is
// served, in arrival order.
func TestCoDelKeepsRequestsBelowTarget(t *testing.T) {
	js := `{"version": 1, "name": "standing",
	"workload": {"clients": 30, "arrival": "uniform", "rate": 111.11111111111111, "duration": "270ms"},
	"dependency": {"workers": 1, "service_time": {"kind": "constant", "mean": "10ms"}, "queue_capacity": 100,
		"queue_discipline": "codel", "codel": {"target": "40ms", "interval": "60ms"}},
	"strategies": [{"name": "a", "max_attempts": 1}]}`
	fifo := map[int32]float64{}
	for k := range int32(30) {
		fifo[k] = float64(10 * (k + 1))
	}
	checkEndings(t, endings(t, js), fifo)
}

// TestCoDelReentersAtTheDropRateItLeft: back in the drop state within an
// interval of the drop it had planned when it left, CoDel starts from
// the count it left with less 2 (the drop rate that controlled the queue
// last time), not from 1. Target 5 ms, interval 50 ms, one worker of
// 10 ms at 2.7 times its capacity: the drop state begins at 110 ms
// (count 1) and has dropped 5 by 250 ms, when 20 workers for 20 ms
// drain the queue; CoDel leaves the drop state with its next drop
// planned at 271.58 ms. Back to one worker, the queue stands again and
// CoDel re-enters at 320 ms, 48.4 ms after that planned drop: count 3,
// the next drop 50/√3 ms later.
func TestCoDelReentersAtTheDropRateItLeft(t *testing.T) {
	sc, err := Parse([]byte(`{"version": 1, "name": "again",
	"workload": {"clients": 200, "arrival": "uniform", "rate": 270.27027027027026, "duration": "400ms"},
	"dependency": {"workers": 1, "service_time": {"kind": "constant", "mean": "10ms"}, "queue_capacity": 100,
		"queue_discipline": "codel", "codel": {"target": "5ms", "interval": "50ms"},
		"phases": [{"kind": "capacity", "from": "250ms", "to": "270ms", "workers": 20}]},
	"strategies": [{"name": "a", "max_attempts": 1}]}`))
	if err != nil {
		t.Fatal(err)
	}
	type entry struct {
		count    uint32
		dropNext time.Duration
	}
	var entries []entry
	var left []uint32 // the count at each exit
	dropping := false
	simPlan(t, sc, 0, func(s *sim, what string, id int32) {
		ov := s.deps[0].ov
		switch {
		case ov == nil || ov.dropping == dropping:
			return
		case ov.dropping:
			entries = append(entries, entry{ov.count, time.Duration(ov.dropNext)})
		default:
			left = append(left, ov.count)
		}
		dropping = ov.dropping
	})
	want := []entry{{1, 160 * time.Millisecond}, {3, 320*time.Millisecond + time.Duration(50e6/math.Sqrt(3))}}
	if len(entries) < 2 || !slices.Equal(entries[:2], want) || len(left) == 0 || left[0] != 5 {
		t.Errorf("entries into the drop state (count, next drop) %v, counts at the exits %v; want %v first, the first left with count 5", entries, left, want)
	}
}

// TestConcurrencyLimitSampleLateOnlyPastTimeout: a request that leaves
// exactly its limit's timeout after it was taken on is in time, and its
// sample (taken on with 1 in flight of a limit of 2: 2·1 ≥ 2) adds one
// to the limit; past the timeout it is a drop, and halves it.
func TestConcurrencyLimitSampleLateOnlyPastTimeout(t *testing.T) {
	for _, tc := range []struct {
		timeout string
		limit   int
	}{
		{"10ms", 3},
		{"9.999ms", 1},
	} {
		sc, err := Parse([]byte(`{"version": 1, "name": "t",
		"workload": {"clients": 1, "arrival": "burst"},
		"dependency": {"workers": 1, "service_time": {"kind": "constant", "mean": "10ms"}, "queue_capacity": 5,
			"concurrency_limit": {"initial": 2, "min": 1, "backoff_ratio": 0.5, "timeout": "` + tc.timeout + `"}},
		"strategies": [{"name": "a", "max_attempts": 1}]}`))
		if err != nil {
			t.Fatal(err)
		}
		s := simPlan(t, sc, 0, nil)
		if got := s.deps[0].ov.limit; got != tc.limit || s.c.succeeded != 1 {
			t.Errorf("timeout %s, served in 10ms: limit %d, %d succeeded; want %d and 1", tc.timeout, got, s.c.succeeded, tc.limit)
		}
	}
}
