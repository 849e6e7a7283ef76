package convert

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/retrylab/retrylab/shared/engine"
)

// r4jPreset returns resilience4j's retry and circuit breaker defaults as
// RetryLab simulates them: the resilience4j preset of shared/scenarios,
// which the tests check field by field, and conformance/resilience4j_test.go
// compares with resilience4j's source.
func r4jPreset() engine.Policy {
	return engine.Policy{
		BasedOn:     "resilience4j",
		MaxAttempts: 3,
		Backoff:     engine.Backoff{Kind: engine.BackoffConstant, Base: engine.Duration(500e6)},
		RetryOn:     &engine.RetryOn{StatusRanges: []string{"400-599"}, Timeout: true, Connection: true},
		Breaker:     r4jBreakerDefaults(),
	}
}

// r4jBreakerDefaults is CircuitBreakerConfig's defaults (l. 43-52); a
// TIME_BASED window counts epoch seconds (SlidingTimeWindowMetrics).
func r4jBreakerDefaults() *engine.Breaker {
	return &engine.Breaker{Kind: engine.BreakerRatio, Ratio: 0.5, MinThroughput: 100, WindowCalls: 100,
		SlowCall: engine.Duration(60e9), SlowRatio: 1, Break: engine.Duration(60e9), BreakEnd: engine.BreakStrict,
		HalfOpenCalls: 10, HalfOpenFailures: 5, HalfOpenDecision: engine.HalfOpenAllTrials, WindowBuckets: engine.WindowEpochSeconds}
}

// r4jForever is the maxAttempts written for unlimited attempts:
// Integer.MAX_VALUE, resilience4j having no "retry forever".
const r4jForever = math.MaxInt32

// The default aspect orders of resilience4j-spring6's
// RetryConfigurationProperties, CircuitBreakerConfigurationProperties and
// TimeLimiterConfigurationProperties: Ordered.LOWEST_PRECEDENCE - 5, - 4
// and - 2. The lowest order runs outermost: Retry(CircuitBreaker(
// RateLimiter(TimeLimiter(Bulkhead(call))))).
const (
	r4jRetryOrder   = math.MaxInt32 - 5
	r4jBreakerOrder = math.MaxInt32 - 4
	r4jLimiterOrder = math.MaxInt32 - 2
	// BulkheadConfigurationProperties' bulkheadAspectOrder:
	// Ordered.LOWEST_PRECEDENCE, the innermost aspect.
	r4jBulkheadOrder = math.MaxInt32
)

// r4jProcessors is the processor count assumed for ThreadPoolBulkheadConfig's
// defaults, which are the machine's (Runtime.availableProcessors()):
// maxThreadPoolSize 4 and coreThreadPoolSize 3.
const r4jProcessors = 4

// r4jCanon is a key in Spring's relaxed binding's canonical form: lower
// case, without dashes and underscores, so that maxAttempts, max-attempts
// and max_attempts are one key.
func r4jCanon(k string) string {
	return strings.Map(func(r rune) rune {
		if r == '-' || r == '_' {
			return -1
		}
		if 'A' <= r && r <= 'Z' {
			return r + 'a' - 'A'
		}
		return r
	}, k)
}

// r4jKind is how a property's value is read.
type r4jKind int

const (
	r4jDur     r4jKind = iota // a Duration
	r4jInt                    // an Integer
	r4jFloat                  // a Double or Float
	r4jBool                   // a Boolean
	r4jEnum                   // an enum: one of the spec's values
	r4jClass                  // a Class
	r4jClasses                // a Class[]
	r4jString                 // a String
)

// An r4jSpec is one property of an InstanceProperties class: its name as
// resilience4j's documentation writes it, how it is read and the range
// its setter allows.
type r4jSpec struct {
	name   string
	kind   r4jKind
	lo, hi float64 // numbers: the setter's range; durations: in ns
	loOpen bool    // lo excluded
	hiOpen bool    // hi excluded
	enum   []string
}

// The properties of resilience4j-framework-common's
// CommonRetryConfigurationProperties.InstanceProperties,
// CommonCircuitBreakerConfigurationProperties.InstanceProperties and
// CommonTimeLimiterConfigurationProperties.InstanceProperties (af9e7c9),
// with their setters' checks.
var (
	r4jRetrySpecs = []r4jSpec{
		{name: "waitDuration", kind: r4jDur, lo: 0, hi: math.Inf(1)},
		{name: "maxAttempts", kind: r4jInt, lo: 1, hi: math.MaxInt32},
		{name: "enableExponentialBackoff", kind: r4jBool},
		{name: "exponentialBackoffMultiplier", kind: r4jFloat, lo: 0, loOpen: true, hi: math.Inf(1)},
		{name: "exponentialMaxWaitDuration", kind: r4jDur, lo: 0, hi: math.Inf(1)},
		{name: "enableRandomizedWait", kind: r4jBool},
		{name: "randomizedWaitFactor", kind: r4jFloat, lo: 0, hi: 1, hiOpen: true},
		{name: "retryExceptions", kind: r4jClasses},
		{name: "ignoreExceptions", kind: r4jClasses},
		{name: "retryExceptionPredicate", kind: r4jClass},
		{name: "resultPredicate", kind: r4jClass},
		{name: "consumeResultBeforeRetryAttempt", kind: r4jClass},
		{name: "intervalBiFunction", kind: r4jClass},
		{name: "failAfterMaxAttempts", kind: r4jBool},
		{name: "eventConsumerBufferSize", kind: r4jInt, lo: 1, hi: math.MaxInt32},
		{name: "baseConfig", kind: r4jString},
	}
	r4jBreakerSpecs = []r4jSpec{
		{name: "failureRateThreshold", kind: r4jFloat, lo: 1, hi: 100},
		{name: "slidingWindowType", kind: r4jEnum, enum: []string{"COUNT_BASED", "TIME_BASED"}},
		{name: "slidingWindowSize", kind: r4jInt, lo: 1, hi: math.MaxInt32},
		{name: "minimumNumberOfCalls", kind: r4jInt, lo: 1, hi: math.MaxInt32},
		{name: "waitDurationInOpenState", kind: r4jDur, lo: 1e6, hi: math.Inf(1)},
		{name: "permittedNumberOfCallsInHalfOpenState", kind: r4jInt, lo: 1, hi: math.MaxInt32},
		{name: "slowCallRateThreshold", kind: r4jFloat, lo: 1, hi: 100},
		{name: "slowCallDurationThreshold", kind: r4jDur, lo: 1, hi: math.Inf(1)},
		{name: "maxWaitDurationInHalfOpenState", kind: r4jDur, lo: 0, hi: math.Inf(1)},
		{name: "transitionToStateAfterWaitDuration", kind: r4jEnum, enum: []string{"OPEN", "CLOSED"}},
		{name: "automaticTransitionFromOpenToHalfOpenEnabled", kind: r4jBool},
		{name: "initialState", kind: r4jEnum, enum: []string{"CLOSED", "OPEN", "HALF_OPEN", "DISABLED", "FORCED_OPEN", "METRICS_ONLY"}},
		{name: "recordExceptions", kind: r4jClasses},
		{name: "ignoreExceptions", kind: r4jClasses},
		{name: "recordFailurePredicate", kind: r4jClass},
		{name: "recordResultPredicate", kind: r4jClass},
		{name: "ignoreExceptionPredicate", kind: r4jClass},
		{name: "enableExponentialBackoff", kind: r4jBool},
		{name: "exponentialBackoffMultiplier", kind: r4jFloat, lo: 0, loOpen: true, hi: math.Inf(1)},
		{name: "exponentialMaxWaitDurationInOpenState", kind: r4jDur, lo: 1e6, hi: math.Inf(1)},
		{name: "enableRandomizedWait", kind: r4jBool},
		{name: "randomizedWaitFactor", kind: r4jFloat, lo: 0, hi: 1, hiOpen: true},
		{name: "writableStackTraceEnabled", kind: r4jBool},
		{name: "allowHealthIndicatorToFail", kind: r4jBool},
		{name: "registerHealthIndicator", kind: r4jBool},
		{name: "eventConsumerBufferSize", kind: r4jInt, lo: 1, hi: math.MaxInt32},
		{name: "ignoreClassBindingExceptions", kind: r4jBool},
		{name: "baseConfig", kind: r4jString},
	}
	// CommonBulkheadConfigurationProperties.InstanceProperties and
	// CommonThreadPoolBulkheadConfigurationProperties.InstanceProperties,
	// with their setters' checks (a thread pool size of 0 is left unset,
	// as buildConfig skips it).
	r4jBulkheadSpecs = []r4jSpec{
		{name: "maxConcurrentCalls", kind: r4jInt, lo: 1, hi: math.MaxInt32},
		{name: "maxWaitDuration", kind: r4jDur, lo: 0, hi: math.Inf(1)},
		{name: "writableStackTraceEnabled", kind: r4jBool},
		{name: "eventConsumerBufferSize", kind: r4jInt, lo: 1, hi: math.MaxInt32},
		{name: "baseConfig", kind: r4jString},
	}
	r4jThreadPoolSpecs = []r4jSpec{
		{name: "maxThreadPoolSize", kind: r4jInt, lo: 0, hi: math.MaxInt32},
		{name: "coreThreadPoolSize", kind: r4jInt, lo: 0, hi: math.MaxInt32},
		{name: "queueCapacity", kind: r4jInt, lo: 0, hi: math.MaxInt32},
		{name: "keepAliveDuration", kind: r4jDur, lo: 0, hi: math.Inf(1)},
		{name: "writableStackTraceEnabled", kind: r4jBool},
		{name: "eventConsumerBufferSize", kind: r4jInt, lo: 1, hi: math.MaxInt32},
		{name: "contextPropagators", kind: r4jClasses},
		{name: "baseConfig", kind: r4jString},
	}
	r4jLimiterSpecs = []r4jSpec{
		{name: "timeoutDuration", kind: r4jDur, lo: 0, hi: math.Inf(1)},
		{name: "cancelRunningFuture", kind: r4jBool},
		{name: "eventConsumerBufferSize", kind: r4jInt, lo: 1, hi: math.MaxInt32},
		{name: "baseConfig", kind: r4jString},
	}
)

// An r4jField is a property's value, read, with its path.
type r4jField struct {
	v    any // engine.Duration, int, float64, bool, string, []string
	path string
}

// r4jProps is one entry of a module's configs or instances, by canonical
// property name.
type r4jProps struct {
	name string
	path string
	f    map[string]r4jField
}

func (p *r4jProps) has(k string) bool {
	_, ok := p.f[k]
	return ok
}

func (p *r4jProps) dur(k string) (engine.Duration, bool) {
	v, ok := p.f[k]
	if !ok {
		return 0, false
	}
	return v.v.(engine.Duration), true
}

func (p *r4jProps) num(k string) (float64, bool) {
	v, ok := p.f[k]
	if !ok {
		return 0, false
	}
	if i, isInt := v.v.(int); isInt {
		return float64(i), true
	}
	return v.v.(float64), true
}

