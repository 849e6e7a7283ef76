package server

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/retrylab/retrylab/shared/engine"
)

// explosive is the campaign's 63 KB scenario: 1,200 identical overlapping
// latency phases. Unbounded, its 422 would be 88 MB with about 720,000
// problems.
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
		// the problems (bounded by the problems, it would be 20 MB).
		r = do(t, s, "POST", "/share", "scenario="+url.QueryEscape(tc.body), "Content-Type", "application/x-www-form-urlencoded")
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
		// Known once the scenario has run: a client cannot hold an ETag
		// for this answer, so revalidation is not tried (round 2).
		{"resolution the result lacks", "res=7ms", `resolution 7 ms is not available for this result`},
	} {
		for _, route := range []string{"/s/" + id + "/chart.svg?", "/embed/" + id + "?"} {
			u := route + tc.query
			for round := range 2 { // the second round asks with the ETag a cached error would have had
				if round == 1 && strings.HasPrefix(tc.query, "res=7ms") {
					break
				}
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
// cache entries (otherwise the same result as ?v=1, ?v=2, … would be one
// entry each).
func TestCacheKeyIsCanonical(t *testing.T) {
	s, _ := testServer(t)
	const id = "layered-retries"
	var bodies []string
	for i := range 50 {
		for j, u := range []string{
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
			} else if r.body != bodies[j] {
				t.Fatalf("%s: another answer than with the first parameters", u)
			}
		}
	}
	if n := s.pages.len(); n != 3 {
		t.Errorf("%d cached answers for 3 answers asked 50 times with other parameters", n)
	}
	// Parameters in another order, repeated or written otherwise, and
	// values a page reads as its default, are the same answer.
	for _, u := range []string{
		"/s/" + id + "/chart.svg?theme=dark&picture=queue&width=300",
		"/s/" + id + "/chart.svg?picture=queue&theme=dark&theme=light&width=0300",
		"/s/" + id + "?res=bogus",
		"/s/" + id + "?res=whatever",
		"/s/" + id,
	} {
		if r := do(t, s, "GET", u, ""); r.code != 200 {
			t.Fatalf("%s: %d", u, r.code)
		}
	}
	if n := s.pages.len(); n != 5 {
		t.Errorf("%d cached answers, want 5", n)
	}
}

// strategies returns n one-attempt strategies as JSON list items.
func strategies(n int) string {
	var s []string
	for i := range n {
		s = append(s, fmt.Sprintf(`{"name": "s%d", "max_attempts": 1}`, i))
	}
	return strings.Join(s, ", ")
}

// TestCostIsCheckedBeforeTheWork: the campaign's costly scenarios are
// refused when shared, before anything runs: a result of millions of
// numbers (12.8 MB, estimated at 5,185 events), and a million clients ×
// 1,000 runs × 20 strategies (estimated at 60,001 events, it ran into the
// 10 s timeout).
func TestCostIsCheckedBeforeTheWork(t *testing.T) {
	s, store := testServer(t)
	for _, tc := range []struct{ desc, body, contains string }{
		{"wide result", `{"version": 1, "workload": {"clients": 1, "rate": 0.02, "duration": "24h"},
			"dependency": {"workers": 1, "service_time": {"kind": "constant", "mean": "1ms"}, "queue_capacity": 1},
			"strategies": [` + strategies(20) + `],
			"report": {"series_bucket": "1ms", "peak_resolutions": ["1ms", "2ms", "3ms", "4ms", "5ms"]}}`,
			"MB of numbers (time series × resolutions × strategies × sweep values), over the server's limit of 8.4 MB"},
		{"set-up", `{"version": 1, "runs": 1000, "workload": {"clients": 1000000, "arrival": "burst", "operations": 1},
			"dependency": {"workers": 1, "service_time": {"kind": "constant", "mean": "1ms"}, "queue_capacity": 1},
			"strategies": [` + strategies(20) + `]}`,
			"estimated at 1.3 billion events"},
		{"no sweep, no search in the advice", `{"version": 1, "runs": 1000, "workload": {"clients": 1000000, "arrival": "burst", "operations": 1},
			"dependency": {"workers": 1, "service_time": {"kind": "constant", "mean": "1ms"}, "queue_capacity": 1},
			"strategies": [` + strategies(20) + `]}`,
			"; reduce the workload, attempts, clients, runs or strategies"},
		{"unbounded", `{"version": 1, "workload": {"clients": 1, "rate": 1, "duration": "10s"},
			"dependency": {"workers": 1, "service_time": {"kind": "constant", "mean": "1ms"}, "queue_capacity": 1, "error_rate": 1},
			"strategies": [{"name": "forever", "max_attempts": 0}]}`,
			"the scenario's cost has no bound"},
	} {
		r := do(t, s, "POST", "/api/scenarios", tc.body, "Content-Type", "application/json")
		if r.code != http.StatusUnprocessableEntity || !strings.Contains(r.body, tc.contains) {
			t.Errorf("%s: %d %.300s; want 422 containing %q", tc.desc, r.code, r.body, tc.contains)
		}
	}
	if len(store.m) != 0 {
		t.Errorf("%d rows stored", len(store.m))
	}
}

// TestCostlyRunsAreRemembered: a run that hit the run timeout answers 503
// with the reason at once for a while, instead of running again for every
// request (a failed run not remembered would run again on each GET).
func TestCostlyRunsAreRemembered(t *testing.T) {
	s, _ := testServer(t, func(c *Config) { c.RunTimeout, c.MaxRuns, c.MaxWaiting = -1, 1, -1 }) // every run times out
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s.runs.now = func() time.Time { return now }
	const u = "/api/scenarios/layered-retries/result"
	r := do(t, s, "GET", u, "")
	if r.code != http.StatusServiceUnavailable || !strings.Contains(r.body, "took longer than the server allows") || r.header.Get("Retry-After") != "600" {
		t.Fatalf("a run that times out: %d, Retry-After %q, %.200s", r.code, r.header.Get("Retry-After"), r.body)
	}
	s.runs.slots <- struct{}{} // every slot busy: a request that ran would be shed
	now = now.Add(4 * time.Minute)
	for _, v := range []string{u, "/s/layered-retries/chart.svg", "/s/layered-retries/metrics.csv"} {
		r = do(t, s, "GET", v, "")
		if r.code != http.StatusServiceUnavailable || !strings.Contains(r.body, "took longer than the server allows") || r.header.Get("Retry-After") != "360" {
			t.Errorf("%s 4 minutes later: %d, Retry-After %q, %.200s; want the remembered answer", v, r.code, r.header.Get("Retry-After"), r.body)
		}
	}
	now = now.Add(7 * time.Minute)
	if r = do(t, s, "GET", u, ""); !strings.Contains(r.body, "running as many scenarios as it can") {
		t.Errorf("11 minutes later: %d %.200s; want it tried again (and shed, every slot being busy)", r.code, r.body)
	}
}

// TestCachesAreBoundedByBytes: many different results and answers stay
// within the configured bytes, and an answer larger than an entry may be
// is served but not kept.
func TestCachesAreBoundedByBytes(t *testing.T) {
	const limit = 400 << 10
	s, _ := testServer(t, func(c *Config) { c.CacheBytes, c.MaxResultBytes = limit, 300<<10 })
	for i := range 20 {
		body := strings.Replace(small, `"name": "small"`, fmt.Sprintf(`"name": "small %d"`, i), 1)
		r := do(t, s, "POST", "/api/scenarios", body, "Content-Type", "application/json")
		var got struct{ ID string }
		if err := json.Unmarshal([]byte(r.body), &got); err != nil || r.code != http.StatusCreated {
			t.Fatalf("POST: %d %s", r.code, r.body)
		}
		for _, u := range []string{"/api/scenarios/" + got.ID + "/result", "/s/" + got.ID, "/s/" + got.ID + "/chart.svg?res=10ms"} {
			if r := do(t, s, "GET", u, ""); r.code != 200 {
				t.Fatalf("%s: %d", u, r.code)
			}
		}
	}
	t.Logf("results: %d in %d bytes; answers: %d in %d bytes", s.runs.cache.len(), s.runs.cache.sizeBytes(), s.pages.len(), s.pages.sizeBytes())
	if n := s.runs.cache.sizeBytes(); n > limit || s.runs.cache.len() == 20 {
		t.Errorf("results: %d kept in %d bytes; want at most %d bytes", s.runs.cache.len(), n, limit)
	}
	if n := s.pages.sizeBytes(); n > limit || s.pages.len() == 60 {
		t.Errorf("answers: %d kept in %d bytes; want at most %d bytes", s.pages.len(), n, limit)
	}
}

func TestLRU(t *testing.T) {
	c := newLRU(3, 100, 60, func(v string) int64 { return int64(len(v)) })
	if c.put("big", strings.Repeat("x", 58)) {
		t.Errorf("kept an entry over 60 bytes (key included)")
	}
	for _, k := range []string{"a", "b", "c", "d"} {
		c.put(k, strings.Repeat(k, 9)) // 10 bytes each
	}
	if _, ok := c.get("a"); ok || c.len() != 3 {
		t.Errorf("count limit: %d entries, a kept %v", c.len(), ok)
	}
	c.get("b")                          // b, d, c from the most recent
	c.put("e", strings.Repeat("e", 39)) // e, b, d: c goes (count)
	c.put("f", strings.Repeat("f", 59)) // f, e, b: d goes (count), 110 bytes
	if _, ok := c.get("b"); ok || c.sizeBytes() > 100 || c.len() != 2 {
		t.Errorf("byte limit: %d entries in %d bytes, b kept %v", c.len(), c.sizeBytes(), ok)
	}
	if c.put("e", "ee"); c.sizeBytes() != 60+3 || c.len() != 2 {
		t.Errorf("replacing e: %d bytes in %d entries, want 63 in 2", c.sizeBytes(), c.len())
	}
}

// TestCrossSiteWritesAreRefused: a cross-site <form enctype=text/plain>
// could create scenarios (any Content-Type got 201), and another site's
// page could post the no-JavaScript form.
func TestCrossSiteWritesAreRefused(t *testing.T) {
	s, store := testServer(t)
	for _, ct := range []string{"text/plain", "application/x-www-form-urlencoded", "image/png", "multipart/form-data; boundary=x", "application/jsonp", "nonsense;;"} {
		r := do(t, s, "POST", "/api/scenarios", small, "Content-Type", ct)
		if r.code != http.StatusUnsupportedMediaType || !strings.Contains(r.body, "is not application/json") {
			t.Errorf("Content-Type %q: %d %.200s; want 415", ct, r.code, r.body)
		}
	}
	if r := do(t, s, "POST", "/api/scenarios", small, "Content-Type", "application/json; charset=utf-8"); r.code != http.StatusCreated {
		t.Errorf("application/json with a charset: %d", r.code)
	}
	form := "scenario=" + url.QueryEscape(strings.Replace(small, `"name": "small"`, `"name": "form"`, 1))
	for _, tc := range []struct {
		desc   string
		header []string
		code   int
	}{
		{"another origin", []string{"Origin", "https://evil.example"}, http.StatusForbidden},
		{"an opaque origin", []string{"Origin", "null"}, http.StatusForbidden},
		{"cross-site without Origin", []string{"Sec-Fetch-Site", "cross-site"}, http.StatusForbidden},
		{"this origin", []string{"Origin", "http://example.com"}, http.StatusSeeOther},
		{"no Origin", nil, http.StatusSeeOther},
	} {
		h := append([]string{"Content-Type", "application/x-www-form-urlencoded"}, tc.header...)
		if r := do(t, s, "POST", "/share", form, h...); r.code != tc.code {
			t.Errorf("form from %s: %d %.200s; want %d", tc.desc, r.code, r.body, tc.code)
		}
	}
	if len(store.m) != 2 {
		t.Errorf("%d rows stored; want the JSON one and the form's", len(store.m))
	}
}

// TestFullStoreAnswers503: a store that cannot take writes (a full disk)
// gives 503 with Retry-After, not a generic 500, and reads keep working.
func TestFullStoreAnswers503(t *testing.T) {
	s, store := testServer(t)
	if r := do(t, s, "POST", "/api/scenarios", small); r.code != http.StatusCreated {
		t.Fatalf("POST: %d", r.code)
	}
	store.writeErr = fmt.Errorf("disk: %w", syscall.ENOSPC)
	other := strings.Replace(small, `"name": "small"`, `"name": "other"`, 1)
	r := do(t, s, "POST", "/api/scenarios", other)
	if r.code != http.StatusServiceUnavailable || r.header.Get("Retry-After") != "60" || !strings.Contains(r.body, "cannot store scenarios right now") {
		t.Errorf("POST to a full store: %d, Retry-After %q, %.200s", r.code, r.header.Get("Retry-After"), r.body)
	}
	r = do(t, s, "POST", "/share", "scenario="+url.QueryEscape(other), "Content-Type", "application/x-www-form-urlencoded")
	if r.code != http.StatusServiceUnavailable || r.header.Get("Retry-After") != "60" {
		t.Errorf("the form to a full store: %d, Retry-After %q", r.code, r.header.Get("Retry-After"))
	}
	if r := do(t, s, "GET", "/s/"+pinnedID, ""); r.code != 200 {
		t.Errorf("reading with a full store: %d", r.code)
	}
}

// TestOnlyServerFaultsAreErrors: a 501 for an unsupported oEmbed format is
// the client's request, not the server's failure: not logged at ERROR.
func TestOnlyServerFaultsAreErrors(t *testing.T) {
	var log bytes.Buffer
	s, _ := testServer(t, func(c *Config) { c.Logger = slog.New(slog.NewTextHandler(&log, nil)) })
	r := do(t, s, "GET", "/oembed?url=http%3A%2F%2Fexample.com%2Fs%2Flayered-retries&format=xml", "")
	if r.code != http.StatusNotImplemented || strings.Contains(log.String(), "level=ERROR") || !strings.Contains(log.String(), "status=501") {
		t.Errorf("501: %d, logged:\n%s", r.code, log.String())
	}
}

// TestSheddingIsAWarning: a 503 that sheds load or answers a limit (every
// slot taken, a run over its timeout, remembered) is logged at WARN, its
// request line too: it is the server doing its job. A store fault's 503
// and a panic's 500 stay at ERROR.
func TestSheddingIsAWarning(t *testing.T) {
	const u = "/api/scenarios/layered-retries/result"
	for _, tc := range []struct {
		desc   string
		config func(*Config)
		setup  func(*Server, *memStore)
		method string
		url    string
		body   string
		code   int
		level  string
	}{
		{"shed", func(c *Config) { c.MaxRuns, c.MaxWaiting = 1, -1 }, func(s *Server, _ *memStore) { s.runs.slots <- struct{}{} }, "GET", u, "", 503, "WARN"},
		{"shed page", func(c *Config) { c.MaxRuns, c.MaxWaiting = 1, -1 }, func(s *Server, _ *memStore) { s.runs.slots <- struct{}{} }, "GET", "/s/layered-retries", "", 503, "WARN"},
		{"run timeout", func(c *Config) { c.RunTimeout = -1 }, nil, "GET", u, "", 503, "WARN"},
		{"store full", nil, func(_ *Server, store *memStore) { store.writeErr = fmt.Errorf("disk: %w", syscall.ENOSPC) }, "POST", "/api/scenarios", small, 503, "ERROR"},
		{"panic", nil, func(s *Server, _ *memStore) {
			s.runs.engineRun = func(context.Context, *engine.Scenario, engine.Options) (*engine.Result, error) { panic("boom") }
		}, "GET", u, "", 500, "ERROR"},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			var log bytes.Buffer
			s, store := testServer(t, func(c *Config) {
				c.Logger = slog.New(slog.NewTextHandler(&log, nil))
				if tc.config != nil {
					tc.config(c)
				}
			})
			if tc.setup != nil {
				tc.setup(s, store)
			}
			r := do(t, s, tc.method, tc.url, tc.body)
			if r.code != tc.code {
				t.Fatalf("%d %.300s; want %d", r.code, r.body, tc.code)
			}
			levels := regexp.MustCompile(`level=(\w+) msg="?request`).FindAllStringSubmatch(log.String(), -1)
			if len(levels) == 0 {
				t.Fatalf("nothing logged")
			}
			for _, l := range levels {
				if l[1] != tc.level {
					t.Errorf("logged at %s, want %s:\n%s", l[1], tc.level, log.String())
					break
				}
			}
		})
	}
}

