package convert

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/retrylab/retrylab/shared/engine"
)

// Polly's rate limiter strategy without a RateLimiter delegate is a
// ConcurrencyLimiter of DefaultRateLimiterOptions (PermitLimit 1000,
// QueueLimit 0: https://www.pollydocs.org/strategies/rate-limiter.html),
// the engine's bulkhead. The standard handler puts it outermost, around
// the total request timeout and the retries, so a request holds its
// permit for the whole call, as the engine holds a bulkhead.
const (
	pollyPermits = 1000
	pollyQueue   = 0
)

type pollyLimiterJSON struct {
	DefaultRateLimiterOptions pollyConcurrencyJSON `json:"DefaultRateLimiterOptions"`
}

type pollyConcurrencyJSON struct {
	PermitLimit int `json:"PermitLimit"`
	QueueLimit  int `json:"QueueLimit"`
}

// pollyRateLimiterOf reads the RateLimiter of an options object m, nil
// when it has none; outermost says it is the standard handler's, around
// the whole request.
func pollyRateLimiterOf(n *notes, path string, m map[string]any, outermost bool) *engine.Bulkhead {
	o := &object{path: path, m: m, read: map[string]bool{}}
	v, p, ok := o.get("RateLimiter", true)
	if !ok {
		return nil
	}
	lo, ok := asObject(n, p, v)
	if !ok {
		return nil
	}
	b := &engine.Bulkhead{Dependency: importedDependency, MaxConcurrent: pollyPermits, MaxWaiting: pollyQueue}
	if v, q, ok := lo.get("DefaultRateLimiterOptions", true); ok {
		co, ok := asObject(n, q, v)
		if !ok {
			return nil
		}
		if v, r, ok := co.get("PermitLimit", true); ok {
			if k, ok := integer(n, r, v, true, 1, engine.MaxWorkers); ok {
				b.MaxConcurrent = k
			}
		} else {
			n.info(join(q, "PermitLimit"), "is not set: Polly's default, 1000")
		}
		if v, r, ok := co.get("QueueLimit", true); ok {
			if k, ok := integer(n, r, v, true, 0, engine.MaxQueue); ok {
				b.MaxWaiting = k
			}
		}
		if v, r, ok := co.get("QueueProcessingOrder", true); ok {
			switch s := strings.TrimSpace(fmt.Sprint(v)); {
			case strings.EqualFold(s, "OldestFirst") || s == "0":
			case strings.EqualFold(s, "NewestFirst") || s == "1":
				n.warn(r, "is not simulated: the engine's waiting calls take permits oldest first")
			default:
				n.fail(r, v, "is not a QueueProcessingOrder; allowed OldestFirst or NewestFirst")
			}
		}
		co.unread(n, "is not a ConcurrencyLimiterOptions field RetryLab reads; not read")
	} else {
		n.info(join(p, "DefaultRateLimiterOptions"), "is not set: Polly's concurrency limiter of 1000 permits, no queue")
	}
	lo.get("Name", true)
	lo.unread(n, "is not a rate limiter option RetryLab reads; not read (a RateLimiter delegate is code)")
	if outermost {
		n.info(p, "a concurrency limiter (ConcurrencyLimiter), outermost in the handler: a bulkhead held for the whole request, retries included; a queued request waits without a time limit")
	}
	return b
}

// pollyLimiterFor writes the strategy's bulkhead as the handler's
// RateLimiter, nil without one.
func pollyLimiterFor(n *notes, st *engine.Strategy) *pollyLimiterJSON {
	if len(st.Bulkheads) == 0 {
		return nil
	}
	if len(st.Bulkheads) > 1 {
		n.warn("bulkheads", "a handler stands for one dependency's client: only bulkheads[0] (%s) is exported", st.Bulkheads[0].Dependency)
	}
	b := st.Bulkheads[0]
	if b.MaxWait > 0 {
		n.warn("bulkheads[0].max_wait", "Polly's concurrency limiter queues a request without a time limit; %s is not exported", b.MaxWait)
	}
	return &pollyLimiterJSON{DefaultRateLimiterOptions: pollyConcurrencyJSON{PermitLimit: b.MaxConcurrent, QueueLimit: b.MaxWaiting}}
}

// The standard hedging handler (AddStandardHedgingHandler,
// HttpStandardHedgingResilienceOptions: Microsoft.Extensions.Http.Resilience)
// with its defaults: a total request timeout of 30 s around Polly's
// hedging (MaxHedgedAttempts 1, Delay 2 s:
// https://www.pollydocs.org/strategies/hedging.html) of the transient
// outcomes, and per endpoint a concurrency limiter, a circuit breaker and
// a timeout of 10 s.

