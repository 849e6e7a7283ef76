// Knobs on the levels of a layered strategy: levels[*] (every level),
// levels[i] (one level) and retry_level (which level retries).

package search

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/retrylab/retrylab/shared/engine"
)

var policyType = reflect.TypeFor[engine.Policy]()

// levelPath is a knob path on levels read: level is everyLevel for
// levels[*], else the level (0 the strategy's own policy, the outermost;
// i its layers[i-1]); rest is the path within a level.
type levelPath struct {
	level int
	rest  string
}

// everyLevel is levelPath.level for levels[*].
const everyLevel = -1

// isLevelsPath reports whether a knob path starts with the levels step.
func isLevelsPath(path string) bool {
	rest, ok := strings.CutPrefix(path, "levels")
	return ok && (rest == "" || rest[0] == '.' || rest[0] == '[')
}

// isRetryLevelPath reports whether a knob path starts with retry_level.
func isRetryLevelPath(path string) bool {
	rest, ok := strings.CutPrefix(path, engine.RetryLevel)
	return ok && (rest == "" || rest[0] == '.' || rest[0] == '[')
}

// readLevelPath reads "levels[*].REST" or "levels[i].REST" (isLevelsPath
// holds); why says what is wrong when it is neither.
func readLevelPath(path string) (lp levelPath, why string) {
	const such = `levels[*] for every level or levels[i] for level i (0 the strategy's own, outermost; 1 its first layer, and so on), then a field of a level, such as "levels[*].max_attempts" or "levels[2].backoff"`
	rest := strings.TrimPrefix(path, "levels")
	if !strings.HasPrefix(rest, "[") {
		return lp, "needs a level after levels: " + such
	}
	end := strings.IndexByte(rest, ']')
	if end < 0 {
		return lp, "has no closing bracket after levels[: " + such
	}
	switch in := rest[1:end]; {
	case in == "*":
		lp.level = everyLevel
	default:
		n, err := strconv.Atoi(in)
		if err != nil || n < 0 || len(in) > 6 || strings.HasPrefix(in, "+") || len(in) > 1 && in[0] == '0' {
			return lp, fmt.Sprintf("has level [%s], which is neither * nor a level number: %s", in, such)
		}
		lp.level = n
	}
	rest = rest[end+1:]
	if rest == "" {
		return lp, "names a level, not a setting of it: give a field after it, such as " + strconv.Quote(path+".max_attempts")
	}
	if rest[0] != '.' || len(rest) == 1 {
		return lp, "needs a dot and a field after the level: " + such
	}
	lp.rest = rest[1:]
	return lp, ""
}

// levelsText says which levels a strategy with n levels has: "level 0
// (its own policy, the outermost) and layers 1..2".
func levelsText(n int) string {
	switch n {
	case 1:
		return "only level 0 (its own policy; it has no layers)"
	case 2:
		return "levels 0 (its own policy, the outermost) and 1 (its layer, layers[0])"
	}
	return fmt.Sprintf("levels 0 (its own policy, the outermost) to %d (layers[%d], the innermost)", n-1, n-2)
}

// atLevel returns the path of field rest (a path within a policy) at
// level l of a strategy: rest itself at level 0, layers[l-1].rest below.
func atLevel(l int, rest string) string {
	if l == 0 {
		return rest
	}
	return fmt.Sprintf("layers[%d].%s", l-1, rest)
}

// knobTargets returns the strategy paths knob path sets in a strategy of
// n levels: levels[*].f at every level, levels[i].f at level i, any
// other path itself; none for retry_level, which is set last (see
// applyRetryLevel). why says when the strategy lacks the level.
func knobTargets(path string, n int) (paths []string, why string) {
	switch {
	case path == engine.RetryLevel:
		return nil, ""
	case !isLevelsPath(path):
		return []string{path}, ""
	}
	lp, why := readLevelPath(path)
	if why != "" {
		return nil, why
	}
	if lp.level == everyLevel {
		for l := range n {
			paths = append(paths, atLevel(l, lp.rest))
		}
		return paths, ""
	}
	if lp.level >= n {
		return nil, fmt.Sprintf("has level %d, which the strategy does not have: it has %s", lp.level, levelsText(n))
	}
	return []string{atLevel(lp.level, lp.rest)}, ""
}

