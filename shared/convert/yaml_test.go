package convert

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
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
	grpc := "methodConfig:\n- name: [{service: x.Y}]\n  retryPolicy: {maxAttempts: 3, initialBackoff: 0.1s, maxBackoff: 1s, backoffMultiplier: 2, retryableStatusCodes: [UNAVAILABLE]}\n"
	if _, err := Import(Resilience4j, []byte(grpc)); err == nil || !strings.Contains(err.Error(), "it looks like a gRPC service config: import it with the format grpc") {
		t.Errorf("resilience4j, a gRPC service config: %v", err)
	}
}

// TestDecodeYAMLHostile: documents of a few bytes to a few kilobytes that
// expand without bound through merge keys, aliases or a stream of
// documents are refused, quickly and naming the line, with one budget for
// the whole stream. Without the budget, each would overflow the stack,
// hold a core forever, or take hundreds of megabytes.
func TestDecodeYAMLHostile(t *testing.T) {
	// Merge keys that double at each level: 2^60 mappings merged.
	doubling := "a0: &a0 {x: 1}\n"
	for i := 1; i <= 60; i++ {
		doubling += fmt.Sprintf("a%d: &a%d {<<: [*a%d, *a%d]}\n", i, i, i-1, i-1)
	}
	// A stream of documents, each just under a budget of its own.
	var stream strings.Builder
	for range 40 {
		stream.WriteString("---\na: &a [x, x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\n")
	}
	// One long string, repeated by an alias.
	long := "s: &s " + strings.Repeat("x", 60_000) + "\nl: [" + strings.Repeat("*s, ", 200) + "*s]\n"
	for _, tc := range []struct{ name, doc, want string }{
		{"merge of itself", "a:\n  <<: &s [*s]\n", "a.<<: an alias at line 2 refers to a node that contains it"},
		{"merge of its own mapping", "a: &m\n  <<: *m\n", "a.<<: an alias at line 2 refers to a node that contains it"},
		{"merge of a list in a list", "l: &l [{x: 1}]\na:\n  <<: [*l]\n", "a.<<: a list at line 1 is not a mapping"},
		{"merge of a scalar", "a:\n  <<: 5\n", `a.<<: "5" at line 2 is not a mapping`},
		{"doubling merge keys", doubling, "expands to more than 100000 values (through its aliases and merge keys, at line"},
		{"a budget per stream", stream.String(), "expands to more than 100000 values"},
		{"an anchor of an earlier document", "---\na: &x 1\n---\nb: *x\n", `an alias at line 4 refers to the anchor "x" of an earlier document`},
		{"a long string repeated", long, "expands to more than 8 MiB of keys and strings"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := decodeYAML([]byte(tc.doc))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

// TestDecodeYAMLMerges: merge keys as YAML defines them, a mapping or a
// list of mappings (the first winning), through aliases.
func TestDecodeYAMLMerges(t *testing.T) {
	doc := "a: &a {x: 1, y: 1}\nb: &b {y: 2, z: 2}\nc:\n  <<: [*a, *b]\n  w: 3\nd: {<<: {v: 4}}\n"
	got, err := decodeYAML([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	c := got[0].(map[string]any)["c"]
	want := map[string]any{"x": json.Number("1"), "y": json.Number("1"), "z": json.Number("2"), "w": json.Number("3")}
	if !reflect.DeepEqual(c, want) {
		t.Errorf("c = %v, want %v", c, want)
	}
	if d := got[0].(map[string]any)["d"]; !reflect.DeepEqual(d, map[string]any{"v": json.Number("4")}) {
		t.Errorf("d = %v", d)
	}
}

// TestShowCutsLongStrings: an error quotes the start of a long string and
// says how long it is, so that an alias repeating it cannot make an error
// of megabytes.
func TestShowCutsLongStrings(t *testing.T) {
	s := strings.Repeat("é", 100)
	got := show(s)
	want := strconv.Quote(strings.Repeat("é", maxShown)) + "… (200 bytes)"
	if got != want {
		t.Errorf("show = %s, want %s", got, want)
	}
	if got := show("short"); got != `"short"` {
		t.Errorf("show(short) = %s", got)
	}
}
