package convert

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/retrylab/retrylab/shared/engine"
	"github.com/retrylab/retrylab/shared/scenarios"
)

// TestPollyLimiterAndHedging: Polly's concurrency limiter imports as the
// engine's bulkhead and its hedging strategy as the engine's hedging;
// each makes a valid scenario and exports back to the same strategy.
func TestPollyLimiterAndHedging(t *testing.T) {
	for _, tc := range []struct {
		desc, doc string
		check     func(t *testing.T, st engine.Strategy)
	}{
		{"rate limiter", `{"Retry": {"MaxRetryAttempts": 2, "UseJitter": false}, "RateLimiter": {"DefaultRateLimiterOptions": {"PermitLimit": 20, "QueueLimit": 5}}}`,
			func(t *testing.T, st engine.Strategy) {
				if want := []engine.Bulkhead{{Dependency: "dependency", MaxConcurrent: 20, MaxWaiting: 5}}; !reflect.DeepEqual(st.Bulkheads, want) {
					t.Errorf("bulkheads %+v; want %+v", st.Bulkheads, want)
				}
			}},
		{"rate limiter defaults", `{"RateLimiter": {}}`,
			func(t *testing.T, st engine.Strategy) {
				if want := []engine.Bulkhead{{Dependency: "dependency", MaxConcurrent: 1000}}; !reflect.DeepEqual(st.Bulkheads, want) {
					t.Errorf("bulkheads %+v; want %+v", st.Bulkheads, want)
				}
			}},
		{"hedging", `{"Hedging": {"MaxHedgedAttempts": 3, "Delay": "00:00:00.25"}, "Endpoint": {"Timeout": {"Timeout": "00:00:02"}}}`,
			func(t *testing.T, st engine.Strategy) {
				if st.MaxAttempts != 4 || st.Hedging == nil || st.Hedging.Delay != engine.Duration(250e6) || st.AttemptTimeout != engine.Duration(2e9) || st.Deadline != engine.Duration(30e9) {
					t.Errorf("max_attempts %d, hedging %+v, attempt_timeout %s, deadline %s; want 4, 250ms, 2s, 30s", st.MaxAttempts, st.Hedging, st.AttemptTimeout, st.Deadline)
				}
			}},
		{"hedging defaults", `{"Hedging": {}}`,
			func(t *testing.T, st engine.Strategy) {
				if st.MaxAttempts != 2 || st.Hedging == nil || st.Hedging.Delay != engine.Duration(2e9) {
					t.Errorf("max_attempts %d, hedging %+v; want 2 copies 2s apart", st.MaxAttempts, st.Hedging)
				}
			}},
		{"hedging after failures only", `{"Hedging": {"Delay": "-00:00:00.001"}}`,
			func(t *testing.T, st engine.Strategy) {
				if st.Hedging == nil || st.Hedging.Delay != engine.MaxSpan {
					t.Errorf("hedging %+v; want a delay of %s", st.Hedging, engine.MaxSpan)
				}
			}},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			im, err := Import(Polly, []byte(tc.doc))
			if err != nil {
				t.Fatal(err)
			}
			st := im.Strategies[0]
			tc.check(t, st)
			if _, err := scenarios.Imported(im.Strategies, Polly, ""); err != nil {
				t.Fatalf("the imported scenario is invalid: %v", err)
			}
			out, notes, err := Export(Polly, st)
			if err != nil {
				t.Fatal(err)
			}
			for _, n := range notes {
				if strings.Contains(n.Message, "cannot express") {
					t.Errorf("export: %s", n)
				}
			}
			back, err := Import(Polly, out)
			if err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			if !reflect.DeepEqual(back.Strategies[0], st) {
				t.Errorf("round trip:\n%s\nimports as %+v\nwant %+v", out, back.Strategies[0], st)
			}
		})
	}
}

func TestPollyLimiterErrors(t *testing.T) {
	for _, tc := range []struct{ doc, want string }{
		{`{"RateLimiter": {"DefaultRateLimiterOptions": {"PermitLimit": 0}}}`, `RateLimiter.DefaultRateLimiterOptions.PermitLimit: 0 is out of range`},
		{`{"RateLimiter": {"DefaultRateLimiterOptions": {"QueueProcessingOrder": "Random"}}}`, `is not a QueueProcessingOrder`},
		{`{"Hedging": {"MaxHedgedAttempts": 11}}`, `Hedging.MaxHedgedAttempts: 11 is out of range`},
	} {
		if _, err := Import(Polly, []byte(tc.doc)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v; want an error containing %q", tc.doc, err, tc.want)
		}
	}
}

