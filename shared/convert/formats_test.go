package convert

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCheckFormat(t *testing.T) {
	for _, tc := range []struct {
		format string
		export bool
		want   string // "" for no error
	}{
		{"grpc", false, ""},
		{"envoy", false, ""},
		{"cenkalti", true, ""},
		{"resilience4j-java", true, ""},
		{"failsafe-go", false, `"failsafe-go" is export only (RetryLab writes it but does not read it); supported: "grpc", "envoy",`},
		{"polly-csharp", false, `"polly-csharp" is export only`},
		{"xml", true, `"xml" is not a format RetryLab can export; supported: "grpc", "envoy", "istio", "linkerd", "resilience4j", "polly", "aws", "failsafe-go", "cenkalti", "polly-csharp", "resilience4j-java"`},
		{"", false, "is missing; supported:"},
	} {
		err := CheckFormat(tc.format, tc.export)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%q (export %v): %v", tc.format, tc.export, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%q (export %v): %v; want %q", tc.format, tc.export, err, tc.want)
		}
	}
}

// TestEveryFormatLabelled: every format has a label and a media type, and
// every label names one format.
func TestEveryFormatLabelled(t *testing.T) {
	seen := map[string]string{}
	for _, f := range ExportFormats {
		l := Label(f)
		if l == f || MediaType(f) == "application/octet-stream" {
			t.Errorf("%s has no label or media type", f)
		}
		if g, dup := seen[l]; dup {
			t.Errorf("%s and %s are both labelled %q", f, g, l)
		}
		seen[l] = f
	}
	for _, f := range ImportFormats {
		if _, ok := formatInfo[f]; !ok {
			t.Errorf("import format %s has no label", f)
		}
	}
}

// TestDocsExportFormats: the API table's /s/{id}/export row (docs/web-api.md)
// lists every format ExportFormats has, the server taking each
// (convert.CheckFormat).
func TestDocsExportFormats(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "docs", "web-api.md"))
	if err != nil {
		t.Fatal(err)
	}
	var row string
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, "| `GET /s/{id}/export") {
			row = line
		}
	}
	if row == "" {
		t.Fatal("docs/web-api.md has no API table row for GET /s/{id}/export")
	}
	for _, f := range ExportFormats {
		if !strings.Contains(row, "`"+f+"`") {
			t.Errorf("docs/web-api.md's export row does not list %q (convert.ExportFormats)", f)
		}
	}
}
