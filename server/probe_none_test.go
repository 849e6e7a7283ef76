//go:build nosearch

package server

import (
	"strings"
	"testing"
)

// TestNoProbe: the build without the probe and progress streams (the
// Worker's) answers their requests with 501 naming what does them, serves
// the plain result as before, and links to no probe.
func TestNoProbe(t *testing.T) {
	s, _ := testServer(t)
	for _, tc := range []struct{ url, want string }{
		{"/api/scenarios/runaway-cascade/probe?strategy=textbook", "retrylab probe SLUG|FILE"},
		{"/s/runaway-cascade/probe?strategy=textbook", "retrylab probe SLUG|FILE"},
		{"/api/scenarios/e03b-synchronized-recovery/result", "without Accept: text/event-stream"},
	} {
		r := do(t, s, "GET", tc.url, "", "Accept", "text/event-stream")
		if r.code != 501 || !strings.Contains(r.body, tc.want) || !strings.Contains(r.body, "retrylab serve") {
			t.Errorf("%s: %d %s", tc.url, r.code, r.body)
		}
	}
	if r := do(t, s, "GET", "/api/scenarios/e03b-synchronized-recovery/result", ""); r.code != 200 {
		t.Errorf("plain result: %d", r.code)
	}
	if r := do(t, s, "GET", "/s/runaway-cascade", ""); r.code != 200 || strings.Contains(r.body, `data-testid="probes"`) {
		t.Errorf("page: %d, or it links to probes", r.code)
	}
}
