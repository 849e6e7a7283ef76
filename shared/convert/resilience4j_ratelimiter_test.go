package convert

import (
	"reflect"
	"strings"
	"testing"

	"github.com/retrylab/retrylab/shared/engine"
	"github.com/retrylab/retrylab/shared/scenarios"
)

// TestResilience4jRateLimiter: a RateLimiter imports as a fixed-window
// client_rate_limit with RateLimiterConfig's defaults for what is left
// out, with a warning where resilience4j's placement differs from the
// engine's, makes a valid scenario, and exports back to the same
// strategy.
func TestResilience4jRateLimiter(t *testing.T) {
	fw := func(limit int, period, timeout engine.Duration) *engine.RateLimit {
		return &engine.RateLimit{Kind: engine.RateLimitFixedWindow, LimitForPeriod: limit, RefreshPeriod: period, Timeout: timeout}
	}
	const ms = engine.Duration(1e6)
	for _, tc := range []struct {
		desc, doc string
		want      *engine.RateLimit
		warn      string // in a warning; "" for none
	}{
		{"beside retries that list their exceptions", "resilience4j:\n  retry.instances.cart: {maxAttempts: 3, retryExceptions: [java.io.IOException]}\n  ratelimiter.instances.cart: {limitForPeriod: 10, limitRefreshPeriod: 1s, timeoutDuration: 250ms}\n",
			fw(10, 1000*ms, 250*ms), ""},
		{"alone, no wait", "resilience4j:\n  ratelimiter.instances.cart: {limitForPeriod: 5, limitRefreshPeriod: 100ms, timeoutDuration: 0}\n",
			fw(5, 100*ms, 0), ""},
		{"the defaults", "resilience4j:\n  ratelimiter.configs.default.timeoutDuration: 1s\n  ratelimiter.instances.cart.limitForPeriod: 20\n",
			fw(20, 500, 1000*ms), "limits nothing a client sends"},
		{"retries of every exception", "resilience4j:\n  retry.instances.cart.maxAttempts: 3\n  ratelimiter.instances.cart: {limitForPeriod: 10, limitRefreshPeriod: 1s}\n",
			fw(10, 1000*ms, 5000*ms), "RequestNotPermitted included"},
		{"retries of RequestNotPermitted", "resilience4j:\n  retry.instances.cart: {maxAttempts: 3, retryExceptions: [java.io.IOException, io.github.resilience4j.ratelimiter.RequestNotPermitted]}\n  ratelimiter.instances.cart: {limitForPeriod: 10, limitRefreshPeriod: 1s}\n",
			fw(10, 1000*ms, 5000*ms), "resilience4j retries a refused call"},
		{"outside the retry", "resilience4j:\n  retry.instances.cart: {maxAttempts: 3, retryExceptions: [java.io.IOException]}\n  ratelimiter:\n    rateLimiterAspectOrder: 1\n    instances.cart: {limitForPeriod: 10, limitRefreshPeriod: 1s}\n",
			fw(10, 1000*ms, 5000*ms), "a call takes one permit, whatever its retries"},
		{"in the retry's order", "resilience4j:\n  retry:\n    retryAspectOrder: 3\n    instances.cart: {maxAttempts: 3, retryExceptions: [java.io.IOException]}\n  ratelimiter:\n    rateLimiterAspectOrder: 3\n    instances.cart: {limitForPeriod: 10, limitRefreshPeriod: 1s}\n",
			fw(10, 1000*ms, 5000*ms), "equals retryAspectOrder: Spring runs the two aspects in an undefined order"},
		{"the most permits simulated", "resilience4j:\n  ratelimiter.instances.cart: {limitForPeriod: 1000000, limitRefreshPeriod: 1s, timeoutDuration: 0}\n",
			fw(1_000_000, 1000*ms, 0), ""},
		{"beside a breaker", "resilience4j:\n  circuitbreaker.instances.cart: {recordExceptions: [java.io.IOException]}\n  ratelimiter.instances.cart: {limitForPeriod: 10, limitRefreshPeriod: 1s}\n",
			fw(10, 1000*ms, 5000*ms), "an open breaker spends no permit"},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			im, err := Import(Resilience4j, []byte(tc.doc))
			if err != nil {
				t.Fatal(err)
			}
			st := im.Strategies[0]
			if !reflect.DeepEqual(st.RateLimit, tc.want) {
				t.Fatalf("client_rate_limit %+v; want %+v", st.RateLimit, tc.want)
			}
			var warned []string
			for _, n := range im.Notes {
				if n.Level == Warning && strings.HasPrefix(n.Path, "resilience4j.ratelimiter") || n.Level == Warning && strings.Contains(n.Message, "RequestNotPermitted") {
					warned = append(warned, n.Message)
				}
			}
			if got := strings.Join(warned, "\n"); tc.warn == "" && got != "" || !strings.Contains(got, tc.warn) {
				t.Errorf("rate limiter warnings:\n%s\nwant %q", got, tc.warn)
			}
			if _, err := scenarios.Imported(im.Strategies, Resilience4j, ""); err != nil {
				t.Fatalf("the imported scenario is invalid: %v", err)
			}
			r4jRoundTrip(t, st, func(n Note) bool { return strings.Contains(n.Message, "cannot express a client-side rate limiter") })
		})
	}
}

// TestResilience4jRateLimiterJoined: several strategies with rate
// limiters export as one tree, an instance each, and import back.
func TestResilience4jRateLimiterJoined(t *testing.T) {
	im, err := Import(Resilience4j, []byte("resilience4j:\n  ratelimiter.instances:\n    a: {limitForPeriod: 1, limitRefreshPeriod: 1s, timeoutDuration: 0}\n    b: {limitForPeriod: 2, limitRefreshPeriod: 2s, timeoutDuration: 0}\n"))
	if err != nil {
		t.Fatal(err)
	}
	out, _, err := ExportAll(Resilience4j, im.Strategies)
	if err != nil {
		t.Fatal(err)
	}
	back, err := Import(Resilience4j, out)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if !reflect.DeepEqual(back.Strategies, im.Strategies) {
		t.Errorf("round trip:\n%s\nimports as %+v\nwant %+v", out, back.Strategies, im.Strategies)
	}
}

// TestResilience4jRateLimiterExportOrder: the export warns that
// resilience4j's CircuitBreaker decides before the RateLimiter only when
// the strategy has a breaker.
func TestResilience4jRateLimiterExportOrder(t *testing.T) {
	rl := &engine.RateLimit{Kind: engine.RateLimitFixedWindow, LimitForPeriod: 10, RefreshPeriod: 1e9}
	for _, br := range []*engine.Breaker{nil, {Kind: engine.BreakerConsecutive, Failures: 5, Break: 1e9}} {
		out, ns, err := Export(Resilience4j, engine.Strategy{Name: "cart", Policy: engine.Policy{MaxAttempts: 3, RateLimit: rl, Breaker: br}})
		if err != nil {
			t.Fatal(err)
		}
		warned := false
		for _, n := range ns {
			warned = warned || n.Level == Warning && n.Path == "client_rate_limit" && strings.Contains(n.Message, "CircuitBreaker decides before the RateLimiter")
		}
		if warned != (br != nil) || !strings.Contains(string(out), "limitForPeriod: 10") {
			t.Errorf("breaker %+v: warned about the order %v:\n%s%v", br, warned, out, ns)
		}
	}
}
