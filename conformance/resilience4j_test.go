package conformance

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/retrylab/retrylab/shared/convert"
	"github.com/retrylab/retrylab/shared/engine"
)

// resilience4j is a Java library: it cannot run here (no Maven registry
// is reachable), so its behaviour is encoded from its source as table
// tests, each case's expected transitions worked out by hand from the
// lines cited, and the engine's resilience4j preset is run on the same
// calls. Source: resilience4j/resilience4j at af9e7c9 (v2.4.0-16),
// resilience4j-circuitbreaker/src/main/java/io/github/resilience4j/
// circuitbreaker/:
//
//   - CircuitBreakerConfig.java l. 43-52: failure rate 50%, wait in open
//     state 60 s, 10 permitted calls in half-open, minimum 100 calls,
//     COUNT_BASED window of 100.
//   - internal/CircuitBreakerMetrics.java l. 45-51: a count-based window's
//     minimum is min(minimumNumberOfCalls, window size); l. 141-158: the
//     thresholds are exceeded when the failure rate >= the threshold
//     (inclusive); l. 162-175: below the minimum, no decision.
//   - internal/CircuitBreakerStateMachine.java l. 646-651 (closed): open
//     when the thresholds are exceeded; l. 723-735 (open): a call is
//     permitted, and the breaker goes half-open, only when now
//     isAfter(opened + wait): strictly after; l. 1071-1079, 1100-1107,
//     1165-1171 (half-open): its metrics are a count-based window of the
//     permitted calls (CircuitBreakerMetrics.forHalfOpen, l. 77-81), with
//     a minimum of min(100, 10) = 10, so it decides only when all 10
//     trials are in: open if their failure rate >= 50%, closed otherwise.
//
// Calls are 40.96 s apart in the engine (Spacing): the call after an
// opening comes before the 60 s wait ends and is refused; the next is
// the first trial.
type r4jCase struct {
	name   string
	script []Call
	// want is resilience4j's transitions, "call:from>to", from the source.
	want []string
	// known names the known difference of issue 15, when the engine is
	// expected to differ; empty when it is expected to match.
	known string
	// engine is what the engine does where known says it differs: any
	// other outcome fails, so that a regression cannot pass as known.
	engine []string
}

func calls(parts ...any) []Call {
	var cs []Call
	for i := 0; i < len(parts); i += 2 {
		cs = append(cs, repeat(parts[i+1].(Call), parts[i].(int))...)
	}
	return cs
}

func TestResilience4jBreaker(t *testing.T) {
	preset, err := Policy("resilience4j", nil)
	if err != nil {
		t.Fatal(err)
	}
	breaker := preset["breaker"]
	cases := []r4jCase{
		{
			name:   "100 failures open it at the 100th call",
			script: calls(100, FailAll, 1, Success),
			want:   []string{"99:closed>open"},
		},
		{
			name:   "50 successes then 50 failures: 50% is at the threshold, inclusive",
			script: calls(50, Success, 50, FailAll, 1, Success),
			want:   []string{"99:closed>open"},
		},
		{
			name:   "49 successes then 51 failures, below the minimum until the 100th",
			script: calls(49, Success, 51, FailAll, 1, Success),
			want:   []string{"99:closed>open"},
		},
		{
			name:   "the window slides: 100 successes, then failures until half of the last 100",
			script: calls(100, Success, 50, FailAll, 1, Success),
			want:   []string{"149:closed>open"},
		},
		{
			name:   "10 successful trials close it",
			script: calls(100, FailAll, 1, FailAll, 10, Success, 2, Success),
			want:   []string{"99:closed>open", "101:open>half-open", "110:half-open>closed"},
		},
		{
			name:   "1 failed trial of 10 (10%) closes it",
			script: calls(100, FailAll, 1, FailAll, 1, FailAll, 9, Success, 2, Success),
			want:   []string{"99:closed>open", "101:open>half-open", "110:half-open>closed"},
		},
		{
			name:   "5 failed trials of 10 (50%) reopen it at the 10th",
			script: calls(100, FailAll, 1, FailAll, 5, FailAll, 5, Success, 2, Success),
			// Reopened at call 110, the breaker refuses call 111 (40.96 s
			// later, before the 60 s wait ends) and half-opens at call 112
			// (81.92 s later), as it did at call 101 after opening at 99
			// (CircuitBreakerStateMachine.java l. 723-735). The table first
			// left this last transition out.
			want: []string{"99:closed>open", "101:open>half-open", "110:half-open>open", "112:open>half-open"},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := map[string]any{"max_attempts": 1, "breaker": breaker}
			_, res, err := EngineScript(p, 503, c.script)
			if err != nil {
				t.Fatal(err)
			}
			got := transitions(res.Strategies[0].Transitions, Spacing)
			if fmt.Sprint(got) == fmt.Sprint(c.want) {
				if c.known != "" {
					t.Logf("the engine now matches resilience4j here: %q can be dropped", c.known)
				}
				return
			}
			if c.known == "" {
				t.Fatalf("resilience4j (from its source): %v; the engine: %v", c.want, got)
			}
			if fmt.Sprint(got) != fmt.Sprint(c.engine) {
				t.Fatalf("%s: the engine was known to give %v, now %v (resilience4j, from its source: %v)", c.known, c.engine, got, c.want)
			}
			t.Logf("%s: resilience4j (from its source) %v, the engine %v", c.known, c.want, got)
		})
	}
}

