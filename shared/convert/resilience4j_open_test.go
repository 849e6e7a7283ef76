package convert

import (
	"strings"
	"testing"

	"github.com/retrylab/retrylab/shared/engine"
	"github.com/retrylab/retrylab/shared/scenarios"
)

// TestResilience4jOpenBackoff: a circuit breaker's enableExponentialBackoff
// imports as breaker.open_multiplier and max_open as
// CommonCircuitBreakerConfigurationProperties builds the wait, or not at
// all, with a warning, where resilience4j ignores it.
func TestResilience4jOpenBackoff(t *testing.T) {
	const cb = "resilience4j:\n  circuitbreaker.instances.a: {%s}\n"
	for _, tc := range []struct {
		desc, props     string
		brk, maxOpen    engine.Duration
		mult            float64
		warnPath, warns string // a warning at warnPath containing warns; "" for no warning on the wait
	}{
		{"multiplier and cap", "waitDurationInOpenState: 2s, enableExponentialBackoff: true, exponentialBackoffMultiplier: 2, exponentialMaxWaitDurationInOpenState: 10s",
			2e9, 10e9, 2, "", ""},
		{"the default multiplier", "waitDurationInOpenState: 2s, enableExponentialBackoff: true",
			2e9, 0, 1.5, "", ""},
		{"a cap without a multiplier", "waitDurationInOpenState: 2s, enableExponentialBackoff: true, exponentialMaxWaitDurationInOpenState: 10s",
			2e9, 0, 1.5, "exponentialMaxWaitDurationInOpenState", "unless exponentialBackoffMultiplier is set too"},
		{"no waitDurationInOpenState", "enableExponentialBackoff: true, exponentialBackoffMultiplier: 2",
			60e9, 0, 0, "enableExponentialBackoff", "has no effect without waitDurationInOpenState"},
		{"a cap below the wait", "waitDurationInOpenState: 20s, enableExponentialBackoff: true, exponentialBackoffMultiplier: 2, exponentialMaxWaitDurationInOpenState: 5s",
			5e9, 0, 0, "", ""},
		{"a multiplier below 1", "waitDurationInOpenState: 2s, enableExponentialBackoff: true, exponentialBackoffMultiplier: 0.5",
			2e9, 0, 0, "exponentialBackoffMultiplier", "a multiplier RetryLab does not simulate"},
		{"disabled", "waitDurationInOpenState: 2s, enableExponentialBackoff: false, exponentialBackoffMultiplier: 2",
			2e9, 0, 0, "", ""},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			im, err := Import(Resilience4j, []byte(strings.Replace(cb, "%s", tc.props, 1)))
			if err != nil {
				t.Fatal(err)
			}
			br := im.Strategies[0].Breaker
			if br.Break != tc.brk || br.OpenMultiplier != tc.mult || br.MaxOpen != tc.maxOpen {
				t.Errorf("break %v, open_multiplier %v, max_open %v; want %v, %v, %v", br.Break, br.OpenMultiplier, br.MaxOpen, tc.brk, tc.mult, tc.maxOpen)
			}
			var warned []string
			for _, n := range im.Notes {
				if n.Level == Warning && (strings.Contains(n.Path, "xponential") || strings.Contains(n.Path, "waitDuration")) {
					warned = append(warned, n.Path+": "+n.Message)
				}
			}
			got := strings.Join(warned, "\n")
			if tc.warns == "" && got != "" || tc.warns != "" && (!strings.Contains(got, "a."+tc.warnPath+": ") || !strings.Contains(got, tc.warns)) {
				t.Errorf("warnings on the open-state wait:\n%s\nwant one at %s containing %q", got, tc.warnPath, tc.warns)
			}
			if _, err := scenarios.Imported(im.Strategies, Resilience4j, ""); err != nil {
				t.Fatalf("the imported scenario is invalid: %v", err)
			}
		})
	}
}

// TestResilience4jOpenBackoffRoundTrip: a breaker with a growing open
// state and the automatic transition to half-open exports to the Spring
// Boot YAML without a note on either and imports back unchanged; the Java
// export writes both.
func TestResilience4jOpenBackoffRoundTrip(t *testing.T) {
	im, err := Import(Resilience4j, []byte("resilience4j:\n  circuitbreaker.instances.a: {waitDurationInOpenState: 2s, enableExponentialBackoff: true, exponentialBackoffMultiplier: 3, exponentialMaxWaitDurationInOpenState: 1m, automaticTransitionFromOpenToHalfOpenEnabled: true}\n"))
	if err != nil {
		t.Fatal(err)
	}
	st := im.Strategies[0]
	if br := st.Breaker; br.OpenMultiplier != 3 || br.MaxOpen != 60e9 || !br.AutoHalfOpen {
		t.Fatalf("breaker %+v", br)
	}
	r4jRoundTrip(t, st, func(n Note) bool {
		return n.Level == Warning && (strings.HasPrefix(n.Path, "breaker.open") || strings.HasPrefix(n.Path, "breaker.max_open") || n.Path == "breaker.auto_half_open")
	})
	java, _, err := Export(Resilience4jJava, st)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		".waitIntervalFunctionInOpenState(IntervalFunction.ofExponentialBackoff(Duration.ofSeconds(2), 3.0, Duration.ofMinutes(1)))",
		".automaticTransitionFromOpenToHalfOpenEnabled(true)",
		"import io.github.resilience4j.core.IntervalFunction;",
	} {
		if !strings.Contains(string(java), want) {
			t.Errorf("the Java export lacks %s:\n%s", want, java)
		}
	}
	// With no max_open, or no open_multiplier, the Java export writes the
	// shorter forms.
	for _, tc := range []struct {
		mult    float64
		maxOpen engine.Duration
		want    string
	}{
		{3, 0, ".waitIntervalFunctionInOpenState(IntervalFunction.ofExponentialBackoff(Duration.ofSeconds(2), 3.0))"},
		{0, 0, ".waitDurationInOpenState(Duration.ofSeconds(2))"},
	} {
		br := *st.Breaker
		br.OpenMultiplier, br.MaxOpen = tc.mult, tc.maxOpen
		c := st
		c.Breaker = &br
		java, _, err := Export(Resilience4jJava, c)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(java), tc.want) {
			t.Errorf("open_multiplier %v, max_open %v: the Java export lacks %s:\n%s", tc.mult, tc.maxOpen, tc.want, java)
		}
	}
}
