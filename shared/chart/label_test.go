package chart

import (
	"html"
	"math"
	"strings"
	"testing"
)

func TestFineLabelNeverSaysMinusZero(t *testing.T) {
	for _, c := range []struct {
		metric  string
		v, step float64
		want    string
	}{
		{"peak_in_flight", math.Copysign(0, -1), 20, "0"},
		{"peak_in_flight", -1e-13, 0.5, "0"},
		{"success_rate", math.Copysign(0, -1), 0.05, "0%"},
		{"success_rate", -1e-17, 0.005, "0%"},
		{"success_rate", -0.05, 0.05, "-5%"},
		{"peak_in_flight", 40, 20, "40"},
		{"success_rate", 0.305, 0.005, "30.5%"},
	} {
		if got := fineLabel(c.metric, c.v, c.step); got != c.want {
			t.Errorf("fineLabel(%q, %g, %g) = %q, want %q", c.metric, c.v, c.step, got, c.want)
		}
	}
}

// TestRowNamesFitLeftOfTheBars: a bar chart's row names, an imported
// policy's long one too, fit between the chart's left edge and its bars
// at every width (none loses its first letters to the edge), and a
// short one is whole.
func TestRowNamesFitLeftOfTheBars(t *testing.T) {
	for _, width := range []float64{360, 600, 1000} {
		size := 12.0
		if largeText(width) {
			size = 14
		}
		got := rowName("shop.Cart, shop.Orders", 140, width)
		if w := textWidth(html.UnescapeString(got), size); w > 140-12 || !strings.HasSuffix(got, "…") {
			t.Errorf("at %v px: %q, %.0f px wide: want it cut to fit 128 px", width, got, w)
		}
		if got := rowName("D", 140, width); got != "D" {
			t.Errorf("at %v px: %q; want D", width, got)
		}
	}
}
