package conformance

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/retrylab/retrylab/shared/convert"
	"github.com/retrylab/retrylab/shared/engine"
)

// resilience4j and Polly cannot be compiled against here: no Maven
// Central or NuGet is reachable. The Java export is parsed by the JDK's
// own parser instead (testdata/java/ParseJava.java, javac's
// JavacTask.parse without resolving imports), and its values are read
// back from the parse tree and compared with the Spring Boot YAML
// export's. No C# parser is available (no .NET SDK, and Roslyn is a NuGet
// package): the polly-csharp export is checked by its goldens only.

// r4jStrategies are the strategies the resilience4j exports are checked
// on: every preset, every imported sample, and random strategies with
// features of every kind.
func r4jStrategies(t *testing.T) []engine.Strategy {
	sts := convertStrategies(t)
	r := rand.New(rand.NewPCG(4, 17))
	for i := range 200 {
		sts = append(sts, randomStrategy(r, i))
	}
	return sts
}

// javaOnPath returns the java command, or skips the test when there is
// none, unless CI is set, where a missing JDK is a failure.
func javaOnPath(t *testing.T) string {
	t.Helper()
	java, err := exec.LookPath("java")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("java is not on PATH, and CI=true: the Java exports must be parsed in CI (apt-get install openjdk-17-jdk-headless)")
		}
		t.Skip("java is not on PATH: the Java exports are not parsed (install a JDK, 11 or later; CI=true makes this a failure)")
	}
	return java
}

// TestConvertResilience4jJavaParses: every resilience4j-java export
// parses as Java with the JDK's parser, and builds the configs the YAML
// export writes for the same strategy: the same maxAttempts, sliding
// window, failure rate and time limiter timeout. A file with a syntax
// error, parsed with them, is reported: the check can fail.
func TestConvertResilience4jJavaParses(t *testing.T) {
	java := javaOnPath(t)
	dir := t.TempDir()
	sts := r4jStrategies(t)
	var files []string
	yamls := map[string][]byte{}
	for i, st := range sts {
		out, _, err := convert.Export(convert.Resilience4jJava, st)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, fmt.Sprint(i), "RetryLabPolicy.java")
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, out, 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, path)
		y, _, err := convert.Export(convert.Resilience4j, st)
		if err != nil {
			t.Fatal(err)
		}
		yamls[path] = y
	}
	broken := filepath.Join(dir, "broken", "RetryLabPolicy.java")
	if err := os.MkdirAll(filepath.Dir(broken), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(broken, []byte("package retrylab;\nclass RetryLabPolicy { void f() { g(1 } }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(java, append([]string{filepath.Join("testdata", "java", "ParseJava.java")}, append(files, broken)...)...)
	out, err := cmd.CombinedOutput()
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		t.Fatalf("java: %v\n%s", err, out)
	}
	calls := map[string][]string{}
	errs := map[string][]string{}
	parsed := false
	for _, line := range strings.Split(string(out), "\n") {
		switch {
		case strings.HasPrefix(line, "parsed "):
			parsed = true
		case strings.Contains(line, ": call "):
			file, call, _ := strings.Cut(line, ": call ")
			calls[file] = append(calls[file], call)
		case strings.Contains(line, ": error: "):
			file, _, _ := strings.Cut(line, ":")
			errs[file] = append(errs[file], line)
		}
	}
	if !parsed {
		t.Fatalf("ParseJava did not finish:\n%s", out)
	}
	if len(errs[broken]) == 0 {
		t.Errorf("the broken file was not reported: the parser check cannot fail\n%s", out)
	}
	for i, path := range files {
		if len(errs[path]) > 0 {
			src, _ := os.ReadFile(path)
			t.Errorf("%s: the Java export does not parse:\n%s\n%s", sts[i].Name, strings.Join(errs[path], "\n"), src)
			continue
		}
		want := r4jYAMLCalls(t, yamls[path])
		got := strings.Join(calls[path], "\n")
		for _, w := range want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: the Java export makes no call %s, which the YAML export implies\ncalls:\n%s\nYAML:\n%s", sts[i].Name, w, got, yamls[path])
			}
		}
	}
	t.Logf("%d Java exports parsed", len(files))
}

