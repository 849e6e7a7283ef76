package engine

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// failoverSearch returns the built-in failover-incident on one seed with
// the given search (JSON) from its strategy every-layer: a gateway whose
// attempt outlasts its 30 s deadline while its two layers retry, so that
// it never retries itself.
func failoverSearch(t *testing.T, search string) *Scenario {
	t.Helper()
	sc := builtinWithPresets(t, "failover-incident")
	sc.Runs, sc.Seeds = 1, nil
	var s Search
	if err := decodeStrict([]byte(`{"version": 1, "search": `+search+`}`), &struct {
		Version int     `json:"version"`
		Search  *Search `json:"search"`
	}{Search: &s}, nil); err != nil {
		t.Fatal(err)
	}
	sc.Search = &s
	return sc
}

// TestDefaultSearchForLayered: the default search of failover-incident's
// every-layer (issue #27) acts on every level, not the outermost alone,
// which never retries, and asks which level should retry: its 192
// candidates are all different strategies, each setting the knobs'
// values at every level.
func TestDefaultSearchForLayered(t *testing.T) {
	sc := builtinWithPresets(t, "failover-incident")
	sc.Runs, sc.Seeds = 1, nil
	s := DefaultSearchFor(sc, "every-layer")
	var paths []string
	for _, k := range s.Knobs {
		paths = append(paths, k.Path)
	}
	want := []string{"levels[*].max_attempts", "levels[*].backoff", "levels[*].jitter", "levels[*].budget", "retry_level"}
	if !slices.Equal(paths, want) {
		t.Fatalf("knobs %v, want %v", paths, want)
	}
	if got := string(mustJSON(t, s.Knobs[4].Values)); got != `["every",0,1,2]` {
		t.Errorf("retry_level values %s, want every level and each of the 3", got)
	}
	sc.Search = s
	if err := sc.Validate(); err != nil {
		t.Fatalf("the default search of every-layer is not valid: %v", err)
	}
	n := combinations(s)
	distinct := map[string]bool{}
	var cands []Strategy
	for c := range n {
		st, err := sc.SearchCandidate(combination(s, c))
		if err != nil {
			t.Fatal(err)
		}
		cands = append(cands, st)
		st.Name = ""
		distinct[string(mustJSON(t, st))] = true
	}
	if n != 192 || len(distinct) != 192 {
		t.Errorf("%d combinations, %d distinct strategies; want 192 of each", n, len(distinct))
	}
	// Candidate 0: every level 2 attempts, retrying everywhere; the
	// innermost level (the one that does retry) takes the knob's value.
	c0 := cands[0]
	if c0.MaxAttempts != 2 || c0.Layers[0].MaxAttempts != 2 || c0.Layers[1].MaxAttempts != 2 || c0.Layers[1].Backoff.Base.D().String() != "100ms" {
		t.Errorf("candidate 0: attempts %d, %d, %d, innermost backoff %v", c0.MaxAttempts, c0.Layers[0].MaxAttempts, c0.Layers[1].MaxAttempts, c0.Layers[1].Backoff)
	}
	// A single-level strategy without timeouts, breaker, budget or
	// hedging keeps DefaultSearch.
	sc2 := builtinWithPresets(t, "e03b-synchronized-recovery")
	c := slices.IndexFunc(sc2.Strategies, func(st Strategy) bool { return st.Name == "C" })
	sc2.Strategies[c].AttemptTimeout, sc2.Strategies[c].Deadline = 0, 0
	if got := DefaultSearchFor(sc2, "C"); string(mustJSON(t, got)) != string(mustJSON(t, DefaultSearch("C"))) {
		t.Errorf("single level: %s, want DefaultSearch", mustJSON(t, got))
	}
	// Two levels: every, 0, 1 (144); five: every, 0, 2, 4 (192).
	if n := len(layeredKnobs(2)[4].Values); n != 3 {
		t.Errorf("two levels: %d retry_level values, want 3", n)
	}
	if got := string(mustJSON(t, layeredKnobs(5)[4].Values)); got != `["every",0,2,4]` {
		t.Errorf("five levels: retry_level %s", got)
	}
}

// TestSearchKnobOnEveryLevelActs: on one seed, the outermost level's
// max_attempts (all a search of the outermost level alone varies) changes no
// metric of every-layer, and the search says so (Inert); the same knob at
// every level does change them.
func TestSearchKnobOnEveryLevelActs(t *testing.T) {
	objectives := `"objectives": [{"metric": "affected_success_rate", "goal": "max"}]`
	outer := runSearch(t, failoverSearch(t, `{"strategy": "every-layer", "knobs": [{"path": "max_attempts", "values": [2, 4]}], `+objectives+`}`), Options{}).Search
	if !slices.Equal(outer.Inert, []string{"max_attempts"}) {
		t.Errorf("the outermost level's max_attempts: inert %v, want [max_attempts]", outer.Inert)
	}
	every := runSearch(t, failoverSearch(t, `{"strategy": "every-layer", "knobs": [{"path": "levels[*].max_attempts", "values": [2, 4]}], `+objectives+`}`), Options{}).Search
	if len(every.Inert) != 0 {
		t.Errorf("levels[*].max_attempts: inert %v, want none", every.Inert)
	}
	if every.Recommendation == nil || string(every.Recommendation.Settings["levels[*].max_attempts"]) == "" {
		t.Errorf("levels[*].max_attempts: no recommendation: %s", every.Note)
	}
}

