//go:build !nosearch

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
