package conformance

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/failsafe-go/failsafe-go"
	"github.com/failsafe-go/failsafe-go/budget"
	"github.com/failsafe-go/failsafe-go/circuitbreaker"
	"github.com/failsafe-go/failsafe-go/failsafehttp"
	"github.com/failsafe-go/failsafe-go/retrypolicy"
	"github.com/failsafe-go/failsafe-go/timeout"
)

// TestFailsafeRetryDefaults: failsafe-go's default retry policy
// (retrypolicy.NewWithDefaults: 2 retries, no delay; retry.go,
// defaultMaxRetries) makes 3 attempts of an always-failing call with no
// wait between them; so does the engine's failsafe-go preset (its budget
// and breaker removed, as the library's defaults have none).
func TestFailsafeRetryDefaults(t *testing.T) {
	var delays []time.Duration
	rp := retrypolicy.NewBuilder[any]().OnRetryScheduled(func(e failsafe.ExecutionScheduledEvent[any]) {
		delays = append(delays, e.Delay)
	}).Build()
	attempts := 0
	_, err := failsafe.With[any](rp).Get(func() (any, error) {
		attempts++
		return nil, errors.New("503")
	})
	if err == nil {
		t.Fatal("an always-failing call succeeded")
	}
	p, err := Policy("failsafe-go", map[string]any{"budget": nil, "breaker": nil})
	if err != nil {
		t.Fatal(err)
	}
	m, err := EngineFailing(p)
	if err != nil {
		t.Fatal(err)
	}
	eng, err := EngineWaits(p, 2, 1)
	if err != nil {
		t.Fatal(err)
	}
	if float64(attempts) != m.Attempts || fmt.Sprint(delays) != fmt.Sprint(eng) {
		t.Errorf("failsafe-go: %d attempts, delays %v; engine: %v attempts, waits %v", attempts, delays, m.Attempts, eng)
	}
}

// TestFailsafeHTTPRetryOn: failsafehttp's retry policy (policy.go,
// NewRetryPolicyBuilder: connection errors, 429, every 5xx but 501) on a
// real round tripper against a loopback server, outcome by outcome,
// against the engine's failsafe-go preset's retry_on (429, the range
// 500-599 except 501, connection errors).
func TestFailsafeHTTPRetryOn(t *testing.T) {
	p, err := Policy("failsafe-go", map[string]any{"budget": nil, "breaker": nil})
	if err != nil {
		t.Fatal(err)
	}
	outcomes := []int{ConnectionError, 400, 404, 408, 429, 500, 501, 502, 503, 504, 505, 509, 511, 599}
	for _, o := range outcomes {
		s := &rhServer{answers: []int{o}}
		srv := httptest.NewServer(s)
		client := &http.Client{Transport: failsafehttp.NewRoundTripper(nil, failsafehttp.NewRetryPolicyBuilder().Build())}
		resp, err := client.Get(srv.URL)
		if err == nil {
			resp.Body.Close()
		}
		srv.Close()
		eng, _, err := EngineScript(p, o, []Call{FailAll})
		if err != nil {
			t.Fatal(err)
		}
		if lib := s.requests; lib != eng[0] {
			t.Errorf("outcome %d: failsafehttp made %d attempts, the engine %d", o, lib, eng[0])
		}
	}
}

