package convert

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/retrylab/retrylab/shared/engine"
)

// candidates returns every candidate of sc's search, as the search makes
// them (engine.Scenario.SearchCandidate), each with its settings.
func candidates(t *testing.T, sc *engine.Scenario) []engine.Strategy {
	t.Helper()
	var out []engine.Strategy
	knobs := sc.Search.Knobs
	idx := make([]int, len(knobs))
	for {
		set := map[string]json.RawMessage{}
		for k, kn := range knobs {
			set[kn.Path] = kn.Values[idx[k]]
		}
		st, err := sc.SearchCandidate(set)
		if err != nil {
			t.Fatalf("candidate %v: %v", set, err)
		}
		out = append(out, st)
		k := len(idx) - 1
		for ; k >= 0; k-- {
			if idx[k]++; idx[k] < len(knobs[k].Values) {
				break
			}
			idx[k] = 0
		}
		if k < 0 {
			return out
		}
	}
}

// warnings returns the warnings among notes, as "path: message".
func warnings(notes []Note) []string {
	var ws []string
	for _, n := range notes {
		if n.Level == Warning {
			ws = append(ws, n.Path+": "+n.Message)
		}
	}
	return ws
}

// samePolicy reports whether two policies make the same attempts: equal
// but for their labels (based_on, preset).
func samePolicy(a, b engine.Policy) bool {
	a.BasedOn, a.Preset, b.BasedOn, b.Preset = "", "", "", ""
	return reflect.DeepEqual(a, b)
}

// checkLibrarySearch exports every candidate of the default search of
// st (which must be kept within lib's limits) in lib's format: none may
// warn about more than base (st's own export) does, and each imports back
// as itself.
func checkLibrarySearch(t *testing.T, lib *engine.Library, st engine.Strategy, b *engine.Backends, base []string) {
	t.Helper()
	sc := &engine.Scenario{Strategies: []engine.Strategy{st}}
	sc.Search = engine.DefaultSearchFor(sc, st.Name)
	if sc.Search.Within != lib.Name {
		t.Fatalf("%s (based on %s): the default search is within %q, not %q", st.Name, st.BasedOn, sc.Search.Within, lib.Name)
	}
	cs := candidates(t, sc)
	if len(cs) < 2 {
		t.Fatalf("%s: %d candidates", lib.Name, len(cs))
	}
	for _, c := range cs {
		checkWithinLibrary(t, lib, st, c)
		out, notes, err := ExportFrom(lib.Format, c, b)
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range warnings(notes) {
			if !slices.Contains(base, w) {
				t.Errorf("%s: exporting the candidate\n%s\nwarned: %s", lib.Name, indent(c), w)
			}
		}
		if !slices.Contains(ImportFormats, lib.Format) {
			continue
		}
		im, err := Import(lib.Format, out)
		if err != nil {
			t.Fatalf("%s: %v\n%s", lib.Name, err, out)
		}
		if len(im.Strategies) != 1 || !samePolicy(im.Strategies[0].Policy, c.Policy) {
			t.Errorf("%s: the candidate\n%s\nimports back as\n%s\nfrom\n%s", lib.Name, indent(c), indent(im.Strategies), out)
		}
		// "Based on" is said of the candidate: the preset its settings
		// match, as its export reads back (engine.Relabel).
		if len(im.Strategies) == 1 && lib.Preset != nil && im.Strategies[0].BasedOn != c.BasedOn {
			t.Errorf("%s: the candidate is based on %s, its export reads back based on %s:\n%s", lib.Name, c.BasedOn, im.Strategies[0].BasedOn, out)
		}
	}
}

