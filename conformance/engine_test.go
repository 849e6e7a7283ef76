package conformance

import (
	"testing"
	"time"
)

// TestEngineScript checks the harness itself: a policy without budget or
// breaker makes every attempt on a FailAll call, two on a FailOnce call
// and one on a Success call, so that the scripts the comparisons use mean
// what they say.
func TestEngineScript(t *testing.T) {
	p := map[string]any{"max_attempts": 4, "backoff": map[string]any{"kind": "exponential", "base": "1ms"}, "jitter": map[string]any{"kind": "full"}}
	script := []Call{FailAll, Success, FailOnce, FailAll, FailAll, FailOnce, Success}
	got, _, err := EngineScript(p, 503, script)
	if err != nil {
		t.Fatal(err)
	}
	want := []int{4, 1, 2, 4, 4, 2, 1}
	if !equalInts(got, want) {
		t.Errorf("attempts per call %v, want %v", got, want)
	}
}

// TestEngineCalls checks per-attempt scripts: call k's n-th attempt gets
// its n-th answer (the last repeating), a latency beyond the attempt
// timeout is a timeout, a connection error is one, and an outcome the
// policy does not retry ends the call; the latencies add up.
func TestEngineCalls(t *testing.T) {
	p := map[string]any{"max_attempts": 4, "attempt_timeout": AttemptTimeout.String(),
		"retry_on": map[string]any{"statuses": []int{503}, "timeout": true, "connection": true}}
	ok := Answer{Status: 200}
	scripts := []CallScript{
		{{Status: 503}, {Status: 503}, ok},                         // fails twice, then succeeds
		{TimedOut, {Status: 200, Latency: 300 * time.Millisecond}}, // times out once
		{{Status: ConnectionError}},                                // connection errors throughout
		{{Status: 503}, {Status: 400}, ok},                         // 400 is not retried
		{TimedOut},                                                 // times out throughout
	}
	got, res, err := EngineCalls(p, scripts, Spacing)
	if err != nil {
		t.Fatal(err)
	}
	if want := []int{3, 2, 4, 2, 4}; !equalInts(got, want) {
		t.Errorf("attempts per call %v, want %v", got, want)
	}
	m := res.Strategies[0].Metrics
	if m.Succeeded != 2 || m.LatencyMaxms != 4000 {
		t.Errorf("%v succeeded, slowest %v ms; want 2 and 4000 (four timeouts of 1 s)", m.Succeeded, m.LatencyMaxms)
	}
}

// engineAttempts is EngineCalls for one call: the attempts it made.
func engineAttempts(t testing.TB, policy map[string]any, script CallScript) int {
	t.Helper()
	attempts, _, err := EngineCalls(policy, []CallScript{script}, Spacing)
	if err != nil {
		t.Fatal(err)
	}
	return attempts[0]
}
