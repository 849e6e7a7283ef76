package convert

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

func TestDecodeYAML(t *testing.T) {
	for _, tc := range []struct {
		doc  string
		want []any
	}{
		{"a: 1\nb: [x, 2.5, true, null]\n", []any{map[string]any{"a": json.Number("1"), "b": []any{"x", json.Number("2.5"), true, nil}}}},
		{`{"a": {"b": "5s"}}`, []any{map[string]any{"a": map[string]any{"b": "5s"}}}},
		{"a: 0x10\nb: 1e3\nc: .inf\nd: '7'\ne: 2026-11-30\n", []any{map[string]any{"a": json.Number("16"), "b": json.Number("1000"), "c": json.Number("+Inf"), "d": "7", "e": "2026-11-30"}}},
		{"---\na: 1\n---\n---\nb: 2\n", []any{map[string]any{"a": json.Number("1")}, map[string]any{"b": json.Number("2")}}},
		{"base: &b {x: 1, y: 2}\nuse:\n  <<: *b\n  y: 3\n", []any{map[string]any{"base": map[string]any{"x": json.Number("1"), "y": json.Number("2")}, "use": map[string]any{"x": json.Number("1"), "y": json.Number("3")}}}},
	} {
		got, err := decodeYAML([]byte(tc.doc))
		if err != nil {
			t.Errorf("%q: %v", tc.doc, err)
			continue
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%q: got %#v, want %#v", tc.doc, got, tc.want)
		}
	}
}

func TestDecodeYAMLErrors(t *testing.T) {
	laughs := "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
	for i, prev := range "abcdefg" {
		name := string(rune('b' + i))
		laughs += name + ": &" + name + " [*" + string(prev) + ", *" + string(prev) + ", *" + string(prev) + ", *" + string(prev) + ", *" + string(prev) + ", *" + string(prev) + ", *" + string(prev) + ", *" + string(prev) + "]\n"
	}
	for _, tc := range []struct{ doc, want string }{
		{"a: 1\na: 2\n", "a: the key is given twice (again at line 2); allowed once"},
		{"a: [\n", "the document is not YAML: line"},
		{"", "the document is empty"},
		{"---\n---\n", "the document is empty"},
		{laughs, "expands to more than 100000 values"},
		{"a:\n\tb: 1\n", "(a tab? YAML indents with spaces only)"},
		{"a: &x {b: *x}\n", "a.b: an alias at line 1 refers to a node that contains it"},
		{"a: &x [1, *x]\n", "a[1]: an alias at line 1 refers to a node that contains it"},
		{strings.Repeat("[", 100) + strings.Repeat("]", 100), "nests deeper than 64 levels"},
	} {
		_, err := decodeYAML([]byte(tc.doc))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%.40q: got %v, want an error containing %q", tc.doc, err, tc.want)
		}
	}
}

// TestFormatHint: an importer that finds nothing of its format says which
// format the document looks like.
func TestFormatHint(t *testing.T) {
	istio := "apiVersion: networking.istio.io/v1\nkind: VirtualService\nmetadata: {name: x}\nspec: {hosts: [x], http: [{route: [{destination: {host: x}}]}]}\n"
	for _, f := range []string{Envoy, Linkerd, Resilience4j} {
		_, err := Import(f, []byte(istio))
		if err == nil || !strings.Contains(err.Error(), "it looks like an Istio document: import it with the format istio") {
			t.Errorf("%s: %v", f, err)
		}
	}
}
