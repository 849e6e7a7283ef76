package convert

import (
	"encoding/json"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// TestYAMLBudgetsAreInclusive: a stream that makes exactly as many values,
// and bytes of keys, strings and paths, as its budget allows is read; one
// more of either is refused. "ab: cd" makes three values (the document,
// its mapping, "cd") and four bytes ("cd" at the path "ab").
func TestYAMLBudgetsAreInclusive(t *testing.T) {
	for _, tc := range []struct {
		nodes int
		bytes int64
		want  string // "" for no error
	}{
		{3, 4, ""},
		{2, 4, "expands to more than"},
		{3, 3, "MiB of keys and strings"},
	} {
		var root yaml.Node
		if err := yaml.Unmarshal([]byte("ab: cd\n"), &root); err != nil {
			t.Fatal(err)
		}
		d := yamlDecoder{nodes: tc.nodes, bytes: tc.bytes}
		v, err := d.value(&root, "")
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("budget of %d values and %d bytes: %v, want it read", tc.nodes, tc.bytes, err)
		case tc.want == "" && v.(map[string]any)["ab"] != "cd":
			t.Errorf("budget of %d values and %d bytes: read %v", tc.nodes, tc.bytes, v)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("budget of %d values and %d bytes: %v, want an error containing %q", tc.nodes, tc.bytes, err, tc.want)
		}
	}
}

// TestYAMLNestsToItsDepth: a document maxYAMLDepth values deep (the
// document, 62 lists, the string in the innermost) is read; one list more
// is refused.
func TestYAMLNestsToItsDepth(t *testing.T) {
	nested := func(lists int) string { return strings.Repeat("[", lists) + "x" + strings.Repeat("]", lists) }
	if _, err := decodeYAML([]byte(nested(maxYAMLDepth - 2))); err != nil {
		t.Errorf("%d values deep: %v, want it read", maxYAMLDepth, err)
	}
	if _, err := decodeYAML([]byte(nested(maxYAMLDepth - 1))); err == nil || !strings.Contains(err.Error(), "nests deeper than 64 levels") {
		t.Errorf("%d values deep: %v, want it refused", maxYAMLDepth+1, err)
	}
}

// TestYAMLIntegersKeepTheirDigits: an integer is read as written, beyond
// the 53 bits a float64 keeps exactly too.
func TestYAMLIntegersKeepTheirDigits(t *testing.T) {
	docs, err := decodeYAML([]byte("n: 12345678901234567\nm: 0x10\n"))
	if err != nil {
		t.Fatal(err)
	}
	got := docs[0].(map[string]any)
	if got["n"] != json.Number("12345678901234567") || got["m"] != json.Number("16") {
		t.Errorf("read %v, want n 12345678901234567 and m 16", got)
	}
}
