// Package clamp is the fixture of mutants' tests: its test kills some of
// its mutants and not others.
package clamp

// Clamp returns x limited to [lo, hi].
func Clamp(x, lo, hi int) int {
	if x < lo {
		return lo
	}
	if x > hi {
		return hi
	}
	return x
}
