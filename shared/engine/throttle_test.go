package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"strings"
	"testing"
)

// throttleScenario is CLIENTS clients sending 20 operations a second in
// all for 30 s, one attempt each (no retries, so that every attempt is an
// operation), to a dependency that answers STATUS to every call from 5 s
// to 10 s and succeeds otherwise; the strategy throttles with POLICY.
func throttleScenario(t *testing.T, clients int, status, policy string) *Scenario {
	t.Helper()
	js := strings.NewReplacer("CLIENTS", itoa(clients), "STATUS", status, "POLICY", policy).Replace(`{"version": 1, "name": "throttle",
		"workload": {"clients": CLIENTS, "arrival": "poisson", "rate": 20, "duration": "30s"},
		"dependency": {"workers": 10, "service_time": {"kind": "constant", "mean": "1ms"}, "queue_capacity": 10,
			"phases": [{"kind": "errors", "from": "5s", "to": "10s", "rate": 1, "status": STATUS}]},
		"seeds": [3],
		"strategies": [{"name": "s", "max_attempts": 1, POLICY}]}`)
	sc, err := Parse([]byte(js))
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	return sc
}

// throttleLog is what a test sees of one instance's throttle: when each
// request was decided, and when each answer the book counts as an accept
// came.
type throttleLog struct{ requests, accepts []int64 }

// count returns the entries of times at or after from.
func count(times []int64, from int64) int {
	n := 0
	for _, x := range times {
		if x >= from {
			n++
		}
	}
	return n
}

// TestThrottleProbability holds the engine's rejection probability, at
// every decision, to the Google SRE book's formula max(0, (requests −
// K·accepts)/(requests + 1)) over the trailing window, computed here from
// the test's own record of each instance's decisions and answers (an
// accept is any answer but 429, 503, a timeout or a connection error). It
// checks too that rejections follow the probabilities, that the window
// lets the 503s of the outage expire (no decision long after it has a
// probability above 0), that each instance counts only its own clients'
// attempts, and that rejected attempts are counted as throttled.
func TestThrottleProbability(t *testing.T) {
	const window = 2e9
	const k = 2.0
	sc := throttleScenario(t, 4, "503", `"instances": 2, "throttle": {"k": 2, "window": "2s"}`)
	logs := map[int32]*throttleLog{0: {}, 1: {}}
	var decisions, sent int
	var sumP, sumVar float64
	var lastPositive int64
	s := simPlan(t, sc, 0, func(s *sim, what string, id int32) {
		c := &s.calls[id]
		l := logs[c.instance]
		switch what {
		case "throttle":
			req := float64(count(l.requests, s.now-window))
			acc := float64(count(l.accepts, s.now-window))
			want := max(0, (req-k*acc)/(req+1))
			if math.Abs(s.thP-want) > 1e-12 {
				t.Fatalf("t=%d instance %d: p = %v, want (%v − 2·%v)/(%v + 1) = %v", s.now, c.instance, s.thP, req, acc, req, want)
			}
			l.requests = append(l.requests, s.now)
			decisions++
			sumP += want
			sumVar += want * (1 - want)
			if want > 0 {
				lastPositive = s.now
			}
		case "attempt":
			sent++ // every attempt was decided just before: this one passed
		case "answer":
			if out := s.thOut; out != 429 && out != 503 && out != outTimeout && out != outConnection {
				l.accepts = append(l.accepts, s.now)
			}
		}
	})
	rejected := decisions - sent
	if decisions < 500 {
		t.Fatalf("%d decisions: the scenario does not exercise the throttle", decisions)
	}
	if got := s.c.throttled; got != int64(rejected) {
		t.Errorf("throttled = %d, the log saw %d rejections", got, rejected)
	}
	if s.c.gaveUp[reasonThrottle] != int64(rejected) {
		t.Errorf("gave up for the throttle: %d, want %d (one attempt per operation)", s.c.gaveUp[reasonThrottle], rejected)
	}
	// Rejections are Bernoulli draws with the probabilities: their number
	// is within 4 standard deviations of the sum.
	if d := math.Abs(float64(rejected) - sumP); d > 4*math.Sqrt(sumVar)+1 {
		t.Errorf("%d rejections, expected %.1f ± %.1f", rejected, sumP, math.Sqrt(sumVar))
	}
	if rejected == 0 {
		t.Errorf("no rejection during a 5 s outage")
	}
	// The outage ends at 10 s; with a 2 s window its 503s are forgotten
	// and the accepts of the recovered dependency bring p back to 0. Not
	// at once: the requests a throttle rejects count, and accepts can only
	// come from those it lets through, so while accepts are below
	// requests/K the share let through grows about K-fold per window
	// (from about 5%: some four windows).
	if lastPositive > 25e9 || lastPositive < 11e9 {
		t.Errorf("p > 0 last at t=%.1fs; want between the outage's end (10 s) and 25 s", float64(lastPositive)/1e9)
	}
}

