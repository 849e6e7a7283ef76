package view

import (
	"cmp"
	"encoding/json"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/retrylab/retrylab/shared/engine"
)

// formParts are the form's parts, each with where its paths start in a
// scenario.
func formParts() map[string]struct {
	at     string
	fields []FormField
} {
	f := FormOf()
	type part = struct {
		at     string
		fields []FormField
	}
	return map[string]part{
		"workload":   {"workload.", f.Workload},
		"dependency": {"dependency.", f.Dependency},
		"named":      {"dependencies[0].", f.Named},
		"head":       {"strategies[0].", f.Head},
		"policy":     {"strategies[0].", f.Policy},
		"layer":      {"strategies[0].layers[0].", f.Policy},
		"fleet":      {"workload.fleets[0].", append(f.Fleet, f.Policy...)},
		"fleet_of":   {"workload.", f.FleetOf},
		"scoped":     {"strategies[0].", f.Scoped},
		"strategy":   {"strategies[0].", f.Strategy},
		"load":       {"workload.load[0].", f.Load},
		"phase":      {"dependency.phases[0].", f.Phase},
		"call":       {"workload.plan[0].calls[0].", f.Call},
		"bulkhead":   {"strategies[0].bulkheads[0].", f.Bulkhead},
		"fallback":   {"strategies[0].fallbacks[0].", f.Fallback},
		"window":     {"report.", f.Window},
	}
}

// TestFormFieldsAreTheScenarios walks every field of the form: its path
// is a field of the scenario format (the engine's decoder knows it), its
// type a number, text, one of the scenario's own lists or one of the
// engine's lists of kinds.
func TestFormFieldsAreTheScenarios(t *testing.T) {
	vocab, _ := json.Marshal(engine.Kinds())
	var lists map[string]any
	json.Unmarshal(vocab, &lists)
	for name, p := range formParts() {
		for _, f := range p.fields {
			path := p.at + f.Path
			doc, err := Edit([]byte(`{"version":1,"workload":{"fleets":[{}],"plan":[{"calls":[{}]}],"load":[{}]},"dependency":{"phases":[{}]},"dependencies":[{}],"strategies":[{"layers":[{}],"bulkheads":[{}],"fallbacks":[{}]}]}`),
				[]byte(`{"action":"set","path":"`+path+`","value":"x"}`))
			if err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			_, err = engine.Decode(doc)
			for _, e := range engine.AsErrors(err) {
				if e.Path == path && strings.Contains(e.Message, "not a known field") {
					t.Errorf("the %s field %q (%s): %s", name, f.Label, path, e.Message)
				}
			}
			switch f.Type {
			case "number", "text", "checkbox", "numbers", "preset", "dependencies", "calls":
			default:
				if _, ok := lists[f.Type].([]any); !ok {
					t.Errorf("the %s field %s has type %q: not a list of the engine's vocabulary", name, path, f.Type)
				}
			}
		}
	}
}