// TestResilience4jOpenBoundary: the open state's end is strict
// (CircuitBreakerStateMachine.java l. 725, clock.instant().isAfter): a
// call exactly at opened + wait is still refused. Calls 60 s apart, the
// preset's breaker (its 60 s wait and strict end) made to open on 1
// failure of 1 (window 1, minimum 1) and to close on 1 trial:
// resilience4j refuses the call at 60 s and half-opens at 120 s.
func TestResilience4jOpenBoundary(t *testing.T) {
	preset, err := Policy("resilience4j", nil)
	if err != nil {
		t.Fatal(err)
	}
	br := map[string]any{}
	for k, v := range preset["breaker"].(map[string]any) {
		br[k] = v
	}
	for k, v := range map[string]any{"window_calls": 1, "min_throughput": 1, "half_open_calls": 1, "half_open_failures": 1} {
		br[k] = v
	}
	p := map[string]any{"max_attempts": 1, "breaker": br}
	sp := time.Minute
	script := []Call{FailAll, Success, Success, Success}
	attempts, res, err := EngineScriptSpaced(p, 503, script, sp)
	if err != nil {
		t.Fatal(err)
	}
	want := []int{1, 0, 1, 1} // resilience4j: the call at exactly 60 s is refused
	got := transitions(res.Strategies[0].Transitions, sp)
	if !equalInts(attempts, want) {
		t.Errorf("resilience4j runs calls %v (refusing the call at exactly 60 s); the engine runs %v, transitions %v", want, attempts, got)
	}
}

// TestResilience4jRetry: RetryConfig.java (resilience4j-retry, l. 39-43):
// 3 attempts, a fixed 500 ms wait, and every exception retried
// (DEFAULT_RECORD_FAILURE_PREDICATE throwable -> true). The engine's
// preset waits the same and retries every 4xx and 5xx answer (those an
// HTTP client throws on).
func TestResilience4jRetry(t *testing.T) {
	p, err := Policy("resilience4j", map[string]any{"breaker": nil})
	if err != nil {
		t.Fatal(err)
	}
	w, err := EngineWaits(p, 2, 1)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(w) != fmt.Sprint([]time.Duration{500 * time.Millisecond, 500 * time.Millisecond}) {
		t.Errorf("resilience4j waits 500 ms, 500 ms; the engine %v", w)
	}
	var differ []string
	for _, status := range []int{500, 501, 400, 503} {
		got, _, err := EngineScript(p, status, []Call{FailAll})
		if err != nil {
			t.Fatal(err)
		}
		if got[0] != 3 {
			differ = append(differ, fmt.Sprintf("%d: engine %d attempts", status, got[0]))
		}
	}
	if len(differ) > 0 {
		t.Errorf("resilience4j retries every exception (3 attempts); the engine: %v", differ)
	}
}

