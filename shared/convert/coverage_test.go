package convert

import (
	"testing"

	"github.com/retrylab/retrylab/shared/internal/golden"
)

// TestFormatsPage: every row of the coverage table is what its importer
// does with the row's document (a simulated row imports without a
// warning, a warned row with one, a refused row not at all), every import
// format has rows of its own, and docs/formats.md is the table rendered
// (-update rewrites it).
func TestFormatsPage(t *testing.T) {
	seen := map[string]bool{}
	for _, f := range coverage {
		seen[f.format] = true
		if len(f.sources) == 0 {
			t.Errorf("%s cites no published documentation", f.format)
		}
		for _, r := range f.rows {
			im, err := Import(f.format, []byte(r.doc))
			switch r.kind {
			case coverRefused:
				if err == nil {
					t.Errorf("%s %q (refused): imported as %v", f.format, r.field, im.Strategies)
				}
				continue
			case coverSimulated, coverWarned:
				if err != nil {
					t.Errorf("%s %q (%s): refused: %v", f.format, r.field, r.kind, err)
					continue
				}
			default:
				t.Errorf("%s %q: kind %q", f.format, r.field, r.kind)
				continue
			}
			var warnings []Note
			for _, n := range im.Notes {
				if n.Level == Warning && n.Path != coverBesides[r.field] {
					warnings = append(warnings, n)
				}
			}
			if r.kind == coverSimulated && len(warnings) > 0 {
				t.Errorf("%s %q (simulated): warned %v", f.format, r.field, warnings)
			}
			if r.kind == coverWarned && len(warnings) == 0 {
				t.Errorf("%s %q (warned): no warning", f.format, r.field)
			}
		}
	}
	for _, f := range ImportFormats {
		if !seen[f] {
			t.Errorf("the import format %s has no rows in the coverage table", f)
		}
	}
	golden.Check(t, "../../docs/formats.md", RenderFormatsPage())
}
