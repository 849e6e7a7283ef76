package engine

import (
	"bytes"
	"context"
	"encoding/json"
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
