//go:build !nosearch

package view

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/retrylab/retrylab/shared/engine"
)

func TestSettingWords(t *testing.T) {
	for _, tc := range []struct{ path, raw, want string }{
		{"max_attempts", `3`, "3 attempts"},
		{"max_attempts", `1`, "1 attempt"},
		{"backoff", `{"kind":"exponential","base":"2s","max":"20s","multiplier":2}`, "backoff exponential 2 s → 20 s"},
		{"backoff", `{"kind":"exponential","base":"500ms","max":"5s","multiplier":3}`, "backoff exponential 500 ms → 5 s, ×3"},
		{"jitter", `{"kind":"full"}`, "jitter full"},
		{"jitter.kind", `"decorrelated"`, "jitter decorrelated"},
		{"budget", `null`, "no budget"},
		{"budget", `{"kind":"ratio","ratio":0.1,"window":"1s"}`, "budget ratio 10% over 1 s"},
		{"budget", `{"kind":"token_bucket","max_tokens":10,"token_ratio":0.1}`, "budget token_bucket 10 tokens, +0.1 per success"},
		{"backoff.base", `"200ms"`, "backoff.base 200 ms"},
		{"breaker", `{"kind":"consecutive","failures":5,"break":"10s"}`, "breaker consecutive, break 10 s, failures 5"},
		{"levels[*].max_attempts", `3`, "3 attempts at every level"},
		{"levels[0].jitter", `{"kind":"full"}`, "jitter full at the outermost level"},
		{"levels[2].budget", `null`, "no budget at layer 2"},
		{"retry_level", `"every"`, "retrying at every level"},
		{"retry_level", `"none"`, "retrying at no level"},
		{"retry_level", `0`, "retrying at the outermost level only"},
		{"retry_level", `2`, "retrying at layer 2 only"},
	} {
		if got := settingWords(tc.path, json.RawMessage(tc.raw)); got != tc.want {
			t.Errorf("%s %s: %q, want %q", tc.path, tc.raw, got, tc.want)
		}
	}
}

// TestSearchOverlapFromTailSeeds: two points whose lowest and highest
// overlap but whose 5th to 95th percentiles do not are told apart from
// TailSeeds seeds on, as the table's marks tell strategies apart.
func TestSearchOverlapFromTailSeeds(t *testing.T) {
	if TailSeeds != engine.TailSeeds {
		t.Fatalf("the view compares percentiles from %d seeds, the engine gives them from %d", TailSeeds, engine.TailSeeds)
	}
	point := func(mean, lo, hi, p5, p95 float64) *engine.SearchPoint {
		p := &engine.SearchPoint{Spread: map[string]engine.MinMax{"peak_per_100ms": {Min: lo, Max: hi}},
			Quantiles: map[string]engine.Quantiles{"peak_per_100ms": {P5: p5, P50: mean, P95: p95}}}
		p.Metrics.PeakPer100ms = mean
		return p
	}
	a, b := point(25, 20, 33, 22, 28), point(32, 26, 39, 29, 36)
	if overlap, _ := overlaps("peak_per_100ms", a, b, TailSeeds-1); !overlap {
		t.Error("below TailSeeds seeds, ranges 20..33 and 26..39 should overlap")
	}
	if overlap, tails := overlaps("peak_per_100ms", a, b, TailSeeds); overlap || !tails {
		t.Errorf("from TailSeeds seeds, percentiles 22..28 and 29..36: overlap %v, tails %v", overlap, tails)
	}
}

