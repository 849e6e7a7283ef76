package conformance

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	backoffv4 "github.com/cenkalti/backoff/v4"
	backoffv5 "github.com/cenkalti/backoff/v5"
)

// fakeClock and fakeTimer are cenkalti/backoff v4's injection points
// (ExponentialBackOff.Clock, RetryNotifyWithTimer): a timer started for d
// moves the clock by d and fires at once, so the retry loop runs in
// virtual time, as the engine does.
type fakeClock struct{ now time.Time }

func (c *fakeClock) Now() time.Time { return c.now }

type fakeTimer struct {
	clock *fakeClock
	c     chan time.Time
}

func (t *fakeTimer) Start(d time.Duration) {
	t.clock.now = t.clock.now.Add(d)
	t.c <- t.clock.now
}
func (t *fakeTimer) Stop()               {}
func (t *fakeTimer) C() <-chan time.Time { return t.c }

// cenkaltiIntervals is the un-jittered interval before retry n of
// cenkalti's defaults, the formula both versions document (exponential.go:
// RetryInterval × Multiplier, capped by MaxInterval).
func cenkaltiInterval(n int) time.Duration {
	d := 500 * time.Millisecond
	for range n - 1 {
		if float64(d) >= float64(time.Minute)/1.5 {
			return time.Minute
		}
		d = time.Duration(float64(d) * 1.5)
	}
	return d
}

// TestCenkaltiIntervals: without randomization, the intervals of v4's and
// v5's ExponentialBackOff defaults and the engine's cenkalti-backoff
// preset (jitter removed) are the same, retry by retry, to the
// microsecond the engine reports, the 1 min cap included.
func TestCenkaltiIntervals(t *testing.T) {
	const n = 19
	v4 := backoffv4.NewExponentialBackOff(backoffv4.WithRandomizationFactor(0), backoffv4.WithMaxElapsedTime(0))
	v5 := backoffv5.NewExponentialBackOff()
	v5.RandomizationFactor = 0
	v5.Reset()
	p, err := Policy("cenkalti-backoff", map[string]any{"jitter": nil, "deadline": nil})
	if err != nil {
		t.Fatal(err)
	}
	eng, err := EngineWaits(p, n, 1)
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		a, b, e := v4.NextBackOff(), v5.NextBackOff(), eng[i]
		if a != b {
			t.Errorf("retry %d: v4 waits %v, v5 %v", i+1, a, b)
		}
		if d := a - e; d > time.Microsecond || d < -time.Microsecond {
			t.Errorf("retry %d: cenkalti waits %v, the engine %v", i+1, a, e)
		}
		if f := cenkaltiInterval(i + 1); a != f {
			t.Errorf("retry %d: cenkalti waits %v, its formula %v", i+1, a, f)
		}
	}
	t.Logf("intervals 1..%d match: %v ... %v", n, eng[0], eng[n-1])
}

// TestCenkaltiJitter: with the default RandomizationFactor 0.5 each wait
// is drawn from [0.5, 1.5] × the interval (exponential.go,
// getRandomValueFromInterval: min + random × (max - min + 1)); both
// versions draw from the global math/rand, which cannot be seeded, so the
// comparison is of distributions: every one of 10,000 draws per retry in
// the envelope, their mean within 3% of the interval. The engine's
// proportional jitter (fraction 0.5) over 1,000 seeds: the same envelope
// (open at the top) and the mean within 3% (its standard deviation is
// 0.9% of the interval).
func TestCenkaltiJitter(t *testing.T) {
	t.Parallel()
	const retries, draws = 8, 10000
	type lib struct {
		name string
		next func() func() time.Duration
	}
	libs := []lib{
		{"v4", func() func() time.Duration {
			b := backoffv4.NewExponentialBackOff(backoffv4.WithMaxElapsedTime(0))
			return b.NextBackOff
		}},
		{"v5", func() func() time.Duration {
			b := backoffv5.NewExponentialBackOff()
			return b.NextBackOff
		}},
	}
	for _, l := range libs {
		sums := make([]float64, retries)
		for range draws {
			next := l.next()
			for i := range retries {
				w, d := next(), cenkaltiInterval(i+1)
				if w < d/2 || w > d+d/2+1 { // min + random × (max - min + 1): up to 1 ns over
					t.Fatalf("%s retry %d: waited %v, outside [%v, %v]", l.name, i+1, w, d/2, d+d/2)
				}
				sums[i] += float64(w)
			}
		}
		for i, s := range sums {
			checkMean(t, fmt.Sprintf("cenkalti %s retry %d", l.name, i+1), s/draws, float64(cenkaltiInterval(i+1)), 0.03)
		}
	}
	p, err := Policy("cenkalti-backoff", map[string]any{"deadline": nil})
	if err != nil {
		t.Fatal(err)
	}
	sums := make([]float64, retries)
	const seeds = 1000
	for seed := int64(1); seed <= seeds; seed++ {
		ws, err := EngineWaits(p, retries, seed)
		if err != nil {
			t.Fatal(err)
		}
		for i, w := range ws {
			d := cenkaltiInterval(i + 1)
			if w < d/2-time.Microsecond || w > d+d/2+time.Microsecond { // measured to ±1 µs
				t.Fatalf("engine retry %d, seed %d: waited %v, outside [%v, %v)", i+1, seed, w, d/2, d+d/2)
			}
			sums[i] += float64(w)
		}
	}
	for i, s := range sums {
		checkMean(t, fmt.Sprintf("engine cenkalti-backoff retry %d", i+1), s/seeds, float64(cenkaltiInterval(i+1)), 0.03)
	}
}

