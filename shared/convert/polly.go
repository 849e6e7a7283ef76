package convert

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/retrylab/retrylab/shared/engine"
)

// msStandard returns Microsoft.Extensions.Http.Resilience's standard
// resilience handler (AddStandardResilienceHandler) with its defaults, as
// RetryLab simulates it: the ms-standard-resilience preset of
// shared/scenarios, which the tests check field by field.
func msStandard() engine.Policy {
	return engine.Policy{
		BasedOn:        "ms-standard-resilience",
		MaxAttempts:    4,
		AttemptTimeout: engine.Duration(10e9),
		Deadline:       engine.Duration(30e9),
		Backoff:        engine.Backoff{Kind: engine.BackoffExponential, Base: engine.Duration(2e9), Multiplier: 2},
		Jitter:         engine.Jitter{Kind: engine.JitterProportional, Fraction: 0.5},
		RetryOn: &engine.RetryOn{Statuses: []int{408, 429}, StatusRanges: []string{"500-599"},
			Timeout: true, Connection: true},
		HonorRetryAfter: true,
		Breaker: &engine.Breaker{Kind: engine.BreakerRatio, Ratio: 0.1, MinThroughput: 100,
			Window: engine.Duration(30e9), Break: engine.Duration(5e9), Placement: engine.PlaceInside},
	}
}

// pollyMaxRetries is Polly's "retry forever" (RetryConstants.MaxRetryCount,
// int.MaxValue).
const pollyMaxRetries = math.MaxInt32

// Polly's jitter: Constant and Linear delays d·(1 ± 0.25) (RetryHelper.cs,
// exact in the engine); Exponential DecorrelatedJitterBackoffV2, which the
// engine approximates by ±50% (the ms-standard-resilience preset).
const (
	pollyJitterFlat = 0.25
	pollyJitterExp  = 0.5
)

var pollyOptionKeys = []string{"Retry", "CircuitBreaker", "AttemptTimeout", "TotalRequestTimeout", "RateLimiter", "Hedging", "Endpoint"}

// isPollyOptions reports whether o looks like HttpStandardResilienceOptions.
func isPollyOptions(m map[string]any) bool {
	for k := range m {
		for _, want := range pollyOptionKeys {
			if strings.EqualFold(k, want) {
				return true
			}
		}
	}
	return false
}

func importPolly(data []byte) (*Imported, error) {
	tree, err := decodeJSON(data)
	if err != nil {
		return nil, err
	}
	var n notes
	if _, ok := tree.(map[string]any); !ok {
		n.fail("", tree, "is not a JSON object; an appsettings.json object is needed")
		return nil, n.err()
	}
	var sts []engine.Strategy
	var walk func(path, section string, v any) bool
	// walk finds the options objects under v, and says whether it found one.
	walk = func(path, section string, v any) bool {
		m, ok := v.(map[string]any)
		if !ok {
			return false
		}
		if isPollyOptions(m) {
			name := section
			if name == "" {
				name = "standard resilience"
			}
			st := engine.Strategy{Name: name}
			if isPollyHedging(m) {
				st = pollyHedgingOptions(&n, path, name, m)
			} else {
				st.Policy = pollyOptions(&n, path, m)
				if b := pollyRateLimiterOf(&n, path, m, true); b != nil {
					st.Bulkheads = []engine.Bulkhead{*b}
				}
			}
			sts = append(sts, st)
			return true
		}
		o := &object{path: path, m: m}
		found := false
		var other []string
		for _, k := range o.sortedKeys() {
			sec := k
			if section != "" {
				sec = section + ":" + k
			}
			if walk(join(path, k), sec, m[k]) {
				found = true
			} else {
				other = append(other, k)
			}
		}
		if found {
			for _, k := range other {
				n.info(join(path, k), "holds no resilience options (Retry, CircuitBreaker, AttemptTimeout, TotalRequestTimeout); not read")
			}
		}
		return found
	}
	if !walk("", "", tree) {
		return nil, engine.Errors{{Value: "the document", Message: "has no HttpStandardResilienceOptions: no object with Retry, CircuitBreaker, AttemptTimeout, TotalRequestTimeout, RateLimiter or (HttpStandardHedgingResilienceOptions) Hedging and Endpoint"}}
	}
	if err := n.err(); err != nil {
		return nil, err
	}
	return &Imported{Strategies: sts, Notes: n.list}, nil
}