// r4jYAMLCalls returns the builder calls a Spring Boot YAML export
// implies for the Java export of the same strategy.
func r4jYAMLCalls(t *testing.T, y []byte) []string {
	var doc r4jDoc
	if err := yaml.UnmarshalStrict(y, &doc); err != nil {
		t.Fatalf("the YAML export is not strict: %v\n%s", err, y)
	}
	var want []string
	// The export has one instance, named after the strategy.
	if len(doc.Resilience4j.Retry.Instances) != 1 {
		t.Fatalf("the YAML export has %d retry instances, not 1:\n%s", len(doc.Resilience4j.Retry.Instances), y)
	}
	var name string
	for name = range doc.Resilience4j.Retry.Instances {
	}
	ri := doc.Resilience4j.Retry.Instances[name]
	want = append(want, fmt.Sprintf("maxAttempts(%d)", *ri.MaxAttempts))
	if br, ok := doc.Resilience4j.CircuitBreaker.Instances[name]; ok {
		want = append(want, fmt.Sprintf("slidingWindow(%d, %d, SlidingWindowType.%s)", *br.SlidingWindowSize, *br.MinimumNumberOfCalls, *br.SlidingWindowType))
		want = append(want, fmt.Sprintf("permittedNumberOfCallsInHalfOpenState(%d)", *br.PermittedNumberOfCallsInHalfOpenState))
	}
	if tl, ok := doc.Resilience4j.TimeLimiter.Instances[name]; ok {
		d, _ := springDuration(*tl.TimeoutDuration)
		want = append(want, fmt.Sprintf("timeoutDuration(%s)", javaDurationOf(d)))
	}
	return want
}

// javaDurationOf writes d as the Java export writes it, for comparing.
func javaDurationOf(d int64) string {
	for _, u := range []struct {
		name string
		ns   int64
	}{{"ofHours", 3600e9}, {"ofMinutes", 60e9}, {"ofSeconds", 1e9}, {"ofMillis", 1e6}} {
		if d%u.ns == 0 {
			return fmt.Sprintf("Duration.%s(%d)", u.name, d/u.ns)
		}
	}
	return fmt.Sprintf("Duration.ofNanos(%d)", d)
}

