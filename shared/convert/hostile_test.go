package convert

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/retrylab/retrylab/shared/engine"
)

// hostileYAML are documents of a few bytes that expand without bound
// through merge keys and aliases: each would crash or hang every YAML
// importer if the reader's one budget did not count merges too.
var hostileYAML = []string{
	"a:\n  <<: &s [*s]\n",
	"a: &m\n  <<: *m\n",
	"a0: &a0 {x: 1}\na1: &a1 {<<: [*a0, *a0]}\na2: &a2 {<<: [*a1, *a1]}\na3: &a3 {<<: [*a2, *a2]}\n",
	"---\na: &x {b: 1}\n---\nc: *x\n",
}

// TestImportHostileYAML: every importer that reads YAML refuses the
// hostile documents with an error, not a crash.
func TestImportHostileYAML(t *testing.T) {
	for _, format := range ImportFormats {
		if Syntax(format) != "yaml" {
			continue
		}
		for _, doc := range hostileYAML[:2] {
			_, err := Import(format, []byte(doc))
			if err == nil || !strings.Contains(err.Error(), "refers to a node that contains it") {
				t.Errorf("%s: %.30q: %v", format, doc, err)
			}
		}
	}
}

// fixture returns the first testdata/import document of a format that
// imports.
func fixture(t *testing.T, format string) []byte {
	t.Helper()
	files, _ := filepath.Glob("testdata/import/*")
	for _, path := range files {
		if formatOf(path) != format || strings.Contains(path, "-bad.") {
			continue
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	t.Fatalf("no testdata/import document of the format %s", format)
	return nil
}

// TestImportByteOrderMark: a document saved with a UTF-8 byte order mark
// (as Windows editors save it) imports as it does without one, in every
// format.
func TestImportByteOrderMark(t *testing.T) {
	for _, format := range ImportFormats {
		data := fixture(t, format)
		want, err := Import(format, data)
		if err != nil {
			t.Fatalf("%s: %v", format, err)
		}
		got, err := Import(format, append([]byte("\ufeff"), data...))
		if err != nil {
			t.Errorf("%s with a byte order mark: %v", format, err)
			continue
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: a byte order mark changes what is imported", format)
		}
	}
}

// TestImportDuplicateKeys: a key given twice is an error in every format,
// naming the key and the line of the second, not the last one winning in
// JSON and INI while YAML refuses it.
func TestImportDuplicateKeys(t *testing.T) {
	for _, tc := range []struct{ format, doc, want string }{
		{GRPC, `{"methodConfig": [{"name": [{}], "retryPolicy": {"maxAttempts": 3, "maxAttempts": 4}}]}`, "methodConfig[0].retryPolicy.maxAttempts: the key is given twice (again at line 1)"},
		{GRPC, "{\n\"methodConfig\": [],\n\"methodConfig\": []\n}", "methodConfig: the key is given twice (again at line 3)"},
		{Polly, "{\"Retry\": {\"MaxRetryAttempts\": 3,\n \"MaxRetryAttempts\": 4}}", "the key is given twice (again at line 2)"},
		{Istio, "apiVersion: networking.istio.io/v1\napiVersion: networking.istio.io/v1\n", "apiVersion: the key is given twice (again at line 2)"},
		{AWS, "[default]\nmax_attempts = 3\nmax_attempts = 5\n", "[default].max_attempts: \"5\" is given twice (first at line 2, again at line 3)"},
		{AWS, "[profile a]\nmax_attempts = 3\n[profile a]\nretry_mode = adaptive\n", "line 3: \"[profile a]\" is given twice (first at line 1)"},
	} {
		_, err := Import(tc.format, []byte(tc.doc))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s %.40q: got %v, want an error containing %q", tc.format, tc.doc, err, tc.want)
		}
	}
	if err := UniqueKeys([]byte(` {"a": {"b": 1, "b": 2}}`)); err == nil || err.Error() != "a.b: the key is given twice (again at line 1); allowed once" {
		t.Errorf("UniqueKeys: %v", err)
	}
	if err := UniqueKeys([]byte(`{"a": [{"b": 1}, {"b": 2}]}`)); err != nil {
		t.Errorf("UniqueKeys of keys in different objects: %v", err)
	}
}

// TestFitNames: an imported strategy always has a name a scenario takes,
// whatever the configuration called it, with a note when it was changed.
func TestFitNames(t *testing.T) {
	x150 := strings.Repeat("x", 150)
	im := &Imported{Strategies: []engine.Strategy{{Name: ""}, {Name: "bad\xffname"}, {Name: x150}, {Name: x150}, {Name: "ok"}, {Name: x150}}}
	fitNames(im)
	uniqueNames(im.Strategies)
	x92 := strings.Repeat("x", 92)
	want := []string{"policy 1", "bad\ufffdname", x92, x92 + " (2)", "ok", x92 + " (3)"}
	for i, st := range im.Strategies {
		if st.Name != want[i] {
			t.Errorf("strategy %d: %q, want %q", i+1, st.Name, want[i])
		}
	}
	if len(im.Notes) != 5 {
		t.Errorf("notes %v, want one for each name changed", im.Notes)
	} else if got, want := im.Notes[2].Message, "policy 3's name is 150 characters long: cut to 92"; !strings.HasPrefix(got, want) {
		t.Errorf("note %q; want one starting %q", got, want)
	}
	for i := range im.Strategies {
		im.Strategies[i].Policy = engine.Policy{MaxAttempts: 2}
	}
	validateWith(t, im.Strategies, im.Backends)
}

// fuzzFormat fuzzes the importer of one format: whatever the input, it
// returns strategies that validate and whose export imports again, or an
// engine.Errors; it never panics, and never runs away (the YAML budget).
func fuzzFormat(f *testing.F, format string) {
	files, _ := filepath.Glob("testdata/import/*")
	for _, path := range files {
		if formatOf(path) == format {
			data, err := os.ReadFile(path)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(data)
		}
	}
	for _, doc := range hostileYAML {
		f.Add([]byte(doc))
	}
	f.Add([]byte("\ufeff{}"))
	f.Fuzz(func(t *testing.T, data []byte) { checkImport(t, format, data) })
}

// The fuzz targets, one per importer; TestEveryImporterIsFuzzed keeps
// them in step with ImportFormats. make fuzz runs each.
func FuzzImportGRPC(f *testing.F)         { fuzzFormat(f, GRPC) }
func FuzzImportEnvoy(f *testing.F)        { fuzzFormat(f, Envoy) }
func FuzzImportIstio(f *testing.F)        { fuzzFormat(f, Istio) }
func FuzzImportLinkerd(f *testing.F)      { fuzzFormat(f, Linkerd) }
func FuzzImportResilience4j(f *testing.F) { fuzzFormat(f, Resilience4j) }
func FuzzImportPolly(f *testing.F)        { fuzzFormat(f, Polly) }
func FuzzImportAWS(f *testing.F)          { fuzzFormat(f, AWS) }

// FuzzDecodeYAML fuzzes the YAML reader itself, anchors and merge keys in
// its seeds: it returns values or an engine.Errors, within its budget.
func FuzzDecodeYAML(f *testing.F) {
	for _, doc := range hostileYAML {
		f.Add([]byte(doc))
	}
	f.Add([]byte("base: &b {x: 1, y: [1, 2]}\nuse:\n  <<: [*b, {z: 3}]\n  y: 3\n---\nc: &c [a, *c]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		_, err := decodeYAML(data)
		if err != nil && len(engine.AsErrors(err)) == 0 {
			t.Fatalf("the error is not an engine.Errors: %v", err)
		}
	})
}

// TestEveryImporterIsFuzzed: each format of ImportFormats has its fuzz
// target here, FuzzImport and the format's name.
func TestEveryImporterIsFuzzed(t *testing.T) {
	file, err := parser.ParseFile(token.NewFileSet(), "hostile_test.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]bool{}
	for _, d := range file.Decls {
		if fn, ok := d.(*ast.FuncDecl); ok {
			have[strings.ToLower(fn.Name.Name)] = true
		}
	}
	for _, format := range ImportFormats {
		if !have["fuzzimport"+format] {
			t.Errorf("the format %s has no fuzz target FuzzImport…(%s)", format, format)
		}
	}
}

// BenchmarkHostileYAML measures the costliest documents of at most 64 KiB
// the YAML reader knows of, each refused at its budget: docs/import-export.md's
// figures for what one import can cost (time a document, B/op).
func BenchmarkHostileYAML(b *testing.B) {
	doubling := "a0: &a0 {x: 1}\n"
	for i := 1; i <= 60; i++ {
		doubling += fmt.Sprintf("a%d: &a%d {<<: [*a%d, *a%d]}\n", i, i, i-1, i-1)
	}
	laughs := "a: &a [" + strings.Repeat("x, ", 99) + "x]\n"
	for i, prev := range "abcdefgh" {
		name := string(rune('b' + i))
		laughs += name + ": &" + name + " [" + strings.Repeat("*"+string(prev)+", ", 99) + "*" + string(prev) + "]\n"
	}
	long := "s: &s " + strings.Repeat("x", 60_000) + "\nl: [" + strings.Repeat("*s, ", 1000) + "*s]\n"
	var stream strings.Builder
	for stream.Len() < 60_000 {
		stream.WriteString("---\na: &a [x, x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\n")
	}
	for _, tc := range []struct{ name, doc string }{
		{"doubling merge keys", doubling}, {"nested aliases", laughs}, {"a long string aliased", long}, {"a stream of documents", stream.String()},
	} {
		if len(tc.doc) > 64<<10 {
			b.Fatalf("%s: %d bytes, over 64 KiB", tc.name, len(tc.doc))
		}
		b.Run(strings.ReplaceAll(tc.name, " ", "-"), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := decodeYAML([]byte(tc.doc)); err == nil {
					b.Fatal("accepted")
				}
			}
		})
	}
}