// TestKnobbedLevels: levels[*] sets a field at every level, each its own
// copy (a knob on a field of it, levels[2].backoff.base, changes that
// level only), and retry_level, set last, gives the other levels one
// attempt whatever the other knobs set.
func TestKnobbedLevels(t *testing.T) {
	sc := failoverSearch(t, `{"strategy": "every-layer", "knobs": [
		{"path": "retry_level", "values": [1, "none", "every"]},
		{"path": "levels[2].backoff.base", "values": ["50ms"]},
		{"path": "levels[*].backoff", "values": [{"kind": "constant", "base": "1s"}]},
		{"path": "levels[*].max_attempts", "values": [3]}],
		"objectives": [{"metric": "affected_success_rate", "goal": "max"}]}`)
	if err := sc.Validate(); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		level    string
		attempts [3]int
	}{{`1`, [3]int{1, 3, 1}}, {`"none"`, [3]int{1, 1, 1}}, {`"every"`, [3]int{3, 3, 3}}} {
		st, err := sc.SearchCandidate(map[string]json.RawMessage{
			"retry_level": json.RawMessage(tc.level), "levels[2].backoff.base": json.RawMessage(`"50ms"`),
			"levels[*].backoff": json.RawMessage(`{"base":"1s","kind":"constant"}`), "levels[*].max_attempts": json.RawMessage(`3`)})
		if err != nil {
			t.Fatal(err)
		}
		got := [3]int{st.MaxAttempts, st.Layers[0].MaxAttempts, st.Layers[1].MaxAttempts}
		if got != tc.attempts {
			t.Errorf("retry_level %s: attempts %v, want %v", tc.level, got, tc.attempts)
		}
		if b0, b1, b2 := st.Backoff.Base.D().String(), st.Layers[0].Backoff.Base.D().String(), st.Layers[1].Backoff.Base.D().String(); b0 != "1s" || b1 != "1s" || b2 != "50ms" {
			t.Errorf("retry_level %s: backoff bases %s, %s, %s; want 1s, 1s, 50ms", tc.level, b0, b1, b2)
		}
	}
}

// TestKnobLevelErrors: a wrong path on levels or a wrong retry_level is
// refused at the knob, saying what is allowed.
func TestKnobLevelErrors(t *testing.T) {
	for _, tc := range []struct{ knobs, at, want string }{
		{`{"path": "levels.max_attempts", "values": [2]}`, "search.knobs[0].path", `needs a level after levels: levels[*] for every level or levels[i] for level i`},
		{`{"path": "levels[x].max_attempts", "values": [2]}`, "search.knobs[0].path", `has level [x], which is neither * nor a level number`},
		{`{"path": "levels[*]", "values": [2]}`, "search.knobs[0].path", `names a level, not a setting of it: give a field after it, such as "levels[*].max_attempts"`},
		{`{"path": "levels[3].max_attempts", "values": [2]}`, "search.knobs[0].path", `has level 3, which strategy "every-layer" does not have: it has levels 0 (its own policy, the outermost) to 2 (layers[1], the innermost)`},
		{`{"path": "levels[*].max_atempts", "values": [2]}`, "search.knobs[0].path", `levels[*] has no field "max_atempts"; did you mean "levels[*].max_attempts"?`},
		{`{"path": "levels[1].pool", "values": [null]}`, "search.knobs[0].path", `sets pool, which is a setting of the whole strategy, not of a level: write "pool"`},
		{`{"path": "retry_levl", "values": [0]}`, "search.knobs[0].path", `did you mean "retry_level"?`},
		{`{"path": "retry_level.kind", "values": [0]}`, "search.knobs[0].path", `goes on past retry_level`},
		{`{"path": "retry_level", "values": ["inner"]}`, "search.knobs[0].values[0]", `is not a level: retry_level is "every" (every level retries as the strategy and the other knobs set it), "none" (no level retries) or a level number`},
		{`{"path": "retry_level", "values": [3]}`, "search.knobs[0].values[0]", `is level 3, which the strategy does not have`},
		{`{"path": "retry_level", "values": [1.5]}`, "search.knobs[0].values[0]", `is not a level`},
		{`{"path": "levels[*].max_attempts", "values": [2, 3]}, {"path": "layers[0].max_attempts", "values": [2]}`, "search.knobs[1].path",
			`sets layers[0].max_attempts, which search.knobs[0] ("levels[*].max_attempts") sets too; a setting is varied by one knob`},
		{`{"path": "levels[0].max_attempts", "values": [2, 3]}, {"path": "max_attempts", "values": [4]}`, "search.knobs[1].path", `sets max_attempts, which search.knobs[0] ("levels[0].max_attempts") sets too`},
		{`{"path": "layers[*].max_attempts", "values": [2]}`, "search.knobs[0].path", `has [*] after "layers"; [*] stands for every level after levels only: write "levels[*].max_attempts"`},
		{`{"path": "level[*]", "values": [2]}`, "search.knobs[0].path", `write "levels[*].max_attempts"`},
		{`{"path": "levels[01].max_attempts", "values": [2]}`, "search.knobs[0].path", `has level [01], which is neither * nor a level number`},
		{`{"path": "levels[*].backoff", "values": [2]}, {"path": "levels[*].backoff.base", "values": ["1s"]}`, "search.knobs[0].values[0]", `is not an object, and search.knobs[1] ("levels[*].backoff.base") sets a field in it`},
	} {
		sc := failoverSearch(t, `{"strategy": "every-layer", "knobs": [`+tc.knobs+`], "objectives": [{"metric": "affected_success_rate", "goal": "max"}]}`)
		err := sc.Validate()
		if !slices.ContainsFunc(AsErrors(err), func(e FieldError) bool { return e.Path == tc.at && strings.Contains(e.Message, tc.want) }) {
			t.Errorf("%s: %v\nwant at %s: %s", tc.knobs, err, tc.at, tc.want)
		}
	}
}

