package convert

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/retrylab/retrylab/shared/engine"
)

// TestEveryExportWritesOrWarnsEveryKind walks the engine's backoff and
// jitter kinds × ExportFormats: a kind an exporter cannot write must not
// vanish silently. Kinds whose exports are byte for byte the same were
// not all written (the exporter wrote one thing for several), so all but
// one of them must have a note on the feature (a path under "backoff" or
// "jitter"). A kind added to engine.BackoffKinds or JitterKinds that an
// exporter drops without a note exports as another kind does, and fails
// here.
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
		feature string // the strategy's JSON path of what varies
		kinds   []string
		policy  func(kind string) engine.Policy
	}
	sweeps := []sweep{
		{"backoff", kindStrings(engine.BackoffKinds), func(k string) engine.Policy { return policy(engine.BackoffKind(k), engine.JitterNone) }},
		{"jitter", kindStrings(engine.JitterKinds), func(k string) engine.Policy {
			return policy(engine.BackoffExponential, engine.JitterKind(k))
		}},
	}
	for _, format := range ExportFormats {
		for _, s := range sweeps {
			byOutput := map[string][]string{} // export → the kinds that export as it, without a note on the feature
			for _, k := range s.kinds {
				st := engine.Strategy{Name: "s", Policy: s.policy(k)}
				if err := (&engine.Scenario{Version: 1, Workload: engine.Workload{Clients: 1, Arrival: engine.ArrivalBurst},
					Dependency: engine.Dependency{Workers: 1, ServiceTime: engine.Distribution{Kind: engine.ServiceConstant}},
					Strategies: []engine.Strategy{st}}).Validate(); err != nil {
					t.Fatalf("%s %q: the test's strategy is not valid: %v", s.feature, k, err)
				}
				out, notes, err := Export(format, st)
				if err != nil {
					t.Fatalf("%s, %s %q: %v", format, s.feature, k, err)
				}
				noted := slices.ContainsFunc(notes, func(n Note) bool {
					return n.Path == s.feature || strings.HasPrefix(n.Path, s.feature+".")
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