// TestKindRulesCoverTheVocabulary walks every kind of every object with a
// kind: each field the engine's vocabulary gives a kind has a field in
// the form, and every field the form shows of such an object is its key,
// a common field or some kind's.
func TestKindRulesCoverTheVocabulary(t *testing.T) {
	v := engine.Kinds()
	kinds := map[string][]string{
		"service_time": strs(v.ServiceTimes), "request": strs(v.Delays), "answer": strs(v.Delays), "jitter": strs(v.Jitters),
		"load_latency": strs(v.LatencyLaws), "phases": strs(v.Phases), "load": strs(v.Loads),
		"codel": strs(v.QueueDisciplines),
	}
	shown := map[string]map[string]bool{} // object → fields the form shows
	for _, p := range formParts() {
		for _, f := range p.fields {
			keys := keysOf(p.at + f.Path)
			owner := keys[:len(keys)-1]
			name, _ := owner[len(owner)-1].(string)
			if _, ok := owner[len(owner)-1].(int); ok {
				name, _ = owner[len(owner)-2].(string)
			}
			if shown[name] == nil {
				shown[name] = map[string]bool{}
			}
			shown[name][keys[len(keys)-1].(string)] = true
		}
	}
	rules := KindRules()
	if len(rules) != len(kinds) {
		t.Errorf("%d kind rules; the test knows the kinds of %d objects", len(rules), len(kinds))
	}
	for _, r := range rules {
		ks, ok := kinds[r.Object]
		if !ok {
			t.Errorf("the rule of %q: the test does not know its kinds", r.Object)
			continue
		}
		if r.Above {
			// The kind is its owner's: the dependency's.
			if !shown["dependency"][r.Key] {
				t.Errorf("the form has no field for the %s's owner's %s, the kind", r.Object, r.Key)
			}
			if r.Takes("fifo", "target") || r.Takes("codel", r.Key) || !r.Takes("adaptive-lifo", "interval") {
				t.Errorf("the rule of %s: fifo takes its target %v, codel its owner's key %v, adaptive-lifo its interval %v",
					r.Object, r.Takes("fifo", "target"), r.Takes("codel", r.Key), r.Takes("adaptive-lifo", "interval"))
			}
		} else if !shown[r.Object][r.Key] {
			t.Errorf("the form has no field for %s.%s, the kind", r.Object, r.Key)
		}
		for _, k := range ks {
			for _, f := range slices.Concat(r.Fields[k], r.Common) {
				if !shown[r.Object][f] {
					t.Errorf("a %s of kind %s takes %s: the form has no field for it", r.Object, k, f)
				}
				if !r.Takes(k, f) {
					t.Errorf("the rule of %s says kind %s does not take %s", r.Object, k, f)
				}
			}
		}
		for f := range shown[r.Object] {
			taken := f == r.Key && !r.Above
			for _, k := range ks {
				taken = taken || r.Takes(k, f)
			}
			if !taken {
				t.Errorf("the form shows %s.%s, which no kind takes", r.Object, f)
			}
		}
		if r.Takes("", "from") && r.Key != "from" {
			t.Errorf("the rule of %s: an object without a kind takes its common fields", r.Object)
		}
	}
}

func strs[K ~string](ks []K) []string {
	out := make([]string, len(ks))
	for i, k := range ks {
		out[i] = string(k)
	}
	return out
}

// TestFormOfIsJSON: the page gets the form as JSON, every part a list.
func TestFormOfIsJSON(t *testing.T) {
	b, err := json.Marshal(FormOf())
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	json.Unmarshal(b, &m)
	n := reflect.TypeOf(Form{}).NumField()
	if len(m) != n {
		t.Errorf("%d parts in JSON; Form has %d", len(m), n)
	}
	for k, v := range m {
		if k == "folding" {
			continue // TestFormFolds
		}
		if l, ok := v.([]any); !ok || len(l) == 0 {
			t.Errorf("part %s: %v", k, v)
		}
	}
}

// TestFormFolds walks every field of every part of the form: in the
// folding parts (a dependency's, a policy's, a strategy's), a field folds
// while it holds no value unless it is a kind selector, a field a kind
// rule shows with its kind only, or an essential one; no other part's
// field folds; each folding part keeps at most a short list open while
// its fields are empty, and folds something.
func TestFormFolds(t *testing.T) {
	f := FormOf()
	folding := map[string][]FormField{"dependency": f.Dependency, "policy": f.Policy, "scoped": f.Scoped, "strategy": f.Strategy}
	for name := range f.Folding {
		if _, ok := folding[name]; !ok {
			t.Errorf("Folding names the part %q, which does not fold", name)
		}
	}
	for name, p := range formParts() {
		part := name
		if name == "layer" || name == "fleet" {
			part = "policy" // a layer's and a fleet's policy fold as a strategy's
		}
		fields, folds := folding[part]
		if !folds {
			for _, field := range p.fields {
				if slices.Contains(f.Folding[part], field.Path) {
					t.Errorf("the %s field %s folds: only %v fold", name, field.Path, slices.Collect(maps.Keys(folding)))
				}
			}
			continue
		}
		open := 0
		for _, field := range fields {
			keys := strings.Split(field.Path, ".")
			last := keys[len(keys)-1]
			ruled := false
			if len(keys) > 1 {
				if r, ok := kindRule(keys[len(keys)-2]); ok {
					for k := range r.Fields {
						ruled = ruled || r.Takes(k, last)
					}
				}
			}
			want := !(last == "kind" || ruled || slices.Contains(essential, field.Path))
			if got := slices.Contains(f.Folding[part], field.Path); got != want {
				t.Errorf("the %s field %s (%q): folds %v, want %v", part, field.Path, field.Label, got, want)
			}
			if !want && !ruled {
				open++
			}
		}
		if open > 8 {
			t.Errorf("the %s part shows %d fields while empty; a newcomer sees a wall", part, open)
		}
		if len(f.Folding[part]) == 0 {
			t.Errorf("the %s part folds nothing", part)
		}
	}
	for _, path := range essential {
		if !slices.ContainsFunc(slices.Concat(f.Dependency, f.Policy), func(x FormField) bool { return x.Path == path }) {
			t.Errorf("the essential field %q is no field of a dependency or a policy", path)
		}
	}
}

