package view

import (
	"strings"
	"testing"

	"github.com/retrylab/retrylab/shared/scenarios"
)

// TestDescribeLoad: a page says the load phases and a dependency that
// slows with load in words, with their figures.
func TestDescribeLoad(t *testing.T) {
	for slug, want := range map[string][]string{
		"load-spike-storm": {"30 s–40 s: the load is 2× its rate"},
		"mixed-fleet": {"these clients are fleet old-sdk, whose policy each strategy is",
			"beside them, fleet web: 500 clients sending 500 operations per second in total, in every run with its own policy: "},
		"gc-death-spiral": {"30 s–32 s: 1000 more operations per second arrive",
			"slows as it gets busier: each service takes 1 + 0.1·(x − 2) times as long once x exceeds 2, x the requests it holds (in service and queued) per worker, at most 1.5×"},
	} {
		b, ok := scenarios.Get(slug)
		if !ok {
			t.Fatalf("no built-in %s", slug)
		}
		sc, err := b.Parse()
		if err != nil {
			t.Fatal(err)
		}
		d := Describe(sc)
		all := strings.Join(append(append(d.Timeline, d.Dependency...), d.Workload...), "\n")
		for _, w := range want {
			if !strings.Contains(all, w) {
				t.Errorf("%s: the description lacks %q:\n%s", slug, w, all)
			}
		}
	}
}
