package engine

import (
	"slices"
	"testing"
	"time"
)

// TestEveryKindHasAFormula fails when a backoff or jitter kind is added to
// its list but not to waitModel.wait, where it would silently do nothing.
func TestEveryKindHasAFormula(t *testing.T) {
	base := Duration(100 * time.Millisecond)
	for _, kind := range BackoffKinds {
		w := compileWait(&Policy{Backoff: Backoff{Kind: kind, Base: base}})
		if got := w.wait(2, 0, 0); (got == 0) != (kind == BackoffNone) {
			t.Errorf("%q backoff: the second retry waits %s", kind, time.Duration(got))
		}
	}
	for _, kind := range JitterKinds {
		p := Policy{Backoff: Backoff{Kind: BackoffConstant, Base: base}, Jitter: Jitter{Kind: kind}}
		if slices.Contains(JitterFields[kind], "amount") {
			p.Jitter.Amount = base
		}
		w := compileWait(&p)
		lo, hi := w.wait(1, 0, 0), w.wait(1, 0, 0.99)
		if (lo == hi) != (kind == JitterNone) {
			t.Errorf("%q jitter: waits %s with a draw of 0 and %s with 0.99", kind, time.Duration(lo), time.Duration(hi))
		}
		if longest := w.wait(1, 0, 1); longest < hi {
			t.Errorf("%q jitter: the longest wait %s is below a drawn one, %s", kind, time.Duration(longest), time.Duration(hi))
		}
	}
}

// TestServiceTimeFields: every kind of service time has its fields, and a
// dependency with just those is valid; a lognormal one missing either is
// not (a constant or exponential mean of 0 is an instant service).
func TestServiceTimeFields(t *testing.T) {
	values := map[string]Duration{"mean": Duration(40e6), "p50": Duration(30e6), "p99": Duration(200e6)}
	for _, kind := range ServiceTimeKinds {
		fields, ok := ServiceTimeFields[kind]
		if !ok || len(fields) == 0 {
			t.Errorf("%q: no fields", kind)
			continue
		}
		st := func(skip string) Distribution {
			d := Distribution{Kind: kind}
			for _, f := range fields {
				if f == skip {
					continue
				}
				switch f {
				case "mean":
					d.Mean = values[f]
				case "p50":
					d.P50 = values[f]
				case "p99":
					d.P99 = values[f]
				default:
					t.Fatalf("%q: field %q unknown to this test", kind, f)
				}
			}
			return d
		}
		sc := &Scenario{Version: 1, Workload: Workload{Clients: 1, Arrival: ArrivalBurst},
			Dependency: Dependency{Workers: 1, ServiceTime: st("")}, Strategies: []Strategy{{Name: "a", Policy: Policy{MaxAttempts: 1}}}}
		if err := sc.Validate(); err != nil {
			t.Errorf("%q with %v: %v", kind, fields, err)
		}
		if kind == ServiceLognormal {
			for _, f := range fields {
				sc.Dependency.ServiceTime = st(f)
				if sc.Validate() == nil {
					t.Errorf("%q without %s is valid", kind, f)
				}
			}
		}
	}
}