// isPollyHedging reports whether m is HttpStandardHedgingResilienceOptions.
func isPollyHedging(m map[string]any) bool {
	for k := range m {
		if strings.EqualFold(k, "Hedging") || strings.EqualFold(k, "Endpoint") {
			return true
		}
	}
	return false
}

// pollyInfinite is Timeout.InfiniteTimeSpan (-1 ms) as configuration
// writes it: a hedging delay that never starts a copy before the previous
// one fails.
const pollyInfinite = "-00:00:00.001"

// msStandardHedging is the standard hedging handler's policy.
func msStandardHedging() engine.Policy {
	std := msStandard()
	return engine.Policy{
		BasedOn:        "ms-standard-hedging",
		MaxAttempts:    2,
		AttemptTimeout: std.AttemptTimeout,
		Deadline:       std.Deadline,
		Backoff:        engine.Backoff{Kind: engine.BackoffNone},
		RetryOn:        std.RetryOn,
		Breaker:        std.Breaker,
		Hedging:        &engine.Hedging{Delay: engine.Duration(2e9)},
	}
}

func pollyHedgingOptions(n *notes, path, name string, m map[string]any) engine.Strategy {
	st := engine.Strategy{Name: name, Policy: msStandardHedging()}
	pol := &st.Policy
	o := &object{path: path, m: m, read: map[string]bool{}}
	if v, p, ok := o.get("Hedging", true); ok {
		if ho, ok := asObject(n, p, v); ok {
			if v, q, ok := ho.get("MaxHedgedAttempts", true); ok {
				if k, ok := integer(n, q, v, true, 1, 10); ok {
					pol.MaxAttempts = k + 1
				}
			}
			if v, q, ok := ho.get("Delay", true); ok {
				if s, isStr := v.(string); isStr && strings.TrimSpace(s) == pollyInfinite {
					pol.Hedging.Delay = engine.MaxSpan
					n.info(q, "is Timeout.InfiniteTimeSpan: a copy only after a failure; simulated as a delay of %s, the longest the engine simulates", engine.MaxSpan)
				} else if d, ok := parseTimeSpan(n, q, v); ok {
					pol.Hedging.Delay = d
				}
			}
			ho.get("Name", true)
			ho.unread(n, "is not a hedging option RetryLab reads; not read (ShouldHandle, ActionGenerator and DelayGenerator are code)")
		}
	} else {
		n.info(join(path, "Hedging"), "is not set: the standard hedging handler's default, one hedged copy 2 s after the first")
	}
	n.info(join(path, "Hedging"), "a copy starts Delay after the previous one, or at once when one fails with a transient outcome (408, 429, 5xx, timeouts, connection errors); the first success wins and the others are cancelled")
	if v, p, ok := o.get("TotalRequestTimeout", true); ok {
		if to, ok := asObject(n, p, v); ok {
			if v, q, ok := to.get("Timeout", true); ok {
				if d, ok := parseTimeSpan(n, q, v); ok {
					pol.Deadline = d
				}
			}
			to.get("Name", true)
			to.unread(n, "is not a timeout option RetryLab reads; not read")
		}
	}
	if v, p, ok := o.get("Endpoint", true); ok {
		if eo, ok := asObject(n, p, v); ok {
			if v, q, ok := eo.get("CircuitBreaker", true); ok {
				pollyBreaker(n, q, v, pol.Breaker)
			}
			if v, q, ok := eo.get("Timeout", true); ok {
				if to, ok := asObject(n, q, v); ok {
					if v, r, ok := to.get("Timeout", true); ok {
						if d, ok := parseTimeSpan(n, r, v); ok {
							pol.AttemptTimeout = d
						}
					}
					to.get("Name", true)
					to.unread(n, "is not a timeout option RetryLab reads; not read")
				}
			}
			if b := pollyRateLimiterOf(n, p, eo.m, false); b != nil {
				eo.get("RateLimiter", true)
				st.Bulkheads = []engine.Bulkhead{*b}
				n.warn(join(p, "RateLimiter"), "a concurrency limiter (ConcurrencyLimiter) of each endpoint, which each hedged copy takes a permit of; the engine's bulkhead is held by the whole hedged call, so it refuses sooner while copies overlap")
			}
			eo.unread(n, "is not an endpoint option RetryLab reads; not read")
		}
	}
	n.info(join(path, "Endpoint"), "the endpoint's circuit breaker, timeout and concurrency limiter are around each copy; RetryLab's dependency is one endpoint, so every copy goes to it and shares its breaker")
	o.unread(n, "is not an HttpStandardHedgingResilienceOptions field; not read")
	return st
}