// TestCenkaltiV4MaxElapsedTime drives v4's Retry loop on a virtual clock
// with an operation that always fails and returns at once: NextBackOff
// stops when elapsed + next > MaxElapsedTime (15 min), checked before
// sleeping. The engine's preset (max_elapsed 15m, checked the same way,
// the same intervals, jitter removed on both sides so the count is exact)
// makes the same number of attempts and waits as long.
func TestCenkaltiV4MaxElapsedTime(t *testing.T) {
	clock := &fakeClock{now: time.Unix(0, 0)}
	b := backoffv4.NewExponentialBackOff(backoffv4.WithRandomizationFactor(0), backoffv4.WithClockProvider(clock))
	attempts := 0
	var waited time.Duration
	err := backoffv4.RetryNotifyWithTimer(func() error {
		attempts++
		return errors.New("503")
	}, b, func(_ error, d time.Duration) { waited += d }, &fakeTimer{clock: clock, c: make(chan time.Time, 1)})
	if err == nil {
		t.Fatal("an operation that always fails succeeded")
	}
	p, err := Policy("cenkalti-backoff", map[string]any{"jitter": nil})
	if err != nil {
		t.Fatal(err)
	}
	m, err := EngineFailing(p)
	if err != nil {
		t.Fatal(err)
	}
	if int(m.Attempts) != attempts {
		t.Errorf("v4 made %d attempts in %v before MaxElapsedTime stopped it; the engine %v", attempts, waited, m.Attempts)
	}
	if m.GaveUpDeadline != 1 {
		t.Errorf("the engine's operation did not end on its elapsed-time limit: %+v", m)
	}
	if d := msToDuration(m.LatencyMaxms) - waited; d < -time.Microsecond || d > time.Microsecond {
		t.Errorf("v4 waited %v in all, the engine %v ms", waited, m.LatencyMaxms)
	}
	t.Logf("v4: %d attempts, %v of waits; engine: %v attempts, %v ms", attempts, waited, m.Attempts, m.LatencyMaxms)
}

// TestCenkaltiV5Tries drives v5's Retry loop (real timer, intervals of
// 1 ms so that the test waits a few ms): WithMaxTries(n) makes n attempts
// of an always-failing operation, a Permanent error stops at once; the
// engine's max_attempts and a status outside retry_on do the same.
func TestCenkaltiV5Tries(t *testing.T) {
	tiny := func() *backoffv5.ExponentialBackOff {
		return &backoffv5.ExponentialBackOff{InitialInterval: time.Millisecond, Multiplier: 1, MaxInterval: time.Millisecond}
	}
	for _, tries := range []uint{1, 3, 5} {
		attempts := 0
		_, err := backoffv5.Retry(context.Background(), func() (int, error) {
			attempts++
			return 0, errors.New("503")
		}, backoffv5.WithBackOff(tiny()), backoffv5.WithMaxTries(tries))
		if err == nil || attempts != int(tries) {
			t.Errorf("WithMaxTries(%d): %d attempts, error %v", tries, attempts, err)
		}
		p, _ := Policy("cenkalti-backoff", map[string]any{"max_attempts": tries})
		got, _, err := EngineScript(p, 503, []Call{FailAll})
		if err != nil {
			t.Fatal(err)
		}
		if got[0] != attempts {
			t.Errorf("max %d tries: v5 made %d attempts, the engine %d", tries, attempts, got[0])
		}
	}
	attempts := 0
	_, _ = backoffv5.Retry(context.Background(), func() (int, error) {
		attempts++
		return 0, backoffv5.Permanent(errors.New("400"))
	}, backoffv5.WithBackOff(tiny()))
	p, _ := Policy("cenkalti-backoff", nil)
	got, _, err := EngineScript(p, 400, []Call{FailAll})
	if err != nil {
		t.Fatal(err)
	}
	if attempts != 1 || got[0] != 1 {
		t.Errorf("a permanent error (a status not retried): v5 made %d attempts, the engine %d", attempts, got[0])
	}
}

