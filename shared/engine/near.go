package engine

// Near misses, for the "did you mean" of an error: a knob's path, a
// scenario's field, a metric's name.

import (
	"strconv"
	"strings"
)

// NearNames returns the names within two edits of key (one for keys of up
// to four letters), nearest first: what key may have meant.
func NearNames(key string, names []string) []string { return nearFields(key, names) }

// didYouMean returns "; did you mean "a" or "b"?" for key's near misses
// among names, or "" when there is none.
func didYouMean(key string, names []string) string {
	near := nearFields(key, names)
	if len(near) == 0 {
		return ""
	}
	for i := range near {
		near[i] = strconv.Quote(near[i])
	}
	return "; did you mean " + strings.Join(near, " or ") + "?"
}

// nearFields returns the names within two edits of key (one for keys of
// up to four letters), nearest first.
func nearFields(key string, names []string) []string {
	limit := 2
	if len(key) <= 4 {
		limit = 1
	}
	var near []string
	for d := 1; d <= limit; d++ {
		for _, n := range names {
			if EditDistance(key, n) == d {
				near = append(near, n)
			}
		}
	}
	return near
}

// EditDistance returns the Levenshtein distance between a and b, in bytes
// (the command line's did-you-mean for built-ins' slugs uses it too).
func EditDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
