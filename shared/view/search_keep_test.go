//go:build !nosearch

package view

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/retrylab/retrylab/shared/engine"
)

// TestSearchKeepWhatYouHave: when the recommended point is the search's
// strategy as it is (C has 4 attempts; 6 make more retries), the lead and
// the recommendation say to keep what one has; when it is not, neither
// does.
func TestSearchKeepWhatYouHave(t *testing.T) {
	sc, res := searched(t, func(s *engine.Search) {
		s.Knobs = []engine.Knob{{Path: "max_attempts", Values: []json.RawMessage{json.RawMessage(`6`), json.RawMessage(`4`)}}}
		s.Objectives = []engine.Objective{{Metric: "retries", Goal: engine.GoalMin}}
		s.Constraints = nil
	})
	sv := Of(sc, res, Options{}).Search
	if sv.Recommendation == "" || res.Search.Recommendation == nil {
		t.Fatalf("no recommendation: %s", sv.Note)
	}
	if got := string(res.Search.Frontier[0].Settings["max_attempts"]); got != "4" {
		t.Fatalf("recommended max_attempts %s, want C's own 4 (the test's premise)", got)
	}
	if want := "Keep what you have: the search from C recommends C as it is (4 attempts): "; !strings.HasPrefix(sv.Lead, want) {
		t.Errorf("lead %q\nwant it to start %q", sv.Lead, want)
	}
	if want := "Keep what you have: C as it is (4 attempts) gives the lowest "; !strings.HasPrefix(sv.Recommendation, want) {
		t.Errorf("recommendation %q\nwant it to start %q", sv.Recommendation, want)
	}
	if v := Of(sc, res, Options{}).Verdict; !strings.HasPrefix(v, "Keep what you have: ") {
		t.Errorf("verdict %q: want the search's lead first", v)
	}

	sc, res = searched(t, nil) // recommends 3 attempts, jitter decorrelated: not C's own
	sv = Of(sc, res, Options{}).Search
	for _, text := range []string{sv.Lead, sv.Recommendation} {
		if text == "" || strings.Contains(strings.ToLower(text), "keep what you have") {
			t.Errorf("%q: want a recommendation that does not say to keep C", text)
		}
	}
}