// levelsOf returns how many levels a strategy's JSON tree has: its own
// policy and each layer.
func levelsOf(tree any) int {
	m, _ := tree.(map[string]any)
	layers, _ := m["layers"].([]any)
	return 1 + len(layers)
}

// retryLevelValue reads a value of a retry_level knob for a strategy of
// n levels: the level that retries, everyLevel for "every", or -2 for
// "none". why says what is wrong with it.
func retryLevelValue(raw json.RawMessage, n int) (level int, why string) {
	allowed := fmt.Sprintf(`retry_level is %q (every level retries as the strategy and the other knobs set it), %q (no level retries) or a level number, whose retries are kept while every other level makes one attempt (max_attempts 1); the strategy has %s`,
		engine.RetryLevelEvery, engine.RetryLevelNone, levelsText(n))
	var x any
	if len(raw) == 0 || unmarshalNumbers(raw, &x) != nil {
		return 0, "is not a level: " + allowed
	}
	switch v := x.(type) {
	case string:
		switch v {
		case engine.RetryLevelEvery:
			return everyLevel, ""
		case engine.RetryLevelNone:
			return -2, ""
		}
	case json.Number:
		l, err := strconv.Atoi(v.String())
		if err == nil && l >= 0 && l < n {
			return l, ""
		}
		if err == nil && l >= n {
			return 0, fmt.Sprintf("is level %d, which the strategy does not have: %s", l, allowed)
		}
	}
	return 0, "is not a level: " + allowed
}

// applyRetryLevel sets, in a strategy's JSON tree, one attempt at every
// level but the one level keeps (every level for "none"; none for
// "every"): max_attempts 1, and no hedging, since one copy is no hedge.
func applyRetryLevel(tree any, level int) {
	if level == everyLevel {
		return
	}
	top, _ := tree.(map[string]any)
	layers, _ := top["layers"].([]any)
	for l := range 1 + len(layers) {
		if l == level {
			continue
		}
		pol := top
		if l > 0 {
			if pol, _ = layers[l-1].(map[string]any); pol == nil {
				continue
			}
		}
		pol["max_attempts"] = json.Number("1")
		delete(pol, "hedging")
	}
}

// levelKnobPath checks a knob path on levels (levels[...] or
// retry_level) for strategy si (-1 when the search names none), with
// the same care as knobPath: what is wrong, and what to write.
func levelKnobPath(v *engine.SearchCheck, k int, path string, sc *engine.Scenario, si int) bool {
	field := fmt.Sprintf("search.knobs[%d].path", k)
	strategy := sc.Search.Strategy
	if isRetryLevelPath(path) {
		if path != engine.RetryLevel {
			v.Add(field, path, "goes on past retry_level, which takes a level as its value (\"every\", \"none\" or a level number), not a path: write %q", engine.RetryLevel)
			return false
		}
		return true
	}
	lp, why := readLevelPath(path)
	if why != "" {
		v.Add(field, path, "%s", why)
		return false
	}
	if si >= 0 && lp.level != everyLevel {
		if n := 1 + len(sc.Strategies[si].Layers); lp.level >= n {
			v.Add(field, path, "has level %d, which strategy %q does not have: it has %s", lp.level, strategy, levelsText(n))
			return false
		}
	}
	steps, err := engine.ParsePath(lp.rest, field)
	if err != nil {
		for _, e := range engine.AsErrors(err) {
			e.Value = strconv.Quote(path)
			v.AddError(e)
		}
		return false
	}
	if first := steps[0].Key; first != "" && !isField(policyType, first) && isField(strategyType, first) {
		v.Add(field, path, "sets %s, which is a setting of the whole strategy, not of a level: write %q", first, lp.rest)
		return false
	}
	at := strings.TrimSuffix(path, "."+lp.rest)
	return knobPathFrom(v, k, path, steps, strategy, policyType, at)
}

// knobSteps returns, for a strategy of n levels, each knob's strategy
// paths read into steps (none for retry_level or a path that does not
// fit).
func knobSteps(s *engine.Search, n int) [][][]engine.PathStep {
	out := make([][][]engine.PathStep, len(s.Knobs))
	for k, kn := range s.Knobs {
		paths, why := knobTargets(kn.Path, n)
		if why != "" {
			continue
		}
		for _, p := range paths {
			if steps, err := engine.ParsePath(p, ""); err == nil {
				out[k] = append(out[k], steps)
			}
		}
	}
	return out
}