// TestFailsafeHTTPAttemptsPerOutcome: failsafehttp's retry policy around
// a per-attempt timeout policy (timeout.New, rhAttemptTimeout), on a real
// round tripper against a loopback server, over calls whose attempts meet
// different outcomes in turn, against the engine's failsafe-go preset
// (budget and breaker removed, an attempt timeout added). The retry
// policy's handler retries any error but a few (policy.go,
// NewRetryPolicyBuilder: scheme, certificate, redirects), the timeout's
// timeout.ErrExceeded included, as the preset's retry_on (timeout) does.
func TestFailsafeHTTPAttemptsPerOutcome(t *testing.T) {
	p, err := Policy("failsafe-go", map[string]any{"budget": nil, "breaker": nil, "attempt_timeout": AttemptTimeout.String()})
	if err != nil {
		t.Fatal(err)
	}
	ok := Answer{Status: 200}
	scripts := []struct {
		name   string
		script CallScript
		want   int // failsafehttp's requests, from its source
	}{
		{"503, 503, then 200", CallScript{{Status: 503}, {Status: 503}, ok}, 3},
		{"connection error, then 200", CallScript{{Status: ConnectionError}, ok}, 2},
		{"502, then 404", CallScript{{Status: 502}, {Status: 404}}, 2},
		{"timeout, then 200", CallScript{TimedOut, ok}, 2},
		{"timeout throughout", CallScript{TimedOut}, 3},
	}
	for _, sc := range scripts {
		s := &rhServer{answers: rhAnswers(sc.script)}
		srv := httptest.NewServer(s)
		to := timeout.New[*http.Response](rhAttemptTimeout)
		client := &http.Client{Transport: failsafehttp.NewRoundTripper(nil, failsafehttp.NewRetryPolicyBuilder().Build(), to)}
		resp, err := client.Get(srv.URL)
		if err == nil {
			resp.Body.Close()
		}
		srv.Close()
		lib := s.requests
		if lib != sc.want {
			t.Errorf("%s: failsafehttp made %d requests, its source says %d", sc.name, lib, sc.want)
		}
		if eng := engineAttempts(t, p, sc.script); lib != eng {
			t.Errorf("%s: failsafehttp made %d requests, the engine %d", sc.name, lib, eng)
		}
	}
}

// breakerDelay is the real delay given to failsafe-go's breakers in these
// tests. failsafe-go has no clock to inject (its breaker reads
// util.WallClock), so time passes for real: a call meant to come before
// the delay ends is made at once (microseconds after the opening), a call
// meant to come after it is made after sleeping breakerDelay. Only a stall
// of a whole second between two statements could change a decision.
const breakerDelay = time.Second

// breakerRun drives a failsafe-go circuit breaker built by build (with
// breakerDelay as its delay) over a script of sequential calls (Success or
// FailAll), on the engine's timeline: calls Spacing apart, the engine's
// break engineBreak. It returns, per call, 1 if it ran and 0 if the
// breaker refused it, and the transitions as "call:from>to".
func breakerRun(t *testing.T, b circuitbreaker.Builder[any], script []Call, engineBreak time.Duration) ([]int, []string) {
	t.Helper()
	var trans []string
	call := 0
	openedAt := -1
	cb := b.WithDelay(breakerDelay).OnStateChanged(func(e circuitbreaker.StateChangedEvent) {
		trans = append(trans, fmt.Sprintf("%d:%s>%s", call, e.OldState, e.NewState))
		if e.NewState == circuitbreaker.OpenState {
			openedAt = call
		}
	}).Build()
	ran := make([]int, len(script))
	for k, c := range script {
		call = k
		if openedAt >= 0 && time.Duration(k-openedAt)*Spacing >= engineBreak {
			time.Sleep(breakerDelay + 50*time.Millisecond)
			openedAt = -1
		}
		_, err := failsafe.With[any](cb).Get(func() (any, error) {
			ran[k] = 1
			if c == FailAll {
				return nil, errors.New("503")
			}
			return nil, nil
		})
		if ran[k] == 0 && !errors.Is(err, circuitbreaker.ErrOpen) {
			t.Fatalf("call %d neither ran nor was refused: %v", k, err)
		}
	}
	return ran, trans
}

// engineBreaker runs the breaker of policy (max_attempts 1, no budget)
// over the script and returns the same as breakerRun.
func engineBreaker(t *testing.T, breaker map[string]any, script []Call) ([]int, []string) {
	t.Helper()
	p := map[string]any{"max_attempts": 1, "breaker": breaker}
	attempts, res, err := EngineScript(p, 503, script)
	if err != nil {
		t.Fatal(err)
	}
	return attempts, transitions(res.Strategies[0].Transitions, Spacing)
}

// script parses "SSF.." into calls: S a success, F a failure.
func script(s string) []Call {
	var cs []Call
	for _, r := range s {
		if r == 'F' {
			cs = append(cs, FailAll)
		} else {
			cs = append(cs, Success)
		}
	}
	return cs
}