// The properties of resilience4j's Spring Boot configuration, as strict
// Go types: a key the property classes do not have, or a value of the
// wrong type, fails yaml.UnmarshalStrict. Durations are strings checked
// against Spring Boot's DurationStyle. Sources (resilience4j af9e7c9):
//
//	https://github.com/resilience4j/resilience4j/blob/af9e7c979f17804f23cc1b76dd7cf268fb58b5c7/resilience4j-spring6/src/main/java/io/github/resilience4j/spring6/retry/configure/RetryConfigurationProperties.java (retryAspectOrder)
//	https://github.com/resilience4j/resilience4j/blob/af9e7c979f17804f23cc1b76dd7cf268fb58b5c7/resilience4j-framework-common/src/main/java/io/github/resilience4j/common/retry/configuration/CommonRetryConfigurationProperties.java (configs, instances, InstanceProperties)
//	https://github.com/resilience4j/resilience4j/blob/af9e7c979f17804f23cc1b76dd7cf268fb58b5c7/resilience4j-spring6/src/main/java/io/github/resilience4j/spring6/circuitbreaker/configure/CircuitBreakerConfigurationProperties.java (circuitBreakerAspectOrder)
//	https://github.com/resilience4j/resilience4j/blob/af9e7c979f17804f23cc1b76dd7cf268fb58b5c7/resilience4j-framework-common/src/main/java/io/github/resilience4j/common/circuitbreaker/configuration/CommonCircuitBreakerConfigurationProperties.java
//	https://github.com/resilience4j/resilience4j/blob/af9e7c979f17804f23cc1b76dd7cf268fb58b5c7/resilience4j-spring6/src/main/java/io/github/resilience4j/spring6/timelimiter/configure/TimeLimiterConfigurationProperties.java (timeLimiterAspectOrder)
//	https://github.com/resilience4j/resilience4j/blob/af9e7c979f17804f23cc1b76dd7cf268fb58b5c7/resilience4j-framework-common/src/main/java/io/github/resilience4j/common/timelimiter/configuration/CommonTimeLimiterConfigurationProperties.java
//	resilience4j-spring6's bulkhead/configure/BulkheadConfigurationProperties.java (bulkheadAspectOrder)
//	resilience4j-framework-common's common/bulkhead/configuration/CommonBulkheadConfigurationProperties.java
//	resilience4j-framework-common's common/bulkhead/configuration/CommonThreadPoolBulkheadConfigurationProperties.java
//	resilience4j-spring6's ratelimiter/configure/RateLimiterConfigurationProperties.java (rateLimiterAspectOrder)
//	resilience4j-framework-common's common/ratelimiter/configuration/CommonRateLimiterConfigurationProperties.java
//
// Every key of the InstanceProperties classes is listed, so that any
// property the export may write one day is accepted, not only those it
// writes today.
type r4jDoc struct {
	Resilience4j struct {
		Retry struct {
			RetryAspectOrder *int                    `json:"retryAspectOrder"`
			Tags             map[string]string       `json:"tags"`
			Configs          map[string]r4jRetryProp `json:"configs"`
			Instances        map[string]r4jRetryProp `json:"instances"`
		} `json:"retry"`
		CircuitBreaker struct {
			CircuitBreakerAspectOrder *int                      `json:"circuitBreakerAspectOrder"`
			Tags                      map[string]string         `json:"tags"`
			Configs                   map[string]r4jBreakerProp `json:"configs"`
			Instances                 map[string]r4jBreakerProp `json:"instances"`
		} `json:"circuitbreaker"`
		TimeLimiter struct {
			TimeLimiterAspectOrder *int                      `json:"timeLimiterAspectOrder"`
			Tags                   map[string]string         `json:"tags"`
			Configs                map[string]r4jLimiterProp `json:"configs"`
			Instances              map[string]r4jLimiterProp `json:"instances"`
		} `json:"timelimiter"`
		Bulkhead struct {
			BulkheadAspectOrder *int                       `json:"bulkheadAspectOrder"`
			Tags                map[string]string          `json:"tags"`
			Configs             map[string]r4jBulkheadProp `json:"configs"`
			Instances           map[string]r4jBulkheadProp `json:"instances"`
		} `json:"bulkhead"`
		ThreadPoolBulkhead struct {
			Tags      map[string]string        `json:"tags"`
			Configs   map[string]r4jThreadProp `json:"configs"`
			Instances map[string]r4jThreadProp `json:"instances"`
		} `json:"thread-pool-bulkhead"`
		RateLimiter struct {
			RateLimiterAspectOrder *int                          `json:"rateLimiterAspectOrder"`
			Tags                   map[string]string             `json:"tags"`
			Configs                map[string]r4jRateLimiterProp `json:"configs"`
			Instances              map[string]r4jRateLimiterProp `json:"instances"`
		} `json:"ratelimiter"`
	} `json:"resilience4j"`
}

// r4jBulkheadProp is CommonBulkheadConfigurationProperties.InstanceProperties.
type r4jBulkheadProp struct {
	MaxConcurrentCalls        *int    `json:"maxConcurrentCalls"`
	MaxWaitDuration           *string `json:"maxWaitDuration"`
	WritableStackTraceEnabled *bool   `json:"writableStackTraceEnabled"`
	BaseConfig                *string `json:"baseConfig"`
	EventConsumerBufferSize   *int    `json:"eventConsumerBufferSize"`
}