func (p *r4jProps) flag(k string) bool {
	v, ok := p.f[k]
	return ok && v.v.(bool)
}

func (p *r4jProps) str(k string) string {
	v, ok := p.f[k]
	if !ok {
		return ""
	}
	return v.v.(string)
}

func (p *r4jProps) path2(k string) string {
	if v, ok := p.f[k]; ok {
		return v.path
	}
	return join(p.path, r4jDisplay[k])
}

// r4jDisplay is each property's name as resilience4j's documentation
// writes it, by canonical name, for the path of a property left out.
var r4jDisplay = func() map[string]string {
	m := map[string]string{}
	for _, specs := range [][]r4jSpec{r4jRetrySpecs, r4jBreakerSpecs, r4jLimiterSpecs, r4jBulkheadSpecs, r4jThreadPoolSpecs, r4jRateLimiterSpecs} {
		for _, s := range specs {
			m[r4jCanon(s.name)] = s.name
		}
	}
	return m
}()

// overlay returns a copy of base with p's fields on top.
func (p *r4jProps) overlay(base *r4jProps) *r4jProps {
	out := &r4jProps{name: p.name, path: p.path, f: map[string]r4jField{}}
	if base != nil {
		for k, v := range base.f {
			out.f[k] = v
		}
	}
	for k, v := range p.f {
		out.f[k] = v
	}
	return out
}

// An r4jModule is resilience4j.retry, .circuitbreaker or .timelimiter.
type r4jModule struct {
	path      string
	configs   map[string]*r4jProps
	instances map[string]*r4jProps
	order     int
	orderPath string
}

// r4jSplitKey splits a Spring property key at its dots, keeping a
// "[bracketed]" part whole (without its brackets), as Spring reads
// "resilience4j.retry.instances.[a.b].maxAttempts".
func r4jSplitKey(k string) []string {
	var parts []string
	for k != "" {
		if k[0] == '[' {
			if end := strings.IndexByte(k, ']'); end > 0 {
				parts = append(parts, k[1:end])
				k = strings.TrimPrefix(k[end+1:], ".")
				continue
			}
		}
		part, rest, _ := strings.Cut(k, ".")
		parts = append(parts, part)
		k = rest
	}
	return parts
}

// r4jExpand turns dotted keys ("resilience4j.retry: ...") into nested
// mappings, as Spring flattens YAML into properties, merging mappings
// written in parts.
func r4jExpand(n *notes, path string, v any) any {
	m, ok := v.(map[string]any)
	if !ok {
		return v
	}
	out := map[string]any{}
	o := &object{m: m}
	for _, k := range o.sortedKeys() {
		parts := r4jSplitKey(k)
		if len(parts) == 0 {
			parts = []string{k}
		}
		r4jPut(n, path, out, parts, r4jExpand(n, join(path, k), m[k]))
	}
	return out
}

func r4jPut(n *notes, path string, out map[string]any, parts []string, v any) {
	key := parts[0]
	p := join(path, key)
	if len(parts) > 1 {
		sub, ok := out[key].(map[string]any)
		if !ok {
			if old, exists := out[key]; exists {
				n.fail(p, old, "is given both as a value and as a mapping; allowed one")
				return
			}
			sub = map[string]any{}
			out[key] = sub
		}
		r4jPut(n, p, sub, parts[1:], v)
		return
	}
	old, exists := out[key]
	if !exists {
		out[key] = v
		return
	}
	om, ok1 := old.(map[string]any)
	vm, ok2 := v.(map[string]any)
	if !ok1 || !ok2 {
		n.fail(p, v, "is given twice (once with dots in a key); allowed once")
		return
	}
	for _, k := range (&object{m: vm}).sortedKeys() {
		r4jPut(n, p, om, []string{k}, vm[k])
	}
}

// r4jMerge merges document b into a, b's values winning.
func r4jMerge(a, b map[string]any) {
	for k, v := range b {
		am, ok1 := a[k].(map[string]any)
		bm, ok2 := v.(map[string]any)
		if ok1 && ok2 {
			r4jMerge(am, bm)
			continue
		}
		a[k] = v
	}
}

// r4jFind returns the fields of o whose canonical name is key, marked read.
func r4jFind(n *notes, o *object, key string) (any, string, bool) {
	var found []string
	for _, k := range o.sortedKeys() {
		if r4jCanon(k) == key {
			found = append(found, k)
		}
	}
	if len(found) == 0 {
		return nil, "", false
	}
	for _, k := range found {
		o.read[k] = true
	}
	if len(found) > 1 {
		n.fail(join(o.path, found[1]), o.m[found[1]], "is the same property as %s (Spring's relaxed binding); allowed once", found[0])
	}
	return o.m[found[0]], join(o.path, found[0]), true
}

func importResilience4j(data []byte) (*Imported, error) {
	docs, err := decodeYAML(data)
	if err != nil {
		return nil, err
	}
	var n notes
	root := map[string]any{}
	withR4j := 0
	for i, d := range docs {
		m, ok := r4jExpand(&n, "", d).(map[string]any)
		if !ok {
			n.fail("", d, "is not a mapping; document %d of a Spring Boot application.yml must be one", i+1)
			continue
		}
		o := &object{m: m, read: map[string]bool{}}
		if _, _, ok := r4jFind(&n, o, "resilience4j"); ok {
			withR4j++
		}
		r4jMerge(root, m)
	}
	if err := n.err(); err != nil {
		return nil, err
	}
	if withR4j > 1 {
		n.warn("", "%d documents set resilience4j properties: read as if every profile were active, a later document's values replacing an earlier one's", withR4j)
	}
	top := &object{m: root, read: map[string]bool{}}
	v, p, ok := r4jFind(&n, top, "resilience4j")
	if !ok {
		return nil, engine.Errors{{Value: "the document", Message: "has no resilience4j properties; allowed resilience4j.retry, resilience4j.circuitbreaker and resilience4j.timelimiter with instances or configs" + formatHint(docs, Resilience4j)}}
	}
	for _, k := range top.sortedKeys() {
		if !top.read[k] {
			n.info(k, "is not a resilience4j property; not read")
		}
	}
	r, ok := asObject(&n, p, v)
	if !ok {
		return nil, n.err()
	}
	mods := map[string]*r4jModule{}
	for _, m := range []struct {
		key, order string
		specs      []r4jSpec
		orderDef   int
	}{
		{"retry", "retryaspectorder", r4jRetrySpecs, r4jRetryOrder},
		{"circuitbreaker", "circuitbreakeraspectorder", r4jBreakerSpecs, r4jBreakerOrder},
		{"timelimiter", "timelimiteraspectorder", r4jLimiterSpecs, r4jLimiterOrder},
		{"bulkhead", "bulkheadaspectorder", r4jBulkheadSpecs, r4jBulkheadOrder},
		// The thread pool bulkhead runs in the Bulkhead aspect, whose
		// order is bulkhead.bulkheadAspectOrder.
		{"threadpoolbulkhead", "", r4jThreadPoolSpecs, r4jBulkheadOrder},
		{"ratelimiter", "ratelimiteraspectorder", r4jRateLimiterSpecs, r4jRateLimiterOrder},
	} {
		if v, p, ok := r4jFind(&n, r, m.key); ok {
			mods[m.key] = r4jReadModule(&n, p, v, m.order, m.specs)
		}
		if mods[m.key] == nil {
			mods[m.key] = &r4jModule{order: m.orderDef}
		} else if mods[m.key].orderPath == "" {
			mods[m.key].order = m.orderDef
		}
	}
	for _, k := range r.sortedKeys() {
		if r.read[k] {
			continue
		}
		n.warn(join(r.path, k), "is not a resilience4j module RetryLab reads (retry, circuitbreaker, timelimiter, bulkhead, thread-pool-bulkhead, ratelimiter); not read")
	}
	if err := n.err(); err != nil {
		return nil, err
	}
	names := map[string]bool{}
	for _, m := range mods {
		for name := range m.instances {
			names[name] = true
		}
	}
	if len(names) == 0 {
		for _, m := range mods {
			if m.configs["default"] != nil {
				names["default"] = true
			}
		}
		if names["default"] {
			n.info(r.path, "has no instances: the default configs are imported as one strategy named \"default\", what a @Retry or @CircuitBreaker of a name not configured gets")
		}
	}
	if len(names) == 0 {
		return nil, engine.Errors{{Path: r.path, Value: "an object", Message: "has no instances and no default configs; allowed resilience4j.retry.instances.NAME, resilience4j.circuitbreaker.instances.NAME or resilience4j.timelimiter.instances.NAME"}}
	}
	var sts []engine.Strategy
	for _, name := range slicesSorted(names) {
		st := engine.Strategy{Name: name, Policy: r4jPolicy(&n, mods, name)}
		st.RateLimit = r4jRateLimiterFrom(&n, mods, name, &st.Policy)
		if b := r4jBulkheadFrom(&n, mods, name); b != nil {
			st.Bulkheads = []engine.Bulkhead{*b}
		}
		sts = append(sts, st)
	}
	if err := n.err(); err != nil {
		return nil, err
	}
	return &Imported{Strategies: sts, Notes: dedupNotes(n.list)}, nil // configs.default is read for each instance
}

func slicesSorted(m map[string]bool) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

func r4jReadModule(n *notes, path string, v any, orderKey string, specs []r4jSpec) *r4jModule {
	o, ok := asObject(n, path, v)
	if !ok {
		return nil
	}
	m := &r4jModule{path: path, configs: map[string]*r4jProps{}, instances: map[string]*r4jProps{}}
	read := func(key string, dst map[string]*r4jProps) {
		v, p, ok := r4jFind(n, o, key)
		if !ok || v == nil {
			return
		}
		entries, ok := asObject(n, p, v)
		if !ok {
			return
		}
		for _, name := range entries.sortedKeys() {
			if _, dup := dst[name]; dup {
				n.fail(join(p, name), name, "is given twice (instances and backends are one map); allowed once")
				continue
			}
			dst[name] = r4jReadProps(n, join(p, name), name, entries.m[name], specs)
		}
	}
	read("configs", m.configs)
	read("instances", m.instances)
	if _, p, ok := r4jFind(n, o, "backends"); ok {
		n.info(p, "is the older name of instances; read as instances")
		read("backends", m.instances)
	}
	if v, p, ok := r4jFind(n, o, orderKey); ok {
		if k, ok := integer(n, p, v, true, math.MinInt32, math.MaxInt32); ok {
			m.order, m.orderPath = k, p
		}
	}
	if _, p, ok := r4jFind(n, o, "tags"); ok {
		n.info(p, "tags metrics; not read")
	}
	o.unread(n, "is not a property of this resilience4j module; not read")
	return m
}

