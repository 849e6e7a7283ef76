package convert

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

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
