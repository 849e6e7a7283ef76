package engine

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"
	"time"
)

// e03bWith returns E03-B (testdata/e03b.json) with its strategies replaced.
func e03bWith(t *testing.T, strategies string) *Scenario {
	t.Helper()
	data, err := os.ReadFile("testdata/e03b.json")
	if err != nil {
		t.Fatal(err)
	}
	sc, err := Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	var sts []Strategy
	if err := unmarshalNumbers([]byte(strategies), &sts); err != nil {
		t.Fatal(err)
	}
	sc.Strategies = sts
	if err := sc.Validate(); err != nil {
		t.Fatal(err)
	}
	return sc
}

// TestUnlimitedAttemptsRefusedBeforeTheRun: the user's scenario, E03-B
// with unlimited attempts, a 1 ms attempt time-out and no deadline, ran
// 57 s before the event limit stopped it; it is refused before it runs,
// saying why and what to change.
func TestUnlimitedAttemptsRefusedBeforeTheRun(t *testing.T) {
	sc := e03bWith(t, `[{"name": "A", "max_attempts": 0, "attempt_timeout": "1ms"}]`)
	_, err := Run(context.Background(), sc, Options{MaxEvents: 200_000_000})
	var ce *CostError
	if !errors.As(err, &ce) || ce.Processed != 0 {
		t.Fatalf("err = %v; want a CostError before the run (nothing processed)", err)
	}
	for _, want := range []string{
		`strategy "A" retries without limit (max_attempts 0) and nothing bounds the time between its attempts`,
		"no backoff",
		"an attempt ends as soon as the dependency refuses it",
		"give it max_attempts, or a backoff",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("message %q\ndoes not say %q", err, want)
		}
	}
	if strings.Contains(err.Error(), "sweep") || strings.Contains(err.Error(), "search") {
		t.Errorf("message %q advises what the scenario does not have", err)
	}
}

// TestUnlimitedAttemptsCountedOverTheWorkload: with a wait between its
// attempts, a policy without limit is counted as attempting for the whole
// workload (or its deadline), not as MaxAttempts.
func TestUnlimitedAttemptsCountedOverTheWorkload(t *testing.T) {
	sc := e03bWith(t, `[{"name": "A", "max_attempts": 0, "attempt_timeout": "1ms", "backoff": {"kind": "constant", "base": "1ms"}}]`)
	_, err := Run(context.Background(), sc, Options{MaxEvents: 200_000_000})
	var ce *CostError
	if !errors.As(err, &ce) || ce.Processed != 0 || ce.Estimate < 500_000_000 {
		t.Fatalf("err = %v; want a CostError before the run, estimated over 500 million", err)
	}
	for _, want := range []string{
		`strategy "A" retries without limit (max_attempts 0): counted as up to 30001 attempts an operation (the 30s to the end of its arrivals and faults over 1ms between attempts)`,
		"give it max_attempts or a deadline",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("message %q\ndoes not say %q", err, want)
		}
	}
	// With a deadline, the deadline bounds them: 5s over 1ms.
	sc = e03bWith(t, `[{"name": "A", "max_attempts": 0, "deadline": "5s", "backoff": {"kind": "constant", "base": "1ms"}}]`)
	_, err = Run(context.Background(), sc, Options{MaxEvents: 10_000_000})
	if err == nil || !strings.Contains(err.Error(), "up to 5001 attempts an operation (its deadline of 5s over 1ms between attempts)") {
		t.Errorf("err = %v; want the deadline to bound the attempts", err)
	}
	// With both, the shorter bounds them; at a tie, the deadline, which
	// also cuts the last attempt.
	for _, tc := range []struct{ elapsed, want string }{{"5s", "its deadline of 5s"}, {"4.999s", "its max_elapsed of 4.999s"}} {
		sc = e03bWith(t, `[{"name": "A", "max_attempts": 0, "deadline": "5s", "max_elapsed": "`+tc.elapsed+`", "backoff": {"kind": "constant", "base": "1ms"}}]`)
		if got := estimateAttempts(sc, &sc.Strategies[0].Policy).window; got != tc.want {
			t.Errorf("deadline 5s, max_elapsed %s: counted over %q; want %q", tc.elapsed, got, tc.want)
		}
	}
	// A growing backoff counts its waits: 10ms doubling to 100ms starts
	// 303 attempts in 30s (at 0, 10, 30, 70 and 150ms, then every 100ms).
	sc = e03bWith(t, `[{"name": "A", "max_attempts": 0, "backoff": {"kind": "exponential", "base": "10ms", "max": "100ms"}}]`)
	if got := estimateAttempts(sc, &sc.Strategies[0].Policy).n; got != 303 {
		t.Errorf("counted %v attempts; want 303", got)
	}
	// Fewer than MaxAttempts fit: MaxAttempts, as before.
	sc = e03bWith(t, `[{"name": "A", "max_attempts": 0, "backoff": {"kind": "exponential", "base": "100ms", "max": "1s"}}]`)
	if got := estimateAttempts(sc, &sc.Strategies[0].Policy).n; got != MaxAttempts {
		t.Errorf("counted %v attempts; want %d", got, MaxAttempts)
	}
}