// r4jRateLimiterProp is CommonRateLimiterConfigurationProperties.InstanceProperties.
type r4jRateLimiterProp struct {
	LimitForPeriod             *int    `json:"limitForPeriod"`
	LimitRefreshPeriod         *string `json:"limitRefreshPeriod"`
	TimeoutDuration            *string `json:"timeoutDuration"`
	SubscribeForEvents         *bool   `json:"subscribeForEvents"`
	AllowHealthIndicatorToFail *bool   `json:"allowHealthIndicatorToFail"`
	RegisterHealthIndicator    *bool   `json:"registerHealthIndicator"`
	EventConsumerBufferSize    *int    `json:"eventConsumerBufferSize"`
	WritableStackTraceEnabled  *bool   `json:"writableStackTraceEnabled"`
	BaseConfig                 *string `json:"baseConfig"`
}

// r4jThreadProp is CommonThreadPoolBulkheadConfigurationProperties.InstanceProperties.
type r4jThreadProp struct {
	EventConsumerBufferSize   *int     `json:"eventConsumerBufferSize"`
	BaseConfig                *string  `json:"baseConfig"`
	WritableStackTraceEnabled *bool    `json:"writableStackTraceEnabled"`
	MaxThreadPoolSize         *int     `json:"maxThreadPoolSize"`
	CoreThreadPoolSize        *int     `json:"coreThreadPoolSize"`
	QueueCapacity             *int     `json:"queueCapacity"`
	KeepAliveDuration         *string  `json:"keepAliveDuration"`
	ContextPropagators        []string `json:"contextPropagators"`
}

// r4jRetryProp is CommonRetryConfigurationProperties.InstanceProperties.
type r4jRetryProp struct {
	WaitDuration                    *string  `json:"waitDuration"`
	IntervalBiFunction              *string  `json:"intervalBiFunction"`
	MaxAttempts                     *int     `json:"maxAttempts"`
	RetryExceptionPredicate         *string  `json:"retryExceptionPredicate"`
	ResultPredicate                 *string  `json:"resultPredicate"`
	ConsumeResultBeforeRetryAttempt *string  `json:"consumeResultBeforeRetryAttempt"`
	RetryExceptions                 []string `json:"retryExceptions"`
	IgnoreExceptions                []string `json:"ignoreExceptions"`
	EventConsumerBufferSize         *int     `json:"eventConsumerBufferSize"`
	EnableExponentialBackoff        *bool    `json:"enableExponentialBackoff"`
	ExponentialBackoffMultiplier    *float64 `json:"exponentialBackoffMultiplier"`
	ExponentialMaxWaitDuration      *string  `json:"exponentialMaxWaitDuration"`
	EnableRandomizedWait            *bool    `json:"enableRandomizedWait"`
	RandomizedWaitFactor            *float64 `json:"randomizedWaitFactor"`
	FailAfterMaxAttempts            *bool    `json:"failAfterMaxAttempts"`
	BaseConfig                      *string  `json:"baseConfig"`
}

