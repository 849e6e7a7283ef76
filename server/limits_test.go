package server

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
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

// TestBadChartQueries: a chart or embed query that cannot be drawn is a
// 400 naming the parameter, before anything runs, and an error is never
// cached as immutable or given an ETag to revalidate.
func TestBadChartQueries(t *testing.T) {
	s, _ := testServer(t)
	const id = "e03b-synchronized-recovery"
	for _, tc := range []struct{ desc, query, contains string }{
		{"unknown picture", "picture=bogus", `picture &#34;bogus&#34; is not one of attempts`},
		{"unknown theme", "theme=bogus", `theme &#34;bogus&#34; is not one of auto, light, dark`},
		{"unknown metric", "picture=compare&metric=bogus", `metric &#34;bogus&#34; is not one of operations`},
		{"bad resolution", "res=soon", `res &#34;soon&#34; is not a duration`},
		{"bad success", "success=yes", `success &#34;yes&#34; is not 1`},
		{"sweep of no sweep", "picture=sweep", `this scenario has no sweep`},
	} {
		for _, route := range []string{"/s/" + id + "/chart.svg?", "/embed/" + id + "?"} {
			u := route + tc.query
			for round := range 2 { // the second round asks with the ETag a cached error would have had
				var r response
				if round == 0 {
					r = do(t, s, "GET", u, "")
				} else {
					r = do(t, s, "GET", u, "", "If-None-Match", s.etagFor(u))
				}
				if r.code != http.StatusBadRequest || !strings.Contains(r.body, tc.contains) {
					t.Errorf("%s (%s): %d %.300s; want 400 containing %q", u, tc.desc, r.code, r.body, tc.contains)
				}
				if cc := r.header.Get("Cache-Control"); cc != "no-store" || r.header.Get("ETag") != "" {
					t.Errorf("%s: Cache-Control %q, ETag %q; an error must not be cached", u, cc, r.header.Get("ETag"))
				}
			}
		}
	}
	if r := do(t, s, "GET", "/s/token-bucket-sweep/chart.svg?picture=queue", ""); r.code != http.StatusBadRequest || !strings.Contains(r.body, "this scenario is a sweep") {
		t.Errorf("a sweep's queue chart: %d %.200s", r.code, r.body)
	}
	// The embed's chart is the checked query, not the raw one.
	r := do(t, s, "GET", "/embed/"+id+"?theme=light&utm_source=x%22%3E&picture=queue", "")
	if r.code != 200 || !strings.Contains(r.body, "/s/"+id+"/chart.svg?picture=queue&amp;theme=light\"") {
		t.Errorf("embed: %d %.2000s", r.code, r.body)
	}
}

// etagFor is the ETag the server gives a URL's answer.
func (s *Server) etagFor(u string) string {
	req := httptest.NewRequest("GET", u, nil)
	c := s.echo.NewContext(req, httptest.NewRecorder())
	s.echo.Router().Find("GET", req.URL.Path, c)
	s.cacheable(c, false)
	return c.Response().Header().Get("ETag")
}

// TestCacheKeyIsCanonical: parameters a route does not read do not make new
// cache entries (the same result as ?v=1, ?v=2, … was one entry each).
func TestCacheKeyIsCanonical(t *testing.T) {
	s, _ := testServer(t)
	const id = "layered-retries"
	var bodies []string
	for i := range 50 {
		for _, u := range []string{
			fmt.Sprintf("/api/scenarios/%s/result?v=%d", id, i),
			fmt.Sprintf("/s/%s/chart.svg?picture=queue&v=%d", id, i),
			fmt.Sprintf("/s/%s?res=1s&utm_source=%d", id, i),
		} {
			r := do(t, s, "GET", u, "")
			if r.code != 200 {
				t.Fatalf("%s: %d", u, r.code)
			}
			if i == 0 {
				bodies = append(bodies, r.body)
			}
		}
	}
	if n := s.pages.len(); n != 3 {
		t.Errorf("%d cached answers for 3 answers asked 50 times with other parameters", n)
	}
	// Parameters in another order, or repeated, are the same answer.
	do(t, s, "GET", "/s/"+id+"/chart.svg?theme=dark&picture=queue", "")
	do(t, s, "GET", "/s/"+id+"/chart.svg?picture=queue&theme=dark&theme=light", "")
	if n := s.pages.len(); n != 4 {
		t.Errorf("%d cached answers, want 4", n)
	}
}
