package main

import (
	"strings"
	"testing"
)

// TestSearchOverTheLimit: a search refused for its estimate says that
// --max-events 0 runs it anyway; runaway-cascade's default search is
// estimated far above what it runs (see engine's estimateSearch).
func TestSearchOverTheLimit(t *testing.T) {
	code, _, errs := run(t, "", "search", "runaway-cascade")
	if want := "retrylab search: the estimate is a bound, often well above what runs where retries storm; --max-events 0 runs it anyway (no limit)\n"; code != 1 || !strings.Contains(errs, "over the limit of 200.0 million") || !strings.HasSuffix(errs, want) {
		t.Errorf("exit %d, %q; want 1 and %q", code, errs, want)
	}
}
