package engine

import (
	"strings"
	"testing"
)

// TestErrorPathsQuoteOnlyKeysThatAreNotPlain: an unknown key in an error's
// path follows a dot when it is plain (ASCII letters of either case,
// digits, underscores) and is quoted in brackets otherwise, at each edge of
// those ranges and just past it.
func TestErrorPathsQuoteOnlyKeysThatAreNotPlain(t *testing.T) {
	for _, tc := range []struct{ key, path string }{
		{"a_z", "strategies[0].a_z"},
		{"AZ", "strategies[0].AZ"},
		{"x09", "strategies[0].x09"},
		{"x`", "strategies[0][\"x`\"]"}, // just before 'a'
		{"x{", `strategies[0]["x{"]`},   // just past 'z'
		{"x@", `strategies[0]["x@"]`},   // just before 'A'
		{"x[", `strategies[0]["x["]`},   // just past 'Z'
		{"x/", `strategies[0]["x/"]`},   // just before '0'
		{"x:", `strategies[0]["x:"]`},   // just past '9'
		{"", `strategies[0][""]`},       // empty
		{"max attempts", `strategies[0]["max attempts"]`},
	} {
		doc := strings.Replace(valid, `"max_attempts": 3`, `"max_attempts": 3, "`+tc.key+`": 1`, 1)
		_, err := Parse([]byte(doc))
		found := false
		for _, e := range AsErrors(err) {
			found = found || e.Path == tc.path
		}
		if !found {
			t.Errorf("key %q: want an error at %s; got:\n%v", tc.key, tc.path, err)
		}
	}
}