// TestFormEditsTheDependencyFeatures walks the JSON fields of the
// dependency's overload control, backends, autoscaler and cache, a
// phase's aim at backends and a policy's host retry: each that holds a
// number, a duration or a kind has a field in the form's part, each that
// holds a bool a checkbox, a phase's backends a "numbers" field, and no
// other list has one (a text control would write a string).
func TestFormEditsTheDependencyFeatures(t *testing.T) {
	f := FormOf()
	for _, tc := range []struct {
		part   string
		fields []FormField
		at     string
		of     any
	}{
		{"dependency", f.Dependency, "codel.", engine.CoDel{}},
		{"dependency", f.Dependency, "rate_limit.", engine.ServerRateLimit{}},
		{"dependency", f.Dependency, "backends.", engine.Backends{}},
		{"dependency", f.Dependency, "autoscale.", engine.Autoscale{}},
		{"dependency", f.Dependency, "cache.", engine.Cache{}},
		{"dependency", f.Dependency, "", engine.Dependency{}},
		{"phase", f.Phase, "", engine.Phase{}},
		{"policy", f.Policy, "", engine.Policy{}},
	} {
		paths := map[string]string{}
		for _, field := range tc.fields {
			paths[field.Path] = field.Type
		}
		for path, typ := range jsonFields(reflect.TypeOf(tc.of), tc.at) {
			bools := tc.at == "" && typ.Kind() == reflect.Bool && (tc.part == "dependency" || tc.part == "policy")
			if tc.at == "" && !bools && !slices.Contains([]string{"backends", "backend_share", "retry_host_predicate", "host_selection_retry_max_attempts"}, path) {
				continue // the phase's and the policy's other fields: TestKindRulesCoverTheVocabulary and the form's own choice
			}
			if tc.part == "dependency" && tc.at == "" && path == "backends" || strings.HasPrefix(path, "retry_on.") {
				continue // the dependency's backends: an object, its fields above; retry_on: lists of statuses the form leaves to the JSON
			}
			want := "a field"
			switch {
			case typ.Kind() == reflect.Bool:
				want = "checkbox"
			case tc.part == "phase" && path == "backends":
				want = "numbers"
			case typ.Kind() == reflect.Slice:
				want = ""
			}
			if got := paths[path]; want == "a field" && (got == "" || got == "checkbox" || got == "numbers") || want != "a field" && got != want {
				t.Errorf("the %s part's field for %s (%s) is %q; want %s", tc.part, path, typ, got, cmp.Or(want, "none"))
			}
		}
	}
	if !slices.Contains(f.Folding["dependency"], "cache.warm") || !slices.Contains(f.Folding["dependency"], "backends.count") {
		t.Errorf("a dependency's new settings do not fold while empty: %v", f.Folding["dependency"])
	}
}

// jsonFields returns the JSON paths, from at, of the leaves of struct t
// (a struct or a pointer to one is walked into, but for a Duration) and
// their types.
func jsonFields(t reflect.Type, at string) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	for i := range t.NumField() {
		sf := t.Field(i)
		name, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
		if name == "-" || !sf.IsExported() {
			continue
		}
		ft := sf.Type
		if ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		if sf.Anonymous && name == "" {
			maps.Copy(out, jsonFields(ft, at))
			continue
		}
		if ft.Kind() == reflect.Struct && ft != reflect.TypeOf(engine.Duration(0)) {
			maps.Copy(out, jsonFields(ft, at+name+"."))
			continue
		}
		out[at+name] = ft
	}
	return out
}
