package conformance

import (
	"context"
	"math"
	"reflect"
	"testing"
	"time"
	_ "unsafe" // for go:linkname: the SDK's clock and sleep

	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/retrylab/retrylab/shared/engine"
)

// The SDK reads its clock and sleeps through these variables of its
// internal/sdk package, which its own tests replace. They are linked here
// so that the adaptive mode runs on virtual time, call by call, without
// waiting for the wall clock.
//
//go:linkname sdkNowTime github.com/aws/aws-sdk-go-v2/internal/sdk.NowTime
var sdkNowTime func() time.Time

//go:linkname sdkSleepWithContext github.com/aws/aws-sdk-go-v2/internal/sdk.SleepWithContext
var sdkSleepWithContext func(context.Context, time.Duration) error

// awsEpoch is the virtual wall clock's time 0: a whole second, so that the
// SDK's half-second buckets of the Unix time fall where the engine's
// buckets of its own clock do.
var awsEpoch = time.Unix(1_700_000_000, 0)

// An adaptiveStep is one attempt of a script: it asks for its token at At
// (or later, when the previous one slept past At) and is answered with
// Status (200, 429 or 503) at once.
type adaptiveStep struct {
	At     time.Duration
	Status int
}

// adaptiveState is what both limiters report after an answer.
type adaptiveState struct {
	sleeps                   []time.Duration // the waits for this attempt's token
	enabled                  bool
	fill, measured, computed float64
}

