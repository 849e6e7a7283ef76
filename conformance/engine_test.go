package conformance

import "testing"

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
