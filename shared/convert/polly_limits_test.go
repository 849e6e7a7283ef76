package convert

import (
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