func r4jReadProps(n *notes, path, name string, v any, specs []r4jSpec) *r4jProps {
	props := &r4jProps{name: name, path: path, f: map[string]r4jField{}}
	if v == nil {
		return props
	}
	o, ok := asObject(n, path, v)
	if !ok {
		return props
	}
	for _, s := range specs {
		key := r4jCanon(s.name)
		v, p, ok := r4jFind(n, o, key)
		if !ok {
			continue
		}
		if val, ok := r4jValue(n, p, v, s); ok {
			props.f[key] = r4jField{v: val, path: p}
		}
	}
	o.unread(n, "is not a resilience4j property here; not read")
	return props
}

// r4jValue reads a property's value as Spring's binder converts it.
func r4jValue(n *notes, path string, v any, s r4jSpec) (any, bool) {
	between := func(f float64) bool {
		return (f > s.lo || !s.loOpen && f == s.lo) && (f < s.hi || !s.hiOpen && f == s.hi)
	}
	switch s.kind {
	case r4jDur:
		d, ok := springDuration(n, path, v)
		if !ok {
			return nil, false
		}
		if !between(float64(d)) {
			n.fail(path, v, "is refused by resilience4j's %s setter; allowed at least %s", s.name, engine.Duration(s.lo))
			return nil, false
		}
		return d, true
	case r4jInt:
		k, ok := integer(n, path, v, true, int(s.lo), int(s.hi))
		return k, ok
	case r4jFloat:
		f, ok := number(n, path, v, true)
		if !ok {
			return nil, false
		}
		if !between(f) {
			lo, hi := "from", "to"
			if s.loOpen {
				lo = "above"
			}
			if s.hiOpen {
				hi = "below"
			}
			allowed := fmt.Sprintf("%s %v", lo, s.lo)
			if !math.IsInf(s.hi, 1) {
				allowed += fmt.Sprintf(" %s %v", hi, s.hi)
			}
			n.fail(path, v, "is refused by resilience4j's %s setter; allowed %s", s.name, allowed)
			return nil, false
		}
		return f, true
	case r4jBool:
		if str, ok := v.(string); ok {
			// Spring's StringToBooleanConverter.
			switch strings.ToLower(strings.TrimSpace(str)) {
			case "true", "on", "yes", "1":
				return true, true
			case "false", "off", "no", "0":
				return false, true
			}
		}
		b, ok := boolean(n, path, v, false)
		return b, ok
	case r4jEnum:
		str, _ := v.(string)
		for _, e := range s.enum {
			// Spring's LenientStringToEnumConverter: any case, dashes
			// and underscores left out.
			if str != "" && r4jCanon(str) == r4jCanon(e) {
				return e, true
			}
		}
		n.fail(path, v, "is not a %s; allowed %s", s.name, strings.Join(s.enum, ", "))
		return nil, false
	case r4jClass, r4jString:
		str, ok := v.(string)
		if !ok || strings.TrimSpace(str) == "" {
			n.fail(path, v, "is not a name; allowed a string")
			return nil, false
		}
		return strings.TrimSpace(str), true
	case r4jClasses:
		var out []string
		switch v := v.(type) {
		case string:
			// Spring splits a comma-separated string into an array.
			for _, c := range strings.Split(v, ",") {
				if c = strings.TrimSpace(c); c != "" {
					out = append(out, c)
				}
			}
		case []any:
			for i, c := range v {
				str, ok := c.(string)
				if !ok || strings.TrimSpace(str) == "" {
					n.fail(index(path, i), c, "is not a class name; allowed a fully qualified name such as java.io.IOException")
					continue
				}
				out = append(out, strings.TrimSpace(str))
			}
		default:
			n.fail(path, v, "is not a list of class names")
			return nil, false
		}
		return out, true
	}
	return nil, false
}

var (
	springSimple = regexp.MustCompile(`^([+-]?\d+)([a-zA-Z]{0,2})$`)
	javaISO      = regexp.MustCompile(`^(?i)([-+]?)P(?:([-+]?[0-9]+)D)?(T(?:([-+]?[0-9]+)H)?(?:([-+]?[0-9]+)M)?(?:([-+]?[0-9]+)(?:[.,]([0-9]{0,9}))?S)?)?$`)
)