func TestOEmbedOnlyForThisSite(t *testing.T) {
	s, _ := testServer(t)
	for _, tc := range []struct {
		url  string
		code int
	}{
		{"https://example.com/s/layered-retries", 200},
		{"http://EXAMPLE.com/s/layered-retries", 200},
		{"/s/layered-retries", 200},
		{"https://evil.example/s/layered-retries", 404},
		{"https://example.com.evil.example/s/layered-retries", 404},
		{"https://evil.example@example.com.evil/s/layered-retries", 404},
		{"javascript://example.com/s/layered-retries", 404},
	} {
		r := do(t, s, "GET", "/oembed?url="+url.QueryEscape(tc.url), "")
		if r.code != tc.code {
			t.Errorf("url %s: %d %.200s; want %d", tc.url, r.code, r.body, tc.code)
		}
	}
}

func TestCSVSafe(t *testing.T) {
	for in, want := range map[string]string{
		"fast":      "fast",
		" fast":     " fast",
		"=1+1":      "'=1+1",
		" =1+1":     "' =1+1",
		"  @SUM(A)": "'  @SUM(A)",
		"\t-2":      "'\t-2",
		"\r+3":      "'\r+3",
		"\tx":       "'\tx",
		"":          "",
	} {
		if got := csvSafe(in); got != want {
			t.Errorf("csvSafe(%q) = %q, want %q", in, got, want)
		}
	}
}

