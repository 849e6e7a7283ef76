// Package clamp is the fixture of mutants' tests: its tests kill some of
// its mutants and not others, one does not compile and one never ends.
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

// Label is a clamp's name: + made - does not compile.
func Label(name string) string { return "clamp " + name }

// Count counts to n a step at a time: i++ made i-- runs for ever.
func Count(n int) int {
	k := 0
	for i := 0; i < n; i++ {
		k++
	}
	return k
}
