//go:build noconvert

package server

import (
	"strings"
	"testing"
)

// TestNoConvert: the build without import and export (the Worker's)
// answers 501 naming what does them, and pages say so.
func TestNoConvert(t *testing.T) {
	s, _ := testServer(t)
	for _, tc := range []struct{ method, url, body string }{
		{"POST", "/api/import?format=aws", "[default]\nmax_attempts = 3\n"},
		{"GET", "/s/e03b-synchronized-recovery/export?format=grpc&strategy=A", ""},
	} {
		r := do(t, s, tc.method, tc.url, tc.body, "Content-Type", "text/plain", "Accept", "application/json")
		if r.code != 501 || !strings.Contains(r.body, "retrylab import --from FORMAT FILE") || !strings.Contains(r.body, "retrylab serve") {
			t.Errorf("%s %s: %d %s", tc.method, tc.url, r.code, r.body)
		}
	}
	r := do(t, s, "GET", "/s/e03b-synchronized-recovery", "")
	if r.code != 200 || strings.Contains(r.body, `data-testid="export"`) || !strings.Contains(r.body, `data-testid="export-unavailable"`) {
		t.Errorf("page: %d, export panels or no word of their absence", r.code)
	}
}