// transitions formats engine transitions as "call:from>to", the call being
// the one at whose time (calls sp apart) the transition happened.
func transitions(ts []engineTransition, sp time.Duration) []string {
	var out []string
	for _, tr := range ts {
		// A transition at a call's start is that call's, the division's
		// rounding aside (113 × 40.96 s / 40.96 s is 112.99…).
		k := int(math.Floor(tr.AtS/sp.Seconds() + 1e-9))
		out = append(out, fmt.Sprintf("%d:%s>%s", k, strings.ReplaceAll(tr.From, "_", "-"), strings.ReplaceAll(tr.To, "_", "-")))
	}
	return out
}

// TestResilience4jSlowCalls: CircuitBreakerMetrics.java (onSuccess: a
// call longer than slowCallDurationThreshold, 60 s, strictly, is a slow
// success; checkIfThresholdsExceeded: the breaker opens when the slow-call
// rate is at or above slowCallRateThreshold, 100%, once the minimum of
// 100 calls is in). 100 successful calls of 61 s, 100 s apart, open it
// when the 100th ends (99 × 100 s + 61 s); with one of them taking 60 s
// exactly (not slow: the comparison is strict), 99% of the window is
// slow and it stays closed. The engine runs the preset's breaker; its
// calls take 1 s times a latency phase's factor, exact in whole seconds.
func TestResilience4jSlowCalls(t *testing.T) {
	preset, err := Policy("resilience4j", nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name   string
		phases []any // latency phases: which calls are not slow
		want   []string
	}{
		{"100 slow calls open it", []any{slow(0, 20000, 61)}, []string{"9961.0:closed>open"}},
		{"99 slow calls and one of exactly 60 s do not", []any{slow(0, 5000, 61), slow(5000, 5001, 60), slow(5001, 20000, 61)}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			sc := map[string]any{
				"version":  1,
				"name":     "conformance: slow calls",
				"seed":     1,
				"workload": map[string]any{"clients": 1, "arrival": "uniform", "rate": 0.01, "operations": 100},
				"dependency": map[string]any{
					"workers": 10, "service_time": map[string]any{"kind": "constant", "mean": "1s"}, "queue_capacity": 1,
					"phases": c.phases,
				},
				"strategies": []any{map[string]any{"name": "r4j", "max_attempts": 1, "breaker": preset["breaker"]}},
			}
			res, err := runScenario(sc, true)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, tr := range res.Strategies[0].Transitions {
				got = append(got, fmt.Sprintf("%.1f:%s>%s", tr.AtS, tr.From, tr.To))
			}
			if fmt.Sprint(got) != fmt.Sprint(c.want) {
				t.Errorf("resilience4j (from its source) %v; the engine %v", c.want, got)
			}
		})
	}
}

// slow is a latency phase over [from, to) seconds multiplying service
// times by factor.
func slow(from, to int, factor float64) map[string]any {
	return map[string]any{"kind": "latency", "from": fmt.Sprintf("%ds", from), "to": fmt.Sprintf("%ds", to), "factor": factor}
}