// TestCostAdviceNamesWhatTheScenarioHas: the refusal advises sweep values
// and search candidates only to a scenario that has them.
func TestCostAdviceNamesWhatTheScenarioHas(t *testing.T) {
	sc := e03bWith(t, `[{"name": "A", "max_attempts": 3}]`)
	_, err := Run(context.Background(), sc, Options{MaxEvents: 1000})
	if msg := err.Error(); !strings.HasSuffix(msg, "reduce the workload, attempts, clients, runs or strategies") || strings.Contains(msg, "sweep") || strings.Contains(msg, "search") {
		t.Errorf("message %q", msg)
	}
	sc.Sweep = &Sweep{Path: "strategies[0].max_attempts", Values: []json.RawMessage{[]byte("2"), []byte("3")}}
	_, err = Run(context.Background(), sc, Options{MaxEvents: 1000})
	if msg := err.Error(); !strings.HasSuffix(msg, "reduce the workload, attempts, clients, runs, strategies or sweep values") || !strings.Contains(msg, "× sweep values") || strings.Contains(msg, "search") {
		t.Errorf("message %q", msg)
	}
}

// TestUnlimitedAttemptsWithFullJitter: full jitter can wait 0, but over
// many retries its waits add up to half the backoff's: a policy with it
// is counted, not refused as unbounded.
func TestUnlimitedAttemptsWithFullJitter(t *testing.T) {
	sc := e03bWith(t, `[{"name": "C", "max_attempts": 0, "attempt_timeout": "2s", "deadline": "5s", "backoff": {"kind": "exponential", "base": "200ms", "max": "2s"}, "jitter": {"kind": "full"}}]`)
	if c := estimateAttempts(sc, &sc.Strategies[0].Policy); c.n != MaxAttempts {
		t.Errorf("counted %v attempts; want %d (fewer fit in 5s at half the waits)", c.n, MaxAttempts)
	}
	if _, err := Run(context.Background(), sc, Options{MaxEvents: 200_000_000, NoSeries: true}); err != nil {
		t.Fatal(err)
	}
}

// TestUnlimitedAttemptsCountTheFault: without a deadline, operations retry
// until the fault ends, even when they all arrive before it (a burst at
// 0s under a 20 s freeze): the estimate counts attempts until then, not
// the burst's instant, and stays above what the run processes.
func TestUnlimitedAttemptsCountTheFault(t *testing.T) {
	sc, err := Parse([]byte(`{"version": 1, "name": "burst under a freeze",
		"workload": {"clients": 200, "arrival": "burst", "operations": 1},
		"dependency": {"workers": 4, "service_time": {"kind": "constant", "mean": "10ms"}, "queue_capacity": 8,
			"phases": [{"kind": "freeze", "from": "0s", "to": "20s"}]},
		"strategies": [{"name": "forever", "max_attempts": 0, "attempt_timeout": "100ms", "backoff": {"kind": "constant", "base": "1ms"}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	c := estimateAttempts(sc, &sc.Strategies[0].Policy)
	if c.n < 20e9/float64(101*time.Millisecond) {
		t.Errorf("counted %v attempts an operation; the freeze lasts 20s, one attempt every 101ms", c.n)
	}
	res, err := Run(context.Background(), sc, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if est := Estimate(sc); res.Events > est {
		t.Errorf("the run processed %d events, over its estimate %d", res.Events, est)
	}
}
