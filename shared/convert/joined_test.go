package convert

import (
	"reflect"
	"strings"
	"testing"

	"github.com/retrylab/retrylab/shared/engine"
)

// TestExportAllReadsBack: several strategies exported together to Istio,
// Linkerd and resilience4j make one valid configuration (Kubernetes
// documents joined with "---", one resilience4j tree), which the import
// reads back as the strategies each export alone reads back as.
func TestExportAllReadsBack(t *testing.T) {
	sts := []engine.Strategy{
		{Name: "fast", Policy: engine.Policy{MaxAttempts: 3, AttemptTimeout: engine.Duration(200e6), Deadline: engine.Duration(1e9),
			Backoff: engine.Backoff{Kind: engine.BackoffExponential, Base: engine.Duration(25e6), Max: engine.Duration(250e6), Multiplier: 2},
			RetryOn: &engine.RetryOn{StatusRanges: []string{"500-599"}}}},
		{Name: "patient", Policy: engine.Policy{MaxAttempts: 5, Deadline: engine.Duration(3e9),
			Backoff: engine.Backoff{Kind: engine.BackoffConstant, Base: engine.Duration(100e6)},
			RetryOn: &engine.RetryOn{Statuses: []int{503}}}},
		{Name: "budgeted", Policy: engine.Policy{MaxAttempts: 0,
			Budget: linkerdBudget(0.1, 5, engine.Duration(10e9))}},
	}
	for _, format := range Joined {
		t.Run(format, func(t *testing.T) {
			out, notes, err := ExportAll(format, sts)
			if err != nil {
				t.Fatal(err)
			}
			if len(notes) != len(sts) {
				t.Fatalf("%d lists of notes for %d strategies", len(notes), len(sts))
			}
			if strings.HasPrefix(string(out), "---") {
				t.Errorf("begins with an empty document:\n%s", out)
			}
			if strings.Count(string(out), "resilience4j:") > 1 {
				t.Errorf("several resilience4j trees:\n%s", out)
			}
			all, err := Import(format, out)
			if err != nil {
				t.Fatalf("the import refuses the export: %v\n%s", err, out)
			}
			var want []engine.Strategy
			for _, st := range sts {
				one, _, err := Export(format, st)
				if err != nil {
					t.Fatal(err)
				}
				im, err := Import(format, one)
				if err != nil {
					t.Fatal(err)
				}
				want = append(want, im.Strategies...)
			}
			if len(all.Strategies) != len(want) {
				t.Fatalf("read back %d strategies; want %d\n%s", len(all.Strategies), len(want), out)
			}
			byName := map[string]engine.Strategy{}
			for _, st := range all.Strategies {
				byName[st.Name] = st
			}
			warned := map[string]bool{} // a resilience4j module's aspect order is one for all its instances
			for i := range notes {
				for _, n := range notes[i] {
					if n.Level == "warning" && strings.Contains(n.Message, "aspect order") {
						warned[sts[i].Name] = true
					}
				}
			}
			if format == Resilience4j && !warned["patient"] {
				t.Errorf("no warning that \"patient\" (its time limiter outside, \"fast\"'s inside) loses its aspect order: %v", notes)
			}
			for _, w := range want {
				if warned[w.Name] {
					continue
				}
				got, ok := byName[w.Name]
				if !ok {
					t.Errorf("no strategy %q read back; got %v", w.Name, all.Strategies)
					continue
				}
				if !reflect.DeepEqual(got.Policy, w.Policy) {
					t.Errorf("%q read back as %+v; alone as %+v", w.Name, got.Policy, w.Policy)
				}
			}
		})
	}
	if _, _, err := ExportAll(GRPC, sts); err == nil {
		t.Error("ExportAll joins gRPC service configs")
	}
}

// TestExportAllFromBackends: Istio writes the backends the strategies
// call; the other joined formats warn, for each strategy, that they have
// no place for them.
func TestExportAllFromBackends(t *testing.T) {
	sts := []engine.Strategy{
		{Name: "a", Policy: engine.Policy{MaxAttempts: 2}},
		{Name: "b", Policy: engine.Policy{MaxAttempts: 3}},
	}
	b := &engine.Backends{Count: 3}
	for _, format := range Joined {
		_, nss, err := ExportAllFrom(format, sts, b)
		if err != nil {
			t.Fatalf("%s: %v", format, err)
		}
		for i, ns := range nss {
			warned := false
			for _, n := range ns {
				warned = warned || n.Level == Warning && n.Path == "dependency.backends" && strings.Contains(n.Message, "a "+format+" configuration has no place for them")
			}
			if warned != (format != Istio) {
				t.Errorf("%s, strategy %d: warned about the backends %v: %v", format, i, warned, ns)
			}
		}
	}
}