// parseTimeSpan reads a .NET TimeSpan as TimeSpan.Parse does with the
// invariant culture: "[d.]hh:mm[:ss[.fffffff]]", or a whole number of days.
func parseTimeSpan(n *notes, path string, v any) (engine.Duration, bool) {
	var s string
	switch v := v.(type) {
	case string:
		s = strings.TrimSpace(v)
	case json.Number:
		s = v.String()
	}
	bad := func(why string) (engine.Duration, bool) {
		n.fail(path, v, "is not a TimeSpan%s; allowed \"hh:mm:ss\" with an optional fraction and days, such as \"00:00:02\", \"00:00:00.5\" or \"1.00:00:00\"", why)
		return 0, false
	}
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	// m holds, as the parts of "[d.]hh:mm[:ss[.f]]" or "d": the sign, the
	// bare days, the days, hours, minutes, seconds and fraction.
	m := make([]string, 8)
	head, tail, hasColon := strings.Cut(s, ":")
	if !hasColon {
		if !isDigits(s, 1, 8) {
			return bad("")
		}
		m[2] = s
	} else {
		days, hours, hasDays := strings.Cut(head, ".")
		if !hasDays {
			days, hours = "", head
		}
		mins, rest, hasSecs := strings.Cut(tail, ":")
		secs, frac, hasFrac := strings.Cut(rest, ".")
		if hasDays && !isDigits(days, 1, 8) || !isDigits(hours, 1, 2) || !isDigits(mins, 1, 2) ||
			hasSecs && !isDigits(secs, 1, 2) || hasFrac && !isDigits(frac, 1, 7) || !hasSecs && rest != "" {
			return bad("")
		}
		m[3], m[4], m[5], m[6], m[7] = days, hours, mins, secs, frac
	}
	if neg {
		m[1] = "-"
	}
	atoi := func(s string) int64 { k, _ := strconv.ParseInt(cmpOr(s, "0"), 10, 64); return k }
	if m[2] != "" {
		days := atoi(m[2])
		if days > 1 {
			n.fail(path, v, "is read by .NET as %d days (TimeSpan.Parse), longer than RetryLab simulates; allowed up to 1.00:00:00 (a day)", days)
			return 0, false
		}
		n.warn(path, "a bare number is read by .NET as %d days (TimeSpan.Parse); write \"00:00:%02d\" for seconds", days, min(days, 59))
		return engine.Duration(days * 86400e9), true
	}
	h, mi, sec := atoi(m[4]), atoi(m[5]), atoi(m[6])
	if h > 23 || mi > 59 || sec > 59 {
		return bad(": hours go to 23, minutes and seconds to 59")
	}
	ticks := int64(0)
	if m[7] != "" {
		ticks = atoi((m[7] + "000000")[:7])
	}
	days := atoi(m[3])
	if days > 1 {
		n.fail(path, v, "is longer than RetryLab simulates; allowed up to 1.00:00:00 (a day)")
		return 0, false
	}
	d := engine.Duration((((days*24+h)*60+mi)*60+sec)*1e9 + ticks*100)
	if d > engine.MaxSpan {
		n.fail(path, v, "is longer than RetryLab simulates; allowed up to 1.00:00:00 (a day)")
		return 0, false
	}
	return d, true
}

// timeSpan formats d as .NET's constant ("c") TimeSpan format, the
// fraction's trailing zeros left out.
func timeSpan(d engine.Duration) string {
	ticks := int64(d) / 100
	frac := ticks % 1e7
	secs := ticks / 1e7
	s := fmt.Sprintf("%02d:%02d:%02d", secs/3600%24, secs/60%60, secs%60)
	if days := secs / 86400; days > 0 {
		s = strconv.FormatInt(days, 10) + "." + s
	}
	if frac != 0 {
		s += strings.TrimRight(fmt.Sprintf(".%07d", frac), "0")
	}
	return s
}