// TestResilience4jTimeWindow: a TIME_BASED window
// (resilience4j-core/src/main/java/io/github/resilience4j/core/metrics/
// SlidingTimeWindowMetrics.java at af9e7c9, l. 77-83: record adds the
// outcome to the total and to the bucket of the current epoch second;
// l. 110-127, moveWindowToCurrentEpochSecond: buckets older than the
// last slidingWindowSize epoch seconds are subtracted) counts whole epoch
// seconds, the current one included. slidingWindowSize 2 s,
// minimumNumberOfCalls 3, failureRateThreshold 50%, calls 640 ms apart,
// the first at a whole second: at call 4 (2.56 s) the window is seconds
// 1 and 2, calls 2, 3 and 4. The engine runs the preset's breaker with
// that time window (window_buckets epoch_seconds, the preset's).
func TestResilience4jTimeWindow(t *testing.T) {
	preset, err := Policy("resilience4j", nil)
	if err != nil {
		t.Fatal(err)
	}
	br := map[string]any{}
	for k, v := range preset["breaker"].(map[string]any) {
		br[k] = v
	}
	delete(br, "window_calls")
	for k, v := range map[string]any{"window": "2s", "min_throughput": 3} {
		br[k] = v
	}
	if br["window_buckets"] != "epoch_seconds" {
		t.Fatalf("the resilience4j preset's breaker counts window_buckets %v, not epoch_seconds", br["window_buckets"])
	}
	const sp = 640 * time.Millisecond
	for _, c := range []struct {
		name    string
		script  []Call
		want    []string // resilience4j, from the source
		buckets string
	}{
		{
			// Call 1 (0.64 s, second 0) has left the window at call 4:
			// 1 failure of 3 stays below 50%. An exact 2 s window,
			// (0.56 s, 2.56 s], still holds it: 2 of 4 would open.
			name:   "a failure in an epoch second that has left the window does not count",
			script: calls(1, Success, 1, FailAll, 2, Success, 1, FailAll, 3, Success),
			want:   nil,
		},
		{
			name:   "the same without the buckets: the exact window opens at call 4",
			script: calls(1, Success, 1, FailAll, 2, Success, 1, FailAll, 3, Success),
			want:   []string{"4:closed>open"}, buckets: "exact",
		},
		{
			// Calls 3 and 4 (seconds 1 and 2) fail: 2 of 3 opens it.
			name:   "two failures of the last two epoch seconds' three calls open it",
			script: calls(3, Success, 2, FailAll, 3, Success),
			want:   []string{"4:closed>open"},
		},
		{
			// Calls 0-1 are second 0, 2-3 second 1: at call 3 (1.92 s)
			// the window holds calls 0-3, 1 failure of 4; at call 4
			// (2.56 s) second 0 has left: calls 2-4, 2 of 3.
			name:   "the window moves by whole seconds: call 4 drops second 0",
			script: calls(3, Success, 1, FailAll, 1, FailAll, 3, Success),
			want:   []string{"4:closed>open"},
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			b := map[string]any{}
			for k, v := range br {
				b[k] = v
			}
			if c.buckets != "" {
				b["window_buckets"] = c.buckets
			}
			_, res, err := EngineScriptSpaced(map[string]any{"max_attempts": 1, "breaker": b}, 503, c.script, sp)
			if err != nil {
				t.Fatal(err)
			}
			if got := transitions(res.Strategies[0].Transitions, sp); fmt.Sprint(got) != fmt.Sprint(c.want) {
				t.Errorf("want %v (resilience4j from its source; the exact window where the case says so); the engine: %v", c.want, got)
			}
		})
	}
}

// TestResilience4jAutomaticHalfOpen: with
// automaticTransitionFromOpenToHalfOpenEnabled the open state schedules
// its own end (CircuitBreakerStateMachine.java at af9e7c9, l. 705-708:
// toHalfOpenState after waitDurationInOpenState; l. 803-811: it turns
// half-open unless a call did first), so the breaker is half-open 60 s
// after opening, between calls 100 and 101 (40.96 s apart), where
// without it the first call after the wait, call 101, turns it
// (l. 725-726). The trials that follow are the same calls either way.
// The engine runs the preset's breaker with auto_half_open, and the
// importer reads the property.
func TestResilience4jAutomaticHalfOpen(t *testing.T) {
	preset, err := Policy("resilience4j", nil)
	if err != nil {
		t.Fatal(err)
	}
	script := calls(100, FailAll, 1, FailAll, 10, Success, 2, Success)
	for _, c := range []struct {
		auto bool
		want []string
	}{
		{false, []string{"99:closed>open", "101:open>half-open", "110:half-open>closed"}},
		{true, []string{"99:closed>open", "100:open>half-open", "110:half-open>closed"}},
	} {
		br := map[string]any{}
		for k, v := range preset["breaker"].(map[string]any) {
			br[k] = v
		}
		if c.auto {
			br["auto_half_open"] = true
		}
		attempts, res, err := EngineScript(map[string]any{"max_attempts": 1, "breaker": br}, 503, script)
		if err != nil {
			t.Fatal(err)
		}
		if got := transitions(res.Strategies[0].Transitions, Spacing); fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("automatic %v: resilience4j (from its source) %v; the engine %v", c.auto, c.want, got)
		}
		if attempts[100] != 0 || attempts[101] != 1 {
			t.Errorf("automatic %v: call 100 (refused, open) and 101 (the first trial) made %d and %d attempts; want 0 and 1", c.auto, attempts[100], attempts[101])
		}
	}
	im, err := convert.Import(convert.Resilience4j, []byte(`resilience4j:
  circuitbreaker:
    instances:
      backend:
        automaticTransitionFromOpenToHalfOpenEnabled: true
        slidingWindowType: TIME_BASED
        slidingWindowSize: 10
`))
	if err != nil {
		t.Fatal(err)
	}
	if b := im.Strategies[0].Breaker; b == nil || !b.AutoHalfOpen || b.WindowBuckets != engine.WindowEpochSeconds {
		t.Errorf("the importer read the breaker as %+v; want auto_half_open and window_buckets epoch_seconds", b)
	}
}