// TestFailsafeBreakerDefaults: failsafe-go's default breaker (opens on 1
// failure of 1, half-opens after its delay on the next call, closes on 1
// success, reopens on a failed trial; circuitbreakerbuilder.go,
// NewBuilder) against the engine's failsafe-go preset breaker
// (consecutive 1, break 1m), call by call and transition by transition.
// The script's calls come 40.96 s apart in the engine, so the call after
// an opening is refused and the one after that is the trial.
func TestFailsafeBreakerDefaults(t *testing.T) {
	t.Parallel()
	preset, err := Policy("failsafe-go", nil)
	if err != nil {
		t.Fatal(err)
	}
	br := preset["breaker"].(map[string]any)
	sc := script("SSFSFFSSFFFSS")
	lib, ltr := breakerRun(t, circuitbreaker.NewBuilder[any](), sc, time.Minute)
	eng, etr := engineBreaker(t, br, sc)
	if !equalInts(lib, eng) || fmt.Sprint(ltr) != fmt.Sprint(etr) {
		t.Errorf("failsafe-go ran %v with transitions %v;\nthe engine ran %v with transitions %v", lib, ltr, eng, etr)
	}
	t.Logf("calls run %v, transitions %v", lib, ltr)
}

// TestFailsafeBreakerSuccessThreshold: WithSuccessThreshold(3) lets
// trials through in half-open, closes after 3 successes and reopens on a
// failure; the engine's half_open_calls 3 says the same. Compared call by
// call.
func TestFailsafeBreakerSuccessThreshold(t *testing.T) {
	t.Parallel()
	sc := script("FSSSSSFSSFSS")
	lib, ltr := breakerRun(t, circuitbreaker.NewBuilder[any]().WithSuccessThreshold(3), sc, time.Minute)
	eng, etr := engineBreaker(t, map[string]any{"kind": "consecutive", "failures": 1, "break": "1m", "half_open_calls": 3, "placement": "outside"}, sc)
	if !equalInts(lib, eng) || fmt.Sprint(ltr) != fmt.Sprint(etr) {
		t.Errorf("failsafe-go ran %v with transitions %v;\nthe engine ran %v with transitions %v", lib, ltr, eng, etr)
	}
	t.Logf("calls run %v, transitions %v", lib, ltr)
}

// TestFailsafeBreakerSuccessThresholdRatio: WithSuccessThresholdRatio(2,
// 3) lets 3 trials through in half-open, closes at 2 successes and
// reopens at 2 failures, more than 3-2 (circuitstates.go l. 152-160); the
// engine says the same with half_open_calls 3 and half_open_failures 2.
// Compared call by call.
func TestFailsafeBreakerSuccessThresholdRatio(t *testing.T) {
	t.Parallel()
	sc := script("FSFFSFSFSSSFSFSSS")
	lib, ltr := breakerRun(t, circuitbreaker.NewBuilder[any]().WithSuccessThresholdRatio(2, 3), sc, time.Minute)
	eng, etr := engineBreaker(t, map[string]any{"kind": "consecutive", "failures": 1, "break": "1m", "half_open_calls": 3, "half_open_failures": 2, "placement": "outside"}, sc)
	if !equalInts(lib, eng) || fmt.Sprint(ltr) != fmt.Sprint(etr) {
		t.Errorf("failsafe-go ran %v with transitions %v;\nthe engine ran %v with transitions %v", lib, ltr, eng, etr)
	}
	t.Logf("calls run %v, transitions %v", lib, ltr)
}

// TestFailsafeBreakerKofN: WithFailureThresholdRatio(3, 5) opens when 3
// of the last 5 executions failed, even before 5 are in
// (circuitstates.go l. 61-67); without a success threshold its half-open
// state lets 5 trials through, reopens at 3 failed ones and closes at 3
// successful ones (l. 152-173). The engine says the same with a ratio
// breaker of failures 3 over window_calls 5 (min_throughput 1) and
// half_open_calls 5, half_open_failures 3. The library's behaviour is
// recorded from the real breaker and compared call by call.
func TestFailsafeBreakerKofN(t *testing.T) {
	t.Parallel()
	sc := script("FSFFSSSSSFSFSFSSSSFFF")
	lib, ltr := breakerRun(t, circuitbreaker.NewBuilder[any]().WithFailureThresholdRatio(3, 5), sc, time.Minute)
	eng, etr := engineBreaker(t, map[string]any{"kind": "ratio", "failures": 3, "window_calls": 5, "min_throughput": 1,
		"half_open_calls": 5, "half_open_failures": 3, "break": "1m", "placement": "outside"}, sc)
	t.Logf("failsafe-go: ran %v, transitions %v", lib, ltr)
	t.Logf("engine:      ran %v, transitions %v", eng, etr)
	if !equalInts(lib, eng) || fmt.Sprint(ltr) != fmt.Sprint(etr) {
		t.Errorf("failsafe-go's 3-of-5 breaker and the engine's failures 3 of window_calls 5 differ on %q:\nlibrary ran %v, transitions %v\nengine ran %v, transitions %v", "FSFFSSSSSFSFSFSSSSFFF", lib, ltr, eng, etr)
	}
}