func pollyOptions(n *notes, path string, m map[string]any) engine.Policy {
	pol := msStandard()
	o := &object{path: path, m: m, read: map[string]bool{}}
	if v, p, ok := o.get("Retry", true); ok {
		pollyRetry(n, p, v, &pol)
	} else {
		n.info(join(path, "Retry"), "is not set: the standard handler's retry, 3 retries of exponential backoff from 2 s with jitter")
		n.warn(join(path, "Retry"), "the standard handler's exponential jitter (Polly's DecorrelatedJitterBackoffV2) is approximated by ±50%% around 2, 4, 8 s; Polly's waits are shorter on average (conformance/polly_test.go)")
	}
	if v, p, ok := o.get("CircuitBreaker", true); ok {
		pollyBreaker(n, p, v, pol.Breaker)
	}
	for _, t := range []struct {
		key string
		dst *engine.Duration
	}{{"AttemptTimeout", &pol.AttemptTimeout}, {"TotalRequestTimeout", &pol.Deadline}} {
		v, p, ok := o.get(t.key, true)
		if !ok {
			continue
		}
		to, ok := asObject(n, p, v)
		if !ok {
			continue
		}
		if v, q, ok := to.get("Timeout", true); ok {
			if d, ok := parseTimeSpan(n, q, v); ok {
				if d < engine.Duration(10e6) || d > engine.Duration(86400e9) {
					n.warn(q, "is outside what Polly's TimeoutStrategyOptions allows (10 ms to 1 day): the handler would refuse it at startup")
				}
				*t.dst = d
			}
		}
		to.get("Name", true)
		to.unread(n, "is not a timeout option RetryLab reads; not read")
	}
	// RateLimiter is read by pollyRateLimiterOf, into the strategy.
	o.get("RateLimiter", true)
	o.unread(n, "is not an HttpStandardResilienceOptions field; not read")
	pollyChecks(n, join(path, "AttemptTimeout"), join(path, "CircuitBreaker.SamplingDuration"), &pol)
	return pol
}

// pollyChecks warns about what HttpStandardResilienceOptions' validation
// refuses at startup (dotnet/extensions
// HttpStandardResilienceOptionsCustomValidator.cs).
func pollyChecks(n *notes, attemptPath, windowPath string, pol *engine.Policy) {
	if pol.AttemptTimeout > 0 && pol.Deadline > 0 && pol.AttemptTimeout > pol.Deadline {
		n.warn(attemptPath, "the attempt timeout %s is longer than the total request timeout %s: the handler refuses this at startup", pol.AttemptTimeout, pol.Deadline)
	}
	if br := pol.Breaker; br != nil && br.Window > 0 && br.Window < 2*pol.AttemptTimeout {
		n.warn(windowPath, "the sampling duration %s is less than twice the attempt timeout %s: the handler refuses this at startup", br.Window, pol.AttemptTimeout)
	}
}

func pollyRetry(n *notes, path string, v any, pol *engine.Policy) {
	o, ok := asObject(n, path, v)
	if !ok {
		return
	}
	if v, p, ok := o.get("MaxRetryAttempts", true); ok {
		if k, ok := integer(n, p, v, true, 0, pollyMaxRetries); ok {
			switch {
			case k == pollyMaxRetries:
				pol.MaxAttempts = 0
				n.info(p, "is int.MaxValue, Polly's retry forever: unlimited attempts")
			case k >= engine.MaxAttempts:
				n.fail(p, v, "is out of range; RetryLab simulates up to %d retries, or %d (retry forever)", engine.MaxAttempts-1, pollyMaxRetries)
			default:
				if k == 0 {
					n.warn(p, "is 0: Polly's RetryStrategyOptions refuses it (at least 1); imported as no retries")
				}
				pol.MaxAttempts = k + 1
			}
		}
	}
	kind := engine.BackoffExponential
	if v, p, ok := o.get("BackoffType", true); ok {
		s := strings.TrimSpace(fmt.Sprint(v))
		switch {
		case strings.EqualFold(s, "Constant") || s == "0":
			kind = engine.BackoffConstant
		case strings.EqualFold(s, "Linear") || s == "1":
			kind = engine.BackoffLinear
		case strings.EqualFold(s, "Exponential") || s == "2":
		default:
			n.fail(p, v, "is not a DelayBackoffType; allowed Constant, Linear or Exponential")
		}
	}
	base, maxD := engine.Duration(2e9), engine.Duration(0)
	if v, p, ok := o.get("Delay", true); ok {
		if d, ok := parseTimeSpan(n, p, v); ok {
			if d > engine.Duration(86400e9) {
				n.warn(p, "is more than a day: Polly's RetryStrategyOptions refuses it at startup")
			}
			base = d
		}
	}
	if v, p, ok := o.get("MaxDelay", true); ok && v != nil {
		if d, ok := parseTimeSpan(n, p, v); ok {
			maxD = d
			if maxD < base {
				n.info(p, "is below Delay: every wait is MaxDelay, so both are imported as MaxDelay")
				base = maxD
			}
		}
	}
	jitter := true
	jp := join(path, "UseJitter")
	if v, p, ok := o.get("UseJitter", true); ok {
		jitter, _ = boolean(n, p, v, true)
		jp = p
	}
	if v, p, ok := o.get("ShouldRetryAfterHeader", true); ok {
		pol.HonorRetryAfter, _ = boolean(n, p, v, true)
	}
	o.get("Name", true)
	o.unread(n, "is not a retry option RetryLab reads; not read (ShouldHandle, DelayGenerator and OnRetry are code, not configuration)")
	pol.Backoff = engine.Backoff{Kind: kind, Base: base, Max: maxD}
	if kind == engine.BackoffExponential {
		pol.Backoff.Multiplier = 2
	}
	pol.Jitter = engine.Jitter{}
	switch {
	case base == 0:
		pol.Backoff = engine.Backoff{Kind: engine.BackoffNone}
	case jitter && kind == engine.BackoffExponential:
		pol.Jitter = engine.Jitter{Kind: engine.JitterProportional, Fraction: pollyJitterExp}
		n.warn(jp, "Polly's exponential jitter (DecorrelatedJitterBackoffV2) is approximated by ±50%% around each exponential delay; Polly's waits are shorter on average (conformance/polly_test.go)")
	case jitter:
		pol.Jitter = engine.Jitter{Kind: engine.JitterProportional, Fraction: pollyJitterFlat}
	}
}

