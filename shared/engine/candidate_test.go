package engine

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestSearchCandidate(t *testing.T) {
	sc := searchE03B(t, 2, smallSearch)
	res := runSearch(t, sc, Options{})
	for _, p := range res.Search.Frontier {
		st, err := sc.SearchCandidate(p.Settings)
		if err != nil {
			t.Fatal(err)
		}
		var attempts int
		_ = json.Unmarshal(p.Settings["max_attempts"], &attempts)
		var jitter string
		_ = json.Unmarshal(p.Settings["jitter.kind"], &jitter)
		if st.Name != "C" || st.MaxAttempts != attempts || string(st.Jitter.Kind) != jitter || st.AttemptTimeout != sc.Strategies[2].AttemptTimeout {
			t.Errorf("candidate of %s: %+v", p.Settings, st.Policy)
		}
	}
	bad := map[string]json.RawMessage{"max_attempts": json.RawMessage("9"), "backoff.base": json.RawMessage(`"100ms"`), "jitter.kind": json.RawMessage(`"full"`)}
	if _, err := sc.SearchCandidate(bad); err == nil || !strings.Contains(err.Error(), "max_attempts 9 is not one of the knob's values") {
		t.Errorf("settings outside the knobs: %v", err)
	}
}

// TestIsSearchStrategy: a point is the search's strategy as it is when its
// candidate is C (4 attempts, backoff from 200 ms, full jitter), written
// either way, and not when a knob's value differs or is not the knob's.
func TestIsSearchStrategy(t *testing.T) {
	sc := searchE03B(t, 2, smallSearch)
	own := map[string]json.RawMessage{"max_attempts": json.RawMessage("4"), "backoff.base": json.RawMessage(`"200ms"`), "jitter.kind": json.RawMessage(`"full"`)}
	if !sc.IsSearchStrategy(own) {
		t.Errorf("C's own settings %s are not C", own)
	}
	other := map[string]json.RawMessage{"max_attempts": json.RawMessage("3"), "backoff.base": json.RawMessage(`"200ms"`), "jitter.kind": json.RawMessage(`"full"`)}
	if sc.IsSearchStrategy(other) {
		t.Errorf("3 attempts are C's own")
	}
	if bad := map[string]json.RawMessage{"max_attempts": json.RawMessage("9")}; sc.IsSearchStrategy(bad) {
		t.Errorf("settings outside the knobs are C's own")
	}
}