// TestSettingsSentenceLevels: knobs on one level say it once, after the
// last of them; retry_level says which level retries; the table writes
// retry_level's values in words.
func TestSettingsSentenceLevels(t *testing.T) {
	s := &engine.Search{Knobs: []engine.Knob{{Path: "levels[*].max_attempts"}, {Path: "levels[*].jitter"}, {Path: "levels[2].budget"}, {Path: "retry_level"}}}
	got := settingsSentence(s, map[string]json.RawMessage{"levels[*].max_attempts": json.RawMessage(`3`), "levels[*].jitter": json.RawMessage(`{"kind":"none"}`),
		"levels[2].budget": json.RawMessage(`null`), "retry_level": json.RawMessage(`2`)})
	if want := "3 attempts at layer 2, 1 attempt elsewhere, jitter none at every level, no budget at layer 2, retrying at layer 2 only"; got != want {
		t.Errorf("%q, want %q", got, want)
	}
	// Attempts set on every level are said where they apply: every level,
	// none, or the one retry_level keeps; the outermost level's own
	// attempts, under retry_level 2, are one.
	for rl, want := range map[string]string{
		`"every"`: "3 attempts, jitter none at every level, no budget at layer 2, retrying at every level",
		`"none"`:  "jitter none at every level, no budget at layer 2, retrying at no level",
	} {
		got := settingsSentence(s, map[string]json.RawMessage{"levels[*].max_attempts": json.RawMessage(`3`), "levels[*].jitter": json.RawMessage(`{"kind":"none"}`),
			"levels[2].budget": json.RawMessage(`null`), "retry_level": json.RawMessage(rl)})
		if got != want {
			t.Errorf("retry_level %s: %q, want %q", rl, got, want)
		}
	}
	outer := &engine.Search{Knobs: []engine.Knob{{Path: "max_attempts"}, {Path: "retry_level"}}}
	for rl, want := range map[string]string{`2`: "1 attempt at the outermost level, retrying at layer 2 only", `0`: "4 attempts, retrying at the outermost level only"} {
		if got := settingsSentence(outer, map[string]json.RawMessage{"max_attempts": json.RawMessage(`4`), "retry_level": json.RawMessage(rl)}); got != want {
			t.Errorf("outer attempts, retry_level %s: %q, want %q", rl, got, want)
		}
	}
	for raw, want := range map[string]string{`"every"`: "every level", `"none"`: "no level", `0`: "the outermost level", `1`: "layer 1"} {
		if got := knobCell("retry_level", json.RawMessage(raw)); got != want {
			t.Errorf("retry_level %s in the table: %q, want %q", raw, got, want)
		}
	}
	if got := knobWords("levels[1].backoff.base"); got != "backoff.base at layer 1" {
		t.Errorf("knobWords: %q", got)
	}
}

// TestTieNoteAtItsEdges: the note on a frontier that no objective
// separates counts the other candidates only when there are some, and
// says "takes" of one knob that takes each of its values among the points
// in some combinations only, "take" of two.
func TestTieNoteAtItsEdges(t *testing.T) {
	raw := func(vs ...string) []json.RawMessage {
		var out []json.RawMessage
		for _, v := range vs {
			out = append(out, json.RawMessage(v))
		}
		return out
	}
	point := func(attempts, jitter string) engine.SearchPoint {
		p := engine.SearchPoint{Settings: map[string]json.RawMessage{"max_attempts": json.RawMessage(attempts), "jitter": json.RawMessage(jitter)}}
		p.Metrics.AffectedSuccessRate = 0.5
		return p
	}
	frontier := []engine.SearchPoint{point(`2`, `{"kind":"none"}`), point(`3`, `{"kind":"full"}`)}
	for _, tc := range []struct {
		name      string
		jitters   []json.RawMessage
		feasible  int
		want, not string
	}{
		{"one knob takes each value, no other candidate", raw(`{"kind":"none"}`, `{"kind":"full"}`, `{"kind":"equal"}`), 2,
			"all have success rate in the affected window 50.00% on average over 3 seeds. Among them, jitter none or full does the same, and max_attempts takes each of its values among them, in some combinations only.", "the other"},
		{"two knobs take each value, one other candidate", raw(`{"kind":"none"}`, `{"kind":"full"}`), 3,
			"on average over 3 seeds, and the other 1 candidate of the last round that meet the constraints do worse. Among them, max_attempts and jitter take each of their values among them, in some combinations only.", ""},
	} {
		s := &engine.Search{Knobs: []engine.Knob{{Path: "max_attempts", Values: raw(`2`, `3`)}, {Path: "jitter", Values: tc.jitters}},
			Objectives: []engine.Objective{{Metric: "affected_success_rate", Goal: engine.GoalMax}}}
		got := tieNote(s, &engine.SearchResult{Frontier: frontier, Feasible: tc.feasible}, 3)
		if !strings.Contains(got, tc.want) || tc.not != "" && strings.Contains(got, tc.not) {
			t.Errorf("%s: %q, want it to say %q and not %q", tc.name, got, tc.want, tc.not)
		}
	}
}
