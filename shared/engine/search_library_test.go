package engine

import "testing"

// TestDefaultSearchKeepsToALibraryForOneLevelOnly: a strategy based on a
// library's preset is searched within that library's limits when it has
// one level and no hedging; with a layer or hedging, which no library's
// format writes, its search is the engine's own.
func TestDefaultSearchKeepsToALibraryForOneLevelOnly(t *testing.T) {
	for _, tc := range []struct {
		name   string
		st     Strategy
		within string
	}{
		{"one level", Strategy{Policy: Policy{BasedOn: "resilience4j", MaxAttempts: 3}}, "resilience4j"},
		{"one level of a library with several presets", Strategy{Policy: Policy{BasedOn: "aws-adaptive", MaxAttempts: 3}}, "aws"},
		{"a layer", Strategy{Policy: Policy{BasedOn: "resilience4j", MaxAttempts: 3}, Layers: []Policy{{MaxAttempts: 2}}}, ""},
		{"hedging", Strategy{Policy: Policy{BasedOn: "resilience4j", MaxAttempts: 3, Hedging: &Hedging{Delay: Duration(1e6)}}}, ""},
		{"no preset", Strategy{Policy: Policy{MaxAttempts: 3}}, ""},
		{"a preset of no library", Strategy{Policy: Policy{BasedOn: "no-such-preset", MaxAttempts: 3}}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.st.Name = "s"
			sc := &Scenario{Strategies: []Strategy{tc.st}}
			if got := DefaultSearchFor(sc, "s").Within; got != tc.within {
				t.Errorf("searched within %q, want %q", got, tc.within)
			}
		})
	}
}
