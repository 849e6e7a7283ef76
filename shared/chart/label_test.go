package chart

import (
	"math"
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
