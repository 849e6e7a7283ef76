package search

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/retrylab/retrylab/shared/engine"
)

var strategyType = reflect.TypeFor[engine.Strategy]()

// unmarshalerType is json.Unmarshaler's: a type that reads its own JSON
// is a value, not an object of fields.
var unmarshalerType = reflect.TypeFor[json.Unmarshaler]()

// unmarshalNumbers reads JSON into a generic tree with its numbers as
// written (json.Number), as SetPath and DecodeStrategy take it.
func unmarshalNumbers(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	return dec.Decode(v)
}

// knobPath checks the path of knob k, read into steps, against the fields
// of a strategy (the search's, named strategy), and reports what is wrong
// at the knob's path: a field a strategy does not have (with the near
// misses and the paths allowed there), a label (preset, based_on, name,
// description), a path written from the scenario rather than the
// strategy, or a step into a value that is not an object or a list.
func knobPath(v *engine.SearchCheck, k int, path string, steps []engine.PathStep, strategy string) bool {
	return knobPathFrom(v, k, path, steps, strategy, strategyType, "")
}

// knobPathFrom checks steps from struct type t0, at path at0 of the
// knob ("" at the strategy; "levels[*]" for a path within a level).
func knobPathFrom(v *engine.SearchCheck, k int, path string, steps []engine.PathStep, strategy string, t0 reflect.Type, at0 string) bool {
	field := fmt.Sprintf("search.knobs[%d].path", k)
	bad := func(format string, args ...any) bool {
		v.Add(field, path, format, args...)
		return false
	}
	if first := steps[0].Key; at0 == "" && len(steps) > 1 && !isField(strategyType, first) {
		switch {
		case first == "strategies" && steps[1].Key == "" && len(steps) > 2:
			return bad("is written from the scenario; a knob's path is relative to the search's strategy %q: write %q", strategy, pathText(steps[2:]))
		case first == strategy:
			return bad("starts with the strategy's name; a knob's path is relative to the search's strategy %q: write %q", strategy, pathText(steps[1:]))
		}
	}
	t, at := t0, at0
	for i, st := range steps {
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		if st.Key == "" {
			if t.Kind() != reflect.Slice {
				return bad("has index [%d] after %s, which is %s, not a list", st.Index, at, typeWord(t))
			}
			t, at = t.Elem(), fmt.Sprintf("%s[%d]", at, st.Index)
			continue
		}
		if t.Kind() == reflect.Map && !reflect.PointerTo(t).Implements(unmarshalerType) {
			t, at = t.Elem(), engine.JoinPath(at, st.Key)
			continue
		}
		if t.Kind() == reflect.Slice {
			return bad("goes on past %s, which is a list: give an index, such as %q", at, at+"[0]."+pathText(steps[i:]))
		}
		if t.Kind() != reflect.Struct || reflect.PointerTo(t).Implements(unmarshalerType) {
			return bad("goes on past %s, which is %s, not an object; write %q", at, typeWord(t), at)
		}
		switch st.Key {
		case "preset", "based_on":
			return bad("is not a setting: a preset is expanded when the scenario is read (based_on is its label), and a knob changes a setting of the strategy; to compare presets, add a strategy for each to the scenario's strategies")
		case "name", "description":
			if i == 0 {
				return bad("names the strategy's %s, which changes nothing in a simulation; give a policy field such as \"max_attempts\" or \"backoff.base\"", st.Key)
			}
		}
		idx, ok := engine.FieldIndex(t, st.Key)
		if !ok {
			names := knobFields(t, i == 0)
			paths := make([]string, len(names))
			for j, n := range names {
				paths[j] = engine.JoinPath(at, n)
			}
			what := "is not a setting of a strategy"
			if at != "" {
				what = fmt.Sprintf("is not a setting of a strategy: %s has no field %q", at, st.Key)
			}
			near := engine.NearNames(st.Key, names)
			if at == "" {
				for _, n := range engine.NearNames(st.Key, []string{"levels", engine.RetryLevel}) {
					near = append(near, strings.Replace(n, "levels", "levels[*]", 1))
				}
			}
			for j := range near {
				near[j] = engine.JoinPath(at, near[j])
			}
			if len(near) == 0 && i == 0 {
				for _, d := range deeperFields(t, st.Key) {
					if at0 != "" {
						d = at0 + "." + d
					}
					near = append(near, d)
				}
			}
			for j := range near {
				near[j] = strconv.Quote(near[j])
			}
			hint := "."
			if len(near) > 0 {
				hint = "; did you mean " + strings.Join(near, " or ") + "?"
			}
			there := "A knob's path starts with one of"
			if at == "" {
				paths = append(paths, "levels[*]", "levels[i]", engine.RetryLevel)
			} else {
				there = "The knob paths into " + at + " are"
			}
			return bad("%s%s %s %s", what, hint, there, strings.Join(paths, ", "))
		}
		t, at = t.FieldByIndex(idx).Type, engine.JoinPath(at, st.Key)
	}
	return true
}

