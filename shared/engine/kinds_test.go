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