// springDuration reads a duration as Spring Boot's DurationStyle does:
// "500ms", "10s", "2m" (ns, us, ms, s, m, h, d in any case), a bare
// number of milliseconds, or ISO-8601 as java.time.Duration.parse reads
// it ("PT0.5S").
func springDuration(n *notes, path string, v any) (engine.Duration, bool) {
	var s string
	switch v := v.(type) {
	case json.Number:
		s = v.String()
	case string:
		s = strings.TrimSpace(v)
	default:
		n.fail(path, v, "is not a duration; allowed \"500ms\", \"10s\", \"PT0.5S\" or a number of milliseconds")
		return 0, false
	}
	bad := func() (engine.Duration, bool) {
		n.fail(path, v, "is not a duration as Spring Boot reads it; allowed a whole number with a unit (ns, us, ms, s, m, h, d: \"500ms\", \"10s\"), a whole number of milliseconds, or ISO-8601 (\"PT0.5S\")")
		return 0, false
	}
	tooLong := func() (engine.Duration, bool) {
		n.fail(path, v, "is longer than RetryLab simulates; allowed up to a day (24h)")
		return 0, false
	}
	var ns float64
	if m := springSimple.FindStringSubmatch(s); m != nil {
		k, err := strconv.ParseFloat(m[1], 64)
		if err != nil {
			return bad()
		}
		unit := map[string]float64{"": 1e6, "ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9, "m": 60e9, "h": 3600e9, "d": 86400e9}
		u, ok := unit[strings.ToLower(m[2])]
		if !ok {
			return bad()
		}
		ns = k * u
		if m[2] == "" && k != 0 {
			n.info(path, "is a bare number: Spring Boot reads it as %s ms; write \"%sms\" (or another unit) to say so", m[1], m[1])
		}
	} else if m := javaISO.FindStringSubmatch(s); m != nil && (m[2] != "" || m[4] != "" || m[5] != "" || m[6] != "") && (m[3] == "" || !strings.EqualFold(m[3], "T")) {
		part := func(s string, unit float64) float64 {
			k, _ := strconv.ParseFloat(cmpOr(s, "0"), 64)
			return k * unit
		}
		ns = part(m[2], 86400e9) + part(m[4], 3600e9) + part(m[5], 60e9) + part(m[6], 1e9)
		if m[7] != "" {
			f := part((m[7] + "000000000")[:9], 1)
			if strings.HasPrefix(m[6], "-") {
				f = -f
			}
			ns += f
		}
		if m[1] == "-" {
			ns = -ns
		}
	} else {
		return bad()
	}
	if ns < 0 {
		n.fail(path, v, "is negative; resilience4j refuses negative durations")
		return 0, false
	}
	if ns > float64(engine.MaxSpan) {
		return tooLong()
	}
	return engine.Duration(ns), true
}

// springDurationString writes d as Spring Boot's simple style, in the
// largest unit that divides it.
func springDurationString(d engine.Duration) string {
	for _, u := range []struct {
		name string
		ns   int64
	}{{"h", 3600e9}, {"m", 60e9}, {"s", 1e9}, {"ms", 1e6}, {"us", 1e3}} {
		if int64(d) >= u.ns && int64(d)%u.ns == 0 {
			return strconv.FormatInt(int64(d)/u.ns, 10) + u.name
		}
	}
	if d == 0 {
		return "0ms"
	}
	return strconv.FormatInt(int64(d), 10) + "ns"
}

// r4jResolve returns the properties of the module's entry as resilience4j
// builds its config: the entry's own on top of its base's. Retry and
// TimeLimiter (Common*ConfigurationProperties.create*Config) start from
// configs[baseConfig], else, for any name but "default", from
// configs.default, each base built the same way; CircuitBreaker starts
// from configs[baseConfig] (built the same way), else from a config of the
// entry's own name, else from configs.default, a config being its own base.
func (m *r4jModule) resolve(n *notes, name string, p *r4jProps, breaker bool, depth int) *r4jProps {
	if depth > len(m.configs)+1 {
		n.fail(p.path2("baseconfig"), p.str("baseconfig"), "makes a cycle of baseConfig; resilience4j never finishes building it")
		return p
	}
	var base *r4jProps
	switch bc := p.str("baseconfig"); {
	case bc != "":
		bp := m.configs[bc]
		if bp == nil {
			n.fail(p.path2("baseconfig"), bc, "names no config of %s.configs (ConfigurationNotFoundException); allowed %s", m.path, quoteList(slicesSorted(keysOf(m.configs))))
			return p
		}
		if breaker && bc == name {
			n.fail(p.path2("baseconfig"), bc, "is the instance's own name (\"Circular reference detected\")")
			return p
		}
		base = m.resolve(n, bc, bp, breaker, depth+1)
	case breaker && m.configs[name] != nil && m.configs[name] != p:
		base = m.configs[name]
	case breaker && m.configs[name] == p:
	case name != "default" && m.configs["default"] != nil:
		base = m.resolve(n, "default", m.configs["default"], breaker, depth+1)
	}
	return p.overlay(base)
}

func keysOf(m map[string]*r4jProps) map[string]bool {
	out := map[string]bool{}
	for k := range m {
		out[k] = true
	}
	return out
}

// r4jEffective returns the module's effective properties for the
// strategy's name: its instance, or the default config when the document
// has no instances. It also returns the retry's own properties before
// inheritance, which decide its waits.
func (m *r4jModule) effective(n *notes, name string, breaker bool) (eff, own *r4jProps) {
	own = m.instances[name]
	if own == nil {
		own = m.configs["default"]
		if own == nil || len(m.instances) > 0 || name != "default" {
			return nil, nil
		}
		return m.resolve(n, "default", own, breaker, 0), own
	}
	return m.resolve(n, name, own, breaker, 0), own
}

func r4jPolicy(n *notes, mods map[string]*r4jModule, name string) engine.Policy {
	pol := r4jPreset()
	pol.Breaker = nil
	rm, cm, tm := mods["retry"], mods["circuitbreaker"], mods["timelimiter"]
	if eff, own := rm.effective(n, name, false); eff != nil {
		r4jRetryInto(n, rm, name, eff, own, &pol)
	} else {
		pol.MaxAttempts = 1
		n.info("resilience4j.retry.instances."+name, "has no retry instance: one attempt (the preset's wait and retried outcomes are kept for an export)")
	}
	for _, m := range []*r4jModule{cm, tm} {
		if m.instances[name] == nil && len(m.instances) > 0 && m.configs["default"] != nil {
			n.info(join(m.path, "configs.default"), "applies to an annotation naming %q, which has no instance here: not imported (add an instance to import it)", name)
		}
	}
	if eff, _ := cm.effective(n, name, true); eff != nil {
		pol.Breaker = r4jBreakerFrom(n, eff)
		if cm.order < rm.order {
			pol.Breaker.Placement = engine.PlaceOutside
			n.info(cm.orderPath, "is below retryAspectOrder: the circuit breaker is outside the retry, around the whole call")
		} else if cm.order == rm.order {
			n.warn(cm.orderPath, "equals retryAspectOrder: Spring runs the two aspects in an undefined order; imported with the breaker inside the retry")
		}
	}
	if eff, _ := tm.effective(n, name, false); eff != nil {
		d, ok := eff.dur("timeoutduration")
		path := eff.path2("timeoutduration")
		if !ok {
			d = engine.Duration(1e9)
			n.info(path, "is not set: TimeLimiterConfig's default, 1 s")
		}
		if d == 0 {
			n.fail(path, "0", "times out every call at once; allowed above 0")
		}
		for _, k := range []string{"cancelrunningfuture", "eventconsumerbuffersize"} {
			if eff.has(k) {
				n.info(eff.path2(k), "no effect on what the client sees of a call; not read")
			}
		}
		if tm.order < rm.order {
			pol.Deadline = d
			n.info(tm.orderPath, "is below retryAspectOrder: the time limiter is outside the retry, a deadline for the whole call")
		} else {
			pol.AttemptTimeout = d
			if tm.order == rm.order {
				n.warn(tm.orderPath, "equals retryAspectOrder: Spring runs the two aspects in an undefined order; imported as a timeout of each attempt")
			}
		}
		n.info(path, "the TimeLimiter aspect applies to methods returning a CompletionStage or a reactive type; a blocking method needs its HTTP client's timeout instead; a timed-out attempt throws java.util.concurrent.TimeoutException")
	}
	return pol
}

// r4jRetryInto reads the retry's effective properties into pol.
func r4jRetryInto(n *notes, m *r4jModule, name string, eff, own *r4jProps, pol *engine.Policy) {
	if k, ok := eff.num("maxattempts"); ok {
		path := eff.path2("maxattempts")
		switch {
		case k == r4jForever:
			pol.MaxAttempts = 0
			n.info(path, "is Integer.MAX_VALUE: unlimited attempts")
		case k > engine.MaxAttempts:
			n.fail(path, int(k), "is more attempts than RetryLab simulates; allowed 1 to %d, or %d (unlimited)", engine.MaxAttempts, r4jForever)
		default:
			pol.MaxAttempts = int(k)
		}
	}
	r4jWaitInto(n, m, name, own, pol)
	ro := r4jRetried(n, eff, pol.RetryOn)
	pol.RetryOn = ro
	for _, k := range []string{"retryexceptionpredicate", "resultpredicate", "consumeresultbeforeretryattempt"} {
		if eff.has(k) {
			n.warn(eff.path2(k), "is code (%s), not simulated: RetryLab retries on the outcomes of retry_on", eff.str(k))
		}
	}
	if eff.has("failaftermaxattempts") {
		n.info(eff.path2("failaftermaxattempts"), "changes only what a call retried on its result returns at the end; RetryLab retries on outcomes, not results")
	}
	if eff.has("eventconsumerbuffersize") {
		n.info(eff.path2("eventconsumerbuffersize"), "sizes the event buffer; no effect on calls")
	}
}

// r4jWaitInto sets pol's backoff and jitter as resilience4j's
// CommonRetryConfigurationProperties.configureRetryIntervalFunction
// builds the interval function: from an entry's own waitDuration and the
// flags it has or merged from its base (ConfigUtils.mergePropertiesIfAny:
// enableExponentialBackoff, enableRandomizedWait,
// exponentialBackoffMultiplier and exponentialMaxWaitDuration, not
// randomizedWaitFactor); an entry without a waitDuration keeps its base's
// function.
func r4jWaitInto(n *notes, m *r4jModule, name string, own *r4jProps, pol *engine.Policy) {
	// The chain of entries, the instance first.
	var chain []*r4jProps
	for p, nm, depth := own, name, 0; p != nil && depth <= len(m.configs)+1; depth++ {
		chain = append(chain, p)
		switch bc := p.str("baseconfig"); {
		case bc != "":
			p, nm = m.configs[bc], bc
		case nm != "default" && m.configs["default"] != nil:
			p, nm = m.configs["default"], "default"
		default:
			p = nil
		}
	}
	for i, p := range chain {
		if !p.has("waitduration") {
			continue
		}
		// The entry builds the function from its fields, and those merged
		// from the entries after it in the chain.
		merged := &r4jProps{path: p.path, f: map[string]r4jField{}}
		for k := len(chain) - 1; k > i; k-- {
			for _, key := range []string{"enableexponentialbackoff", "enablerandomizedwait", "exponentialbackoffmultiplier", "exponentialmaxwaitduration"} {
				if v, ok := chain[k].f[key]; ok {
					merged.f[key] = v
				}
			}
		}
		for k, v := range p.f {
			merged.f[k] = v
		}
		r4jInterval(n, merged, pol)
		for _, later := range chain[:i] {
			for _, key := range []string{"enableexponentialbackoff", "enablerandomizedwait", "exponentialbackoffmultiplier", "exponentialmaxwaitduration", "randomizedwaitfactor"} {
				if later.has(key) {
					n.warn(later.path2(key), "has no effect without a waitDuration beside it: resilience4j keeps the interval function of %s (CommonRetryConfigurationProperties.configureRetryIntervalFunction)", p.path)
				}
			}
		}
		return
	}
	for _, p := range chain {
		for _, key := range []string{"enableexponentialbackoff", "enablerandomizedwait", "exponentialbackoffmultiplier", "exponentialmaxwaitduration", "randomizedwaitfactor"} {
			if p.has(key) {
				n.warn(p.path2(key), "has no effect without a waitDuration: resilience4j waits its default, a fixed 500 ms (CommonRetryConfigurationProperties.configureRetryIntervalFunction)")
			}
		}
	}
}

// r4jInterval sets the waits from an entry with a waitDuration, branch
// for branch as configureRetryIntervalFunction does.
func r4jInterval(n *notes, p *r4jProps, pol *engine.Policy) {
	wait, _ := p.dur("waitduration")
	wp := p.path2("waitduration")
	exp, rnd := p.flag("enableexponentialbackoff"), p.flag("enablerandomizedwait")
	mult, hasMult := p.num("exponentialbackoffmultiplier")
	factor, hasFactor := p.num("randomizedwaitfactor")
	maxW, hasMax := p.dur("exponentialmaxwaitduration")
	ignored := func(key, why string) {
		if p.has(key) {
			n.warn(p.path2(key), "is ignored by resilience4j %s (CommonRetryConfigurationProperties)", why)
		}
	}
	if !hasMult {
		mult = 1.5
	}
	if !hasFactor {
		factor = 0.5
	}
	if wait%1e6 != 0 {
		n.warn(wp, "is finer than a millisecond: resilience4j waits whole milliseconds (Duration.toMillis), so %s", engine.Duration(wait/1e6*1e6))
		wait = wait / 1e6 * 1e6
	}
	if (exp || rnd) && wait < 1e6 {
		n.fail(wp, springDurationString(wait), "is refused by resilience4j's IntervalFunction (less than 1 ms); allowed at least 1ms with exponential or randomized waits")
		return
	}
	switch {
	case exp && rnd:
		if hasMax && !(hasFactor && hasMult) {
			ignored("exponentialmaxwaitduration", "unless exponentialBackoffMultiplier and randomizedWaitFactor are set too")
			hasMax = false
		}
		if hasFactor && !hasMult {
			ignored("randomizedwaitfactor", "unless exponentialBackoffMultiplier is set too: the factor is 0.5")
			factor = 0.5
		}
	case exp:
		if hasMax && !hasMult {
			ignored("exponentialmaxwaitduration", "unless exponentialBackoffMultiplier is set too")
			hasMax = false
		}
		ignored("randomizedwaitfactor", "without enableRandomizedWait")
	case rnd:
		ignored("exponentialbackoffmultiplier", "without enableExponentialBackoff")
		ignored("exponentialmaxwaitduration", "without enableExponentialBackoff")
	default:
		ignored("exponentialbackoffmultiplier", "without enableExponentialBackoff")
		ignored("exponentialmaxwaitduration", "without enableExponentialBackoff")
		ignored("randomizedwaitfactor", "without enableRandomizedWait")
	}
	pol.Jitter = engine.Jitter{}
	switch {
	case !exp && wait == 0:
		pol.Backoff = engine.Backoff{Kind: engine.BackoffNone}
	case !exp:
		pol.Backoff = engine.Backoff{Kind: engine.BackoffConstant, Base: wait}
	default:
		if mult < 1 || mult > 100 {
			n.fail(p.path2("exponentialbackoffmultiplier"), mult, "is a multiplier RetryLab does not simulate; allowed 1 to 100")
			return
		}
		pol.Backoff = engine.Backoff{Kind: engine.BackoffExponential, Base: wait, Multiplier: mult}
		if hasMax {
			if maxW%1e6 != 0 {
				n.warn(p.path2("exponentialmaxwaitduration"), "is finer than a millisecond: resilience4j caps at whole milliseconds")
				maxW = maxW / 1e6 * 1e6
			}
			if maxW < 1e6 {
				n.fail(p.path2("exponentialmaxwaitduration"), springDurationString(maxW), "is refused by resilience4j's IntervalFunction (less than 1 ms)")
				return
			}
			pol.Backoff.Max = maxW
		}
		if mult != math.Trunc(mult) {
			n.info(p.path2("exponentialbackoffmultiplier"), "resilience4j rounds each wait down to a whole millisecond before multiplying again; the engine multiplies exactly (less than 1 ms apart per retry)")
		}
	}
	if rnd && factor > 0 {
		pol.Jitter = engine.Jitter{Kind: engine.JitterProportional, Fraction: factor}
		if exp && pol.Backoff.Max > 0 {
			n.warn(p.path2("exponentialmaxwaitduration"), "resilience4j caps the randomized wait (IntervalFunction.ofExponentialRandomBackoff: min(randomize(wait), max)); the engine randomizes the capped wait, so its waits at the cap spread up to ±%v around it", factor)
		}
	}
}

// An r4jOutcome is what an exception class stands for among RetryLab's
// outcomes: HTTP statuses from lo to hi, timeouts, connection errors.
type r4jOutcome struct {
	lo, hi              int
	timeout, connection bool
}

// r4jSpringStatus are the subclasses, one per status, of Spring's
// HttpClientErrorException and HttpServerErrorException (and of
// WebClientResponseException and Feign's FeignException, named alike).
var r4jSpringStatus = map[string]int{
	"BadRequest": 400, "Unauthorized": 401, "Forbidden": 403, "NotFound": 404, "MethodNotAllowed": 405,
	"NotAcceptable": 406, "Conflict": 409, "Gone": 410, "UnsupportedMediaType": 415, "UnprocessableEntity": 422,
	"TooManyRequests": 429, "InternalServerError": 500, "NotImplemented": 501, "BadGateway": 502,
	"ServiceUnavailable": 503, "GatewayTimeout": 504,
}

// r4jExceptions are the exception classes whose outcomes RetryLab knows:
// those Spring's RestTemplate and RestClient
// (org.springframework.web.client), WebClient and OpenFeign throw for an
// HTTP answer or an I/O failure, java.net's and the TimeLimiter's
// TimeoutException.
var r4jExceptions = map[string]r4jOutcome{
	"java.lang.Throwable":                                                         {400, 599, true, true},
	"java.lang.Exception":                                                         {400, 599, true, true},
	"java.lang.RuntimeException":                                                  {400, 599, true, true},
	"java.io.IOException":                                                         {0, -1, true, true},
	"java.net.ConnectException":                                                   {0, -1, false, true},
	"java.net.SocketTimeoutException":                                             {0, -1, true, false},
	"java.net.http.HttpTimeoutException":                                          {0, -1, true, false},
	"java.util.concurrent.TimeoutException":                                       {0, -1, true, false},
	"org.springframework.web.client.RestClientException":                          {400, 599, true, true},
	"org.springframework.web.client.RestClientResponseException":                  {400, 599, false, false},
	"org.springframework.web.client.HttpStatusCodeException":                      {400, 599, false, false},
	"org.springframework.web.client.HttpClientErrorException":                     {400, 499, false, false},
	"org.springframework.web.client.HttpServerErrorException":                     {500, 599, false, false},
	"org.springframework.web.client.ResourceAccessException":                      {0, -1, true, true},
	"org.springframework.web.reactive.function.client.WebClientException":         {400, 599, true, true},
	"org.springframework.web.reactive.function.client.WebClientResponseException": {400, 599, false, false},
	"org.springframework.web.reactive.function.client.WebClientRequestException":  {0, -1, true, true},
	"feign.FeignException":                                                        {400, 599, true, true},
	"feign.FeignException$FeignClientException":                                   {400, 499, false, false},
	"feign.FeignException$FeignServerException":                                   {500, 599, false, false},
	"feign.RetryableException":                                                    {0, -1, true, true},
}

// r4jException returns the outcomes a class name stands for. Nested
// classes may be written with "$" or ".".
func r4jException(name string) (r4jOutcome, bool) {
	if o, ok := r4jExceptions[name]; ok {
		return o, true
	}
	i := strings.LastIndexAny(name, "$.")
	if i < 0 {
		return r4jOutcome{}, false
	}
	outer, inner := name[:i], name[i+1:]
	if o, ok := r4jExceptions[outer+"$"+inner]; ok {
		return o, true
	}
	status, ok := r4jSpringStatus[inner]
	if !ok {
		return r4jOutcome{}, false
	}
	switch outer {
	case "org.springframework.web.client.HttpClientErrorException", "org.springframework.web.client.HttpServerErrorException",
		"org.springframework.web.reactive.function.client.WebClientResponseException", "feign.FeignException":
		if o := r4jExceptions[outer]; status >= o.lo && status <= o.hi {
			return r4jOutcome{status, status, false, false}, true
		}
	}
	return r4jOutcome{}, false
}

// r4jSet is a set of outcomes: statuses 400 to 599, timeouts, connection
// errors.
type r4jSet struct {
	status              [200]bool
	timeout, connection bool
}

func (s *r4jSet) add(o r4jOutcome, on bool) {
	for k := max(o.lo, 400); k <= min(o.hi, 599); k++ {
		s.status[k-400] = on
	}
	if o.timeout {
		s.timeout = on
	}
	if o.connection {
		s.connection = on
	}
}

// retryOn returns the set as a retry_on: runs of 3 or more as ranges.
func (s *r4jSet) retryOn() *engine.RetryOn {
	ro := &engine.RetryOn{Timeout: s.timeout, Connection: s.connection}
	for i := 0; i < len(s.status); {
		if !s.status[i] {
			i++
			continue
		}
		j := i
		for j+1 < len(s.status) && s.status[j+1] {
			j++
		}
		if j-i >= 2 {
			ro.StatusRanges = append(ro.StatusRanges, fmt.Sprintf("%d-%d", 400+i, 400+j))
		} else {
			for k := i; k <= j; k++ {
				ro.Statuses = append(ro.Statuses, 400+k)
			}
		}
		i = j + 1
	}
	return ro
}

// r4jRetried reads retryExceptions and ignoreExceptions into a retry_on:
// RetryConfig retries an exception that is an instance of one of
// retryExceptions (all of them when none is given) and of none of
// ignoreExceptions.
func r4jRetried(n *notes, eff *r4jProps, def *engine.RetryOn) *engine.RetryOn {
	retry, hasRetry := eff.f["retryexceptions"]
	ignore, hasIgnore := eff.f["ignoreexceptions"]
	if !hasRetry && !hasIgnore {
		n.info(eff.path, "retries every exception (RetryConfig's default): imported as %s, what Spring's RestTemplate, RestClient and WebClient throw on", r4jDescribe(def))
		return def
	}
	var s r4jSet
	known := 0
	if hasRetry {
		for i, c := range retry.v.([]string) {
			o, ok := r4jException(c)
			if !ok {
				n.warn(index(retry.path, i), "%s is not an exception RetryLab knows the outcomes of (Spring's web client exceptions, java.io and java.net's, feign's): not counted", c)
				continue
			}
			known++
			s.add(o, true)
		}
	}
	named := hasRetry && len(retry.v.([]string)) > 0
	switch {
	case known == 0 && named:
		// resilience4j retries only instances of the named classes,
		// none of which the HTTP client throws on the outcomes RetryLab
		// simulates: it retries none of them.
		n.warn(retry.path, "names no exception RetryLab knows, and resilience4j retries only those: none of the HTTP client's failures (Spring's web client exceptions, java.io and java.net's, feign's) is retried, imported as retrying nothing; name your client's exceptions to retry its failures")
	case known == 0:
		s.add(r4jOutcome{400, 599, true, true}, true)
	}
	if hasIgnore {
		for i, c := range ignore.v.([]string) {
			o, ok := r4jException(c)
			if !ok {
				n.warn(index(ignore.path, i), "%s is not an exception RetryLab knows the outcomes of: not counted", c)
				continue
			}
			s.add(o, false)
		}
	}
	path := retry.path
	if !hasRetry {
		path = ignore.path
	}
	n.info(path, "retried as %s: the statuses of the HTTP client's exceptions (Spring's RestTemplate, RestClient and WebClient, Feign), timeouts and connection errors as java.net's and the TimeLimiter's exceptions", r4jDescribe(s.retryOn()))
	return s.retryOn()
}

// r4jDescribe says what a retry_on retries, in words.
func r4jDescribe(ro *engine.RetryOn) string {
	statuses, timeout, connection := retried(ro)
	var parts []string
	if len(statuses) > 0 {
		parts = append(parts, statusList(statuses))
	}
	if timeout {
		parts = append(parts, "timeouts")
	}
	if connection {
		parts = append(parts, "connection errors")
	}
	if len(parts) == 0 {
		return "nothing"
	}
	return strings.Join(parts, ", ")
}

// r4jBreakerFrom reads a circuit breaker's effective properties.
func r4jBreakerFrom(n *notes, eff *r4jProps) *engine.Breaker {
	br := r4jBreakerDefaults()
	rate := 50.0
	if f, ok := eff.num("failureratethreshold"); ok {
		rate = f
	}
	br.Ratio = rate / 100
	size := 100
	if k, ok := eff.num("slidingwindowsize"); ok {
		size = int(k)
	}
	minCalls := 100
	if k, ok := eff.num("minimumnumberofcalls"); ok {
		minCalls = int(k)
	}
	switch eff.str("slidingwindowtype") {
	case "TIME_BASED":
		if size > 86400 {
			n.fail(eff.path2("slidingwindowsize"), size, "is a time window longer than RetryLab simulates; allowed up to 86400 seconds")
		}
		br.WindowCalls = 0
		br.Window = engine.Duration(int64(size) * 1e9)
		br.MinThroughput = minCalls
	default:
		if size > 100_000 {
			n.fail(eff.path2("slidingwindowsize"), size, "is more calls than RetryLab's count window holds; allowed up to 100000")
		}
		br.WindowCalls = size
		br.MinThroughput = min(minCalls, size)
		switch {
		case minCalls > size && eff.has("minimumnumberofcalls"):
			n.info(eff.path2("minimumnumberofcalls"), "is more than the window's %d calls: resilience4j uses %d (CircuitBreakerMetrics)", size, size)
		case minCalls > size:
			n.info(eff.path2("minimumnumberofcalls"), "is not set: its default, 100, is more than the window's %d calls, and resilience4j uses %d (CircuitBreakerMetrics)", size, size)
		}
	}
	if br.MinThroughput > 1_000_000 {
		n.fail(eff.path2("minimumnumberofcalls"), br.MinThroughput, "is more than RetryLab simulates; allowed up to 1000000")
	}
	if d, ok := eff.dur("waitdurationinopenstate"); ok {
		br.Break = d
	}
	if k, ok := eff.num("permittednumberofcallsinhalfopenstate"); ok {
		if k > 1000 {
			n.fail(eff.path2("permittednumberofcallsinhalfopenstate"), k, "is more trial calls than RetryLab simulates; allowed up to 1000")
		}
		br.HalfOpenCalls = int(k)
	}
	br.HalfOpenFailures = r4jHalfOpenFailures(br.Ratio, br.HalfOpenCalls)
	slowRate := 100.0
	if f, ok := eff.num("slowcallratethreshold"); ok {
		slowRate = f
	}
	br.SlowRatio = slowRate / 100
	if d, ok := eff.dur("slowcalldurationthreshold"); ok {
		br.SlowCall = d
	}
	if eff.has("slowcallratethreshold") || eff.has("slowcalldurationthreshold") {
		if slow := r4jHalfOpenFailures(br.SlowRatio, br.HalfOpenCalls); slow != br.HalfOpenFailures {
			n.warn(eff.path2("slowcallratethreshold"), "resilience4j reopens a half-open breaker on %d slow trials of %d; the engine on as many slow trials as failed ones, %d", slow, br.HalfOpenCalls, br.HalfOpenFailures)
		}
	}
	br.AutoHalfOpen = eff.flag("automatictransitionfromopentohalfopenenabled")
	if d, ok := eff.dur("maxwaitdurationinhalfopenstate"); ok && d > 0 {
		n.warn(eff.path2("maxwaitdurationinhalfopenstate"), "is not simulated: the engine's half-open state waits for all its trial calls")
	}
	if eff.has("transitiontostateafterwaitduration") {
		n.warn(eff.path2("transitiontostateafterwaitduration"), "is not simulated (it follows maxWaitDurationInHalfOpenState)")
	}
	if st := eff.str("initialstate"); st != "" && st != "CLOSED" {
		n.warn(eff.path2("initialstate"), "is not simulated: the engine's breaker starts closed")
	}
	if eff.flag("enableexponentialbackoff") && eff.flag("enablerandomizedwait") {
		n.fail(eff.path2("enablerandomizedwait"), true, "is refused with enableExponentialBackoff (IllegalStateException); allowed one of them")
	}
	// The engine's breaker has one wait (breaker.break), which
	// open_multiplier and max_open may lengthen at each reopening: a
	// randomized wait cannot be expressed, so it is a warning saying
	// what is simulated instead.
	simulated := fmt.Sprintf("the engine's breaker has one wait, so every open state is simulated as waitDurationInOpenState, %s", br.Break)
	if eff.flag("enableexponentialbackoff") {
		r4jOpenBackoff(n, eff, br)
	}
	if eff.flag("enablerandomizedwait") {
		f, ok := eff.num("randomizedwaitfactor")
		if !ok {
			f = 0.5 // IntervalFunction.DEFAULT_RANDOMIZATION_FACTOR
		}
		n.warn(eff.path2("enablerandomizedwait"), "is not simulated: resilience4j draws each open-state wait within ±%v of waitDurationInOpenState (IntervalFunction.ofRandomized); %s", f, simulated)
	}
	for _, k := range []string{"exponentialbackoffmultiplier", "exponentialmaxwaitdurationinopenstate", "randomizedwaitfactor"} {
		switch {
		case !eff.has(k):
		case !eff.flag("enableexponentialbackoff") && !eff.flag("enablerandomizedwait"):
			n.info(eff.path2(k), "has no effect without enableExponentialBackoff or enableRandomizedWait")
		case k == "randomizedwaitfactor" && eff.flag("enablerandomizedwait"):
			n.info(eff.path2(k), "read into the warning on the open-state wait: not simulated")
		case k == "randomizedwaitfactor" || !eff.flag("enableexponentialbackoff"):
			n.info(eff.path2(k), "has no effect on this wait (it is for the other of enableExponentialBackoff and enableRandomizedWait)")
		}
	}
	recorded := false
	for _, k := range []string{"recordexceptions", "ignoreexceptions", "recordfailurepredicate", "recordresultpredicate", "ignoreexceptionpredicate"} {
		recorded = recorded || eff.has(k)
	}
	if !recorded {
		n.warn(eff.path, "resilience4j records every exception as a failure, so every 4xx answer an HTTP client throws on; the engine's breaker counts timeouts, connection errors, 408, 429 and 5xx answers, not the other 4xx (the resilience4j preset's difference)")
	}
	for _, k := range []string{"recordexceptions", "ignoreexceptions", "recordfailurepredicate", "recordresultpredicate", "ignoreexceptionpredicate"} {
		if eff.has(k) {
			n.warn(eff.path2(k), "is not simulated: the engine's breaker counts timeouts, connection errors, 408, 429 and 5xx answers as failures, and the other answers as successes")
		}
	}
	for _, k := range []string{"writablestacktraceenabled", "allowhealthindicatortofail", "registerhealthindicator", "eventconsumerbuffersize", "ignoreclassbindingexceptions"} {
		if eff.has(k) {
			n.info(eff.path2(k), "no effect on calls; not read")
		}
	}
	return br
}

// r4jOpenBackoff reads enableExponentialBackoff on a circuit breaker into
// breaker.open_multiplier and max_open, as
// CommonCircuitBreakerConfigurationProperties (af9e7c9,
// configureCircuitBreakerOpenStateIntervalFunction and
// configureEnableExponentialBackoff) builds it: only with a
// waitDurationInOpenState of at least 1 ms set, the multiplier
// exponentialBackoffMultiplier or IntervalFunction's DEFAULT_MULTIPLIER
// 1.5, capped by exponentialMaxWaitDurationInOpenState only when the
// multiplier is set too. CircuitBreakerStateMachine applies it to the
// OpenState's attempts: 1 when it opens from closed, one more at each
// reopening from half-open, 0 again once closed; IntervalFunction.java's
// ofExponentialBackoff(initial, multiplier, max) is min(initial ·
// multiplier^(attempts−1), max), each step rounded down to a millisecond.
func r4jOpenBackoff(n *notes, eff *r4jProps, br *engine.Breaker) {
	path := eff.path2("enableexponentialbackoff")
	if d, ok := eff.dur("waitdurationinopenstate"); !ok || d < 1e6 {
		n.warn(path, "has no effect without waitDurationInOpenState set: resilience4j then keeps its fixed wait, %s (CommonCircuitBreakerConfigurationProperties configures the exponential wait only from a waitDurationInOpenState); not read", br.Break)
		return
	}
	mult, hasMult := eff.num("exponentialbackoffmultiplier")
	if !hasMult {
		mult = 1.5 // IntervalFunction.DEFAULT_MULTIPLIER
		n.info(path, "exponentialBackoffMultiplier is not set: IntervalFunction's default, 1.5")
	}
	maxW, hasMax := eff.dur("exponentialmaxwaitdurationinopenstate")
	if hasMax && !hasMult {
		n.warn(eff.path2("exponentialmaxwaitdurationinopenstate"), "has no effect unless exponentialBackoffMultiplier is set too (resilience4j then grows the wait by 1.5 without a cap); not read")
		hasMax = false
	}
	if mult < 1 || mult > 100 {
		n.warn(eff.path2("exponentialbackoffmultiplier"), "is %v, a multiplier RetryLab does not simulate (allowed 1 to 100): every open state is simulated as waitDurationInOpenState, %s", mult, br.Break)
		return
	}
	if hasMax && maxW <= br.Break {
		// min(wait·m^k, max) is max at every opening.
		n.info(eff.path2("exponentialmaxwaitdurationinopenstate"), "is not longer than waitDurationInOpenState: every open state lasts %s, read as break", maxW)
		br.Break = maxW
		return
	}
	br.OpenMultiplier = mult
	if hasMax {
		br.MaxOpen = maxW
	}
	if mult != math.Trunc(mult) || br.Break%1e6 != 0 {
		n.info(path, "resilience4j rounds each open-state wait down to a whole millisecond before multiplying it again; the engine multiplies exactly (less than 1 ms apart per opening)")
	}
}

// r4jHalfOpenFailures is how many failed trials of n reopen a breaker
// whose failure rate threshold is ratio: the failure rate is at or above
// the threshold when failures ≥ ⌈ratio·n⌉ (CircuitBreakerMetrics).
func r4jHalfOpenFailures(ratio float64, n int) int {
	n = max(n, 1)
	return max(1, min(n, int(math.Ceil(ratio*float64(n)-1e-9))))
}

// Export.

// r4jOut is what a resilience4j export writes, for the YAML and the Java
// code alike.
type r4jOut struct {
	maxAttempts int
	wait        engine.Duration
	exp         bool
	mult        float64
	maxWait     engine.Duration
	randomized  bool
	factor      float64
	retryEx     []string // nil: every exception
	ignoreEx    []string
	breaker     *r4jOutBreaker
	timeout     engine.Duration // the TimeLimiter's timeoutDuration; 0: none
	// orders: the aspect orders to write, when the breaker or the time
	// limiter is outside the retry.
	breakerOutside, limiterOutside bool
}

type r4jOutBreaker struct {
	timeBased     bool
	size          int
	minCalls      int
	rate          float64 // percent
	wait          engine.Duration
	halfOpenCalls int
	slowRate      float64 // percent
	slowDuration  engine.Duration
	autoHalfOpen  bool
	openMult      float64         // 0: one wait
	maxOpen       engine.Duration // with openMult; 0: no cap
}

// r4jRetryClasses are the classes an export writes for what a retry_on
// retries, when it is not everything.
var r4jRetryClasses = []struct {
	class string
	o     r4jOutcome
}{
	{"org.springframework.web.client.HttpClientErrorException", r4jOutcome{400, 499, false, false}},
	{"org.springframework.web.client.HttpServerErrorException", r4jOutcome{500, 599, false, false}},
	{"org.springframework.web.client.ResourceAccessException", r4jOutcome{0, -1, true, true}},
	{"java.util.concurrent.TimeoutException", r4jOutcome{0, -1, true, false}},
	{"java.net.ConnectException", r4jOutcome{0, -1, false, true}},
}

// r4jExport decides what a strategy is in resilience4j's terms, with the
// notes; YAML and Java write it.
func r4jExport(st *engine.Strategy, n *notes, java bool) r4jOut {
	handled := []string{"max_attempts", "attempt_timeout", "deadline", "backoff", "jitter", "retry_on",
		"honor_retry_after", "retry_after", "breaker"}
	if !java {
		// The Spring Boot YAML writes a bulkhead (r4jExportBulkhead) and
		// a fixed-window rate limiter (r4jExportRateLimiter).
		handled = append(handled, "bulkheads")
		if st.RateLimit != nil && st.RateLimit.Kind == engine.RateLimitFixedWindow {
			handled = append(handled, "client_rate_limit")
		}
	}
	unsupported(n, st, "resilience4j", handled...)
	out := r4jOut{maxAttempts: st.MaxAttempts}
	if st.MaxAttempts == 0 {
		out.maxAttempts = r4jForever
		n.info("max_attempts", "is unlimited: written as Integer.MAX_VALUE, resilience4j having no unlimited retries")
	}
	ms := func(path string, d engine.Duration) engine.Duration {
		if d%1e6 != 0 {
			n.warn(path, "%s is finer than resilience4j's whole milliseconds: rounded down", d)
		}
		return d / 1e6 * 1e6
	}
	b, j := st.Backoff, st.Jitter
	switch b.Kind {
	case engine.BackoffConstant:
		out.wait = ms("backoff.base", b.Base)
		if b.Max > 0 && b.Max < b.Base {
			out.wait = ms("backoff.max", b.Max)
		}
	case engine.BackoffLinear:
		out.wait = ms("backoff.base", b.Base)
		if b.Max > 0 {
			n.warn("backoff.max", "resilience4j's configuration has no linear backoff to cap; not exported")
		}
		n.warn("backoff.kind", "resilience4j's configuration has no linear backoff: written as a fixed wait of %s (IntervalFunction.of(interval, backoffFunction) in code can grow it linearly)", out.wait)
	case engine.BackoffExponential:
		out.exp = true
		out.wait = ms("backoff.base", b.Base)
		out.mult = cmpFloat(b.Multiplier, engine.DefaultMultiplier)
		if b.Max > 0 {
			out.maxWait = ms("backoff.max", b.Max)
		}
	}
	if b.ThrottleBase != 0 {
		n.warn("backoff.throttle_base", "resilience4j has no other wait after throttling; not exported")
	}
	if out.exp && out.wait < 1e6 {
		n.warn("backoff.base", "is under 1 ms, which resilience4j's IntervalFunction refuses: written as 1ms")
		out.wait = 1e6
	}
	switch j.Kind {
	case "", engine.JitterNone:
	case engine.JitterProportional:
		f := cmpFloat(j.Fraction, engine.DefaultFraction)
		switch {
		case out.wait == 0:
			n.warn("jitter", "resilience4j randomizes only a wait of at least 1 ms; not exported")
		case f >= 1:
			n.warn("jitter.fraction", "is %v; resilience4j's randomizedWaitFactor is below 1: not exported", f)
		default:
			out.randomized, out.factor = true, f
			if out.exp && out.maxWait > 0 {
				n.warn("jitter", "resilience4j caps the randomized wait (min(randomize(wait), max)) where the engine randomizes the capped one: waits near exponentialMaxWaitDuration differ")
			}
		}
	default:
		n.warn("jitter", "resilience4j randomizes a wait by ±randomizedWaitFactor only; %q jitter is not exported", j.Kind)
	}
	if st.HonorRetryAfter {
		n.warn("honor_retry_after", "resilience4j's configuration does not read Retry-After (an IntervalBiFunction in code can); not exported")
	}
	if st.AttemptTimeout > 0 {
		out.timeout = st.AttemptTimeout
		switch {
		case st.Deadline > 0 && java:
			n.warn("deadline", "only the attempt timeout's TimeLimiter is written; the deadline is not exported (a second TimeLimiter around the retrying call would be it)")
		case st.Deadline > 0:
			n.warn("deadline", "resilience4j has one TimeLimiter per name, written as the attempt timeout; the deadline is not exported")
		}
	} else if st.Deadline > 0 {
		out.timeout, out.limiterOutside = st.Deadline, true
		if java {
			n.info("deadline", "written as a time limiter to put around the retrying call")
		} else {
			n.info("deadline", "written as a TimeLimiter outside the retry (timeLimiterAspectOrder below retryAspectOrder); the aspect orders apply to every instance of the application")
		}
	}
	out.retryEx, out.ignoreEx = r4jExportRetried(n, st.RetryOn, out.timeout > 0 && !out.limiterOutside)
	if out.retryEx != nil && len(out.retryEx) == 0 {
		out.maxAttempts, out.retryEx = 1, nil
	}
	if out.timeout > 0 {
		path := "attempt_timeout"
		if out.limiterOutside {
			path = "deadline"
		}
		if java {
			n.info(path, "a TimeLimiter decorates a CompletionStage or a Future; for a blocking call set the HTTP client's timeout instead")
		} else {
			n.info(path, "the TimeLimiter aspect applies to methods returning a CompletionStage or a reactive type; for a blocking method set the HTTP client's timeout instead")
		}
	}
	if br := st.Breaker; br != nil {
		out.breaker = r4jExportBreaker(n, br)
		out.breakerOutside = br.Placement == engine.PlaceOutside
		if out.breakerOutside && !java {
			n.info("breaker.placement", "is outside: written as circuitBreakerAspectOrder below retryAspectOrder, for every instance of the application")
		}
		if br.Scope == engine.ScopeClient {
			n.info("breaker.scope", "use the same circuit breaker name for all the client's calls for a client-wide breaker")
		}
	}
	return out
}

// r4jExportRetried returns the retryExceptions for what ro retries: nil
// when it is everything (resilience4j's default). With a TimeLimiter
// inside the retry (limiter), a timed-out attempt throws the TimeLimiter's
// TimeoutException, which is written too when timeouts are retried.
func r4jExportRetried(n *notes, ro *engine.RetryOn, limiter bool) (retry, ignore []string) {
	want := r4jSet{}
	statuses, timeout, connection := retried(ro)
	var outside []int
	for _, s := range statuses {
		if s < 400 || s > 599 {
			outside = append(outside, s)
			continue
		}
		want.status[s-400] = true
	}
	want.timeout, want.connection = timeout, connection
	if len(outside) > 0 {
		n.warn("retry_on", "retries %s: no exception of an HTTP client stands for these statuses; not exported", statusList(outside))
	}
	all := r4jSet{}
	all.add(r4jOutcome{400, 599, true, true}, true)
	if want == all {
		return nil, nil
	}
	var missing []int
	// Each family (4xx, 5xx): the family's class, with the subclasses of
	// the statuses it does not retry ignored, when every one of those has
	// a subclass and they are fewer than the retried; else a subclass per
	// retried status.
	for _, c := range r4jRetryClasses[:2] {
		var in, out []int
		for k := c.o.lo; k <= c.o.hi; k++ {
			if want.status[k-400] {
				in = append(in, k)
			} else {
				out = append(out, k)
			}
		}
		named := true
		for _, k := range out {
			named = named && r4jStatusName(k) != ""
		}
		if len(in) > 0 && named && len(out) < len(in) {
			retry = append(retry, c.class)
			for _, k := range out {
				ignore = append(ignore, c.class+"$"+r4jStatusName(k))
			}
			continue
		}
		for _, k := range in {
			if name := r4jStatusName(k); name != "" {
				retry = append(retry, c.class+"$"+name)
			} else {
				missing = append(missing, k)
			}
		}
	}
	switch {
	case want.timeout && want.connection:
		retry = append(retry, r4jRetryClasses[2].class)
	case want.timeout:
		retry = append(retry, r4jRetryClasses[3].class)
	case want.connection:
		retry = append(retry, r4jRetryClasses[4].class)
	}
	if want.timeout && limiter && !slices.Contains(retry, r4jRetryClasses[3].class) {
		retry = append(retry, r4jRetryClasses[3].class)
	}
	if len(missing) > 0 {
		n.warn("retry_on", "retries %s, statuses Spring's HttpClientErrorException and HttpServerErrorException have no subclass for: not exported", statusList(missing))
	}
	if len(retry) == 0 {
		n.warn("retry_on", "retries nothing resilience4j's retryExceptions can name: written as maxAttempts 1")
		return []string{}, nil
	}
	n.info("retry_on", "written as retryExceptions of Spring's RestTemplate and RestClient (org.springframework.web.client; ResourceAccessException for timeouts and connection errors together); use your HTTP client's exceptions if it is another")
	return retry, ignore
}

// r4jStatusName is the name of Spring's exception subclass for a status,
// or "".
func r4jStatusName(status int) string {
	for name, s := range r4jSpringStatus {
		if s == status {
			return name
		}
	}
	return ""
}

func r4jExportBreaker(n *notes, br *engine.Breaker) *r4jOutBreaker {
	out := &r4jOutBreaker{wait: br.Break, halfOpenCalls: max(br.HalfOpenCalls, 1), slowRate: 100, slowDuration: 60e9}
	if br.Break < 1e6 {
		n.warn("breaker.break", "is under 1 ms, which resilience4j refuses: written as 1ms")
		out.wait = 1e6
	} else if br.Break%1e6 != 0 {
		n.warn("breaker.break", "%s is finer than resilience4j's whole milliseconds: rounded down", br.Break)
		out.wait = br.Break / 1e6 * 1e6
	}
	ratio := br.Ratio
	switch {
	case br.Kind == engine.BreakerConsecutive:
		out.size, out.minCalls, out.rate, ratio = br.Failures, br.Failures, 100, 1
		n.info("breaker.kind", "is consecutive (%d failures): written as a count window of %d calls with a 100%% failure rate threshold, which opens on the same calls", br.Failures, br.Failures)
	case br.Failures > 0:
		out.size, out.minCalls = br.WindowCalls, br.WindowCalls
		ratio = float64(br.Failures) / float64(br.WindowCalls)
		out.rate = r4jPercent(ratio)
		n.warn("breaker.failures", "resilience4j has no k-of-n threshold that opens before the window is full: written as %v%% of %d calls, with all %d calls needed", out.rate, br.WindowCalls, br.WindowCalls)
	case br.Window > 0:
		out.timeBased = true
		out.size = int(br.Window / 1e9)
		if br.Window%1e9 != 0 || out.size < 1 {
			out.size = max(1, int(math.Round(float64(br.Window)/1e9)))
			n.warn("breaker.window", "resilience4j's time window is whole seconds: %s written as %d", br.Window, out.size)
		}
		out.minCalls = br.MinThroughput
		out.rate = r4jPercent(ratio)
		if br.WindowBuckets != engine.WindowEpochSeconds {
			n.warn("breaker.window_buckets", "resilience4j counts a time window in whole epoch seconds (\"epoch_seconds\"); the exact window is not exported")
		}
	default:
		out.size, out.minCalls = br.WindowCalls, br.MinThroughput
		out.rate = r4jPercent(ratio)
	}
	if out.rate < 1 {
		n.warn("breaker.ratio", "is %v; resilience4j's failureRateThreshold is 1 to 100 percent: written as 1", ratio)
		out.rate = 1
	}
	if br.SlowCall > 0 {
		out.slowDuration = br.SlowCall
		out.slowRate = r4jPercent(cmpFloat(br.SlowRatio, 1))
		if out.slowRate < 1 {
			n.warn("breaker.slow_ratio", "is under resilience4j's 1%%: written as 1")
			out.slowRate = 1
		}
	} else {
		n.info("breaker.slow_call", "is not set: resilience4j always counts calls slower than slowCallDurationThreshold as slow, and its default, 60 s at 100%%, applies")
	}
	trials, fails := max(br.HalfOpenCalls, 1), max(br.HalfOpenFailures, 1)
	if want := r4jHalfOpenFailures(ratio, trials); fails != want {
		n.warn("breaker.half_open_failures", "resilience4j reopens on a failure rate of %v%% of its %d trials, %d failures; %d is not exported", out.rate, trials, want, fails)
	}
	if trials > 1 && br.HalfOpenDecision != engine.HalfOpenAllTrials {
		n.warn("breaker.half_open_decision", "resilience4j decides once all %d trials are in (\"all_trials\"); deciding early is not exported", trials)
	}
	out.autoHalfOpen = br.AutoHalfOpen
	if br.OpenMultiplier > 0 {
		out.openMult = br.OpenMultiplier
		if br.MaxOpen > 0 {
			out.maxOpen = br.MaxOpen / 1e6 * 1e6
			if br.MaxOpen%1e6 != 0 {
				n.warn("breaker.max_open", "%s is finer than resilience4j's whole milliseconds: rounded down", br.MaxOpen)
			}
		}
		if br.OpenMultiplier != math.Trunc(br.OpenMultiplier) {
			n.info("breaker.open_multiplier", "resilience4j rounds each open-state wait down to a whole millisecond before multiplying it again (less than 1 ms apart per opening)")
		}
	}
	if br.BreakEnd != engine.BreakStrict {
		n.warn("breaker.break_end", "resilience4j refuses a call at exactly the end of the wait (\"strict\"); the inclusive end is not exported")
	}
	return out
}

// r4jPercent writes a ratio as a percentage without float noise.
func r4jPercent(ratio float64) float64 {
	return math.Round(ratio*100*1e6) / 1e6
}

// The Spring Boot YAML.

type r4jYAML struct {
	Resilience4j r4jYAMLModules `yaml:"resilience4j"`
}

type r4jYAMLModules struct {
	Retry          r4jYAMLRetry        `yaml:"retry"`
	CircuitBreaker *r4jYAMLBreaker     `yaml:"circuitbreaker,omitempty"`
	TimeLimiter    *r4jYAMLLimiter     `yaml:"timelimiter,omitempty"`
	Bulkhead       *r4jYAMLBulkhead    `yaml:"bulkhead,omitempty"`
	ThreadPool     *r4jYAMLThreadPool  `yaml:"thread-pool-bulkhead,omitempty"`
	RateLimiter    *r4jYAMLRateLimiter `yaml:"ratelimiter,omitempty"`
}

type r4jYAMLRetry struct {
	RetryAspectOrder int                             `yaml:"retryAspectOrder,omitempty"`
	Instances        map[string]r4jYAMLRetryInstance `yaml:"instances"`
}

type r4jYAMLRetryInstance struct {
	MaxAttempts                  int      `yaml:"maxAttempts"`
	WaitDuration                 string   `yaml:"waitDuration"`
	EnableExponentialBackoff     bool     `yaml:"enableExponentialBackoff,omitempty"`
	ExponentialBackoffMultiplier float64  `yaml:"exponentialBackoffMultiplier,omitempty"`
	ExponentialMaxWaitDuration   string   `yaml:"exponentialMaxWaitDuration,omitempty"`
	EnableRandomizedWait         bool     `yaml:"enableRandomizedWait,omitempty"`
	RandomizedWaitFactor         float64  `yaml:"randomizedWaitFactor,omitempty"`
	RetryExceptions              []string `yaml:"retryExceptions,omitempty"`
	IgnoreExceptions             []string `yaml:"ignoreExceptions,omitempty"`
}

type r4jYAMLBreaker struct {
	CircuitBreakerAspectOrder int                               `yaml:"circuitBreakerAspectOrder,omitempty"`
	Instances                 map[string]r4jYAMLBreakerInstance `yaml:"instances"`
}

type r4jYAMLBreakerInstance struct {
	SlidingWindowType                     string  `yaml:"slidingWindowType"`
	SlidingWindowSize                     int     `yaml:"slidingWindowSize"`
	MinimumNumberOfCalls                  int     `yaml:"minimumNumberOfCalls"`
	FailureRateThreshold                  float64 `yaml:"failureRateThreshold"`
	WaitDurationInOpenState               string  `yaml:"waitDurationInOpenState"`
	PermittedNumberOfCallsInHalfOpenState int     `yaml:"permittedNumberOfCallsInHalfOpenState"`
	SlowCallRateThreshold                 float64 `yaml:"slowCallRateThreshold,omitempty"`
	SlowCallDurationThreshold             string  `yaml:"slowCallDurationThreshold,omitempty"`
	AutomaticTransition                   bool    `yaml:"automaticTransitionFromOpenToHalfOpenEnabled,omitempty"`
	EnableExponentialBackoff              bool    `yaml:"enableExponentialBackoff,omitempty"`
	ExponentialBackoffMultiplier          float64 `yaml:"exponentialBackoffMultiplier,omitempty"`
	ExponentialMaxWait                    string  `yaml:"exponentialMaxWaitDurationInOpenState,omitempty"`
}

type r4jYAMLLimiter struct {
	TimeLimiterAspectOrder int                               `yaml:"timeLimiterAspectOrder,omitempty"`
	Instances              map[string]r4jYAMLLimiterInstance `yaml:"instances"`
}

type r4jYAMLLimiterInstance struct {
	TimeoutDuration string `yaml:"timeoutDuration"`
}

// r4jInstance is the instance name of an export whose strategy's name
// has no ASCII letter or digit.
const r4jInstance = "dependency"

// r4jInstanceFor names the exported instance after the strategy, as
// Spring Boot keeps a map key written without brackets: ASCII letters,
// digits and -, each run of other characters written as one - ("C (search 1)"
// is C-search-1). Import names a strategy after its instance, so a
// strategy imported from resilience4j keeps its name.
func r4jInstanceFor(name string) string {
	words := strings.FieldsFunc(name, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
	})
	if len(words) == 0 {
		return r4jInstance
	}
	return strings.Join(words, "-")
}