// TestResilience4jOpenBackoff: with enableExponentialBackoff the open
// state's wait grows at each reopening. CircuitBreakerStateMachine.java at
// af9e7c9: transitionToOpenState makes an OpenState of the current
// state's attempts + 1 (l. 344-347), ClosedState's attempts are 0
// (l. 636-639) and HalfOpenState keeps the OpenState's (l. 362-364,
// 1071-1078); the OpenState waits the wait interval function of its
// attempts (l. 680-683). CommonCircuitBreakerConfigurationProperties
// (configureEnableExponentialBackoff) makes that function
// IntervalFunction.ofExponentialBackoff(waitDurationInOpenState,
// exponentialBackoffMultiplier, exponentialMaxWaitDurationInOpenState):
// min(60 s · 2^(attempts−1), 240 s) here (IntervalFunction.java l. 96-103,
// 110-112). Calls are 40.96 s apart: opened at call 99 for 60 s, call 101
// is the first trial; 10 failed trials reopen it at call 110 for 120 s
// (calls 111 and 112 refused, 113 the next trial), then at 122 for 240 s
// (123-127 refused), at 137 for 240 s again (the cap); 10 successful
// trials close it at 152, and the next opening, at 252, lasts 60 s again
// (253 refused, 254 a trial). The engine runs the preset's breaker with
// open_multiplier 2 and max_open 240 s; without them it reopens for 60 s
// each time.
func TestResilience4jOpenBackoff(t *testing.T) {
	preset, err := Policy("resilience4j", nil)
	if err != nil {
		t.Fatal(err)
	}
	script := calls(100, FailAll, 1, FailAll, 10, FailAll, 2, FailAll, 10, FailAll, 5, FailAll, 10, FailAll, 5, FailAll,
		10, Success, 100, FailAll, 1, FailAll, 10, Success)
	want := []string{"99:closed>open", "101:open>half-open", "110:half-open>open", "113:open>half-open", "122:half-open>open",
		"128:open>half-open", "137:half-open>open", "143:open>half-open", "152:half-open>closed",
		"252:closed>open", "254:open>half-open", "263:half-open>closed"}
	for _, grow := range []bool{true, false} {
		br := map[string]any{}
		for k, v := range preset["breaker"].(map[string]any) {
			br[k] = v
		}
		if grow {
			br["open_multiplier"], br["max_open"] = 2, "240s"
		}
		_, res, err := EngineScript(map[string]any{"max_attempts": 1, "breaker": br}, 503, script)
		if err != nil {
			t.Fatal(err)
		}
		got := transitions(res.Strategies[0].Transitions, Spacing)
		switch {
		case grow && fmt.Sprint(got) != fmt.Sprint(want):
			t.Errorf("resilience4j (from its source) %v;\nthe engine %v", want, got)
		case !grow && fmt.Sprint(got[:4]) != fmt.Sprint([]string{"99:closed>open", "101:open>half-open", "110:half-open>open", "112:open>half-open"}):
			t.Errorf("without open_multiplier the engine should reopen for 60 s (a trial at call 112); it did %v", got)
		}
	}
	im, err := convert.Import(convert.Resilience4j, []byte(`resilience4j:
  circuitbreaker:
    instances:
      backend:
        waitDurationInOpenState: 60s
        enableExponentialBackoff: true
        exponentialBackoffMultiplier: 2
        exponentialMaxWaitDurationInOpenState: 4m
`))
	if err != nil {
		t.Fatal(err)
	}
	if b := im.Strategies[0].Breaker; b == nil || b.OpenMultiplier != 2 || b.MaxOpen != engine.Duration(240*time.Second) || b.Break != engine.Duration(60*time.Second) {
		t.Errorf("the importer read the breaker as %+v; want break 60s, open_multiplier 2, max_open 4m", b)
	}
}