// r4jBreakerProp is CommonCircuitBreakerConfigurationProperties.InstanceProperties.
type r4jBreakerProp struct {
	WaitDurationInOpenState                      *string  `json:"waitDurationInOpenState"`
	SlowCallDurationThreshold                    *string  `json:"slowCallDurationThreshold"`
	MaxWaitDurationInHalfOpenState               *string  `json:"maxWaitDurationInHalfOpenState"`
	TransitionToStateAfterWaitDuration           *string  `json:"transitionToStateAfterWaitDuration"`
	FailureRateThreshold                         *float64 `json:"failureRateThreshold"`
	SlowCallRateThreshold                        *float64 `json:"slowCallRateThreshold"`
	SlidingWindowType                            *string  `json:"slidingWindowType"`
	SlidingWindowSize                            *int     `json:"slidingWindowSize"`
	MinimumNumberOfCalls                         *int     `json:"minimumNumberOfCalls"`
	PermittedNumberOfCallsInHalfOpenState        *int     `json:"permittedNumberOfCallsInHalfOpenState"`
	AutomaticTransitionFromOpenToHalfOpenEnabled *bool    `json:"automaticTransitionFromOpenToHalfOpenEnabled"`
	InitialState                                 *string  `json:"initialState"`
	WritableStackTraceEnabled                    *bool    `json:"writableStackTraceEnabled"`
	AllowHealthIndicatorToFail                   *bool    `json:"allowHealthIndicatorToFail"`
	EventConsumerBufferSize                      *int     `json:"eventConsumerBufferSize"`
	RegisterHealthIndicator                      *bool    `json:"registerHealthIndicator"`
	RecordFailurePredicate                       *string  `json:"recordFailurePredicate"`
	RecordExceptions                             []string `json:"recordExceptions"`
	RecordResultPredicate                        *string  `json:"recordResultPredicate"`
	IgnoreExceptionPredicate                     *string  `json:"ignoreExceptionPredicate"`
	IgnoreExceptions                             []string `json:"ignoreExceptions"`
	BaseConfig                                   *string  `json:"baseConfig"`
	EnableExponentialBackoff                     *bool    `json:"enableExponentialBackoff"`
	ExponentialBackoffMultiplier                 *float64 `json:"exponentialBackoffMultiplier"`
	ExponentialMaxWaitDurationInOpenState        *string  `json:"exponentialMaxWaitDurationInOpenState"`
	EnableRandomizedWait                         *bool    `json:"enableRandomizedWait"`
	RandomizedWaitFactor                         *float64 `json:"randomizedWaitFactor"`
	IgnoreClassBindingExceptions                 *bool    `json:"ignoreClassBindingExceptions"`
}

// r4jLimiterProp is CommonTimeLimiterConfigurationProperties.InstanceProperties.
type r4jLimiterProp struct {
	TimeoutDuration         *string `json:"timeoutDuration"`
	CancelRunningFuture     *bool   `json:"cancelRunningFuture"`
	EventConsumerBufferSize *int    `json:"eventConsumerBufferSize"`
	BaseConfig              *string `json:"baseConfig"`
}

// springSimple is Spring Boot's DurationStyle.SIMPLE pattern
// (https://github.com/spring-projects/spring-boot/blob/main/core/spring-boot/src/main/java/org/springframework/boot/convert/DurationStyle.java),
// with the units it knows.
var springSimple = regexp.MustCompile(`^([+-]?\d+)(ns|us|ms|s|m|h|d)?$`)