// knobDepth orders the knobs (knobOrder): a knob on an object before
// the knobs on its fields, whichever way they name the level. A policy's
// field counts one step for its level, whether named plainly
// ("backoff"), by its layer ("layers[0].backoff") or by levels[...];
// the layers as a whole come before any of them. retry_level is last.
func knobDepth(path string) int {
	if path == engine.RetryLevel {
		return 1 << 20
	}
	if isLevelsPath(path) {
		lp, why := readLevelPath(path)
		if why != "" {
			return 0
		}
		steps, _ := engine.ParsePath(lp.rest, "")
		return 1 + len(steps)
	}
	steps, err := engine.ParsePath(path, "")
	if err != nil || len(steps) == 0 {
		return 0
	}
	switch first := steps[0].Key; {
	case first == "layers":
		return max(len(steps)-1, 0) // layers 0, layers[0] 1, layers[0].backoff 2
	case isField(policyType, first):
		return 1 + len(steps)
	}
	return len(steps)
}

// sameStrategies groups search candidates by their strategy (canonical
// JSON without the name): it returns, for each candidate, the index of
// the first candidate that is the same strategy.
func sameStrategies(cands []engine.Strategy) []int {
	first := make([]int, len(cands))
	seen := make(map[string]int, len(cands))
	for c := range cands {
		st := cands[c]
		st.Name = ""
		raw, _ := json.Marshal(&st)
		key := string(canonicalValue(raw))
		if f, ok := seen[key]; ok {
			first[c] = f
			continue
		}
		seen[key] = c
		first[c] = c
	}
	return first
}

// allSameText says why the n candidates of search s (all the same
// strategy) do not differ: each knob with more than one value, and what
// makes it change nothing.
func allSameText(s *engine.Search, n int) string {
	var why []string
	retry := slices.ContainsFunc(s.Knobs, func(kn engine.Knob) bool { return kn.Path == engine.RetryLevel })
	for _, kn := range s.Knobs {
		if len(kn.Values) < 2 {
			continue
		}
		vals := make([]string, len(kn.Values))
		for j, val := range kn.Values {
			vals[j] = string(compactValue(val))
		}
		what := "gives the strategy as it is, or as its defaults are, with each of its values"
		switch {
		case kn.Path == engine.RetryLevel:
			what = "leaves the same levels allowed to retry with each of its values (the others attempt once)"
		case retry && strings.HasSuffix(kn.Path, "max_attempts"):
			what = "sets max_attempts on levels that retry_level (set last) makes attempt once"
		}
		why = append(why, fmt.Sprintf("knob %q (%s) %s", kn.Path, strings.Join(vals, ", "), what))
	}
	if len(why) == 0 {
		why = append(why, "every knob has one value")
	}
	return fmt.Sprintf("give %d candidates that are all the same strategy (compared as JSON, without the name): %s; a search compares candidates that differ: give values other than the strategy's own and its defaults, or knobs on other settings",
		n, strings.Join(why, "; "))
}

// levelKnobs checks what the knobs' paths, each fit for a strategy of n
// levels, say together: the values of a retry_level knob, and that no two
// knobs set the same setting (levels[*].max_attempts sets max_attempts
// and layers[0].max_attempts too).
func levelKnobs(v *engine.SearchCheck, s *engine.Search, n int) {
	set := map[string]int{} // strategy path: the knob that sets it
	for k, kn := range s.Knobs {
		if kn.Path == engine.RetryLevel {
			for j, val := range kn.Values {
				if _, why := retryLevelValue(val, n); why != "" {
					v.AddError(engine.FieldError{Path: fmt.Sprintf("search.knobs[%d].values[%d]", k, j), Value: string(compactValue(val)), Message: why})
				}
			}
			continue
		}
		paths, why := knobTargets(kn.Path, n)
		if why != "" {
			continue // said by levelKnobPath
		}
		for _, p := range paths {
			j, dup := set[p]
			if !dup {
				set[p] = k
				continue
			}
			if p == kn.Path && p == s.Knobs[j].Path {
				continue // the same path: said already
			}
			v.Add(fmt.Sprintf("search.knobs[%d].path", k), kn.Path,
				"sets %s, which search.knobs[%d] (%q) sets too; a setting is varied by one knob: levels[*] sets a field at every level, so give each level its own knob (levels[i]) instead, or drop one of the two",
				p, j, s.Knobs[j].Path)
			break
		}
	}
}
