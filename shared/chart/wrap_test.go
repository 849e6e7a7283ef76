package chart

import (
	"bytes"
	"html"
	"regexp"
	"slices"
	"strconv"
	"testing"
	"unicode/utf8"

	"github.com/retrylab/retrylab/shared/scenarios"
)

func TestWrapWords(t *testing.T) {
	w := func(s string) float64 { return float64(utf8.RuneCountInString(s)) }
	for _, tc := range []struct {
		text  string
		width float64
		want  []string
	}{
		{"short", 10, []string{"short"}},
		{"A — immediate retry · peak 237 / 100 ms at 10 s", 20, []string{"A — immediate retry", "· peak 237 / 100 ms", "at 10 s"}},
		{"D · peak 20 / 100 ms at 6.9 s", 26, []string{"D · peak 20 / 100 ms at", "6.9 s"}},
		{"averyveryverylongword and more", 8, []string{"averyveryverylongword", "and more"}},
	} {
		if got := wrapWords(tc.text, tc.width, w); !slices.Equal(got, tc.want) {
			t.Errorf("wrapWords(%q, %v) = %q, want %q", tc.text, tc.width, got, tc.want)
		}
	}
}

// TestNarrowLegendsFit (#29): drawn Narrow or Mid wide, as phones,
// tablets and narrow embeds get them, no legend entry of any built-in's
// time-series pictures runs past the picture's right edge (E03-B's legend
// ran off it at 390 px).
func TestNarrowLegendsFit(t *testing.T) {
	legend := regexp.MustCompile(`<text x="([0-9.]+)" y="[0-9.]+" class="">([^<]*)</text>`)
	for _, b := range scenarios.All() {
		res := result(t, b.Slug)
		if res.Sweep != nil || len(res.Strategies) == 0 || res.Strategies[0].Series == nil {
			continue
		}
		for _, p := range []string{Attempts, Outcomes, Queue, Calls, Fleets} {
			for _, w := range []float64{Narrow, Mid} {
				var out bytes.Buffer
				if err := Render(&out, res, Options{Picture: p, Width: w}); err != nil {
					continue // a picture the result has no series for
				}
				for _, m := range legend.FindAllStringSubmatch(out.String(), -1) {
					x, _ := strconv.ParseFloat(m[1], 64)
					if end := x + textWidth(html.UnescapeString(m[2]), 14); end > w+1 {
						t.Errorf("%s, %s at %v px: %q ends at %.0f px", b.Slug, p, w, m[2], end)
					}
				}
			}
		}
	}
}

// TestShownWidths: the playground's drawings by the width it shows charts
// at go widest first, each from a width where its smallest text is at
// least 10 px (Wide's 10 px text from 760, Mid's 13 px from 462), and the
// last serves any width.
func TestShownWidths(t *testing.T) {
	least := map[int]int{0: Wide, Mid: 462, Narrow: 0}
	for i, d := range ShownWidths {
		if _, ok := least[d.Width]; !ok || d.From < least[d.Width] || (i > 0 && d.From >= ShownWidths[i-1].From) {
			t.Errorf("%d: %+v: not a drawing shown from where its text is 10 px, or not narrower than the one before", i, d)
		}
	}
	if n := len(ShownWidths); n == 0 || ShownWidths[n-1].From != 0 {
		t.Errorf("%+v: the last drawing is for any width", ShownWidths)
	}
	if got := ShownWidthsJSON(); got != `[{"from":760,"width":0},{"from":500,"width":600},{"from":0,"width":400}]` {
		t.Errorf("ShownWidthsJSON() = %s", got)
	}
}