// isField reports whether struct t has a field named key in JSON.
func isField(t reflect.Type, key string) bool {
	_, ok := engine.FieldIndex(t, key)
	return ok
}

// pathText writes steps as a path, such as "layers[0].max_attempts".
func pathText(steps []engine.PathStep) string {
	s := ""
	for _, st := range steps {
		if st.Key == "" {
			s += fmt.Sprintf("[%d]", st.Index)
		} else {
			s = engine.JoinPath(s, st.Key)
		}
	}
	return s
}

// typeWord names what a field of type t holds, for a sentence.
func typeWord(t reflect.Type) string {
	switch {
	case t == reflect.TypeFor[engine.Duration]():
		return "a duration"
	case t.Kind() == reflect.String:
		return "a string"
	case t.Kind() == reflect.Bool:
		return "true or false"
	case t.Kind() == reflect.Int || t.Kind() == reflect.Int64 || t.Kind() == reflect.Float64:
		return "a number"
	case t.Kind() == reflect.Slice:
		return "a list"
	}
	return "an object"
}

// knobFields returns the fields of struct t a knob may set: all but the
// labels (preset, based_on; and a strategy's name and description at the
// top).
func knobFields(t reflect.Type, top bool) []string {
	var names []string
	for _, n := range engine.FieldNames(t) {
		switch {
		case n == "preset" || n == "based_on":
		case top && (n == "name" || n == "description"):
		default:
			names = append(names, n)
		}
	}
	return names
}

// deeperFields returns the paths "f.Key" where f is an object field of
// struct t that has a field key: "ratio" is budget's and breaker's.
func deeperFields(t reflect.Type, key string) []string {
	var out []string
	for _, n := range knobFields(t, true) {
		idx, _ := engine.FieldIndex(t, n)
		ft := t.FieldByIndex(idx).Type
		for ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		if ft.Kind() != reflect.Struct || reflect.PointerTo(ft).Implements(unmarshalerType) {
			continue
		}
		if _, ok := engine.FieldIndex(ft, key); ok {
			out = append(out, n+"."+key)
		}
	}
	return out
}

// isPrefix reports whether steps a are a proper prefix of steps b.
func isPrefix(a, b []engine.PathStep) bool {
	return len(a) < len(b) && slices.Equal(a, b[:len(a)])
}

// knobValues checks the values of the knobs, whose paths (read into
// steps) fit a strategy: each is given once, and a knob over an object
// another knob sets a field in gives objects (or lists, for an index),
// or null.
func knobValues(v *engine.SearchCheck, s *engine.Search, steps [][][]engine.PathStep) {
	for k, kn := range s.Knobs {
		seen := make(map[string]int, len(kn.Values))
		for j, val := range kn.Values {
			key := string(canonicalValue(val))
			if i, dup := seen[key]; dup {
				v.AddError(engine.FieldError{Path: fmt.Sprintf("search.knobs[%d].values[%d]", k, j), Value: string(compactValue(val)),
					Message: fmt.Sprintf("is also values[%d]; a knob gives each value once", i)})
				continue
			}
			seen[key] = j
		}
		for m := range s.Knobs {
			var a, b []engine.PathStep
			for _, sk := range steps[k] {
				for _, sm := range steps[m] {
					if isPrefix(sk, sm) {
						a, b = sk, sm
					}
				}
			}
			if a == nil {
				continue
			}
			want, isWant := "an object", func(x any) bool { _, ok := x.(map[string]any); return ok }
			if b[len(a)].Key == "" {
				want, isWant = "a list", func(x any) bool { _, ok := x.([]any); return ok }
			}
			for j, val := range kn.Values {
				var x any
				if unmarshalNumbers(val, &x) != nil || x == nil || isWant(x) {
					continue // not JSON is said elsewhere; null leaves the field out
				}
				v.AddError(engine.FieldError{Path: fmt.Sprintf("search.knobs[%d].values[%d]", k, j), Value: string(compactValue(val)),
					Message: fmt.Sprintf("is not %s, and search.knobs[%d] (%q) sets a field in it: give %s values (or null), or drop one of the two knobs",
						want, m, s.Knobs[m].Path, strings.TrimPrefix(strings.TrimPrefix(want, "an "), "a "))})
			}
			break
		}
	}
}