// springDuration reads a duration in Spring's simple style, in ns.
func springDuration(s string) (int64, bool) {
	m := springSimple.FindStringSubmatch(s)
	if m == nil {
		return 0, false
	}
	var k int64
	if _, err := fmt.Sscan(m[1], &k); err != nil {
		return 0, false
	}
	unit := map[string]int64{"": 1e6, "ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9, "m": 60e9, "h": 3600e9, "d": 86400e9}[m[2]]
	return k * unit, true
}

// TestConvertResilience4jYAMLStrict: every Spring Boot YAML export has
// only keys resilience4j's property classes have, values of their types,
// durations Spring Boot reads, enum values resilience4j has, values in
// the ranges the setters allow, and imports again. A document with a key
// the classes do not have fails the same check: it can fail.
func TestConvertResilience4jYAMLStrict(t *testing.T) {
	var bad r4jDoc
	if err := yaml.UnmarshalStrict([]byte("resilience4j:\n  retry:\n    instances:\n      a:\n        maxRetries: 3\n"), &bad); err == nil {
		t.Error("an unknown key (maxRetries) passed the strict check")
	}
	for _, st := range r4jStrategies(t) {
		out, _, err := convert.Export(convert.Resilience4j, st)
		if err != nil {
			t.Fatal(err)
		}
		var doc r4jDoc
		if err := yaml.UnmarshalStrict(out, &doc); err != nil {
			t.Errorf("%s: the export has keys or values resilience4j's properties do not: %v\n%s", st.Name, err, out)
			continue
		}
		fail := func(format string, args ...any) {
			t.Helper()
			t.Errorf("%s: %s\n%s", st.Name, fmt.Sprintf(format, args...), out)
		}
		dur := func(what string, s *string, lo int64) {
			if s == nil {
				return
			}
			d, ok := springDuration(*s)
			switch {
			case !ok:
				fail("%s %q is not a duration Spring Boot reads", what, *s)
			case d < lo:
				fail("%s %q is below resilience4j's minimum", what, *s)
			}
		}
		for name, r := range doc.Resilience4j.Retry.Instances {
			if r.MaxAttempts == nil || *r.MaxAttempts < 1 {
				fail("retry %s: maxAttempts below 1 (RetryConfig.Builder.maxAttempts refuses it)", name)
			}
			dur("waitDuration", r.WaitDuration, 0)
			dur("exponentialMaxWaitDuration", r.ExponentialMaxWaitDuration, 1e6)
			if r.EnableExponentialBackoff != nil || r.EnableRandomizedWait != nil {
				dur("waitDuration (IntervalFunction.checkInterval)", r.WaitDuration, 1e6)
			}
			if f := r.RandomizedWaitFactor; f != nil && (*f < 0 || *f >= 1) {
				fail("randomizedWaitFactor %v is outside [0, 1)", *f)
			}
			if m := r.ExponentialBackoffMultiplier; m != nil && *m <= 0 {
				fail("exponentialBackoffMultiplier %v is not above 0", *m)
			}
		}
		for name, b := range doc.Resilience4j.CircuitBreaker.Instances {
			if b.SlidingWindowType == nil || (*b.SlidingWindowType != "COUNT_BASED" && *b.SlidingWindowType != "TIME_BASED") {
				fail("circuitbreaker %s: slidingWindowType is not COUNT_BASED or TIME_BASED", name)
			}
			for what, v := range map[string]*float64{"failureRateThreshold": b.FailureRateThreshold, "slowCallRateThreshold": b.SlowCallRateThreshold} {
				if v != nil && (*v < 1 || *v > 100) {
					fail("%s %v is outside 1 to 100", what, *v)
				}
			}
			for what, v := range map[string]*int{"slidingWindowSize": b.SlidingWindowSize, "minimumNumberOfCalls": b.MinimumNumberOfCalls, "permittedNumberOfCallsInHalfOpenState": b.PermittedNumberOfCallsInHalfOpenState} {
				if v != nil && *v < 1 {
					fail("%s %d is below 1", what, *v)
				}
			}
			dur("waitDurationInOpenState", b.WaitDurationInOpenState, 1e6)
			dur("slowCallDurationThreshold", b.SlowCallDurationThreshold, 1)
		}
		for _, l := range doc.Resilience4j.TimeLimiter.Instances {
			dur("timeoutDuration", l.TimeoutDuration, 1)
		}
		for name, b := range doc.Resilience4j.Bulkhead.Instances {
			if b.MaxConcurrentCalls == nil || *b.MaxConcurrentCalls < 1 {
				fail("bulkhead %s: maxConcurrentCalls below 1 (the setter refuses it)", name)
			}
			dur("maxWaitDuration", b.MaxWaitDuration, 0)
		}
		for name, l := range doc.Resilience4j.RateLimiter.Instances {
			if l.LimitForPeriod == nil || *l.LimitForPeriod < 1 {
				fail("ratelimiter %s: limitForPeriod below 1 (the setter refuses it) or left out (50)", name)
			}
			dur("limitRefreshPeriod", l.LimitRefreshPeriod, 1)
			dur("timeoutDuration", l.TimeoutDuration, 0)
		}
		for name, p := range doc.Resilience4j.ThreadPoolBulkhead.Instances {
			switch {
			case p.MaxThreadPoolSize == nil || p.CoreThreadPoolSize == nil || p.QueueCapacity == nil:
				fail("thread-pool-bulkhead %s: a size left out takes the machine's processor count", name)
			case *p.CoreThreadPoolSize < 1 || *p.MaxThreadPoolSize < *p.CoreThreadPoolSize || *p.QueueCapacity < 0:
				fail("thread-pool-bulkhead %s: sizes %d, %d, %d that ThreadPoolBulkheadConfig refuses or skips", name, *p.CoreThreadPoolSize, *p.MaxThreadPoolSize, *p.QueueCapacity)
			}
		}
		if _, err := convert.Import(convert.Resilience4j, out); err != nil {
			fail("the export does not import: %v", err)
		}
	}
}

// r4jInterval is resilience4j-core's IntervalFunction (af9e7c9) for
// retry k (1 for the first), u standing for Math.random(): of(initial,
// x -> (long) (x * multiplier)) truncates each wait to whole milliseconds
// before the next, randomize(current, factor) draws from current·(1 −
// factor) to current·(1 + factor) + 1, and ofExponentialRandomBackoff
// caps the randomized wait.
func r4jInterval(initial, multiplier, factor, maxMs float64, k int, u float64) float64 {
	w := initial
	for range k - 1 {
		w = float64(int64(w * multiplier))
	}
	if factor > 0 {
		lo, hi := w-factor*w, w+factor*w
		w = float64(int64(max(1, lo+u*(hi-lo+1))))
	}
	if maxMs > 0 {
		w = min(w, maxMs)
	}
	return w
}

// TestConvertResilience4jImportBehaves: a Spring Boot retry imported
// waits as resilience4j's IntervalFunction does, within the milliseconds
// resilience4j truncates to (and within the bounds of its randomized
// waits), and retries the statuses of the exceptions it names.
func TestConvertResilience4jImportBehaves(t *testing.T) {
	for _, tc := range []struct {
		name, props                  string
		initial, mult, factor, maxMs float64
	}{
		{"fixed", "{waitDuration: 250ms}", 250, 1, 0, 0},
		{"exponential with a cap", "{waitDuration: 100ms, enableExponentialBackoff: true, exponentialBackoffMultiplier: 1.5, exponentialMaxWaitDuration: 1s}", 100, 1.5, 0, 1000},
		{"randomized", "{waitDuration: 1s, enableRandomizedWait: true, randomizedWaitFactor: 0.25}", 1000, 1, 0.25, 0},
		{"exponential randomized", "{waitDuration: 200ms, enableExponentialBackoff: true, exponentialBackoffMultiplier: 2, enableRandomizedWait: true, randomizedWaitFactor: 0.5}", 200, 2, 0.5, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// A dotted key and a mapping for the same instance, merged as
			// Spring merges them.
			doc := "resilience4j.retry.instances.a.maxAttempts: 7\nresilience4j.retry.instances.a: " + tc.props + "\n"
			p := policyMap(t, importOne(t, convert.Resilience4j, doc))
			for seed := int64(1); seed <= 5; seed++ {
				waits, err := EngineWaits(p, 6, seed)
				if err != nil {
					t.Fatal(err)
				}
				for i, w := range waits {
					k := i + 1
					lo, hi := r4jInterval(tc.initial, tc.mult, tc.factor, tc.maxMs, k, 0), r4jInterval(tc.initial, tc.mult, tc.factor, tc.maxMs, k, 0.999999)
					// The engine multiplies exactly: up to 1 ms a retry more.
					slack := float64(k)
					got := float64(w) / 1e6
					if got < lo-0.001 || got > hi+slack {
						t.Errorf("seed %d, retry %d: the engine waits %.3f ms; resilience4j from %v to %v ms", seed, k, got, lo, hi)
					}
				}
			}
		})
	}
	// retryExceptions: HttpServerErrorException is every 5xx, no 4xx.
	p := policyMap(t, importOne(t, convert.Resilience4j, "resilience4j.retry.instances.a: {maxAttempts: 3, retryExceptions: [org.springframework.web.client.HttpServerErrorException]}\n"))
	for status, want := range map[int]int{503: 3, 500: 3, 404: 1, 429: 1} {
		got, _, err := EngineScript(p, status, []Call{FailAll})
		if err != nil {
			t.Fatal(err)
		}
		if got[0] != want {
			t.Errorf("answered %d, the engine makes %d attempts; resilience4j retrying HttpServerErrorException makes %d", status, got[0], want)
		}
	}
}