func exportResilience4j(st *engine.Strategy, n *notes) []byte {
	return encodeYAML(r4jDocFor(st, n))
}

// exportResilience4jAll writes several strategies as one resilience4j
// tree, an instance of each module per strategy, as Spring Boot reads one
// application.yml (two resilience4j: trees would give the key twice).
// An aspect order is the module's, not an instance's: when the
// strategies' orders differ, the first strategy's is kept, with a warning
// on the others.
func exportResilience4jAll(sts []engine.Strategy, ns []notes) []byte {
	var all r4jYAML
	all.Resilience4j.Retry.Instances = map[string]r4jYAMLRetryInstance{}
	order := func(i int, module string, have *int, set bool, want int) {
		switch {
		case !set:
			*have = want
		case *have != want:
			ns[i].warn("", "needs the %s aspect order %d, and the first strategy's %d is written (one order for all the instances of a module): run it alone to keep its order", module, want, *have)
		}
	}
	var retrySet, breakerSet, limiterSet bool
	bulkheads := func(m *r4jYAMLModules) {
		if b := m.Bulkhead; b != nil {
			if all.Resilience4j.Bulkhead == nil {
				all.Resilience4j.Bulkhead = &r4jYAMLBulkhead{Instances: map[string]r4jYAMLBulkheadInstance{}}
			}
			all.Resilience4j.Bulkhead.BulkheadAspectOrder = b.BulkheadAspectOrder
			maps.Copy(all.Resilience4j.Bulkhead.Instances, b.Instances)
		}
		if t := m.ThreadPool; t != nil {
			if all.Resilience4j.ThreadPool == nil {
				all.Resilience4j.ThreadPool = &r4jYAMLThreadPool{Instances: map[string]r4jYAMLThreadPoolInstance{}}
			}
			maps.Copy(all.Resilience4j.ThreadPool.Instances, t.Instances)
		}
		if l := m.RateLimiter; l != nil {
			if all.Resilience4j.RateLimiter == nil {
				all.Resilience4j.RateLimiter = &r4jYAMLRateLimiter{Instances: map[string]r4jYAMLRateLimiterInstance{}}
			}
			maps.Copy(all.Resilience4j.RateLimiter.Instances, l.Instances)
		}
	}
	for i := range sts {
		d := r4jDocFor(&sts[i], &ns[i])
		m := &d.Resilience4j
		if m.CircuitBreaker != nil || m.TimeLimiter != nil {
			// Without other aspects, the retry's order changes nothing.
			order(i, "retry", &all.Resilience4j.Retry.RetryAspectOrder, retrySet, m.Retry.RetryAspectOrder)
			retrySet = true
		}
		maps.Copy(all.Resilience4j.Retry.Instances, m.Retry.Instances)
		bulkheads(m)
		if b := m.CircuitBreaker; b != nil {
			if all.Resilience4j.CircuitBreaker == nil {
				all.Resilience4j.CircuitBreaker = &r4jYAMLBreaker{Instances: map[string]r4jYAMLBreakerInstance{}}
			}
			order(i, "circuitbreaker", &all.Resilience4j.CircuitBreaker.CircuitBreakerAspectOrder, breakerSet, b.CircuitBreakerAspectOrder)
			breakerSet = true
			maps.Copy(all.Resilience4j.CircuitBreaker.Instances, b.Instances)
		}
		if l := m.TimeLimiter; l != nil {
			if all.Resilience4j.TimeLimiter == nil {
				all.Resilience4j.TimeLimiter = &r4jYAMLLimiter{Instances: map[string]r4jYAMLLimiterInstance{}}
			}
			order(i, "timelimiter", &all.Resilience4j.TimeLimiter.TimeLimiterAspectOrder, limiterSet, l.TimeLimiterAspectOrder)
			limiterSet = true
			maps.Copy(all.Resilience4j.TimeLimiter.Instances, l.Instances)
		}
	}
	return encodeYAML(all)
}

