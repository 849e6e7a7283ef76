//go:build nosearch

package server

import (
	"strings"
	"testing"
)

// TestNoStream: the build without progress streams (the Worker's)
// answers a request for one with 501 naming what to do instead, and
// serves the plain result as before.
func TestNoStream(t *testing.T) {
	s, _ := testServer(t)
	r := do(t, s, "GET", "/api/scenarios/e03b-synchronized-recovery/result", "", "Accept", "text/event-stream")
	if r.code != 501 || !strings.Contains(r.body, "without Accept: text/event-stream") || !strings.Contains(r.body, "retrylab serve") {
		t.Errorf("stream: %d %s", r.code, r.body)
	}
	if r := do(t, s, "GET", "/api/scenarios/e03b-synchronized-recovery/result", ""); r.code != 200 {
		t.Errorf("plain result: %d", r.code)
	}
}
