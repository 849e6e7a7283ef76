package engine

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"
)

// combinations returns how many combinations of its knobs' values s
// gives.
func combinations(s *Search) int {
	n := 1
	for _, kn := range s.Knobs {
		n *= len(kn.Values)
	}
	return n
}

// combination returns the knobs' values of combination c of s, by path,
// as a SearchPoint's settings: combinations are numbered as nested loops
// over the knobs, the last knob's value changing from one to the next.
func combination(s *Search, c int) map[string]json.RawMessage {
	m := map[string]json.RawMessage{}
	for k := len(s.Knobs) - 1; k >= 0; k-- {
		kn := s.Knobs[k]
		m[kn.Path] = json.RawMessage(compactJSON(kn.Values[c%len(kn.Values)]))
		c /= len(kn.Values)
	}
	return m
}

// compactJSON returns v compacted, as a search's settings and sentences
// write a knob's value.
func compactJSON(v json.RawMessage) string {
	var b bytes.Buffer
	if err := json.Compact(&b, v); err != nil {
		return "null"
	}
	return b.String()
}

// variantOf returns variant i of sc's search (search.across[i]): the
// scenario without its search, edited at the variant's path.
func variantOf(t *testing.T, sc *Scenario, i int) *Scenario {
	t.Helper()
	vr := sc.Search.Across[i]
	if vr.Path == "" {
		sub := *sc
		sub.Search, sub.Sweep = nil, nil
		return &sub
	}
	sub, err := sc.Edited(vr.Path, vr.Value, fmt.Sprintf("search.across[%d].path", i), "a variant")
	if err != nil {
		t.Fatal(err)
	}
	return sub
}

// worstIn returns the worst of xs, the lowest when higher is better and
// the highest otherwise, and its index: the first of equals.
func worstIn(xs []float64, higherBetter bool) (float64, int) {
	w := 0
	for i, x := range xs {
		if higherBetter && x < xs[w] || !higherBetter && x > xs[w] {
			w = i
		}
	}
	return xs[w], w
}

// roundsSimulations returns how many simulations a search's rounds
// make: each round runs its candidates on the seeds it adds.
func roundsSimulations(rounds []SearchRound) int {
	total, prev := 0, 0
	for _, r := range rounds {
		total += r.Candidates * (r.Seeds - prev)
		prev = r.Seeds
	}
	return total
}