// TestPollyLimitsAtTheirEdges: each range HttpStandardResilienceOptions'
// validation checks accepts the value at its edge, without a warning, and
// refuses or warns about the value beyond it.
func TestPollyLimitsAtTheirEdges(t *testing.T) {
	for _, tc := range []struct {
		doc  string
		want string // "error: " and the error, or a note ("" for none)
		not  string // a note that must not be there
	}{
		{`{"Retry": {"MaxRetryAttempts": 99}}`, "", ""},
		{`{"Retry": {"MaxRetryAttempts": 100}}`, `error: Retry.MaxRetryAttempts: 100 is out of range; RetryLab simulates up to 99 retries`, ""},
		{`{"Retry": {"Delay": "1.00:00:00"}}`, "", "more than a day"},
		{`{"Retry": {"Delay": "1.00:00:00.001"}}`, `error: Retry.Delay: "1.00:00:00.001" is longer than RetryLab simulates; allowed up to 1.00:00:00 (a day)`, ""},
		// A TimeSpan's hours go to 23, its minutes and seconds to 59.
		{`{"Retry": {"Delay": "23:59:59", "MaxDelay": "1.00:00:00"}}`, "", ""},
		{`{"Retry": {"Delay": "24:00:00"}}`, `error: Retry.Delay: "24:00:00" is not a TimeSpan: hours go to 23`, ""},
		{`{"Retry": {"Delay": "00:60:00"}}`, `error: Retry.Delay: "00:60:00" is not a TimeSpan: hours go to 23`, ""},
		{`{"Retry": {"Delay": "00:00:60"}}`, `error: Retry.Delay: "00:00:60" is not a TimeSpan: hours go to 23`, ""},
		{`{"Retry": {"Delay": "00:00:02", "MaxDelay": "00:00:02"}}`, "", "is below Delay"},
		{`{"Retry": {"Delay": "00:00:02", "MaxDelay": "00:00:01.999"}}`, "is below Delay", ""},
		{`{"CircuitBreaker": {"FailureRatio": 1}}`, "", ""},
		{`{"CircuitBreaker": {"FailureRatio": 0}}`, `error: CircuitBreaker.FailureRatio: 0 is out of range; allowed above 0, up to 1`, ""},
		{`{"CircuitBreaker": {"FailureRatio": 1.01}}`, `error: CircuitBreaker.FailureRatio: 1.01 is out of range`, ""},
		{`{"AttemptTimeout": {"Timeout": "00:00:00.25"}, "CircuitBreaker": {"SamplingDuration": "00:00:00.5", "BreakDuration": "00:00:00.5"}}`, "", ""},
		{`{"CircuitBreaker": {"SamplingDuration": "1.00:00:00", "BreakDuration": "1.00:00:00"}}`, "", ""},
		{`{"CircuitBreaker": {"SamplingDuration": "00:00:00.499"}}`, `error: CircuitBreaker.SamplingDuration: "00:00:00.499" is out of range; Polly allows 00:00:00.5 to 1.00:00:00`, ""},
		{`{"AttemptTimeout": {"Timeout": "00:00:00.01"}}`, "", "TimeoutStrategyOptions allows"},
		{`{"AttemptTimeout": {"Timeout": "00:00:00.009"}}`, "AttemptTimeout.Timeout: is outside what Polly's TimeoutStrategyOptions allows (10 ms to 1 day)", ""},
		{`{"AttemptTimeout": {"Timeout": "1.00:00:00"}, "TotalRequestTimeout": {"Timeout": "1.00:00:00"}, "CircuitBreaker": {"SamplingDuration": "1.00:00:00"}}`, "", "TimeoutStrategyOptions allows"},
		// An attempt timeout equal to the total one, and a sampling
		// duration of exactly twice the attempt timeout, are valid.
		{`{"AttemptTimeout": {"Timeout": "00:00:15"}, "TotalRequestTimeout": {"Timeout": "00:00:15"}}`, "", "the handler refuses this"},
		{`{"AttemptTimeout": {"Timeout": "00:00:15.001"}, "TotalRequestTimeout": {"Timeout": "00:00:15"}}`, "AttemptTimeout: the attempt timeout 15.001s is longer than the total request timeout 15s", ""},
		{`{"AttemptTimeout": {"Timeout": "00:00:15.001"}}`, "CircuitBreaker.SamplingDuration: the sampling duration 30s is less than twice the attempt timeout 15.001s", ""},
		// A total timeout of 0 is out of range, not shorter than the
		// attempt timeout.
		{`{"TotalRequestTimeout": {"Timeout": "00:00:00"}}`, "TotalRequestTimeout.Timeout: is outside", "longer than the total request timeout"},
	} {
		im, err := Import(Polly, []byte(tc.doc))
		if want, refused := strings.CutPrefix(tc.want, "error: "); refused {
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("Import(%s) = %v; want an error containing %q", tc.doc, err, want)
			}
			continue
		}
		if err != nil {
			t.Errorf("Import(%s): %v", tc.doc, err)
			continue
		}
		notes := fmt.Sprint(im.Notes)
		if tc.want != "" && !strings.Contains(notes, tc.want) {
			t.Errorf("Import(%s): no note saying %q: %s", tc.doc, tc.want, notes)
		}
		if tc.not != "" && strings.Contains(notes, tc.not) {
			t.Errorf("Import(%s): a note saying %q: %s", tc.doc, tc.not, notes)
		}
	}
}

