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
