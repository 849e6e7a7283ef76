package engine

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
)

// searchCandidate returns the strategy a point of sc's search stands for:
// the search's strategy with each knob set to the value settings (a
// SearchPoint's) give it. SearchCandidate reaches it.
func (sc *Scenario) searchCandidate(settings map[string]json.RawMessage) (Strategy, error) {
	s := sc.Search
	if s == nil {
		return Strategy{}, errors.New("engine: the scenario has no search")
	}
	si := slices.IndexFunc(sc.Strategies, func(st Strategy) bool { return st.Name == s.Strategy })
	if si < 0 {
		return Strategy{}, fmt.Errorf("engine: search.strategy %q is not a strategy of the scenario", s.Strategy)
	}
	idx := make([]int, len(s.Knobs))
	for k, kn := range s.Knobs {
		want := compactValue(settings[kn.Path])
		idx[k] = slices.IndexFunc(kn.Values, func(v json.RawMessage) bool { return bytes.Equal(compactValue(v), want) })
		if idx[k] < 0 {
			return Strategy{}, fmt.Errorf("engine: %s %s is not one of the knob's values", kn.Path, want)
		}
	}
	return sc.knobbed(si, idx)
}

// isSearchStrategy reports whether the candidate of settings (a
// SearchPoint's) is the search's strategy as the scenario has it: the
// same strategy as the search compares its candidates (canonical JSON,
// without the name; sameStrategies). IsSearchStrategy reaches it.
func (sc *Scenario) isSearchStrategy(settings map[string]json.RawMessage) bool {
	st, err := sc.searchCandidate(settings)
	if err != nil {
		return false
	}
	si := slices.IndexFunc(sc.Strategies, func(x Strategy) bool { return x.Name == sc.Search.Strategy })
	return sameStrategies([]Strategy{sc.Strategies[si], st})[1] == 0
}