func pollyBreaker(n *notes, path string, v any, br *engine.Breaker) {
	o, ok := asObject(n, path, v)
	if !ok {
		return
	}
	if v, p, ok := o.get("FailureRatio", true); ok {
		if f, ok := number(n, p, v, true); ok {
			if f <= 0 || f > 1 {
				n.fail(p, v, "is out of range; allowed above 0, up to 1")
			}
			br.Ratio = f
		}
	}
	if v, p, ok := o.get("MinimumThroughput", true); ok {
		if k, ok := integer(n, p, v, true, 2, 1_000_000); ok {
			br.MinThroughput = k
		}
	}
	for _, f := range []struct {
		key string
		dst *engine.Duration
	}{{"SamplingDuration", &br.Window}, {"BreakDuration", &br.Break}} {
		if v, p, ok := o.get(f.key, true); ok {
			if d, ok := parseTimeSpan(n, p, v); ok {
				if d < engine.Duration(500e6) || d > engine.Duration(86400e9) {
					n.fail(p, v, "is out of range; Polly allows 00:00:00.5 to 1.00:00:00")
				}
				*f.dst = d
			}
		}
	}
	o.get("Name", true)
	o.unread(n, "is not a circuit breaker option RetryLab reads; not read (ShouldHandle and BreakDurationGenerator are code)")
	n.info(path, "Polly samples the failure ratio in 10 rolling buckets of SamplingDuration; the engine's window slides exactly")
}

// Polly export.

type pollyJSON struct {
	RateLimiter         *pollyLimiterJSON `json:"RateLimiter,omitempty"`
	Retry               *pollyRetryJSON   `json:"Retry,omitempty"`
	CircuitBreaker      *pollyBreakerJSON `json:"CircuitBreaker,omitempty"`
	AttemptTimeout      *pollyTimeoutJSON `json:"AttemptTimeout,omitempty"`
	TotalRequestTimeout *pollyTimeoutJSON `json:"TotalRequestTimeout,omitempty"`
}

type pollyRetryJSON struct {
	MaxRetryAttempts       int    `json:"MaxRetryAttempts"`
	BackoffType            string `json:"BackoffType"`
	UseJitter              bool   `json:"UseJitter"`
	Delay                  string `json:"Delay"`
	MaxDelay               string `json:"MaxDelay,omitempty"`
	ShouldRetryAfterHeader bool   `json:"ShouldRetryAfterHeader"`
}

type pollyBreakerJSON struct {
	FailureRatio      float64 `json:"FailureRatio"`
	MinimumThroughput int     `json:"MinimumThroughput"`
	SamplingDuration  string  `json:"SamplingDuration"`
	BreakDuration     string  `json:"BreakDuration"`
}

type pollyTimeoutJSON struct {
	Timeout string `json:"Timeout"`
}

// pollySpan formats d as a TimeSpan, warning when it is finer than a tick.
func pollySpan(n *notes, path string, d engine.Duration) string {
	if d%100 != 0 {
		n.warn(path, "%s is finer than .NET's 100 ns ticks: rounded down", d)
	}
	return timeSpan(d)
}