// canonicalValue returns a knob's value as compact JSON with its objects'
// keys sorted, so that two ways of writing one value compare equal.
func canonicalValue(raw json.RawMessage) []byte {
	var x any
	if len(raw) == 0 || unmarshalNumbers(raw, &x) != nil {
		return compactValue(raw)
	}
	b, err := json.Marshal(x)
	if err != nil {
		return compactValue(raw)
	}
	return b
}

// missingObjects checks, for each knob whose path goes through an object
// strategy si does not have (and that no other knob sets whole), that the
// object the knobs into it create, with every knob at its first value,
// is valid; if not, it says so at the first such knob's path and
// suggests a knob on the whole object.
func missingObjects(v *engine.SearchCheck, sc *engine.Scenario, si int, knobSteps [][][]engine.PathStep) {
	s := sc.Search
	raw, err := json.Marshal(&sc.Strategies[si])
	if err != nil {
		return
	}
	var tree any
	if unmarshalNumbers(raw, &tree) != nil {
		return
	}
	var steps [][]engine.PathStep // every knob's strategy paths
	for _, ss := range knobSteps {
		steps = append(steps, ss...)
	}
	done := map[string]bool{}
	for k := range s.Knobs {
	paths:
		for _, ks := range knobSteps[k] {
			miss := missingPrefix(tree, ks)
			if miss == nil || done[pathText(miss)] || slices.ContainsFunc(steps, func(o []engine.PathStep) bool {
				return len(o) <= len(miss) && slices.Equal(o, miss[:len(o)])
			}) {
				continue // the strategy has it all, or another knob sets the object
			}
			obj := pathText(miss)
			done[obj] = true
			idx := make([]int, len(s.Knobs))
			under := fmt.Sprintf("strategies[%d].%s", si, obj)
			for _, e := range candidate(v, sc, si, idx) {
				if e.Path != under && !strings.HasPrefix(e.Path, under+".") && !strings.HasPrefix(e.Path, under+"[") {
					continue
				}
				// The whole object as the knob names it: levels[*].budget
				// for levels[*].budget.ratio.
				whole := strings.TrimSuffix(s.Knobs[k].Path, "."+pathText(ks[len(miss):]))
				such := ""
				for _, d := range engine.DefaultSearch("").Knobs {
					if i := slices.IndexFunc(d.Values, func(r json.RawMessage) bool { return string(r) != "null" }); d.Path == miss[len(miss)-1].Key && i >= 0 {
						such = fmt.Sprintf(", such as %s", d.Values[i])
					}
				}
				v.Add(fmt.Sprintf("search.knobs[%d].path", k), s.Knobs[k].Path,
					"sets part of %s, which strategy %q does not have: the %s the knobs would create is not valid (at %s %s %s); vary the whole object instead, with a knob %q with object values%s (null for none)",
					obj, s.Strategy, obj, e.Path, e.Value, e.Message, whole, such)
				break paths
			}
		}
	}
}

// missingPrefix returns the steps up to the first object of path (not
// its last step) that tree does not have, or nil.
func missingPrefix(tree any, steps []engine.PathStep) []engine.PathStep {
	cur := tree
	for i, st := range steps[:len(steps)-1] {
		switch x := cur.(type) {
		case map[string]any:
			next, ok := x[st.Key]
			if st.Key == "" || !ok || next == nil {
				if st.Key == "" {
					return nil
				}
				return steps[:i+1]
			}
			cur = next
		case []any:
			if st.Key != "" || st.Index >= len(x) {
				return nil // said by engine.SetPath
			}
			cur = x[st.Index]
		default:
			return nil
		}
	}
	return nil
}

// knobOrder returns the order the knobs are set in: a knob on an object
// before the knobs on its fields, which override its values' fields
// (whichever way they name the level: see knobDepth); otherwise as
// listed; retry_level last.
func knobOrder(s *engine.Search) []int {
	order := make([]int, len(s.Knobs))
	depth := make([]int, len(s.Knobs))
	for k, kn := range s.Knobs {
		order[k] = k
		depth[k] = knobDepth(kn.Path)
	}
	slices.SortStableFunc(order, func(a, b int) int { return depth[a] - depth[b] })
	return order
}