// TestThrottleAccepts: a 500 is an answer the dependency worked on (an
// accept), so an outage of 500s throttles nothing; one of 429s or 503s
// does.
func TestThrottleAccepts(t *testing.T) {
	run := func(status string) Metrics {
		res, err := Run(context.Background(), throttleScenario(t, 1, status, `"throttle": {}`), Options{})
		if err != nil {
			t.Fatal(err)
		}
		return res.Strategies[0].Metrics
	}
	if m := run("500"); m.Throttled != 0 {
		t.Errorf("500s: %v attempts throttled, want 0", m.Throttled)
	}
	for _, st := range []string{"429", "503"} {
		if m := run(st); m.Throttled == 0 || m.GaveUpThrottle != m.Throttled {
			t.Errorf("%s: throttled %v, gave up for it %v; want equal and above 0", st, m.Throttled, m.GaveUpThrottle)
		}
	}
}

// TestThrottleDeterministic: the same scenario and seed give the same
// bytes, and the draws do not depend on what else the run does.
func TestThrottleDeterministic(t *testing.T) {
	out := func() []byte {
		res, err := Run(context.Background(), throttleScenario(t, 4, "503", `"instances": 2, "throttle": {"k": 1.5, "window": "3s"}`), Options{})
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(res)
		return b
	}
	if a, b := out(), out(); !bytes.Equal(a, b) {
		t.Errorf("two runs differ")
	}
}

func TestThrottleValidation(t *testing.T) {
	for _, tc := range []struct{ policy, want string }{
		{`"throttle": {"k": 0.5}`, `strategies[0].throttle.k: 0.5 is out of range 1..100`},
		{`"throttle": {"window": "-1s"}`, `strategies[0].throttle.window: "-1s" is negative`},
		{`"client_rate_limit": {"kind": "aws-standard"}`, `strategies[0].client_rate_limit.kind: "aws-standard" is not one of "aws-adaptive"`},
		{`"hedging": {"delay": "10ms"}, "max_attempts": 2, "throttle": {}`, `strategies[0].throttle: is given together with hedging`},
		{`"hedging": {"delay": "10ms"}, "max_attempts": 2, "client_rate_limit": {"kind": "aws-adaptive"}`, `strategies[0].client_rate_limit: is given together with hedging`},
	} {
		js := strings.Replace(`{"version": 1, "name": "v", "workload": {"clients": 1, "rate": 1, "duration": "1s"},
			"dependency": {"workers": 1, "service_time": {"kind": "constant", "mean": "1ms"}, "queue_capacity": 1},
			"strategies": [{"name": "s", POLICY}]}`, "POLICY", tc.policy, 1)
		_, err := Parse([]byte(js))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want %q", tc.policy, err, tc.want)
		}
	}
}

// TestThrottleInLayer: a layer's throttle and rate limiter work as the
// client's do; a layer's local rejection reaches its caller as a 503,
// which the client may retry, so the operation does not end on the
// throttle.
func TestThrottleInLayer(t *testing.T) {
	sc := throttleScenario(t, 4, "429", `"layers": [{"max_attempts": 2, "throttle": {"window": "2s"}, "client_rate_limit": {"kind": "aws-adaptive"}, "deadline": "1s"}]`)
	sc.Strategies[0].MaxAttempts = 2
	res, err := Run(context.Background(), sc, Options{})
	if err != nil {
		t.Fatal(err)
	}
	m := res.Strategies[0].Metrics
	if m.Throttled == 0 || m.GaveUpThrottle != 0 {
		t.Errorf("throttled %v, gave up for it %v: want some at the layer, none ending an operation there", m.Throttled, m.GaveUpThrottle)
	}
	if est := Estimate(sc); res.Events > est {
		t.Errorf("%d events, over the estimate %d", res.Events, est)
	}
}

// TestThrottleWithBreaker: the throttle decides before the inside
// breaker, so a half-open trial is never an attempt the throttle then
// rejects (it would never end, and the breaker would stay half-open):
// after the outage the breaker closes again, and an outside breaker
// counts invocations the throttle ended as failures.
func TestThrottleWithBreaker(t *testing.T) {
	for _, placement := range []string{"inside", "outside"} {
		sc := throttleScenario(t, 4, "503", `"throttle": {"window": "2s"}, "breaker": {"kind": "consecutive", "failures": 5, "break": "200ms", "placement": "`+placement+`"}`)
		res, err := Run(context.Background(), sc, Options{})
		if err != nil {
			t.Fatal(err)
		}
		tr := res.Strategies[0].Transitions
		if len(tr) < 3 || tr[len(tr)-1].To != "closed" {
			t.Errorf("%s: transitions %+v: want the breaker to open and close again", placement, tr)
		}
		if res.Strategies[0].Metrics.Throttled == 0 {
			t.Errorf("%s: nothing throttled", placement)
		}
	}
}