// BenchmarkErrorExplosion measures the campaign's 1,200-phase scenario (and
// 100 overlapping phases, the most problems a scenario within the count
// limit can have): unbounded, its 422 would take 0.5 s of CPU and be
// 88 MB.
func BenchmarkErrorExplosion(b *testing.B) {
	s, _ := testServer(b, func(c *Config) { c.PostRate, c.PostBurst = 1e9, 1<<30 })
	for _, phases := range []int{1200, engine.MaxPhases} {
		body := explosive(phases)
		b.Run(fmt.Sprintf("%d phases", phases), func(b *testing.B) {
			var size int
			for b.Loop() {
				r := do(b, s, "POST", "/api/scenarios", body)
				size = len(r.body)
			}
			b.ReportMetric(float64(size), "answer-bytes")
		})
	}
}

// TestBuiltinsFitTheLimits: the server's default budgets refuse none of the
// built-ins, and the size estimate of each is at least its result's size.
func TestBuiltinsFitTheLimits(t *testing.T) {
	s, _ := testServer(t)
	for slug, b := range s.builtins {
		if err := checkCost(s.cfg, b.sc); err != nil {
			t.Errorf("%s: %v", slug, err)
		}
		if testing.Short() {
			continue
		}
		res, err := s.runs.result(t.Context(), slug, b.sc)
		if err != nil {
			t.Fatalf("%s: %v", slug, err)
		}
		if size, est := res.Size(), engine.EstimateSize(b.sc); est < size {
			t.Errorf("%s: the result holds %d numbers, estimated at %d", slug, size, est)
		}
	}
}

