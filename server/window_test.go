package server

import (
	"strings"
	"testing"
)

// TestComparisonSaysTheAffectedWindow: a built-in's comparison page says
// which window its affected success was judged in (#27, item 7).
func TestComparisonSaysTheAffectedWindow(t *testing.T) {
	s, _ := testServer(t)
	r := do(t, s, "GET", "/s/e03b-synchronized-recovery", "")
	want := `<p class="muted" data-testid="affected-window">Affected window: operations started from 8.5s to 15s, pinned by report.affected_from and affected_to.</p>`
	if !strings.Contains(r.body, want) {
		t.Errorf("the comparison page does not say\n%s", want)
	}
}
