package convert

import (
	"strings"
	"testing"

	"github.com/retrylab/retrylab/shared/engine"
)

// TestGoExportEdges: the Go code written for a policy at an edge (a cap
// or none, one trial or several, a breaker's minimum of 1 or 2) says
// what the policy says, and warns only about what it cannot.
func TestGoExportEdges(t *testing.T) {
	linear := func(max engine.Duration) engine.Policy {
		return engine.Policy{MaxAttempts: 3, Backoff: engine.Backoff{Kind: engine.BackoffLinear, Base: 1e8, Max: max}}
	}
	kOfN := func(minT int) engine.Policy {
		return engine.Policy{Breaker: &engine.Breaker{Kind: engine.BreakerRatio, Failures: 3, WindowCalls: 10, MinThroughput: minT, Break: 1e9}}
	}
	trials := func(calls, failures int) engine.Policy {
		return engine.Policy{Breaker: &engine.Breaker{Kind: engine.BreakerConsecutive, Failures: 3, Break: 1e9, HalfOpenCalls: calls, HalfOpenFailures: failures}}
	}
	for _, tc := range []struct {
		format string
		pol    engine.Policy
		want   string // in the code
		not    string // not in the code ("" for no check)
		warned string // a warning on this path
		quiet  string // no warning on this path
	}{
		{FailsafeGo, linear(0), "100 * time.Millisecond * time.Duration(exec.Attempts())", "min(", "", "backoff.max"},
		{FailsafeGo, linear(1e9), "min(100*time.Millisecond*time.Duration(exec.Attempts()), time.Second)", "", "", "backoff.max"},
		{FailsafeGo, kOfN(1), "WithFailureThresholdRatio(3, 10)", "", "", "breaker.min_throughput"},
		{FailsafeGo, kOfN(2), "WithFailureThresholdRatio(3, 10)", "", "breaker.min_throughput", ""},
		{FailsafeGo, trials(1, 1), "WithDelay(", "WithSuccessThreshold", "", ""},
		{FailsafeGo, trials(2, 1), "WithSuccessThreshold(2)", "", "", ""},
		{FailsafeGo, trials(3, 2), "WithSuccessThresholdRatio(2, 3)", "", "", ""},
		// No cap: the longest wait the attempts reach, 2^30 ns doubled 32
		// times, exactly the 2^62 ns the written maximum is held to.
		{FailsafeGo, engine.Policy{MaxAttempts: 34, Backoff: engine.Backoff{Kind: engine.BackoffExponential, Base: 1 << 30, Multiplier: 2}}, "WithBackoffFactor(1073741824*time.Nanosecond, 4611686018427387904*time.Nanosecond, 2)", "", "", ""},
		{FailsafeGo, engine.Policy{MaxAttempts: 35, Backoff: engine.Backoff{Kind: engine.BackoffExponential, Base: 1 << 30, Multiplier: 2}}, "WithBackoffFactor(1073741824*time.Nanosecond, 4611686018427387903*time.Nanosecond, 2)", "", "", ""},
		{Cenkalti, engine.Policy{MaxAttempts: 3, Backoff: engine.Backoff{Kind: engine.BackoffExponential, Base: 1e8, Multiplier: 2}}, "math.MaxInt64 // no cap", "", "", ""},
		{Cenkalti, engine.Policy{MaxAttempts: 3, Backoff: engine.Backoff{Kind: engine.BackoffExponential, Base: 1e8, Multiplier: 2, Max: 1e9}}, "b.MaxInterval = time.Second", "", "", ""},
	} {
		out, ns, err := Export(tc.format, engine.Strategy{Name: "x", Policy: tc.pol})
		if err != nil {
			t.Fatal(err)
		}
		code := string(out)
		if !strings.Contains(code, tc.want) || tc.not != "" && strings.Contains(code, tc.not) {
			t.Errorf("%s of %s: want %q and not %q in\n%s", tc.format, indent(tc.pol), tc.want, tc.not, code)
		}
		warned := false
		for _, n := range ns {
			warned = warned || tc.warned != "" && n.Level == Warning && n.Path == tc.warned
			if tc.quiet != "" && n.Level == Warning && n.Path == tc.quiet {
				t.Errorf("%s of %s: %s", tc.format, indent(tc.pol), n)
			}
		}
		if tc.warned != "" && !warned {
			t.Errorf("%s of %s: no warning on %s: %v", tc.format, indent(tc.pol), tc.warned, ns)
		}
	}
}