// r4jDocFor is the resilience4j tree of one strategy.
func r4jDocFor(st *engine.Strategy, n *notes) r4jYAML {
	o := r4jExport(st, n, false)
	instance := r4jInstanceFor(st.Name)
	ri := r4jYAMLRetryInstance{MaxAttempts: o.maxAttempts, WaitDuration: springDurationString(o.wait),
		EnableExponentialBackoff: o.exp, EnableRandomizedWait: o.randomized, RetryExceptions: o.retryEx, IgnoreExceptions: o.ignoreEx}
	if o.exp {
		ri.ExponentialBackoffMultiplier = o.mult
		if o.maxWait > 0 {
			ri.ExponentialMaxWaitDuration = springDurationString(o.maxWait)
		}
	}
	if o.randomized {
		ri.RandomizedWaitFactor = o.factor
		if o.exp {
			// Spring ignores the factor unless the multiplier is set.
			ri.ExponentialBackoffMultiplier = o.mult
		}
	}
	doc := r4jYAML{Resilience4j: r4jYAMLModules{Retry: r4jYAMLRetry{Instances: map[string]r4jYAMLRetryInstance{instance: ri}}}}
	// Orders: the lowest runs outermost; written only to move an aspect
	// outside the retry.
	if o.breakerOutside || o.limiterOutside {
		doc.Resilience4j.Retry.RetryAspectOrder = 2
	}
	if b := o.breaker; b != nil {
		kind := "COUNT_BASED"
		if b.timeBased {
			kind = "TIME_BASED"
		}
		bi := r4jYAMLBreakerInstance{SlidingWindowType: kind, SlidingWindowSize: b.size, MinimumNumberOfCalls: b.minCalls,
			FailureRateThreshold: b.rate, WaitDurationInOpenState: springDurationString(b.wait),
			PermittedNumberOfCallsInHalfOpenState: b.halfOpenCalls, AutomaticTransition: b.autoHalfOpen}
		if b.openMult > 0 {
			bi.EnableExponentialBackoff, bi.ExponentialBackoffMultiplier = true, b.openMult
			if b.maxOpen > 0 {
				bi.ExponentialMaxWait = springDurationString(b.maxOpen)
			}
		}
		// The slow-call settings are written when they are not
		// resilience4j's defaults (100%, 60 s).
		if b.slowRate != 100 || b.slowDuration != 60e9 {
			bi.SlowCallRateThreshold, bi.SlowCallDurationThreshold = b.slowRate, springDurationString(b.slowDuration)
		}
		doc.Resilience4j.CircuitBreaker = &r4jYAMLBreaker{Instances: map[string]r4jYAMLBreakerInstance{instance: bi}}
		if o.breakerOutside {
			doc.Resilience4j.CircuitBreaker.CircuitBreakerAspectOrder = 1
		} else if o.limiterOutside {
			doc.Resilience4j.CircuitBreaker.CircuitBreakerAspectOrder = 3
		}
	}
	if o.timeout > 0 {
		doc.Resilience4j.TimeLimiter = &r4jYAMLLimiter{Instances: map[string]r4jYAMLLimiterInstance{instance: {TimeoutDuration: springDurationString(o.timeout)}}}
		switch {
		case o.limiterOutside:
			doc.Resilience4j.TimeLimiter.TimeLimiterAspectOrder = 1
		case o.breakerOutside:
			doc.Resilience4j.TimeLimiter.TimeLimiterAspectOrder = 3
		}
	}
	doc.Resilience4j.Bulkhead, doc.Resilience4j.ThreadPool = r4jExportBulkhead(n, st, instance)
	doc.Resilience4j.RateLimiter = r4jExportRateLimiter(n, st, instance)
	n.info("", "written as the instance %q, after the strategy: name it in @Retry(name = %q), @CircuitBreaker and @TimeLimiter, or rename it", instance, instance)
	return doc
}
