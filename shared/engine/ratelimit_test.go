package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"
)

// rateLimitScenario is 100 clients sending 200 operations a second in all
// for 20 s to a dependency that answers STATUS to every call from 5 s to
// 8 s; the strategy retries 3 times with POLICY.
func rateLimitScenario(t *testing.T, status, policy string) *Scenario {
	t.Helper()
	js := strings.NewReplacer("STATUS", status, "POLICY", policy).Replace(`{"version": 1, "name": "rate-limit",
		"workload": {"clients": 100, "arrival": "poisson", "rate": 200, "duration": "20s"},
		"dependency": {"workers": 20, "service_time": {"kind": "constant", "mean": "5ms"}, "queue_capacity": 100,
			"phases": [{"kind": "errors", "from": "5s", "to": "8s", "rate": 1, "status": STATUS}]},
		"seeds": [1, 2],
		"strategies": [{"name": "s", "max_attempts": 4, "deadline": "10s", "backoff": {"kind": "exponential", "base": "50ms", "max": "1s"}, "jitter": {"kind": "full"}POLICY}]}`)
	sc, err := Parse([]byte(js))
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	return sc
}

// TestRateLimitInSimulation: the AWS adaptive limiter makes attempts wait
// for tokens once a 429 has turned it on (not after 503s, which are not
// throttles for the SDK), sends fewer attempts during the throttling than
// the same policy without it, keeps the estimate an upper bound of the
// events, and gives the same bytes twice.
func TestRateLimitInSimulation(t *testing.T) {
	const rl = `, "client_rate_limit": {"kind": "aws-adaptive"}`
	run := func(sc *Scenario) (*Result, []byte) {
		t.Helper()
		res, err := Run(context.Background(), sc, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if est := Estimate(sc); res.Events > est {
			t.Errorf("the run processed %d events, over its estimate %d", res.Events, est)
		}
		b, _ := json.Marshal(res)
		return res, b
	}
	plain, _ := run(rateLimitScenario(t, "429", ""))
	limited, a := run(rateLimitScenario(t, "429", rl))
	_, b := run(rateLimitScenario(t, "429", rl))
	if !bytes.Equal(a, b) {
		t.Errorf("two runs differ")
	}
	p, l := plain.Strategies[0].Metrics, limited.Strategies[0].Metrics
	if l.Attempts >= p.Attempts {
		t.Errorf("with the limiter %v attempts, without %v: want fewer", l.Attempts, p.Attempts)
	}
	// An attempt waiting for a token gives up at the 10 s deadline, not
	// later (the SDK's sleep ends with its context).
	if l.LatencyMaxms > 10000 || l.GaveUpDeadline == 0 {
		t.Errorf("with the limiter the slowest operation took %v ms, %v gave up at the deadline: want some, none over 10 s", l.LatencyMaxms, l.GaveUpDeadline)
	}
	if l.LatencyMaxms <= p.LatencyMaxms {
		t.Errorf("with the limiter the slowest operation took %v ms, without %v ms: token waits should lengthen it", l.LatencyMaxms, p.LatencyMaxms)
	}
	// 503s leave the bucket off: the limiter changes nothing.
	_, a503 := run(rateLimitScenario(t, "503", ""))
	_, b503 := run(rateLimitScenario(t, "503", rl))
	var x, y Result
	_ = json.Unmarshal(a503, &x)
	_ = json.Unmarshal(b503, &y)
	if x.Strategies[0].Metrics != y.Strategies[0].Metrics {
		t.Errorf("503s turned the limiter on: %+v\nwithout it: %+v", y.Strategies[0].Metrics, x.Strategies[0].Metrics)
	}
}

// TestRateLimitWaitEndsAtTheDeadline: with a 1 s deadline many attempts
// are still in line for a token when it comes; each gives up then, as
// the SDK's sleep ends with its context, and no operation lasts longer.
func TestRateLimitWaitEndsAtTheDeadline(t *testing.T) {
	sc := rateLimitScenario(t, "429", `, "client_rate_limit": {"kind": "aws-adaptive"}`)
	sc.Strategies[0].Deadline = Duration(time.Second)
	sc.Seeds = sc.Seeds[:1]
	res, err := Run(context.Background(), sc, Options{NoSeries: true})
	if err != nil {
		t.Fatal(err)
	}
	if m := res.Strategies[0].Metrics; m.LatencyMaxms != 1000 || m.GaveUpDeadline == 0 {
		t.Errorf("the slowest operation took %v ms, %v gave up at the deadline; want 1000 ms, some", m.LatencyMaxms, m.GaveUpDeadline)
	}
}

// TestRateLimitPerInstance: each instance has its own limiter; a 429 that
// one instance's call gets does not slow the other instance.
func TestRateLimitPerInstance(t *testing.T) {
	sc := rateLimitScenario(t, "429", `, "instances": 2, "client_rate_limit": {"kind": "aws-adaptive"}`)
	s := simPlan(t, sc, 0, nil)
	for i := range 2 {
		in := &s.inst[0][i]
		if in.rl == nil || !in.rl.Enabled() {
			t.Fatalf("instance %d: no limiter turned on by the 429s", i)
		}
	}
	// A limiter of its own: the two saw different answers, so their rates
	// differ.
	if s.inst[0][0].rl.FillRate() == s.inst[0][1].rl.FillRate() {
		t.Errorf("both instances have fill rate %v: one limiter shared?", s.inst[0][0].rl.FillRate())
	}
}

// TestAWSRateLimiterStartsOff: until a throttle, Acquire always gives a
// token; the first throttle sets the rate to 0.7 of the measured rate.
func TestAWSRateLimiterStartsOff(t *testing.T) {
	l := NewAWSRateLimiter()
	for i := range 100 {
		at := time.Duration(i) * 10 * time.Millisecond
		if ok, _ := l.Acquire(at); !ok {
			t.Fatalf("refused at %v before any throttle", at)
		}
		l.Update(at, false)
	}
	// 100 answers a second, measured over half-second buckets and
	// smoothed: the bucket that began at 0.5 s holds the 49 answers since;
	// the one before closed with the 51 answers from 0 s to 0.5 s, both
	// included: 51 / 0.5 s × 0.8.
	if m := l.MeasuredRate(); math.Abs(m-0.8*102) > 1e-9 {
		t.Fatalf("measured %v/s, want 81.6", m)
	}
	m := l.MeasuredRate()
	l.Update(time.Second, true)
	if !l.Enabled() || math.Abs(l.CalculatedRate()-0.7*l.MeasuredRate()) > 1e-9 {
		t.Errorf("after a throttle: on=%v calculated %v, measured %v (before %v): want 0.7 of it", l.Enabled(), l.CalculatedRate(), l.MeasuredRate(), m)
	}
}

func TestFixedWindowLimiter(t *testing.T) {
	// 2 permits per second, calls wait up to 1.5 s: worked from
	// AtomicRateLimiter's calculateNextState, nanosToWaitForPermission
	// and reservePermissions.
	ms := time.Millisecond
	l := NewFixedWindowLimiter(2, time.Second, 1500*ms)
	for _, c := range []struct {
		at   time.Duration
		wait time.Duration
		ok   bool
	}{
		{0, 0, true},                 // 2 → 1
		{100 * ms, 0, true},          // 1 → 0
		{200 * ms, 800 * ms, true},   // none: the next cycle's, 0 → −1
		{300 * ms, 700 * ms, true},   // the next cycle's second, −1 → −2
		{400 * ms, 1500 * ms, false}, // the cycle after's: 1.6 s > 1.5 s; it waits the timeout, nothing reserved
		{500 * ms, 1500 * ms, true},  // exactly the timeout: cycle 2's first, −2 → −3
		{1200 * ms, 800 * ms, true},  // cycle 1: −3 + 2 = −1; cycle 2's second, −1 → −2
		{5 * time.Second, 0, true},   // cycles passed: at most 2 again, 2 → 1
		{5100 * ms, 0, true},
		{5200 * ms, 800 * ms, true},
	} {
		wait, ok := l.Acquire(c.at)
		if wait != c.wait || ok != c.ok {
			t.Errorf("at %v: wait %v, ok %v; want %v, %v", c.at, wait, ok, c.wait, c.ok)
		}
	}
	// No timeout: a call without a permit fails at once.
	l = NewFixedWindowLimiter(1, time.Second, 0)
	if _, ok := l.Acquire(0); !ok {
		t.Error("the first permit was refused")
	}
	if wait, ok := l.Acquire(10 * ms); ok || wait != 0 {
		t.Errorf("without a timeout: wait %v, ok %v; want 0, false", wait, ok)
	}
}

// fixedWindowRun runs 10 operations 100 ms apart (one client, a
// dependency answering at once) through a strategy with POLICY.
func fixedWindowRun(t *testing.T, policy string) Metrics {
	t.Helper()
	res := mustRun(t, `{"version": 1, "name": "fixed-window",
		"workload": {"clients": 1, "arrival": "uniform", "rate": 10, "operations": 10},
		"dependency": {"workers": 1, "service_time": {"kind": "constant", "mean": "0s"}, "queue_capacity": 1},
		"strategies": [{"name": "s", "max_attempts": 3`+policy+`}]}`)
	return res.Strategies[0].Metrics
}

// TestFixedWindowInSimulation: 2 permits per second, waits up to 250 ms.
// The calls at 0 and 100 ms take the first cycle's permits; those at 200
// to 700 ms would wait 800 to 300 ms, wait 250 ms and are refused,
// unretried; those at 800 and 900 ms reserve the second cycle's and
// leave at 1 s, 200 and 100 ms late.
func TestFixedWindowInSimulation(t *testing.T) {
	const fw = `, "client_rate_limit": {"kind": "fixed-window", "limit_for_period": 2, "refresh_period": "1s", "timeout": "250ms"}`
	m := fixedWindowRun(t, fw)
	if m.Throttled != 6 || m.GaveUpThrottle != 6 || m.Attempts != 4 || m.LatencyMaxms != 250 {
		t.Errorf("throttled %v, gave up throttled %v, attempts %v, slowest %v ms; want 6, 6, 4, 250 ms", m.Throttled, m.GaveUpThrottle, m.Attempts, m.LatencyMaxms)
	}
	// Without a timeout the refused calls fail at once.
	m = fixedWindowRun(t, strings.Replace(fw, `, "timeout": "250ms"`, "", 1))
	if m.Throttled != 8 || m.Attempts != 2 || m.LatencyMaxms != 0 {
		t.Errorf("without a timeout: throttled %v, attempts %v, slowest %v ms; want 8, 2, 0 ms", m.Throttled, m.Attempts, m.LatencyMaxms)
	}
	// A deadline shorter than the wait ends the call with the deadline.
	m = fixedWindowRun(t, `, "deadline": "150ms"`+fw)
	if m.Throttled != 0 || m.GaveUpDeadline != 7 || m.Attempts != 3 {
		t.Errorf("with a 150 ms deadline: throttled %v, gave up at the deadline %v, attempts %v; want 0, 7, 3", m.Throttled, m.GaveUpDeadline, m.Attempts)
	}
}

// TestFixedWindowLimiterRefillsOnlyToItsLimit: however many cycles pass,
// a cycle starts with at most limitForPeriod permits
// (calculateNextState's min). The edge is the first cycle that makes up
// what was short: with 2 per second, one permit taken at 0 leaves 1, and
// the cycle at 1 s has 2, not 1 + 2 = 3; with 3 per second and one call
// waiting (−1 left), two cycles later there are 3, not −1 + 6 = 5. So
// limit calls in that cycle get a permit at once, and the next does not.
func TestFixedWindowLimiterRefillsOnlyToItsLimit(t *testing.T) {
	ms := time.Millisecond
	for _, c := range []struct {
		name    string
		limit   int
		timeout time.Duration
		before  []time.Duration // calls in the first cycle, all permitted
		at      time.Duration   // the cycle where limit calls pass at once and one more does not
	}{
		{"one permit left", 2, 0, []time.Duration{0}, time.Second},
		{"one reserved", 3, 2 * time.Second, []time.Duration{0, 100 * ms, 200 * ms, 300 * ms}, 2 * time.Second},
	} {
		l := NewFixedWindowLimiter(c.limit, time.Second, c.timeout)
		for _, at := range c.before {
			if _, ok := l.Acquire(at); !ok {
				t.Fatalf("%s: the call at %v was refused", c.name, at)
			}
		}
		for i := range c.limit + 1 {
			wait, ok := l.Acquire(c.at + time.Duration(i)*10*ms)
			if now, want := ok && wait == 0, i < c.limit; now != want {
				t.Errorf("%s: call %d of the cycle at %v: wait %v, ok %v; want a permit at once %v (%d a cycle)", c.name, i+1, c.at, wait, ok, want, c.limit)
			}
		}
	}
}

// TestAWSRateLimiterHandWorked follows the limiter answer by answer with
// values worked by hand: the measured rate smooths the newest bucket's
// rate with the older measure, CUBIC's clock runs in seconds since the
// last throttle, and a refused Acquire waits for the missing part of a
// token at the fill rate.
func TestAWSRateLimiterHandWorked(t *testing.T) {
	near := func(what string, got, want float64) {
		t.Helper()
		if math.Abs(got-want) > 1e-9 {
			t.Errorf("%s = %v, want %v", what, got, want)
		}
	}
	l := NewAWSRateLimiter()
	// One answer in the bucket [0 s, 1 s): 1/s × 0.8.
	l.Update(time.Second, false)
	near("measured after 1 s", l.MeasuredRate(), 0.8)
	// 1 s since the (never) throttle, W = 0: 0.4·1³.
	near("calculated after 1 s", l.CalculatedRate(), 0.4)
	// One more answer in [1 s, 2 s): 1/s × 0.8 + 0.8 × 0.2.
	l.Update(2*time.Second, false)
	near("measured after 2 s", l.MeasuredRate(), 0.96)
	near("calculated after 2 s", l.CalculatedRate(), 0.4*8)

	l = NewAWSRateLimiter()
	// The throttle at 1 s: measured 0.8, rate 0.56, bucket empty.
	l.Update(time.Second, true)
	near("fill rate after the throttle", l.FillRate(), 0.56)
	// Half a second later the bucket holds 0.28 tokens: the missing 0.72
	// come at 0.56 a second.
	ok, wait := l.Acquire(1500 * time.Millisecond)
	if ok {
		t.Fatal("Acquire gave a token from a bucket holding 0.28")
	}
	if want := 0.72 / 0.56; math.Abs(wait.Seconds()-want) > 1e-6 {
		t.Errorf("wait %v, want %.6fs", wait, want)
	}
}

// TestAWSRateLimiterCubicReturnsToTheThrottledRate: after a throttle the
// calculated rate climbs CUBIC's curve 0.4·(t − W)³ + r, t the seconds
// since the throttle, r the rate it happened at and W = ∛(r·0.3/0.4): it
// starts below r (0.7 r at t = 0), is back at r after W seconds, and
// above it after. Throttled at 1 s with a measured 0.8 a second, W is
// ∛0.6, about 0.843 s.
func TestAWSRateLimiterCubicReturnsToTheThrottledRate(t *testing.T) {
	const r = 0.8
	w := math.Cbrt(0.6)
	for _, c := range []struct {
		after float64 // seconds after the throttle
		want  float64
	}{
		{0.5, 0.4*math.Pow(0.5-w, 3) + r},
		{w, r},
		{1, 0.4*math.Pow(1-w, 3) + r},
	} {
		l := NewAWSRateLimiter()
		l.Update(time.Second, true)
		if m := l.MeasuredRate(); math.Abs(m-r) > 1e-9 {
			t.Fatalf("measured %v at the throttle, want %v", m, r)
		}
		l.Update(time.Second+time.Duration(c.after*float64(time.Second)), false)
		if got := l.CalculatedRate(); math.Abs(got-c.want) > 1e-6 {
			t.Errorf("%.3fs after the throttle: calculated %v, want %v", c.after, got, c.want)
		}
	}
}