// sdkAdaptive runs the script through aws-sdk-go-v2's AdaptiveMode: its
// GetAttemptToken (which sleeps until the rate limiter gives a token) and
// the release with the attempt's error (which updates the rate). The
// limiter's state is read from its unexported fields by reflection.
func sdkAdaptive(t *testing.T, script []adaptiveStep) []adaptiveState {
	t.Helper()
	var now time.Duration
	var sleeps []time.Duration
	oldNow, oldSleep := sdkNowTime, sdkSleepWithContext
	t.Cleanup(func() { sdkNowTime, sdkSleepWithContext = oldNow, oldSleep })
	sdkNowTime = func() time.Time { return awsEpoch.Add(now) }
	sdkSleepWithContext = func(_ context.Context, d time.Duration) error {
		sleeps = append(sleeps, d)
		now += max(d, 1) // a real sleep of 0 (a wait rounded down to 0 ns) still lets time pass
		return nil
	}
	a := retry.NewAdaptiveMode() // made at virtual time 0
	rl := reflect.ValueOf(a).Elem().FieldByName("rateLimit").Elem()
	var out []adaptiveState
	for _, st := range script {
		now = max(now, st.At)
		sleeps = nil
		release, err := a.GetAttemptToken(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		var opErr error
		if st.Status != 200 {
			opErr = awsStatusError(st.Status)
		}
		if err := release(opErr); err != nil {
			t.Fatal(err)
		}
		out = append(out, adaptiveState{
			sleeps:   sleeps,
			enabled:  rl.FieldByName("tokenBucketEnabled").Bool(),
			fill:     rl.FieldByName("fillRate").Float(),
			measured: rl.FieldByName("measuredTxRate").Float(),
			computed: rl.FieldByName("calculatedRate").Float(),
		})
	}
	return out
}

// engineAdaptive runs the script through the engine's AWSRateLimiter the
// way the simulation does: Acquire until it gives a token, waiting what it
// says, then Update with whether the answer was a throttle (429).
func engineAdaptive(script []adaptiveStep) []adaptiveState {
	l := engine.NewAWSRateLimiter()
	var now time.Duration
	var out []adaptiveState
	for _, st := range script {
		now = max(now, st.At)
		var sleeps []time.Duration
		for {
			ok, wait := l.Acquire(now)
			if ok {
				break
			}
			sleeps = append(sleeps, wait)
			now += max(wait, 1) // as the simulation does
		}
		l.Update(now, st.Status == 429)
		out = append(out, adaptiveState{sleeps, l.Enabled(), l.FillRate(), l.MeasuredRate(), l.CalculatedRate()})
	}
	return out
}

// near reports whether a and b agree to 1e-12 of their size: the engine
// takes the cube root with math.Cbrt where the SDK calls math.Pow(x, 1/3).
func near(a, b float64) bool {
	return a == b || math.Abs(a-b) <= 1e-12*max(math.Abs(a), math.Abs(b))
}

// TestAWSAdaptiveRateLimiter drives aws-sdk-go-v2's adaptive retry mode
// and the engine's AWSRateLimiter with the same scripts of attempts and
// answers on virtual time, and compares, after every answer, the waits
// for the attempt's token (to the nanosecond), whether the token bucket is
// on, the fill rate, the measured send rate and CUBIC's calculated rate.
func TestAWSAdaptiveRateLimiter(t *testing.T) {
	steady := func(from, to, every time.Duration, status int) []adaptiveStep {
		var s []adaptiveStep
		for at := from; at < to; at += every {
			s = append(s, adaptiveStep{at, status})
		}
		return s
	}
	cat := func(parts ...[]adaptiveStep) []adaptiveStep {
		var s []adaptiveStep
		for _, p := range parts {
			s = append(s, p...)
		}
		return s
	}
	scripts := map[string][]adaptiveStep{
		// Successes only: the bucket never turns on, nothing waits.
		"successes": steady(0, 5*time.Second, 20*time.Millisecond, 200),
		// 50 a second; throttled from 2 s to 2.5 s, then successes: the
		// rate drops by 0.7 per throttle and climbs back along CUBIC's
		// curve; attempts wait for tokens meanwhile.
		"throttle-then-recover": cat(
			steady(0, 2*time.Second, 20*time.Millisecond, 200),
			steady(2*time.Second, 2500*time.Millisecond, 20*time.Millisecond, 429),
			steady(2500*time.Millisecond, 20*time.Second, 20*time.Millisecond, 200)),
		// A burst of attempts at one instant after throttles: each waits
		// for the next token.
		"burst-after-throttle": cat(
			steady(0, time.Second, 10*time.Millisecond, 200),
			steady(time.Second, 1200*time.Millisecond, 10*time.Millisecond, 429),
			steady(1300*time.Millisecond, 1301*time.Millisecond, time.Microsecond/10, 200)),
		// 503 is not a throttle for the SDK: only 429 turns the bucket on.
		"503-then-429": cat(
			steady(0, 3*time.Second, 25*time.Millisecond, 503),
			steady(3*time.Second, 4*time.Second, 25*time.Millisecond, 429),
			steady(4*time.Second, 12*time.Second, 25*time.Millisecond, 200)),
		// Throttles every few seconds, with successes between them.
		"sawtooth": cat(
			steady(0, 2*time.Second, 10*time.Millisecond, 200),
			[]adaptiveStep{{2 * time.Second, 429}},
			steady(2*time.Second+10*time.Millisecond, 6*time.Second, 10*time.Millisecond, 200),
			[]adaptiveStep{{6 * time.Second, 429}, {6*time.Second + 1, 429}},
			steady(6*time.Second+10*time.Millisecond, 15*time.Second, 10*time.Millisecond, 200)),
	}
	for name, script := range scripts {
		t.Run(name, func(t *testing.T) {
			sdk, eng := sdkAdaptive(t, script), engineAdaptive(script)
			var waited time.Duration
			waits := 0
			for i := range script {
				s, e := sdk[i], eng[i]
				if !reflect.DeepEqual(s.sleeps, e.sleeps) {
					t.Fatalf("attempt %d (at %v): the SDK slept %v for its token, the engine %v", i, script[i].At, s.sleeps, e.sleeps)
				}
				if s.enabled != e.enabled || !near(s.fill, e.fill) || !near(s.measured, e.measured) || !near(s.computed, e.computed) {
					t.Fatalf("attempt %d (at %v, %d): SDK on=%v fill=%v measured=%v calculated=%v; engine on=%v fill=%v measured=%v calculated=%v",
						i, script[i].At, script[i].Status, s.enabled, s.fill, s.measured, s.computed, e.enabled, e.fill, e.measured, e.computed)
				}
				for _, w := range s.sleeps {
					waited += w
					waits++
				}
			}
			last := sdk[len(sdk)-1]
			t.Logf("%d attempts: %d waits for a token, %v in all; at the end on=%v fill %.3f/s, measured %.3f/s", len(script), waits, waited, last.enabled, last.fill, last.measured)
			if name != "successes" && waits == 0 {
				t.Errorf("no attempt waited: the script does not exercise the bucket")
			}
		})
	}
}
