package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"strings"
	"testing"
)

// TestEstimateBoundsUnlimitedAttemptsByTheBudget: a level with unlimited
// attempts, no backoff and no attempt time-out (a Linkerd ServiceProfile's
// route: a refusal is retried at the same instant) has no bound of its
// own, but its retry budget bounds its retries over the whole run: the
// estimate counts them so, is not refused by the default limit, stays
// above the events the run processes, and changes nothing in the result.
func TestEstimateBoundsUnlimitedAttemptsByTheBudget(t *testing.T) {
	for _, tc := range []struct{ name, strategies string }{
		{"ratio in slices (Linkerd)", `[{"name": "L", "max_attempts": 0, "retry_on": {"status_ranges": ["500-599"]},
			"budget": {"kind": "ratio", "ratio": 0.2, "window": "10s", "min_per_second": 10, "slices": 10}}]`},
		{"ratio in slices, route timeout", `[{"name": "L", "max_attempts": 0, "deadline": "300ms", "retry_on": {"status_ranges": ["500-599"]},
			"budget": {"kind": "ratio", "ratio": 0.2, "window": "10s", "min_per_second": 10, "slices": 10}}]`},
		{"ratio sliding", `[{"name": "R", "max_attempts": 0, "budget": {"kind": "ratio", "ratio": 0.1, "window": "1s", "min_per_second": 5}}]`},
		{"ratio since start", `[{"name": "R", "max_attempts": 0, "budget": {"kind": "ratio", "ratio": 0.5}}]`},
		{"token bucket", `[{"name": "T", "max_attempts": 0, "budget": {"kind": "token_bucket", "max_tokens": 10, "token_ratio": 0.1}}]`},
		{"token bucket, refund", `[{"name": "T", "max_attempts": 0, "budget": {"kind": "token_bucket", "charge": "retry", "max_tokens": 500, "failure_cost": 5, "timeout_cost": 10, "refund": true}}]`},
		{"two levels", `[{"name": "N", "max_attempts": 2, "layers": [{"max_attempts": 0, "budget": {"kind": "ratio", "ratio": 0.2, "window": "10s", "min_per_second": 10, "slices": 10}}]}]`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc := e03bWith(t, tc.strategies)
			est := Estimate(sc)
			if err := CheckCost(sc, 200_000_000); err != nil {
				t.Fatalf("refused: %v", err)
			}
			bounded, err := Run(context.Background(), sc, Options{MaxEvents: 200_000_000})
			if err != nil {
				t.Fatal(err)
			}
			free, err := Run(context.Background(), sc, Options{})
			if err != nil {
				t.Fatal(err)
			}
			for _, res := range []*Result{bounded, free} {
				if res.Events > est {
					t.Errorf("the run processed %d events, over its estimate %d", res.Events, est)
				}
			}
			a, _ := json.Marshal(bounded)
			b, _ := json.Marshal(free)
			if !bytes.Equal(a, b) {
				t.Errorf("the event limit changed the result")
			}
			t.Logf("estimate %d, processed %d", est, free.Events)
		})
	}
}

// TestEstimateOfRetriesOnlyTheBudgetBounds: a level with unlimited
// attempts, no backoff, no attempt time-out and no network takes no time
// from one attempt to the next, so only its budget bounds its retries,
// over the run's 100 operations (10 a second for 10 s), and the estimate
// counts 3 events per attempt over the run's setup and result:
//
//   - a ratio budget of 0.5 since the start allows 0.5 × 100 + 1 = 51
//     retries: 151 attempts, 453 events;
//   - a token bucket of 10 tokens per instance, each failure costing 1
//     and each first attempt earning 0.1, allows (10 × instances + 0.1 ×
//     100) / 0.9 + 1 retries, counted with the instances of the level
//     that has the budget, a layer's own and not the strategy's: with 4,
//     56.6 retries, 469.7 events; with 1, 23.2 retries, 369.7 events.
//
// A run processes fewer events than its estimate.
func TestEstimateOfRetriesOnlyTheBudgetBounds(t *testing.T) {
	const bucket = `"budget": {"kind": "token_bucket", "max_tokens": 10, "token_ratio": 0.1}`
	for _, tc := range []struct {
		desc, strategy string
		attempts       float64 // the events of the operations' attempts
	}{
		{"ratio", `{"name": "u", "max_attempts": 0, "budget": {"kind": "ratio", "ratio": 0.5}}`, 453},
		{"token bucket of 4 instances", `{"name": "u", "instances": 4, "max_attempts": 0, ` + bucket + `}`, 300 + 300*(50/0.9+1)/100},
		{"token bucket of a 4-instance layer", `{"name": "u", "max_attempts": 1, "layers": [{"instances": 4, "max_attempts": 0, ` + bucket + `}]}`, 300 + 300*(50/0.9+1)/100},
		{"token bucket of a layer under 4 instances", `{"name": "u", "instances": 4, "max_attempts": 1, "layers": [{"max_attempts": 0, ` + bucket + `}]}`, 300 + 300*(20/0.9+1)/100},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			doc := strings.Replace(valid, `"queue_capacity": 5`, `"queue_capacity": 5, "phases": [{"kind": "outage", "from": "2s", "to": "4s"}]`, 1)
			doc = strings.Replace(doc, `{"name": "a", "max_attempts": 3}`, tc.strategy, 1)
			sc, err := Parse([]byte(doc))
			if err != nil {
				t.Fatal(err)
			}
			if n := estimateOps(sc); n != 100 {
				t.Fatalf("%v operations estimated; want 100", n)
			}
			est := Estimate(sc)
			if d := float64(est) - setupCost(sc) - cacheSetup(sc) - estimateSize(sc, true); math.Abs(d-tc.attempts) > 1 {
				t.Errorf("estimate %d, %.1f for the attempts; want %.1f", est, d, tc.attempts)
			}
			res, err := Run(context.Background(), sc, Options{MaxEvents: est})
			if err != nil {
				t.Fatal(err)
			}
			if res.Events > est {
				t.Errorf("the run processed %d events, over its estimate %d", res.Events, est)
			}
		})
	}
}
