package clamp

import "testing"

// The test never tries x at a bound, so x < lo made x <= lo lives.
func TestClamp(t *testing.T) {
	for _, c := range [][4]int{{-5, 0, 10, 0}, {5, 0, 10, 5}, {15, 0, 10, 10}} {
		if got := Clamp(c[0], c[1], c[2]); got != c[3] {
			t.Errorf("Clamp(%d, %d, %d) = %d, want %d", c[0], c[1], c[2], got, c[3])
		}
	}
}

func TestCount(t *testing.T) {
	if got := Count(3); got != 3 {
		t.Errorf("Count(3) = %d", got)
	}
	if got := Label("x"); got != "clamp x" {
		t.Errorf("Label(x) = %q", got)
	}
}