func exportPolly(st *engine.Strategy, n *notes) []byte {
	if st.Hedging != nil {
		return exportPollyHedging(st, n)
	}
	unsupported(n, st, "HttpStandardResilienceOptions", "max_attempts", "attempt_timeout", "deadline", "backoff", "jitter",
		"retry_on", "honor_retry_after", "retry_after", "breaker", "bulkheads")
	var out pollyJSON
	out.RateLimiter = pollyLimiterFor(n, st)
	r := &pollyRetryJSON{MaxRetryAttempts: st.MaxAttempts - 1, ShouldRetryAfterHeader: st.HonorRetryAfter}
	switch st.MaxAttempts {
	case 0:
		r.MaxRetryAttempts = pollyMaxRetries
		n.info("max_attempts", "is unlimited: written as int.MaxValue, Polly's retry forever")
	case 1:
		r.MaxRetryAttempts = 1
		n.warn("max_attempts", "is 1, no retries: Polly requires MaxRetryAttempts of at least 1, so it is written as 1; remove the retry from the pipeline instead")
	}
	b := st.Backoff
	switch b.Kind {
	case engine.BackoffConstant:
		r.BackoffType = "Constant"
	case engine.BackoffLinear:
		r.BackoffType = "Linear"
	case engine.BackoffExponential:
		r.BackoffType = "Exponential"
		if b.Multiplier != 0 && b.Multiplier != 2 {
			n.warn("backoff.multiplier", "Polly's exponential backoff doubles; %v is written as 2", b.Multiplier)
		}
	default:
		r.BackoffType = "Constant"
	}
	r.Delay = pollySpan(n, "backoff.base", b.Base)
	if b.Max > 0 {
		r.MaxDelay = pollySpan(n, "backoff.max", b.Max)
	}
	if b.ThrottleBase != 0 {
		n.warn("backoff.throttle_base", "Polly has no other delay after throttling; not exported")
	}
	j := st.Jitter
	flat := j == engine.Jitter{Kind: engine.JitterProportional, Fraction: pollyJitterFlat}
	exp := j == engine.Jitter{Kind: engine.JitterProportional, Fraction: pollyJitterExp}
	switch {
	case j.Kind == "" || j.Kind == engine.JitterNone:
	case r.BackoffType == "Exponential" && exp:
		r.UseJitter = true
		n.info("jitter", "is ±50%%, RetryLab's stand-in for Polly's exponential jitter (DecorrelatedJitterBackoffV2): written as UseJitter")
	case r.BackoffType != "Exponential" && flat:
		r.UseJitter = true
	default:
		r.UseJitter = true
		want := "d·(1 ± 0.25)"
		if r.BackoffType == "Exponential" {
			want = "DecorrelatedJitterBackoffV2"
		}
		n.warn("jitter", "Polly's only jitter for %s backoff is %s; this jitter is written as UseJitter", r.BackoffType, want)
	}
	if ra := st.RetryAfter; st.HonorRetryAfter && ra != nil && (ra.Mode != "" && ra.Mode != engine.RetryAfterAtLeast || len(ra.Statuses) > 0) {
		n.warn("retry_after", "ShouldRetryAfterHeader waits the Retry-After of any retried answer; this mode is not exported")
	}
	std := msStandard()
	if !sameRetried(st.RetryOn, std.RetryOn) {
		n.warn("retry_on", "the standard handler's retried outcomes are code (HttpClientResiliencePredicates.IsTransient: 408, 429, 5xx, timeouts and connection errors), not configuration; these are not exported")
	}
	out.Retry = r
	switch std := msStandard(); {
	case st.AttemptTimeout > 0:
		out.AttemptTimeout = &pollyTimeoutJSON{Timeout: pollySpan(n, "attempt_timeout", st.AttemptTimeout)}
	case st.Deadline > 0 && st.Deadline < std.AttemptTimeout:
		// The default attempt timeout would outlast the total one, which
		// the handler refuses; an attempt timeout equal to the total one
		// never ends an attempt before the total one does.
		out.AttemptTimeout = &pollyTimeoutJSON{Timeout: pollySpan(n, "attempt_timeout", st.Deadline)}
		n.warn("attempt_timeout", "is not set: the standard handler always has one, and its default (%s) may not outlast the total request timeout; written as the total request timeout, %s, which ends no attempt earlier than the total one does", std.AttemptTimeout, st.Deadline)
	default:
		n.warn("attempt_timeout", "is not set: the standard handler always has an attempt timeout; its default, 10 s, applies")
	}
	if st.Deadline > 0 {
		out.TotalRequestTimeout = &pollyTimeoutJSON{Timeout: pollySpan(n, "deadline", st.Deadline)}
	} else {
		n.warn("deadline", "is not set: the standard handler always has a total request timeout; its default, 30 s, applies")
	}
	out.CircuitBreaker = pollyBreakerFor(n, st.Breaker)
	chk := st.Policy
	if chk.AttemptTimeout == 0 {
		chk.AttemptTimeout = std.AttemptTimeout
		if out.AttemptTimeout != nil {
			chk.AttemptTimeout = chk.Deadline
		}
	}
	if chk.Deadline == 0 {
		chk.Deadline = std.Deadline
	}
	if out.CircuitBreaker == nil {
		chk.Breaker = std.Breaker
	}
	pollyChecks(n, "attempt_timeout", "breaker.window", &chk)
	data, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		panic("convert: marshal Polly options: " + err.Error())
	}
	n.info("", "bind it to the handler with AddStandardResilienceHandler().Configure(configuration.GetSection(\"...\")); nest it under the section's name in appsettings.json")
	return append(data, '\n')
}

