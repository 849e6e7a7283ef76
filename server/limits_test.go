package server

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/retrylab/retrylab/shared/engine"
)

// explosive is the campaign's 63 KB scenario: 1,200 identical overlapping
// latency phases. Its 422 used to be 88 MB with about 720,000 problems.
func explosive(phases int) string {
	ph := strings.Repeat(`{"kind":"latency","from":"1s","to":"2s","factor":2},`, phases)
	return strings.Replace(small, `"phases": [{"kind": "outage", "from": "500ms", "to": "1s"}]`, `"phases": [`+strings.TrimSuffix(ph, ",")+`]`, 1)
}

// manyBadFields is a scenario with thousands of unknown fields: decoding
// lists one problem per field.
func manyBadFields() string {
	var b strings.Builder
	for i := range 3000 {
		fmt.Fprintf(&b, `"x%d":1,`, i)
	}
	return strings.Replace(small, `"version": 1,`, `"version": 1,`+b.String(), 1)
}

func TestErrorAnswersAreBounded(t *testing.T) {
	s, store := testServer(t)
	for _, tc := range []struct {
		desc, body string
		problems   int
	}{
		{"1,200 overlapping phases", explosive(1200), 1}, // only their count
		{"100 overlapping phases", explosive(engine.MaxPhases), engine.MaxErrors + 1},
		{"unknown fields", manyBadFields(), engine.MaxErrors + 1},
	} {
		if len(tc.body) > maxBody {
			t.Fatalf("%s: the body is %d bytes, over the limit", tc.desc, len(tc.body))
		}
		r := do(t, s, "POST", "/api/scenarios", tc.body, "Content-Type", "application/json")
		var got apiError
		if err := json.Unmarshal([]byte(r.body), &got); err != nil {
			t.Fatalf("%s: %d %.200s", tc.desc, r.code, r.body)
		}
		if r.code != http.StatusUnprocessableEntity || len(got.Errors) != tc.problems || len(r.body) > 100<<10 {
			t.Errorf("%s: %d with %d problems in %d bytes; want 422 with %d problems in under 100 KB",
				tc.desc, r.code, len(got.Errors), len(r.body), tc.problems)
		}
		if last := got.Errors[len(got.Errors)-1]; tc.problems > engine.MaxErrors && !strings.Contains(last.Message, "more problems") {
			t.Errorf("%s: the last problem is %q, want how many more there are", tc.desc, last.Error())
		}
		// The no-JavaScript form shows the same problems on a page that
		// echoes the scenario: the page is bounded by the form, not by
		// the problems (it was 20 MB).
		r = do(t, s, "POST", "/share", "scenario="+urlQueryEscape(tc.body), "Content-Type", "application/x-www-form-urlencoded")
		if r.code != http.StatusUnprocessableEntity || len(r.body) > len(tc.body)+100<<10 {
			t.Errorf("%s: the form answered %d with %d bytes", tc.desc, r.code, len(r.body))
		}
	}
	if len(store.m) != 0 {
		t.Errorf("%d rows stored", len(store.m))
	}
}
