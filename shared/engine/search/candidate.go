package search

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/retrylab/retrylab/shared/engine"
)

// searchCandidate returns the strategy a point of sc's search stands for:
// the search's strategy with each knob set to the value settings (a
// SearchPoint's) give it: engine.Scenario.SearchCandidate.
func searchCandidate(sc *engine.Scenario, settings map[string]json.RawMessage) (engine.Strategy, error) {
	s := sc.Search
	if s == nil {
		return engine.Strategy{}, errors.New("engine: the scenario has no search")
	}
	si := slices.IndexFunc(sc.Strategies, func(st engine.Strategy) bool { return st.Name == s.Strategy })
	if si < 0 {
		return engine.Strategy{}, fmt.Errorf("engine: search.strategy %q is not a strategy of the scenario", s.Strategy)
	}
	idx := make([]int, len(s.Knobs))
	for k, kn := range s.Knobs {
		want := compactValue(settings[kn.Path])
		idx[k] = slices.IndexFunc(kn.Values, func(v json.RawMessage) bool { return bytes.Equal(compactValue(v), want) })
		if idx[k] < 0 {
			return engine.Strategy{}, fmt.Errorf("engine: %s %s is not one of the knob's values", kn.Path, want)
		}
	}
	return knobbed(sc, si, idx)
}

// isSearchStrategy reports whether the candidate of settings (a
// SearchPoint's) is the search's strategy as the scenario has it: the
// same strategy as the search compares its candidates (canonical JSON,
// without the name; sameStrategies): engine.Scenario.IsSearchStrategy.
func isSearchStrategy(sc *engine.Scenario, settings map[string]json.RawMessage) bool {
	st, err := searchCandidate(sc, settings)
	if err != nil {
		return false
	}
	si := slices.IndexFunc(sc.Strategies, func(x engine.Strategy) bool { return x.Name == sc.Search.Strategy })
	return sameStrategies([]engine.Strategy{sc.Strategies[si], st})[1] == 0
}