// TestSearchAllSameRefused: a search whose candidates are all one
// strategy is refused before it runs, saying which knob changes nothing.
func TestSearchAllSameRefused(t *testing.T) {
	sc := failoverSearch(t, `{"strategy": "every-layer", "knobs": [{"path": "max_attempts", "values": [2, 3]}, {"path": "retry_level", "values": [2]}],
		"objectives": [{"metric": "affected_success_rate", "goal": "max"}]}`)
	err := sc.Validate()
	want := `give 2 candidates that are all the same strategy (compared as JSON, without the name): knob "max_attempts" (2, 3) sets max_attempts on levels that retry_level (set last) makes attempt once`
	if !slices.ContainsFunc(AsErrors(err), func(e FieldError) bool { return e.Path == "search.knobs" && strings.HasPrefix(e.Message, want) }) {
		t.Errorf("%v\nwant at search.knobs: %s", err, want)
	}
	// retry_level values that leave the same level retrying.
	sc = failoverSearch(t, `{"strategy": "one-layer", "knobs": [{"path": "retry_level", "values": [2, "every"]}], "objectives": [{"metric": "affected_success_rate", "goal": "max"}]}`)
	if err := sc.Validate(); err == nil || !strings.Contains(err.Error(), `knob "retry_level" (2, "every") leaves the same levels allowed to retry`) {
		t.Errorf("retry_level 2 and every on one-layer: %v", err)
	}
	// One level: "every" and 0 are the same strategy.
	sc = searchE03B(t, 1, `{"strategy": "C", "knobs": [{"path": "retry_level", "values": ["every", 0]}], "objectives": [{"metric": "peak_per_100ms", "goal": "min"}]}`)
	if err := sc.Validate(); err == nil || !strings.Contains(err.Error(), "give 2 candidates that are all the same strategy") {
		t.Errorf("retry_level every and 0 on one level: %v", err)
	}
}

// TestSearchSameRunsOnce: of combinations that give one strategy, the
// search runs the first and says how many it left out.
func TestSearchSameRunsOnce(t *testing.T) {
	sc := failoverSearch(t, `{"strategy": "every-layer", "knobs": [{"path": "max_attempts", "values": [2, 3]}, {"path": "retry_level", "values": ["every", 2]}],
		"objectives": [{"metric": "affected_success_rate", "goal": "max"}]}`)
	s := runSearch(t, sc, Options{}).Search
	if s.Evaluated != 3 || s.Combinations != 4 || s.Simulations != 3 {
		t.Errorf("evaluated %d of %d combinations in %d simulations; want 3 of 4 in 3", s.Evaluated, s.Combinations, s.Simulations)
	}
	want := "1 of the 4 combinations of the knobs' values is the same strategy as an earlier one (compared as JSON, without the name), such as max_attempts 3, retry_level 2, the same as max_attempts 2, retry_level 2; each of the 3 distinct strategies is one candidate"
	if s.Same != want {
		t.Errorf("same %q\nwant %q", s.Same, want)
	}
	for _, p := range s.Frontier {
		if string(p.Settings["max_attempts"]) == "3" && string(p.Settings["retry_level"]) == "2" {
			t.Errorf("the left-out combination is a frontier point: %v", p.Settings)
		}
	}
}
