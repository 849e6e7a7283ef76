package convert

import (
	"slices"
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
		{"cenkalti", true, ""},
		{"envoy", false, `"envoy" is not supported yet for import; supported: "grpc", "aws", "polly"; planned: "envoy",`},
		{"resilience4j-java", true, `"resilience4j-java" is not supported yet for export; supported: "grpc", "aws", "polly", "failsafe-go", "cenkalti"`},
		{"failsafe-go", false, `"failsafe-go" is export only`},
		{"xml", true, `"xml" is not a format RetryLab can export; supported:`},
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
	// A planned format is not one already built: the lists say what is not.
	for _, f := range append(slices.Clone(PlannedImportFormats), PlannedExportFormats...) {
		if slices.Contains(ImportFormats, f) || slices.Contains(ExportFormats, f) {
			t.Errorf("%q is both built and planned", f)
		}
	}
}
