package convert

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/retrylab/retrylab/shared/engine"
	"github.com/retrylab/retrylab/shared/scenarios"
)

// TestDetect walks every import fixture: each is detected as the format
// its name begins with, and every format Import reads has a fixture that
// is; an export of every built-in strategy in each import format is
// detected as that format; no built-in scenario is detected as any.
func TestDetect(t *testing.T) {
	files, err := filepath.Glob("testdata/import/*")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, f := range files {
		format, _, _ := strings.Cut(filepath.Base(f), "-")
		if !slices.Contains(ImportFormats, format) {
			continue // README.md
		}
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if got := Detect(data); got != format {
			t.Errorf("%s is detected as %q, want %q", f, got, format)
		}
		seen[format] = true
	}
	for _, format := range ImportFormats {
		if !seen[format] {
			t.Errorf("no fixture of %s is detected: add one to testdata/import", format)
		}
	}
	for _, b := range scenarios.All() {
		if got := Detect(b.Scenario); got != "" {
			t.Errorf("the built-in %s is detected as %q", b.Slug, got)
		}
		sc, err := b.Parse()
		if err != nil {
			t.Fatal(err)
		}
		for _, st := range sc.Strategies {
			for _, format := range ImportFormats {
				out, _, err := Export(format, st)
				if err != nil {
					t.Fatal(err)
				}
				if got := Detect(out); got != format {
					t.Errorf("%s's %s exported as %s is detected as %q:\n%s", b.Slug, st.Name, format, got, out)
				}
			}
		}
	}
}

func FuzzDetect(f *testing.F) {
	f.Add([]byte(`{"methodConfig": []}`))
	f.Add([]byte("resilience4j:\n  retry: {}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if got := Detect(data); got != "" && !slices.Contains(ImportFormats, got) {
			t.Errorf("Detect gave %q", got)
		}
	})
}

// TestDetectListsAndDumps: a top-level list of Envoy resources (routes
// first or clusters only), /config_dump's output and the joined exports
// of several strategies are detected as their formats.
func TestDetectListsAndDumps(t *testing.T) {
	for doc, want := range map[string]string{
		"- name: api\n  virtual_hosts: []\n":                                                                           Envoy,
		"- name: c1\n  circuit_breakers:\n    thresholds: []\n- name: c2\n":                                            Envoy,
		`{"configs": [{"@type": "type.googleapis.com/envoy.admin.v3.RoutesConfigDump", "dynamic_route_configs": []}]}`: Envoy,
		"{\n  \"dynamic_route_configs\": []\n}\n":                                                                      Envoy,
	} {
		if got := Detect([]byte(doc)); got != want {
			t.Errorf("%q is detected as %q, want %q", doc, got, want)
		}
	}
	sts := []engine.Strategy{{Name: "a", Policy: engine.Policy{MaxAttempts: 3}}, {Name: "b", Policy: engine.Policy{MaxAttempts: 2}}}
	for _, format := range Joined {
		out, _, err := ExportAll(format, sts)
		if err != nil {
			t.Fatal(err)
		}
		if got := Detect(out); got != format {
			t.Errorf("the joined %s export is detected as %q", format, got)
		}
	}
}