// TestPollyExportEdges: a strategy at the edge of what Polly takes is
// written without a warning on it; one beyond is warned about, naming
// its field.
func TestPollyExportEdges(t *testing.T) {
	ratio := func(window, brk engine.Duration, minT int) *engine.Breaker {
		return &engine.Breaker{Kind: engine.BreakerRatio, Ratio: 0.5, Window: window, Break: brk, MinThroughput: minT, HalfOpenCalls: 1, HalfOpenFailures: 1}
	}
	hedged := func(attempts int) engine.Policy {
		return engine.Policy{MaxAttempts: attempts, Hedging: &engine.Hedging{Delay: engine.Duration(1e8)}}
	}
	retryAfter := func(ra *engine.RetryAfterUse) engine.Policy {
		return engine.Policy{MaxAttempts: 3, HonorRetryAfter: true, RetryAfter: ra}
	}
	half := engine.Duration(500e6)
	for _, tc := range []struct {
		formats []string
		pol     engine.Policy
		warned  string // a warning on this path
		quiet   string // no note on this path
	}{
		{[]string{Polly, PollyCSharp}, engine.Policy{Breaker: ratio(half, half, 2)}, "", "breaker"},
		{[]string{Polly, PollyCSharp}, engine.Policy{Breaker: ratio(half-1e6, half, 2)}, "breaker", ""},
		{[]string{Polly, PollyCSharp}, engine.Policy{Breaker: ratio(half, half-1e6, 2)}, "breaker", ""},
		{[]string{Polly, PollyCSharp}, engine.Policy{Breaker: ratio(half, half, 1)}, "breaker.min_throughput", ""},
		{[]string{Polly, PollyCSharp}, engine.Policy{Breaker: ratio(half, half, 2)}, "", "breaker.min_throughput"},
		// One trial call, which one failure reopens, is Polly's breaker.
		{[]string{Polly, PollyCSharp}, engine.Policy{Breaker: ratio(half, half, 2)}, "", "breaker.half_open_calls"},
		{[]string{Polly, PollyCSharp}, engine.Policy{Breaker: ratio(half, half, 2)}, "", "breaker.half_open_failures"},
		{[]string{Polly}, hedged(2), "", "max_attempts"},
		{[]string{Polly}, hedged(11), "", "max_attempts"},
		{[]string{Polly}, hedged(12), "max_attempts", ""},
		{[]string{Polly}, retryAfter(&engine.RetryAfterUse{Mode: engine.RetryAfterAtLeast}), "", "retry_after"},
		{[]string{Polly}, retryAfter(&engine.RetryAfterUse{Mode: engine.RetryAfterAtLeast, Statuses: []int{503}}), "retry_after", ""},
		{[]string{Polly}, retryAfter(&engine.RetryAfterUse{Mode: engine.RetryAfterReplace}), "retry_after", ""},
	} {
		for _, format := range tc.formats {
			_, ns, err := Export(format, engine.Strategy{Name: "x", Policy: tc.pol})
			if err != nil {
				t.Fatal(err)
			}
			warned := false
			for _, n := range ns {
				warned = warned || n.Level == Warning && n.Path == tc.warned
				if tc.quiet != "" && n.Path == tc.quiet {
					t.Errorf("%s of %s: %s", format, indent(tc.pol), n)
				}
			}
			if tc.warned != "" && !warned {
				t.Errorf("%s of %s: no warning on %s: %v", format, indent(tc.pol), tc.warned, ns)
			}
		}
	}
}