func pollyBreakerFor(n *notes, br *engine.Breaker) *pollyBreakerJSON {
	const defaults = "the standard handler always has a circuit breaker; its defaults (10% failures of at least 100 calls over 30 s, a 5 s break) apply"
	if br == nil {
		n.warn("breaker", "is not set: %s", defaults)
		return nil
	}
	if br.Kind != engine.BreakerRatio || br.Ratio == 0 || br.Window == 0 {
		n.warn("breaker", "Polly's breaker opens on a failure ratio over a time window; this %q breaker cannot be written: %s", br.Kind, defaults)
		return nil
	}
	out := &pollyBreakerJSON{FailureRatio: br.Ratio, MinimumThroughput: br.MinThroughput,
		SamplingDuration: pollySpan(n, "breaker.window", br.Window), BreakDuration: pollySpan(n, "breaker.break", br.Break)}
	if br.MinThroughput < 2 {
		n.warn("breaker.min_throughput", "is %d; Polly requires at least 2: written as 2", br.MinThroughput)
		out.MinimumThroughput = 2
	}
	if br.Window < engine.Duration(500e6) || br.Break < engine.Duration(500e6) {
		n.warn("breaker", "Polly requires SamplingDuration and BreakDuration of at least 0.5 s; the handler would refuse these at startup")
	}
	for _, f := range []struct {
		field string
		set   bool
		what  string
	}{
		{"placement", br.Placement == engine.PlaceOutside, "the standard handler's breaker is inside the retry, around each attempt"},
		{"scope", br.Scope == engine.ScopeClient, "the standard handler has one breaker per named client"},
	} {
		if f.set {
			n.warn("breaker."+f.field, "%s; not exported", f.what)
		}
	}
	pollyBreakerLimits(n, br)
	return out
}

// pollyBreakerLimits warns about every feature of br that Polly's
// circuit breaker has not, however it is configured (the standard
// handler's options or a pipeline built in C#).
func pollyBreakerLimits(n *notes, br *engine.Breaker) {
	for _, f := range []struct {
		field string
		set   bool
		what  string
	}{
		{"slow_call", br.SlowCall != 0, "Polly's breaker has no slow-call threshold"},
		{"break_end", br.BreakEnd == engine.BreakStrict, "Polly's break ends inclusively"},
		{"half_open_calls", br.HalfOpenCalls > 1, "Polly lets one trial call through"},
		{"half_open_failures", br.HalfOpenFailures > 1, "one failed trial reopens Polly's breaker"},
		{"half_open_decision", br.HalfOpenDecision == engine.HalfOpenAllTrials, "Polly decides on its one trial call"},
		{"window_buckets", br.WindowBuckets == engine.WindowEpochSeconds && br.Window > 0, "Polly's breaker does not count its sampling duration in whole epoch seconds"},
		{"auto_half_open", br.AutoHalfOpen, "Polly's breaker half-opens at the first call after the break, not by itself"},
		{"open_multiplier", br.OpenMultiplier > 0, "Polly's options keep the break duration fixed (a BreakDurationGenerator written in code can grow it)"},
	} {
		if f.set {
			n.warn("breaker."+f.field, "%s; not exported", f.what)
		}
	}
}

// sameRetried reports whether two retry_on retry the same outcomes.
func sameRetried(a, b *engine.RetryOn) bool {
	as, at, ac := retried(a)
	bs, bt, bc := retried(b)
	return slices.Equal(as, bs) && at == bt && ac == bc
}
