package convert

import (
	"math"
	"slices"

	"github.com/retrylab/retrylab/shared/engine"
)

// r4jRateLimiterOrder is resilience4j-spring6's
// RateLimiterConfigurationProperties' rateLimiterAspectOrder,
// Ordered.LOWEST_PRECEDENCE - 3: inside the Retry and the CircuitBreaker.
const r4jRateLimiterOrder = math.MaxInt32 - 3

// r4jRateLimiterSpecs are the properties of
// CommonRateLimiterConfigurationProperties.InstanceProperties (af9e7c9),
// with the checks of their setters and of RateLimiterConfig's builder
// (limitForPeriod at least 1, limitRefreshPeriod at least 1 ns, a
// timeoutDuration not negative).
var r4jRateLimiterSpecs = []r4jSpec{
	{name: "limitForPeriod", kind: r4jInt, lo: 1, hi: math.MaxInt32},
	{name: "limitRefreshPeriod", kind: r4jDur, lo: 1, hi: math.Inf(1)},
	{name: "timeoutDuration", kind: r4jDur, lo: 0, hi: math.Inf(1)},
	{name: "subscribeForEvents", kind: r4jBool},
	{name: "allowHealthIndicatorToFail", kind: r4jBool},
	{name: "registerHealthIndicator", kind: r4jBool},
	{name: "eventConsumerBufferSize", kind: r4jInt, lo: 1, hi: math.MaxInt32},
	{name: "writableStackTraceEnabled", kind: r4jBool},
	{name: "baseConfig", kind: r4jString},
}

// r4jRequestNotPermitted is the exception a RateLimiter without a permit
// throws.
const r4jRequestNotPermitted = "io.github.resilience4j.ratelimiter.RequestNotPermitted"

// r4jRateLimiterFrom reads the strategy's RateLimiter into a fixed-window
// client_rate_limit: RateLimiterConfig's limitForPeriod (default 50),
// limitRefreshPeriod (default 500 ns) and timeoutDuration (default 5 s),
// as AtomicRateLimiter applies them (see engine.FixedWindowLimiter). Nil
// without one.
func r4jRateLimiterFrom(n *notes, mods map[string]*r4jModule, name string, pol *engine.Policy) *engine.RateLimit {
	lm, rm := mods["ratelimiter"], mods["retry"]
	eff, _ := lm.effective(n, name, false)
	if eff == nil {
		return nil
	}
	rl := &engine.RateLimit{Kind: engine.RateLimitFixedWindow, LimitForPeriod: 50, RefreshPeriod: 500, Timeout: engine.Duration(5e9)}
	if k, ok := eff.num("limitforperiod"); ok {
		rl.LimitForPeriod = int(k)
	} else {
		n.info(eff.path2("limitforperiod"), "is not set: RateLimiterConfig's default, 50")
	}
	if d, ok := eff.dur("limitrefreshperiod"); ok {
		rl.RefreshPeriod = d
	} else {
		n.warn(eff.path2("limitrefreshperiod"), "is not set: RateLimiterConfig's default is 500 ns, %d permits every 500 ns, which limits nothing a client sends", rl.LimitForPeriod)
	}
	if d, ok := eff.dur("timeoutduration"); ok {
		rl.Timeout = d
	} else {
		n.info(eff.path2("timeoutduration"), "is not set: RateLimiterConfig's default, 5 s: a call without a permit waits up to 5 s for one, and waits 5 s before it fails when it cannot have one by then")
	}
	if rl.LimitForPeriod > 1_000_000 {
		n.fail(eff.path2("limitforperiod"), rl.LimitForPeriod, "is more permits than RetryLab simulates; allowed up to 1000000")
		return nil
	}
	for _, f := range []struct {
		key string
		d   engine.Duration
	}{{"limitrefreshperiod", rl.RefreshPeriod}, {"timeoutduration", rl.Timeout}} {
		if f.d > engine.MaxSpan {
			n.fail(eff.path2(f.key), springDurationString(f.d), "is longer than RetryLab simulates; allowed up to %s", engine.MaxSpan)
			return nil
		}
	}
	if pol.Hedging != nil {
		return nil // not from resilience4j
	}
	switch {
	case lm.order < rm.order:
		n.warn(lm.orderPath, "is below retryAspectOrder: the RateLimiter is outside the retry and a call takes one permit, whatever its retries; the engine's limiter gives each attempt a permit, so it refuses sooner under retries")
	case lm.order == rm.order:
		n.warn(lm.orderPath, "equals retryAspectOrder: Spring runs the two aspects in an undefined order; imported with the limiter inside the retry, a permit per attempt")
	}
	if pol.Breaker != nil {
		n.warn(eff.path, "resilience4j's CircuitBreaker runs outside the RateLimiter (circuitBreakerAspectOrder below rateLimiterAspectOrder by default): an open breaker spends no permit, and a RequestNotPermitted is a failure it records; the engine asks the limiter first and does not count a refusal in the breaker")
	}
	if pol.MaxAttempts != 1 {
		re, _ := rm.effective(n, name, false)
		switch {
		case re == nil:
		case !re.has("retryexceptions") && !re.has("retryexceptionpredicate"):
			n.warn(eff.path, "the Retry retries every exception without retryExceptions, RequestNotPermitted included; the engine never retries an attempt the limiter refused: list the exceptions to retry in retryExceptions, as the engine does")
		case slices.Contains(re.f["retryexceptions"].v.([]string), r4jRequestNotPermitted):
			n.warn(re.path2("retryexceptions"), "lists %s: resilience4j retries a refused call; the engine never retries an attempt the limiter refused", r4jRequestNotPermitted)
		}
	}
	for _, k := range []string{"subscribeforevents", "allowhealthindicatortofail", "registerhealthindicator", "eventconsumerbuffersize", "writablestacktraceenabled"} {
		if eff.has(k) {
			n.info(eff.path2(k), "no effect on calls; not read")
		}
	}
	return rl
}

type r4jYAMLRateLimiter struct {
	Instances map[string]r4jYAMLRateLimiterInstance `yaml:"instances"`
}

type r4jYAMLRateLimiterInstance struct {
	LimitForPeriod     int    `yaml:"limitForPeriod"`
	LimitRefreshPeriod string `yaml:"limitRefreshPeriod"`
	TimeoutDuration    string `yaml:"timeoutDuration"`
}

// r4jExportRateLimiter writes a fixed-window client_rate_limit as a
// RateLimiter instance, in its default place inside the Retry: a permit
// per attempt, as the engine gives. Nil for none (another kind is the
// unsupported feature's warning).
func r4jExportRateLimiter(n *notes, st *engine.Strategy, instance string) *r4jYAMLRateLimiter {
	rl := st.RateLimit
	if rl == nil || rl.Kind != engine.RateLimitFixedWindow {
		return nil
	}
	n.info("client_rate_limit", "written as a RateLimiter in its default place, inside the Retry: each attempt asks it for a permit; name it in @RateLimiter(name = %q)", instance)
	if st.Breaker != nil {
		n.warn("client_rate_limit", "resilience4j's CircuitBreaker decides before the RateLimiter (its default order) and records a RequestNotPermitted as a failure; the engine asks the limiter first and does not count a refusal in the breaker")
	}
	return &r4jYAMLRateLimiter{Instances: map[string]r4jYAMLRateLimiterInstance{instance: {
		LimitForPeriod: rl.LimitForPeriod, LimitRefreshPeriod: springDurationString(rl.RefreshPeriod), TimeoutDuration: springDurationString(rl.Timeout)}}}
}