// TestIframeKeepsItsTextReadable: the iframe snippet keeps its shape in a
// wide column, but never gets lower than embedMinHeight in a narrow one
// (where the chart, fitted to the frame's height, would draw its text
// under 10 px), nor forces a frame higher than the height asked for; the
// share box and oEmbed answer the same snippet.
func TestIframeKeepsItsTextReadable(t *testing.T) {
	for _, tc := range []struct {
		width, height int
		want          string
	}{
		{760, 490, "aspect-ratio:760/490;min-height:440px"},
		{400, 258, "aspect-ratio:400/258;min-height:258px"},
	} {
		got := iframeSized("https://example.com/embed/x?picture=a&res=1s", "A & B", tc.width, tc.height)
		if !strings.Contains(got, tc.want) {
			t.Errorf("%dx%d: %s\nwant %s", tc.width, tc.height, got, tc.want)
		}
		if !strings.Contains(got, `src="https://example.com/embed/x?picture=a&amp;res=1s"`) || !strings.Contains(got, `title="RetryLab: A &amp; B"`) {
			t.Errorf("%dx%d: src or title not escaped: %s", tc.width, tc.height, got)
		}
	}
	if got, want := iframe("s", "t"), iframeSized("s", "t", 760, 490); got != want {
		t.Errorf("the share box's snippet %s differs from oEmbed's %s", got, want)
	}
	s, _ := testServer(t)
	r := do(t, s, "GET", "/oembed?url=https%3A%2F%2Fexample.com%2Fs%2Flayered-retries&maxwidth=400", "")
	var o struct{ HTML string }
	if err := json.Unmarshal([]byte(r.body), &o); err != nil || !strings.Contains(o.HTML, "min-height:") {
		t.Errorf("oEmbed's html %q (%v), want the snippet with its min-height", o.HTML, err)
	}
}
