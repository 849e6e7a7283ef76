package convert

import (
	"slices"
	"testing"
	"time"

	"github.com/retrylab/retrylab/shared/engine"
)

// TestBreakerFeaturesNoOtherLibraryHasAreWarned: resilience4j's epoch-second
// window, automatic half-open and growing open state, exported to a library
// without them, are each named in a warning rather than dropped silently.
func TestBreakerFeaturesNoOtherLibraryHasAreWarned(t *testing.T) {
	st := engine.Strategy{Name: "cart", Policy: engine.Policy{MaxAttempts: 3, Breaker: &engine.Breaker{
		Kind: engine.BreakerRatio, Ratio: 0.5, MinThroughput: 10, Window: engine.Duration(10 * time.Second),
		Break: engine.Duration(5 * time.Second), WindowBuckets: engine.WindowEpochSeconds,
		AutoHalfOpen: true, OpenMultiplier: 2, MaxOpen: engine.Duration(time.Minute)}}}
	for _, format := range []string{Polly, PollyCSharp, FailsafeGo} {
		_, notes, err := Export(format, st)
		if err != nil {
			t.Fatalf("%s: %v", format, err)
		}
		for _, field := range []string{"breaker.window_buckets", "breaker.auto_half_open", "breaker.open_multiplier"} {
			if !slices.ContainsFunc(notes, func(n Note) bool { return n.Path == field && n.Level == Warning }) {
				t.Errorf("%s: no warning at %s: %v", format, field, notes)
			}
		}
	}
	// Without them, no such warning.
	st.Breaker.WindowBuckets, st.Breaker.AutoHalfOpen, st.Breaker.OpenMultiplier, st.Breaker.MaxOpen = "", false, 0, 0
	for _, format := range []string{Polly, PollyCSharp, FailsafeGo} {
		_, notes, _ := Export(format, st)
		for _, n := range notes {
			if slices.Contains([]string{"breaker.window_buckets", "breaker.auto_half_open", "breaker.open_multiplier"}, n.Path) {
				t.Errorf("%s: %v without the feature", format, n)
			}
		}
	}
}

// TestPollyHedgingWarnsOfWaitingAfterAFailure: failsafe-go's CancelIf
// behaviour (the next copy at its delay) has no Polly setting.
func TestPollyHedgingWarnsOfWaitingAfterAFailure(t *testing.T) {
	for _, after := range []engine.HedgeAfterFailure{"", engine.HedgeSendNow, engine.HedgeWaitNext} {
		st := engine.Strategy{Name: "h", Policy: engine.Policy{MaxAttempts: 3, Deadline: engine.Duration(5 * time.Second),
			Hedging: &engine.Hedging{Delay: engine.Duration(300 * time.Millisecond), AfterFailure: after}}}
		_, notes, err := Export(Polly, st)
		if err != nil {
			t.Fatal(err)
		}
		warned := slices.ContainsFunc(notes, func(n Note) bool { return n.Path == "hedging.after_failure" && n.Level == Warning })
		if warned != (after == engine.HedgeWaitNext) {
			t.Errorf("after_failure %q: warned %v: %v", after, warned, notes)
		}
	}
}