type pollyHedgingJSON struct {
	TotalRequestTimeout *pollyTimeoutJSON  `json:"TotalRequestTimeout,omitempty"`
	Hedging             pollyHedgeJSON     `json:"Hedging"`
	Endpoint            *pollyEndpointJSON `json:"Endpoint,omitempty"`
}

type pollyHedgeJSON struct {
	MaxHedgedAttempts int    `json:"MaxHedgedAttempts"`
	Delay             string `json:"Delay"`
}

type pollyEndpointJSON struct {
	RateLimiter    *pollyLimiterJSON `json:"RateLimiter,omitempty"`
	CircuitBreaker *pollyBreakerJSON `json:"CircuitBreaker,omitempty"`
	Timeout        *pollyTimeoutJSON `json:"Timeout,omitempty"`
}

// exportPollyHedging writes a hedged strategy as the standard hedging
// handler's options.
func exportPollyHedging(st *engine.Strategy, n *notes) []byte {
	unsupported(n, st, "HttpStandardHedgingResilienceOptions", "max_attempts", "attempt_timeout", "deadline", "backoff",
		"retry_on", "breaker", "bulkheads", "hedging")
	h := st.Hedging
	out := pollyHedgingJSON{Hedging: pollyHedgeJSON{MaxHedgedAttempts: st.MaxAttempts - 1}}
	if k := out.Hedging.MaxHedgedAttempts; k < 1 || k > 10 {
		out.Hedging.MaxHedgedAttempts = min(max(k, 1), 10)
		n.warn("max_attempts", "is %d copies; Polly hedges 1 to 10 copies after the first: written as %d", st.MaxAttempts, out.Hedging.MaxHedgedAttempts)
	}
	switch {
	case h.Delay >= engine.MaxSpan:
		out.Hedging.Delay = pollyInfinite
		n.info("hedging.delay", "is the longest the engine simulates: written as Timeout.InfiniteTimeSpan, a copy only after a failure")
	default:
		out.Hedging.Delay = pollySpan(n, "hedging.delay", h.Delay)
	}
	if h.DelayPercentile != 0 {
		n.warn("hedging.delay_percentile", "Polly's configuration has a fixed Delay (a DelayGenerator in code can follow the latencies); not exported")
	}
	if h.AfterFailure == engine.HedgeWaitNext {
		n.warn("hedging.after_failure", "Polly's hedging sends the next copy at once when a copy fails with a handled outcome; \"wait\" is not exported")
	}
	if !sameRetried(st.RetryOn, msStandard().RetryOn) {
		n.warn("retry_on", "the hedging handler's handled outcomes are code (408, 429, 5xx, timeouts and connection errors), not configuration; these are not exported")
	}
	if st.Deadline > 0 {
		out.TotalRequestTimeout = &pollyTimeoutJSON{Timeout: pollySpan(n, "deadline", st.Deadline)}
	} else {
		n.warn("deadline", "is not set: the hedging handler always has a total request timeout; its default, 30 s, applies")
	}
	ep := &pollyEndpointJSON{CircuitBreaker: pollyBreakerFor(n, st.Breaker)}
	if st.AttemptTimeout > 0 {
		ep.Timeout = &pollyTimeoutJSON{Timeout: pollySpan(n, "attempt_timeout", st.AttemptTimeout)}
	} else {
		n.warn("attempt_timeout", "is not set: the hedging handler always has an endpoint timeout; its default, 10 s, applies")
	}
	if lim := pollyLimiterFor(n, st); lim != nil {
		ep.RateLimiter = lim
		n.warn("bulkheads[0]", "written as the endpoint's concurrency limiter, which each hedged copy takes a permit of; the engine's bulkhead is held by the whole hedged call")
	}
	if *ep != (pollyEndpointJSON{}) {
		out.Endpoint = ep
	}
	data, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		panic("convert: marshal Polly hedging options: " + err.Error())
	}
	n.info("", "bind it to the handler with AddStandardHedgingHandler().Configure(configuration.GetSection(\"...\")); nest it under the section's name in appsettings.json")
	return append(data, '\n')
}