// TestCenkaltiV5RetryAfter: v5's Retry waits exactly a RetryAfterError's
// duration, even when shorter than the backoff, and resets the backoff
// (retry.go l. 113-119: next = retryAfter.Duration; BackOff.Reset()), so
// the retry after it starts again from the initial interval. The
// engine's cenkalti-backoff preset says the same with retry_after mode
// "replace_and_reset"; it is run with the test's backoff (1 ms, x2, no
// randomization) and a dependency answering 503 with Retry-After 1 ms
// where v5's operation returns a RetryAfterError, 502 without one
// elsewhere.
func TestCenkaltiV5RetryAfter(t *testing.T) {
	// Intervals 1, 2, 4, 8 ms; the third failure asks for 1 ms.
	b := &backoffv5.ExponentialBackOff{InitialInterval: time.Millisecond, Multiplier: 2, MaxInterval: time.Second}
	var waits []time.Duration
	attempts := 0
	_, _ = backoffv5.Retry(context.Background(), func() (int, error) {
		attempts++
		if attempts == 3 {
			return 0, &backoffv5.RetryAfterError{Duration: time.Millisecond}
		}
		return 0, errors.New("503")
	}, backoffv5.WithBackOff(b), backoffv5.WithMaxTries(6), backoffv5.WithNotify(func(_ error, d time.Duration) { waits = append(waits, d) }))
	// Reset puts the interval back to the initial one: the 4th attempt's
	// failure waits 1 ms again, then 2 ms.
	want := []time.Duration{1 * time.Millisecond, 2 * time.Millisecond, 1 * time.Millisecond, 1 * time.Millisecond, 2 * time.Millisecond}
	if fmt.Sprint(waits) != fmt.Sprint(want) {
		t.Fatalf("v5 waited %v, its source says %v", waits, want)
	}
	// Every failure asking for 1 ms, against the engine with every 503
	// carrying Retry-After: 1 ms, the same backoff, honoured.
	b = &backoffv5.ExponentialBackOff{InitialInterval: time.Millisecond, Multiplier: 2, MaxInterval: time.Second}
	var every []time.Duration
	_, _ = backoffv5.Retry(context.Background(), func() (int, error) {
		return 0, &backoffv5.RetryAfterError{Duration: time.Millisecond}
	}, backoffv5.WithBackOff(b), backoffv5.WithMaxTries(5), backoffv5.WithNotify(func(_ error, d time.Duration) { every = append(every, d) }))
	p, err := Policy("cenkalti-backoff", map[string]any{"backoff": map[string]any{"kind": "exponential", "base": "1ms", "multiplier": 2, "max": "1s"}, "jitter": nil})
	if err != nil {
		t.Fatal(err)
	}
	eng, err := EngineWaitsRetryAfter(p, 4, 1, time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(every) != fmt.Sprint(eng) {
		t.Errorf("a Retry-After of 1 ms on every failure: v5 waited %v, the engine %v", every, eng)
	}
	// Retry-After at the 3rd attempt only: its attempts start at 0, 1, 3,
	// 4, 5 and 7 ms (v5's waits), so the 3rd alone falls in the 503
	// outage [3 ms, 3.5 ms); the others meet 502, without Retry-After.
	phases := []any{
		map[string]any{"kind": "outage", "from": "0s", "to": "3ms", "status": 502},
		map[string]any{"kind": "outage", "from": "3ms", "to": "3500us", "status": 503},
		map[string]any{"kind": "outage", "from": "3500us", "to": "24h", "status": 502},
	}
	eng, err = EngineWaitsPhases(p, 5, 1, phases, map[string]any{"statuses": []int{503}, "after": "1ms"})
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(waits) != fmt.Sprint(eng) {
		t.Errorf("a Retry-After of 1 ms at the 3rd attempt: v5 waited %v, the engine %v", waits, eng)
	}
}
