package convert

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/retrylab/retrylab/shared/engine"
)

// TestEveryExportWritesOrWarnsEveryKind walks the engine's backoff,
// jitter and balancer kinds × ExportFormats: a kind an exporter cannot write must not
// vanish silently. Kinds whose exports are byte for byte the same were
// not all written (the exporter wrote one thing for several), so all but
// one of them must have a note on the feature (a path under "backoff",
// "jitter" or "dependency.backends.balancer", or on all of what holds it,
// such as "dependency.backends" not exported). A kind added to engine.BackoffKinds,
// JitterKinds or BalancerKinds that an exporter drops without a note
// exports as another kind does, and fails here.
func TestEveryExportWritesOrWarnsEveryKind(t *testing.T) {
	base, most := engine.Duration(100*time.Millisecond), engine.Duration(2*time.Second)
	policy := func(b engine.BackoffKind, j engine.JitterKind) engine.Policy {
		p := engine.Policy{MaxAttempts: 3, Backoff: engine.Backoff{Kind: b}, Jitter: engine.Jitter{Kind: j}}
		if b != engine.BackoffNone {
			p.Backoff.Base = base
		}
		if b == engine.BackoffExponential {
			p.Backoff.Max = most
		}
		if slices.Contains(engine.JitterFields[j], "fraction") {
			p.Jitter.Fraction = 0.3
		}
		if slices.Contains(engine.JitterFields[j], "amount") {
			p.Jitter.Amount = engine.Duration(50 * time.Millisecond)
		}
		return p
	}
	type sweep struct {
		feature  string // the scenario's JSON path of what varies, the strategy's unless under "dependency"
		kinds    []string
		policy   func(kind string) engine.Policy
		backends func(kind string) *engine.Backends // nil: none
	}
	hosts := func(k string) *engine.Backends {
		return &engine.Backends{Count: 3, Balancer: engine.BalancerKind(k)}
	}
	sweeps := []sweep{
		{"backoff", kindStrings(engine.BackoffKinds), func(k string) engine.Policy { return policy(engine.BackoffKind(k), engine.JitterNone) }, nil},
		{"jitter", kindStrings(engine.JitterKinds), func(k string) engine.Policy {
			return policy(engine.BackoffExponential, engine.JitterKind(k))
		}, nil},
		{"dependency.backends.balancer", kindStrings(engine.BalancerKinds), func(string) engine.Policy {
			return policy(engine.BackoffExponential, engine.JitterFull)
		}, hosts},
	}
	for _, format := range ExportFormats {
		for _, s := range sweeps {
			byOutput := map[string][]string{} // export → the kinds that export as it, without a note on the feature
			for _, k := range s.kinds {
				st := engine.Strategy{Name: "s", Policy: s.policy(k)}
				var b *engine.Backends
				if s.backends != nil {
					b = s.backends(k)
				}
				if err := (&engine.Scenario{Version: 1, Workload: engine.Workload{Clients: 1, Arrival: engine.ArrivalBurst},
					Dependency: engine.Dependency{Workers: 1, ServiceTime: engine.Distribution{Kind: engine.ServiceConstant}, Backends: b},
					Strategies: []engine.Strategy{st}}).Validate(); err != nil {
					t.Fatalf("%s %q: the test's scenario is not valid: %v", s.feature, k, err)
				}
				out, notes, err := ExportFrom(format, st, b)
				if err != nil {
					t.Fatalf("%s, %s %q: %v", format, s.feature, k, err)
				}
				noted := slices.ContainsFunc(notes, func(n Note) bool {
					// A note on the feature, on a part of it, or on all of what holds it.
					return n.Path == s.feature || strings.HasPrefix(n.Path, s.feature+".") || strings.HasPrefix(s.feature, n.Path+".")
				})
				if !noted {
					byOutput[string(out)] = append(byOutput[string(out)], k)
				}
			}
			for _, ks := range byOutput {
				if len(ks) > 1 {
					t.Errorf("%s: the %s kinds %q export the same, and no note on %s says which was not written", format, s.feature, ks, s.feature)
				}
			}
		}
	}
}

func kindStrings[K ~string](ks []K) []string {
	out := make([]string, len(ks))
	for i, k := range ks {
		out[i] = string(k)
	}
	return out
}

// TestAnUnknownBalancerIsNeverWrittenSilently: a balancer kind the Envoy
// and Istio exports do not know (one added to the engine later) is
// written as the proxy's default with a warning, not as that default
// alone.
func TestAnUnknownBalancerIsNeverWrittenSilently(t *testing.T) {
	for _, c := range []struct {
		format string
		write  func(*notes, engine.BalancerKind) string
		want   string
	}{{Envoy, envoyLbPolicyFor, "ROUND_ROBIN"}, {Istio, istioBalancerFor, "LEAST_REQUEST"}} {
		var n notes
		if got := c.write(&n, "ring_hash"); got != c.want {
			t.Errorf("%s: an unknown balancer is written as %q, want the default %q", c.format, got, c.want)
		}
		if !slices.ContainsFunc(n.list, func(x Note) bool {
			return x.Level == Warning && x.Path == "dependency.backends.balancer" && strings.Contains(x.Message, `"ring_hash"`)
		}) {
			t.Errorf("%s: no warning names the balancer not written: %v", c.format, n.list)
		}
	}
}