// TestFailsafeBudget records failsafe-go's retry budget (budget.go: a
// retry is refused when at least minConcurrency (3) retries are in flight
// and in-flight retries / in-flight executions > maxRate (0.2); a permit
// counts as an execution too) on 20 concurrent executions, orchestrated
// with channels so that the order is fixed: all 20 are in their first
// attempt, then they fail one at a time, each retry staying in flight.
// The engine's failsafe-go preset has a concurrency budget (ratio 0.2,
// min_concurrency 3), driven through the same script: 20 calls start
// together, their first attempts all answered 503 after 1 s (one after
// the other, in the engine's event order), and their retries answered
// only after 10 s, so each retry stays in progress; compared by the
// retries permitted and refused.
func TestFailsafeBudget(t *testing.T) {
	const n = 20
	b := budget.New()
	rp := retrypolicy.NewBuilder[any]().WithMaxRetries(1).WithBudget(b).Build()
	started := make(chan int, n)
	retried := make(chan int, n)
	ended := make(chan error, n)
	fail := make([]chan struct{}, n)
	release := make(chan struct{})
	for i := range n {
		fail[i] = make(chan struct{})
		go func() {
			attempt := 0
			_, err := failsafe.With[any](rp).Get(func() (any, error) {
				attempt++
				if attempt == 1 {
					started <- i
					<-fail[i]
				} else {
					retried <- i
					<-release
				}
				return nil, errors.New("503")
			})
			ended <- err
		}()
	}
	for range n {
		<-started
	}
	var decisions []string
	permitted := 0
	for i := range n {
		close(fail[i])
		select {
		case <-retried:
			permitted++
			decisions = append(decisions, "retry")
		case err := <-ended:
			if !errors.Is(err, budget.ErrExceeded) {
				t.Fatalf("execution %d ended with %v, not a refused retry", i, err)
			}
			decisions = append(decisions, "refused")
		}
	}
	close(release)
	for range permitted {
		<-ended
	}
	// From budget.go: permits 1-3 under minConcurrency; then 3/23, 4/24
	// and 5/25 are not above 0.2; 6/26 is; a refused execution leaves, so
	// 6/25, 6/24, ... stay above it.
	if permitted != 6 {
		t.Errorf("failsafe-go's budget permitted %d of %d concurrent retries (%v); its source gives 6", permitted, n, decisions)
	}
	p, err := Policy("failsafe-go", map[string]any{"breaker": nil, "max_attempts": 2})
	if err != nil {
		t.Fatal(err)
	}
	res, err := RunScenario(mustJSON(map[string]any{
		"version": 1, "name": "conformance: failsafe-go budget", "seed": 1,
		"workload": map[string]any{"clients": n, "arrival": "burst"},
		"dependency": map[string]any{"workers": 1, "service_time": map[string]any{"kind": "constant", "mean": "0s"}, "queue_capacity": 1,
			"phases": []any{
				map[string]any{"kind": "outage", "from": "0s", "to": "1s", "status": 503, "latency": "1s"},
				map[string]any{"kind": "outage", "from": "1s", "to": "1h", "status": 503, "latency": "10s"},
			}},
		"strategies": []any{withName(p, "failsafe-go")},
	}))
	if err != nil {
		t.Fatal(err)
	}
	m := res.Strategies[0].Metrics
	if int(m.Retries) == permitted && int(m.RetriesDenied) == n-permitted {
		return
	}
	t.Errorf("failsafe-go permits %d of %d retries while they are in flight (%d refused); the engine's concurrency budget allows %v (%v refused)", permitted, n, n-permitted, m.Retries, m.RetriesDenied)
}