// checkWithinLibrary reports a candidate c of a search from st that
// leaves lib's limits: a setting (a top-level policy field) other than
// those lib's knobs set differs from st's, or one of those is not among
// that knob's values (null for a field left out).
func checkWithinLibrary(t *testing.T, lib *engine.Library, st, c engine.Strategy) {
	t.Helper()
	fields := func(p engine.Policy) map[string]json.RawMessage {
		p.BasedOn, p.Preset = "", ""
		b, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	canon := func(raw json.RawMessage) string {
		if raw == nil {
			return "null"
		}
		var x any
		if err := json.Unmarshal(raw, &x); err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(x)
		return string(b)
	}
	own, got := fields(st.Policy), fields(c.Policy)
	keys := map[string]bool{}
	for k := range own {
		keys[k] = true
	}
	for k := range got {
		keys[k] = true
	}
	for k := range keys {
		i := slices.IndexFunc(lib.Knobs, func(kn engine.Knob) bool { return kn.Path == k })
		if i < 0 {
			if canon(own[k]) != canon(got[k]) {
				t.Errorf("%s: a candidate changes %s, which no knob of the library sets: %s, not %s", lib.Name, k, canon(got[k]), canon(own[k]))
			}
			continue
		}
		if !slices.ContainsFunc(lib.Knobs[i].Values, func(v json.RawMessage) bool { return canon(v) == canon(got[k]) }) {
			t.Errorf("%s: a candidate sets %s %s, outside the library's values", lib.Name, k, canon(got[k]))
		}
	}
}

// TestLibrarySearchExports walks engine.Libraries: every candidate of the
// default search of a strategy based on each of a library's presets
// keeps to the library's values (checkWithinLibrary), exports in its
// format without a warning and imports back as the same policy; so does every candidate from a strategy imported from the
// testdata documents that is based on a library, with no warning its
// own export does not give.
func TestLibrarySearchExports(t *testing.T) {
	presets := map[string]engine.Strategy{}
	for _, st := range presetStrategies(t) {
		presets[st.Name] = st
	}
	for i := range engine.Libraries {
		lib := &engine.Libraries[i]
		if !slices.Contains(ExportFormats, lib.Format) {
			t.Errorf("%s: format %q is not one Export writes", lib.Name, lib.Format)
		}
		for _, name := range lib.Presets {
			st, ok := presets[name]
			if !ok {
				t.Errorf("%s: preset %q is not in presets.json", lib.Name, name)
				continue
			}
			t.Run(lib.Name+"/"+name, func(t *testing.T) {
				if _, notes, _ := Export(lib.Format, st); len(warnings(notes)) > 0 {
					t.Fatalf("the preset itself exports with warnings: %v", warnings(notes))
				}
				checkLibrarySearch(t, lib, st, nil, nil)
			})
		}
	}
	files, _ := filepath.Glob("testdata/import/*")
	seen := map[string]bool{}
	for _, path := range files {
		name := filepath.Base(path)
		format := formatOf(name)
		if !slices.Contains(ImportFormats, format) || strings.Contains(name, "-bad") {
			continue
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		im, err := Import(format, data)
		if err != nil {
			t.Fatal(err)
		}
		for _, st := range im.Strategies {
			sc := &engine.Scenario{Strategies: []engine.Strategy{st}}
			lib := engine.LibraryNamed(engine.DefaultSearchFor(sc, st.Name).Within)
			if lib == nil {
				continue
			}
			seen[lib.Name] = true
			t.Run(name+"/"+st.Name, func(t *testing.T) {
				_, notes, _ := ExportFrom(lib.Format, st, im.Backends)
				checkLibrarySearch(t, lib, st, im.Backends, warnings(notes))
			})
		}
	}
	for _, want := range []string{"grpc", "envoy", "istio", "resilience4j", "aws", "polly"} {
		if !seen[want] {
			t.Errorf("no testdata document imports a strategy within %s's limits", want)
		}
	}
}

// TestDefaultSearchForLibraries: a strategy based on no library, or a
// layered or hedged one based on one, keeps the search it had; one based
// on a library's preset gets that library's knobs and Within.
func TestDefaultSearchForLibraries(t *testing.T) {
	st := engine.Strategy{Name: "C"}
	st.MaxAttempts = 3
	sc := &engine.Scenario{Strategies: []engine.Strategy{st}}
	if got, want := engine.DefaultSearchFor(sc, "C"), engine.DefaultSearch("C"); !reflect.DeepEqual(got, want) {
		t.Errorf("no library: %+v, not DefaultSearch", got)
	}
	sc.Strategies[0].BasedOn = "google-sre" // a preset, not a library's format
	if got := engine.DefaultSearchFor(sc, "C"); got.Within != "" {
		t.Errorf("google-sre: within %q", got.Within)
	}
	sc.Strategies[0].BasedOn = "grpc-retry-throttling"
	got := engine.DefaultSearchFor(sc, "C")
	if got.Within != "grpc" || !strings.HasPrefix(engine.LibraryNamed("grpc").Sentence(), "searched within gRPC's limits (every candidate exports as grpc exactly): 2..5 attempts") {
		t.Errorf("grpc: %+v", got)
	}
	sc.Strategies[0].Hedging = &engine.Hedging{Delay: 1e8}
	if got := engine.DefaultSearchFor(sc, "C"); got.Within != "" {
		t.Errorf("hedged: within %q", got.Within)
	}
}

// TestIstioLimits: an Istio import is based on istio-retry and so
// searched within Istio's own limits, not Envoy's: no candidate is
// Envoy's retry_budget (which Istio does not expose, so its export would
// warn), and every value a knob takes is one the istio library lists.
func TestIstioLimits(t *testing.T) {
	im, err := Import(Istio, []byte(`apiVersion: networking.istio.io/v1
kind: VirtualService
metadata: {name: r}
spec:
  hosts: [r]
  http:
  - timeout: 15s
    retries: {attempts: 1, perTryTimeout: 2s, retryOn: 5xx}
    route: [{destination: {host: r}}]
`))
	if err != nil {
		t.Fatal(err)
	}
	st := im.Strategies[0]
	sc := &engine.Scenario{Strategies: []engine.Strategy{st}}
	sc.Search = engine.DefaultSearchFor(sc, st.Name)
	if sc.Search.Within != "istio" {
		t.Fatalf("an Istio import is searched within %q, not istio", sc.Search.Within)
	}
	for _, c := range candidates(t, sc) {
		if b := c.Budget; b != nil && b.Ratio > 0 {
			t.Errorf("candidate with a retry_budget Istio cannot write: %+v", *b)
		}
	}
	checkLibrarySearch(t, engine.LibraryNamed("istio"), st, nil, nil)
}
