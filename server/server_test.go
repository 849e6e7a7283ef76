package server

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"image/png"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/net/html"

	"github.com/retrylab/retrylab/server/storetest"
	"github.com/retrylab/retrylab/shared/chart"
	"github.com/retrylab/retrylab/shared/engine"
	"github.com/retrylab/retrylab/shared/engine/probe"
	"github.com/retrylab/retrylab/shared/scenarios"
)

func TestMemStoreContract(t *testing.T) {
	storetest.Run(t, func(t *testing.T) storetest.Store { return newMemStore() })
	storetest.RunUnwritable(t, func(t *testing.T) storetest.Store {
		s := newMemStore()
		s.PutScenario(t.Context(), "present", []byte("x"))
		s.writeErr = fmt.Errorf("memory: %w", syscall.ENOSPC)
		return s
	})
}

// testServer builds a server on a memory store; change the config with fns.
// Its runs and requests may last an hour, not the defaults' 10 and 20 s: on
// a loaded 2-core machine a run of a built-in can take ten times as long as
// on a quiet one. The tests of those limits set their own.
func testServer(t testing.TB, fns ...func(*Config)) (*Server, *memStore) {
	t.Helper()
	store := newMemStore()
	cfg := Config{Store: store, Logger: discardLogger(), RunTimeout: time.Hour, RequestTimeout: time.Hour, Probe: probe.Run}
	for _, f := range fns {
		f(&cfg)
	}
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return s, store
}

// postScenario shares body and returns its ID.
func postScenario(t *testing.T, s *Server, body string) string {
	t.Helper()
	r := do(t, s, "POST", "/api/scenarios", body)
	if r.code != http.StatusCreated {
		t.Fatalf("POST: %d %s", r.code, r.body)
	}
	var got struct{ ID string }
	json.Unmarshal([]byte(r.body), &got)
	return got.ID
}

type response struct {
	code   int
	header http.Header
	body   string
}

func do(t testing.TB, s *Server, method, url string, body string, header ...string) response {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req := httptest.NewRequest(method, url, rd)
	req.RemoteAddr = "192.0.2.1:1234"
	if method == "POST" && strings.HasPrefix(url, "/api/") {
		req.Header.Set("Content-Type", "application/json") // unless header says otherwise
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, req)
	return response{rec.Code, rec.Header(), rec.Body.String()}
}

const small = `{"version": 1, "name": "small", "workload": {"clients": 2, "rate": 10, "duration": "2s"},
	"dependency": {"workers": 2, "service_time": {"kind": "constant", "mean": "5ms"}, "queue_capacity": 5,
		"phases": [{"kind": "outage", "from": "500ms", "to": "1s"}]},
	"strategies": [{"name": "a", "max_attempts": 3, "attempt_timeout": "100ms"}, {"name": "b", "max_attempts": 1}]}`

func TestRoutes(t *testing.T) {
	s, _ := testServer(t)
	slug := "e03b-synchronized-recovery"
	for _, tc := range []struct {
		desc, method, url string
		code              int
		ctype, contains   string
	}{
		{"home", "GET", "/", 200, "text/html", `<textarea`},
		{"home opens a built-in", "GET", "/?s=breaker-timeline", 200, "text/html", `Circuit breaker timeline`},
		{"home is the playground", "GET", "/", 200, "text/html", `data-testid="playground"`},
		{"gallery", "GET", "/scenarios", 200, "text/html", `data-testid="gallery-item"`},
		{"built-in page", "GET", "/s/" + slug, 200, "text/html", `data-testid="comparison"`},
		{"built-in page counts seeds", "GET", "/s/" + slug, 200, "text/html", `Means over 10 seeds`},
		{"sweep page", "GET", "/s/token-bucket-sweep", 200, "text/html", `data-testid="sweep"`},
		{"unknown ID", "GET", "/s/AAAAAAAAAAA", 404, "text/html", `href="/scenarios"`},
		{"unknown ID names it", "GET", "/s/AAAAAAAAAAA", 404, "text/html", `with the ID &#34;AAAAAAAAAAA&#34;`},
		{"unknown embed", "GET", "/embed/AAAAAAAAAAA", 404, "text/html", `no RetryLab scenario with the ID AAAAAAAAAAA`},
		{"malformed ID", "GET", "/s/no%20such!", 404, "text/html", `not-found`},
		{"scenario JSON", "GET", "/api/scenarios/" + slug, 200, "application/json", `"strategies"`},
		{"result JSON", "GET", "/api/scenarios/layered-retries/result", 200, "application/json", `"amplification":27`},
		{"unknown result", "GET", "/api/scenarios/AAAAAAAAAAA/result", 404, "application/json", `"error"`},
		{"chart", "GET", "/s/" + slug + "/chart.svg?res=1s", 200, "image/svg+xml", `<svg`},
		{"chart bad picture", "GET", "/s/" + slug + "/chart.svg?picture=pie", 400, "text/html", `is not one of attempts`},
		{"chart bad resolution", "GET", "/s/" + slug + "/chart.svg?res=soon", 400, "text/html", `is not a duration`},
		{"chart bad width", "GET", "/s/" + slug + "/chart.svg?width=5", 400, "text/html", `is not a number of pixels`},
		{"sweep chart by default", "GET", "/s/token-bucket-sweep/chart.svg?theme=light", 200, "image/svg+xml", `across the sweep`},
		{"png chart", "GET", "/s/" + slug + "/chart.png", 200, "image/png", "\x89PNG"},
		{"png chart bad picture", "GET", "/s/" + slug + "/chart.png?picture=pie", 400, "text/html", `is not one of attempts`},
		{"page has a verdict", "GET", "/s/" + slug, 200, "text/html", `data-testid="verdict"`},
		{"playground carries the chart widths", "GET", "/", 200, "text/html", `data-chart-widths="` + html.EscapeString(chart.ShownWidthsJSON()) + `"`},
		{"page previews with the PNG", "GET", "/s/" + slug, 200, "text/html", `property="og:image" content="http://example.com/s/` + slug + `/chart.png"`},
		{"page previews with the verdict", "GET", "/s/" + slug, 200, "text/html", `property="og:description" content="D has the lowest peak calls in 100 ms`},
		{"page names oEmbed", "GET", "/s/" + slug, 200, "text/html", `type="application/json+oembed"`},
		{"embed caption is the verdict", "GET", "/embed/" + slug, 200, "text/html", `data-testid="verdict">D has the lowest`},
		{"csv", "GET", "/s/layered-retries/metrics.csv", 200, "text/csv", "3x3,amplification,27"},
		{"csv of a metric that does not apply (no fault ends)", "GET", "/s/time-budget/metrics.csv", 200, "text/csv", ",recovered,,,\n"},
		{"csv of a recovery time that did not come (not recovered under load)", "GET", "/s/failover-incident/metrics.csv", 200, "text/csv", "every-layer,recovery_s,,,\nevery-layer,recovered,0,,\n"},
		{"csv of several calls", "GET", "/s/bulkheads/metrics.csv", 200, "text/csv", "bulkhead of 20 for payment,catalog: success_rate,1,1,1"},
		{"embed", "GET", "/embed/" + slug, 200, "text/html", `/s/` + slug + `/chart.svg`},
		{"embed, narrow frames drawn narrow", "GET", "/embed/" + slug, 200, "text/html", `<source media="(max-width: 560px)" srcset="/s/` + slug + `/chart.svg?picture=attempts&amp;res=100ms&amp;width=400"`},
		{"embed of a picture, narrow frames drawn narrow", "GET", "/embed/" + slug + "?picture=outcomes", 200, "text/html", `<source media="(max-width: 560px)" srcset="/s/` + slug + `/chart.svg?picture=outcomes&amp;width=400"`},
		{"embed, mid frames drawn mid", "GET", "/embed/" + slug, 200, "text/html", `<source media="(max-width: 840px)" srcset="/s/` + slug + `/chart.svg?picture=attempts&amp;res=100ms&amp;width=600"`},
		{"page, mid screens drawn mid", "GET", "/s/" + slug, 200, "text/html", `<source media="(max-width: 840px)" srcset="/s/` + slug + `/chart.svg?picture=attempts&amp;res=100ms&amp;width=600"`},
		{"oembed", "GET", "/oembed?url=" + "https%3A%2F%2Fexample.com%2Fs%2F" + slug + "&maxwidth=400", 200, "application/json", `"type":"rich"`},
		{"oembed xml", "GET", "/oembed?url=https%3A%2F%2Fexample.com%2Fs%2F" + slug + "&format=xml", 501, "application/json", `format=json`},
		{"oembed foreign path", "GET", "/oembed?url=https%3A%2F%2Fexample.com%2Fother", 404, "application/json", `not a RetryLab`},
		{"oembed unknown ID", "GET", "/oembed?url=https%3A%2F%2Fexample.com%2Fs%2FAAAAAAAAAAA", 404, "application/json", `"error"`},
		{"health", "GET", "/healthz", 200, "application/json", `"ok"`},
		{"metrics", "GET", "/metrics", 200, "text/plain", `retrylab_http_requests_total`},
		{"no such route", "GET", "/nope", 404, "text/html", `not-found`},
		{"no such static file", "GET", "/static/nope.css", 404, "", ``},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			r := do(t, s, tc.method, tc.url, "")
			if r.code != tc.code || !strings.HasPrefix(r.header.Get("Content-Type"), tc.ctype) || !strings.Contains(r.body, tc.contains) {
				t.Errorf("%s %s: %d %q, want %d %q containing %q\n%.300s", tc.method, tc.url, r.code, r.header.Get("Content-Type"), tc.code, tc.ctype, tc.contains, r.body)
			}
			if r.header.Get("X-Content-Type-Options") != "nosniff" {
				t.Errorf("no nosniff header")
			}
		})
	}
}

// pinnedID is the share ID of the scenario `small`: IDs are content hashes,
// and links already shared must keep working, so the derivation must never
// change by accident.
const pinnedID = "TzW9SPeXDeo"

func TestShareIsIdempotentAndPinned(t *testing.T) {
	s, store := testServer(t)
	var ids []string
	for range 2 {
		r := do(t, s, "POST", "/api/scenarios", small)
		if r.code != http.StatusCreated {
			t.Fatalf("POST: %d %s", r.code, r.body)
		}
		var got struct{ ID, URL string }
		if err := json.Unmarshal([]byte(r.body), &got); err != nil {
			t.Fatal(err)
		}
		if got.URL != "http://example.com/s/"+got.ID || r.header.Get("Location") != got.URL {
			t.Errorf("url %q, Location %q", got.URL, r.header.Get("Location"))
		}
		ids = append(ids, got.ID)
	}
	if ids[0] != ids[1] || ids[0] != pinnedID {
		t.Errorf("IDs %v, want %s twice", ids, pinnedID)
	}
	if n := len(store.m); n != 1 {
		t.Errorf("%d rows after sharing one scenario twice", n)
	}
	// The same scenario written differently is the same scenario.
	reordered := strings.Replace(small, `"version": 1, "name": "small"`, `"name": "small", "version": 1`, 1)
	if r := do(t, s, "POST", "/api/scenarios", reordered); !strings.Contains(r.body, pinnedID) {
		t.Errorf("a reordered copy got another ID: %s", r.body)
	}
	if r := do(t, s, "GET", "/s/"+pinnedID, ""); r.code != 200 || !strings.Contains(r.body, "small") {
		t.Errorf("GET the shared page: %d", r.code)
	}
}

func TestShareIDNeverEndsInUnderscore(t *testing.T) {
	for i := range 5000 {
		id := shareID([]byte(fmt.Sprint(i)))
		if len(id) < 11 || strings.HasSuffix(id, "_") || !idPattern.MatchString(id) {
			t.Fatalf("shareID gave %q", id)
		}
	}
}

func TestBadScenarios(t *testing.T) {
	s, store := testServer(t)
	huge := `{"version": 1, "name": "` + strings.Repeat("x", maxBody) + `"}`
	costly := strings.Replace(small, `"duration": "2s"`, `"duration": "24h"`, 1)
	costly = strings.Replace(costly, `"rate": 10`, `"rate": 100000`, 1)
	for _, tc := range []struct {
		desc, body string
		code       int
		contains   string
	}{
		{"oversize", huge, 413, "larger than 64 KiB"},
		{"not JSON", `{"version": 1,`, 400, "invalid JSON"},
		{"trailing data", small + ` {}`, 400, "trailing data"},
		{"unknown field", strings.Replace(small, `"max_attempts": 1}`, `"max_attempts": 1, "retries": 3}`, 1), 422, `"path":"strategies[1].retries"`},
		{"out of range", strings.Replace(small, `"max_attempts": 3`, `"max_attempts": 101`, 1), 422, `"path":"strategies[0].max_attempts","value":"101","message":"is out of range 0..100"`},
		{"absurd value", strings.Replace(small, `"clients": 2`, `"clients": 1e300`, 1), 422, `"path":"workload.clients"`},
		{"too costly", costly, 422, "over the limit of"},
		{"unknown preset", strings.Replace(small, `"max_attempts": 1}`, `"preset": "nope"}`, 1), 422, "not a known preset"},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			r := do(t, s, "POST", "/api/scenarios", tc.body)
			if r.code != tc.code || !strings.Contains(r.body, tc.contains) {
				t.Errorf("%d %.300s; want %d containing %q", r.code, r.body, tc.code, tc.contains)
			}
		})
	}
	if len(store.m) != 0 {
		t.Errorf("bad scenarios stored %d rows", len(store.m))
	}
}

func TestShareForm(t *testing.T) {
	s, store := testServer(t)
	r := do(t, s, "POST", "/share", "scenario="+url.QueryEscape(small), "Content-Type", "application/x-www-form-urlencoded")
	if r.code != http.StatusSeeOther || r.header.Get("Location") != "/s/"+pinnedID {
		t.Errorf("share form: %d, Location %q", r.code, r.header.Get("Location"))
	}
	bad := strings.Replace(small, `"max_attempts": 3`, `"max_attempts": 101`, 1)
	r = do(t, s, "POST", "/share", "scenario="+url.QueryEscape(bad), "Content-Type", "application/x-www-form-urlencoded")
	if r.code != http.StatusUnprocessableEntity || !strings.Contains(r.body, "strategies[0].max_attempts: 101 is out of range") {
		t.Errorf("bad form: %d %.200s", r.code, r.body)
	}
	for _, form := range []string{
		"scenario=" + strings.Repeat("x", 65<<10),   // a form that parses, with too long a scenario
		"scenario=" + strings.Repeat("%7B", 70<<10), // 70 KiB of scenario, 210 KiB of form
		"other=" + strings.Repeat("x", 300<<10),     // a form too long to parse at all
	} {
		r = do(t, s, "POST", "/share", form, "Content-Type", "application/x-www-form-urlencoded")
		if r.code != http.StatusRequestEntityTooLarge || !strings.Contains(r.body, "larger than 64 KiB") {
			t.Errorf("%d-byte form: %d %.200s", len(form), r.code, r.body)
		}
	}
	if len(store.m) != 1 {
		t.Errorf("%d rows", len(store.m))
	}
}

func TestRateLimitIgnoresForgedForwardedFor(t *testing.T) {
	s, _ := testServer(t, func(c *Config) { c.PostRate, c.PostBurst = 0.5, 2 })
	var codes []int
	for i := range 4 {
		body := strings.Replace(small, `"name": "small"`, fmt.Sprintf(`"name": "small %d"`, i), 1)
		// A client that makes up a new X-Forwarded-For each time is still
		// the same connection address.
		r := do(t, s, "POST", "/api/scenarios", body, "X-Forwarded-For", fmt.Sprintf("203.0.113.%d", i))
		codes = append(codes, r.code)
		if r.code == http.StatusTooManyRequests && r.header.Get("Retry-After") != "2" {
			t.Errorf("429 with Retry-After %q, want 2", r.header.Get("Retry-After"))
		}
	}
	if fmt.Sprint(codes) != "[201 201 429 429]" {
		t.Errorf("codes %v, want two accepted then 429", codes)
	}
}

func TestCachingHeaders(t *testing.T) {
	s, _ := testServer(t)
	do(t, s, "POST", "/api/scenarios", small)
	for _, u := range []string{"/s/" + pinnedID, "/s/" + pinnedID + "/chart.svg", "/api/scenarios/" + pinnedID + "/result", "/api/scenarios/" + pinnedID} {
		r := do(t, s, "GET", u, "")
		if r.code != 200 || r.header.Get("Cache-Control") != idCacheControl || r.header.Get("ETag") == "" {
			t.Errorf("%s: %d, Cache-Control %q, ETag %q", u, r.code, r.header.Get("Cache-Control"), r.header.Get("ETag"))
			continue
		}
		if again := do(t, s, "GET", u, "", "If-None-Match", r.header.Get("ETag")); again.code != http.StatusNotModified || again.body != "" {
			t.Errorf("%s with If-None-Match: %d", u, again.code)
		}
	}
	if r := do(t, s, "GET", "/s/e03b-synchronized-recovery", ""); r.header.Get("Cache-Control") != "public, max-age=300" {
		t.Errorf("built-in pages may change with a release: Cache-Control %q", r.header.Get("Cache-Control"))
	}
	if r := do(t, s, "GET", "/s/AAAAAAAAAAA", ""); r.header.Get("Cache-Control") != "public, max-age=60" {
		t.Errorf("404 Cache-Control %q, want a short one", r.header.Get("Cache-Control"))
	}
}

func TestFramingAndContentSecurity(t *testing.T) {
	s, _ := testServer(t)
	// The second round comes from the page cache: same rules.
	for range 2 {
		checkFraming(t, s)
	}
}

func checkFraming(t *testing.T, s *Server) {
	t.Helper()
	page := do(t, s, "GET", "/s/layered-retries", "")
	if page.header.Get("X-Frame-Options") != "DENY" || !strings.Contains(page.header.Get("Content-Security-Policy"), "frame-ancestors 'none'") {
		t.Errorf("pages must not be framable: %q / %q", page.header.Get("X-Frame-Options"), page.header.Get("Content-Security-Policy"))
	}
	for _, u := range []string{"/embed/layered-retries", "/embed/AAAAAAAAAAA"} {
		embed := do(t, s, "GET", u, "")
		if embed.header.Get("X-Frame-Options") != "" || !strings.Contains(embed.header.Get("Content-Security-Policy"), "frame-ancestors *") {
			t.Errorf("%s must be framable: %q / %q", u, embed.header.Get("X-Frame-Options"), embed.header.Get("Content-Security-Policy"))
		}
	}
	svg := do(t, s, "GET", "/s/layered-retries/chart.svg", "")
	if svg.header.Get("Content-Type") != "image/svg+xml" || !strings.Contains(svg.header.Get("Content-Security-Policy"), "sandbox") {
		t.Errorf("SVG: %q / %q", svg.header.Get("Content-Type"), svg.header.Get("Content-Security-Policy"))
	}
}

func TestLoadShedding(t *testing.T) {
	s, _ := testServer(t, func(c *Config) { c.MaxRuns, c.MaxWaiting = 1, -1 })
	s.runs.slots <- struct{}{} // every slot busy
	r := do(t, s, "GET", "/api/scenarios/layered-retries/result", "")
	if r.code != http.StatusServiceUnavailable || r.header.Get("Retry-After") == "" {
		t.Errorf("saturated: %d, Retry-After %q; want 503 with Retry-After", r.code, r.header.Get("Retry-After"))
	}
	<-s.runs.slots
	if r := do(t, s, "GET", "/api/scenarios/layered-retries/result", ""); r.code != 200 {
		t.Errorf("after the slot frees: %d", r.code)
	}
}

func TestStaticAssets(t *testing.T) {
	s, _ := testServer(t)
	p := s.assets.path("style.css")
	if !regexp.MustCompile(`^/static/style\.[0-9a-f]{10}\.css$`).MatchString(p) {
		t.Fatalf("hashed path %q", p)
	}
	for enc, want := range map[string]string{"br, gzip": "br", "gzip": "gzip", "": "", "br;q=0, gzip": "gzip"} {
		r := do(t, s, "GET", p, "", "Accept-Encoding", enc)
		if r.code != 200 || r.header.Get("Content-Encoding") != want || r.header.Get("Cache-Control") != "public, max-age=31536000, immutable" {
			t.Errorf("Accept-Encoding %q: %d, Content-Encoding %q, Cache-Control %q", enc, r.code, r.header.Get("Content-Encoding"), r.header.Get("Cache-Control"))
		}
	}
}

// hostile text goes everywhere a user's text can go.
var hostile = []string{
	`"><script>alert(1)</script>`,
	`<img src=x onerror=alert(1)>`,
	`javascript:alert(1)`,
	`]]><svg onload=alert(1)>`,
	"\u2028</title><script>x</script>",
	`' onmouseover='alert(1)`,
}

func TestHostileTextIsEscapedEverywhere(t *testing.T) {
	s, _ := testServer(t)
	sc := map[string]any{
		"version": 1, "name": hostile[0] + hostile[3], "description": hostile[1] + hostile[4],
		"workload": map[string]any{"clients": 2, "rate": 10, "duration": "2s"},
		"dependency": map[string]any{"workers": 2, "service_time": map[string]any{"kind": "constant", "mean": "5ms"}, "queue_capacity": 5,
			"phases": []any{map[string]any{"kind": "outage", "from": "500ms", "to": "1s", "label": hostile[5]}}},
		"strategies": []any{
			map[string]any{"name": hostile[0], "description": hostile[2], "max_attempts": 2},
			map[string]any{"name": hostile[1], "max_attempts": 1},
			map[string]any{"name": hostile[3], "max_attempts": 1},
		},
	}
	body, _ := json.Marshal(sc)
	r := do(t, s, "POST", "/api/scenarios", string(body))
	if r.code != http.StatusCreated {
		t.Fatalf("POST: %d %s", r.code, r.body)
	}
	var got struct{ ID string }
	json.Unmarshal([]byte(r.body), &got)
	for _, u := range []string{"/s/" + got.ID, "/embed/" + got.ID, "/?s=" + got.ID} {
		checkHTML(t, u, do(t, s, "GET", u, "").body)
	}
	for _, q := range []string{"", "?picture=outcomes", "?picture=queue", "?picture=compare", "?picture=latency"} {
		r := do(t, s, "GET", "/s/"+got.ID+"/chart.svg"+q, "")
		checkSVG(t, r.body)
	}
	oe := do(t, s, "GET", "/oembed?url=https%3A%2F%2Fexample.com%2Fs%2F"+got.ID, "")
	var o oEmbed
	if err := json.Unmarshal([]byte(oe.body), &o); err != nil {
		t.Fatal(err)
	}
	checkHTML(t, "oembed html", o.HTML)
}

// checkHTML parses a page and fails on any script but our own static files,
// any event-handler attribute and any javascript: URL.
func checkHTML(t *testing.T, where, doc string) {
	t.Helper()
	z := html.NewTokenizer(strings.NewReader(doc))
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			if z.Err() != io.EOF {
				t.Errorf("%s: %v", where, z.Err())
			}
			return
		}
		if tt != html.StartTagToken && tt != html.SelfClosingTagToken {
			continue
		}
		tok := z.Token()
		for _, a := range tok.Attr {
			if strings.HasPrefix(a.Key, "on") || strings.HasPrefix(strings.TrimSpace(strings.ToLower(a.Val)), "javascript:") {
				t.Errorf("%s: <%s %s=%q>", where, tok.Data, a.Key, a.Val)
			}
		}
		if tok.Data == "script" {
			src := ""
			for _, a := range tok.Attr {
				if a.Key == "src" {
					src = a.Val
				}
			}
			if !strings.HasPrefix(src, "/static/") {
				t.Errorf("%s: a script that is not ours: %v", where, tok)
			}
		}
	}
}

// checkSVG parses a chart with an XML parser and fails on scripts, foreign
// content and event-handler attributes.
func checkSVG(t *testing.T, doc string) {
	t.Helper()
	dec := xml.NewDecoder(strings.NewReader(doc))
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return
		}
		if err != nil {
			t.Fatalf("chart is not well-formed XML: %v", err)
		}
		if se, ok := tok.(xml.StartElement); ok {
			if n := strings.ToLower(se.Name.Local); n == "script" || n == "foreignobject" {
				t.Fatalf("chart has a <%s>", se.Name.Local)
			}
			for _, a := range se.Attr {
				if strings.HasPrefix(strings.ToLower(a.Name.Local), "on") || strings.Contains(strings.ToLower(a.Value), "javascript:") {
					t.Fatalf("chart has %s=%q", a.Name.Local, a.Value)
				}
			}
		}
	}
}

// TestNoUnescapedOutput keeps the escape hatches out of the server's code.
func TestNoUnescapedOutput(t *testing.T) {
	files, _ := filepath.Glob("*.go")
	templs, _ := filepath.Glob("*.templ")
	unsafe := regexp.MustCompile(`templ\.(Raw|SafeURL|SafeCSS|SafeScript|RawCSS)|@templ\.Raw|template\.HTML`)
	for _, f := range append(files, templs...) {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if f == "docs.go" {
			// The manual's pages: Markdown compiled into the binary, never a
			// request's, rendered without raw HTML (docs.TestRenderDropsRawHTML).
			b = bytes.Replace(b, []byte("templ.Raw(string(body))"), nil, 1)
		}
		if m := unsafe.Find(b); m != nil {
			t.Errorf("%s uses %s: user text must always be escaped", f, m)
		}
	}
}

func TestGalleryListsEveryBuiltin(t *testing.T) {
	s, _ := testServer(t)
	r := do(t, s, "GET", "/scenarios", "")
	if n := strings.Count(r.body, `data-testid="gallery-item"`); n != len(scenarios.All()) {
		t.Errorf("%d gallery items, want %d", n, len(scenarios.All()))
	}
}

func TestResultIsCached(t *testing.T) {
	s, _ := testServer(t)
	a := do(t, s, "GET", "/api/scenarios/e03b-synchronized-recovery/result", "")
	b := do(t, s, "GET", "/api/scenarios/e03b-synchronized-recovery/result", "")
	if a.body != b.body || s.runs.cache.len() != 1 {
		t.Errorf("second result differs or was not cached (%d cached)", s.runs.cache.len())
	}
}

// TestSharedRunOutlivesItsFirstClient: requests for the same ID share one
// run; the client that started it hanging up, while the run waits for a
// slot or while it runs, gives up alone: the others get the result. When
// the last one gives up, the run stops waiting for a slot.
func TestSharedRunOutlivesItsFirstClient(t *testing.T) {
	sc, err := engine.Parse([]byte(small))
	if err != nil {
		t.Fatal(err)
	}
	type answer struct {
		res *engine.Result
		err error
	}
	for _, phase := range []string{"waiting for a slot", "running"} {
		t.Run(phase, func(t *testing.T) {
			r := newRunner(Config{MaxEvents: 1 << 40, MaxResultBytes: 1 << 30, RunTimeout: time.Minute, MaxRuns: 1, MaxWaiting: 1, CacheSize: 4, CacheBytes: 1 << 30}, newMetrics())
			running, release := make(chan struct{}, 1), make(chan struct{})
			r.engineRun = func(ctx context.Context, sc *engine.Scenario, opt engine.Options) (*engine.Result, error) {
				running <- struct{}{}
				<-release
				return engine.Run(ctx, sc, opt)
			}
			if phase == "waiting for a slot" {
				r.slots <- struct{}{} // every slot taken
			}
			first, hangUp := context.WithCancel(context.Background())
			started, firstDone := make(chan struct{}), make(chan error, 1)
			go func() {
				_, err := r.watched(first, "id", sc, func(*flight, bool) { close(started) })
				firstDone <- err
			}()
			<-started
			if phase == "running" {
				<-running
			}
			joined, second := make(chan bool, 1), make(chan answer, 1)
			go func() {
				res, err := r.watched(context.Background(), "id", sc, func(_ *flight, j bool) { joined <- j })
				second <- answer{res, err}
			}()
			if !<-joined {
				t.Fatal("the second request started a run of its own")
			}
			hangUp()
			if phase == "waiting for a slot" {
				if err := <-firstDone; !errors.Is(err, context.Canceled) {
					t.Errorf("the first request, gone: %v", err)
				}
				<-r.slots // a slot frees
			}
			close(release)
			if a := <-second; a.err != nil || a.res == nil || len(a.res.Seeds) != 1 {
				t.Fatalf("the second request got %v (result %v) after the first hung up", a.err, a.res != nil)
			}
			if phase == "running" {
				if err := <-firstDone; !errors.Is(err, context.Canceled) {
					t.Errorf("the first request, gone: %v", err)
				}
			}
		})
	}

	t.Run("everyone gone", func(t *testing.T) {
		r := newRunner(Config{MaxEvents: 1 << 40, MaxResultBytes: 1 << 30, RunTimeout: time.Minute, MaxRuns: 1, MaxWaiting: 1, CacheSize: 4, CacheBytes: 1 << 30}, newMetrics())
		r.slots <- struct{}{}
		ctx, hangUp := context.WithCancel(context.Background())
		flights := make(chan *flight, 1)
		go r.watched(ctx, "id", sc, func(f *flight, _ bool) { flights <- f })
		f := <-flights
		hangUp()
		<-f.done // it stops waiting
		if len(r.waiting) != 0 || len(r.inflight) != 0 || r.failed.len() != 0 {
			t.Errorf("after everyone left: %d waiting, %d in flight, %d remembered", len(r.waiting), len(r.inflight), r.failed.len())
		}
	})

	// A request that comes once everyone has left a flight, while it is
	// still stopping, starts a flight of its own and gets its result, not
	// the stopped one's "every run slot is taken".
	t.Run("a request after everyone left", func(t *testing.T) {
		r := newRunner(Config{MaxEvents: 1 << 40, MaxResultBytes: 1 << 30, RunTimeout: time.Minute, MaxRuns: 1, MaxWaiting: 2, CacheSize: 4, CacheBytes: 1 << 30}, newMetrics())
		r.slots <- struct{}{}
		ctx, hangUp := context.WithCancel(context.Background())
		started, firstDone := make(chan struct{}), make(chan error, 1)
		go func() {
			_, err := r.watched(ctx, "id", sc, func(*flight, bool) { close(started) })
			firstDone <- err
		}()
		<-started
		hangUp()
		<-firstDone // everyone has left: the flight is stopping, or gone
		joined, second := make(chan bool, 1), make(chan answer, 1)
		go func() {
			res, err := r.watched(context.Background(), "id", sc, func(_ *flight, j bool) { joined <- j })
			second <- answer{res, err}
		}()
		if <-joined {
			t.Error("the request joined a flight everyone had left")
		}
		<-r.slots // a slot frees
		if a := <-second; a.err != nil || a.res == nil {
			t.Errorf("the request got %v (result %v)", a.err, a.res != nil)
		}
	})
}

// TestHostCannotPoisonThePageCache: pages hold absolute links built from the
// request's Host, so one request with a made-up Host (or X-Forwarded-Proto
// when no proxy is trusted) must not change what the next client gets.
func TestHostCannotPoisonThePageCache(t *testing.T) {
	get := func(s *Server, host string, header ...string) response {
		req := httptest.NewRequest("GET", "/s/e03b-synchronized-recovery", nil)
		req.Host = host
		for i := 0; i+1 < len(header); i += 2 {
			req.Header.Set(header[i], header[i+1])
		}
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, req)
		return response{rec.Code, rec.Header(), rec.Body.String()}
	}
	s, _ := testServer(t)
	evil := get(s, "evil.example", "X-Forwarded-Proto", "gopher")
	if !strings.Contains(evil.body, "http://evil.example/s/") || strings.Contains(evil.body, "gopher://") {
		t.Errorf("links should follow the request's Host and ignore X-Forwarded-Proto without a trusted proxy")
	}
	good := get(s, "retrylab.example")
	if good.code != 200 || strings.Contains(good.body, "evil.example") || !strings.Contains(good.body, "http://retrylab.example/s/e03b-synchronized-recovery") {
		t.Errorf("after a request with another Host, the page links elsewhere (status %d)", good.code)
	}
	if good.header.Get("ETag") == evil.header.Get("ETag") {
		t.Errorf("pages with different links share the ETag %s", good.header.Get("ETag"))
	}

	fixed, _ := testServer(t, func(c *Config) { c.BaseURL = "https://retrylab.example/" })
	for _, host := range []string{"evil.example", "10.0.0.1:8080"} {
		if r := get(fixed, host); !strings.Contains(r.body, "https://retrylab.example/s/e03b-synchronized-recovery") || strings.Contains(r.body, host) {
			t.Errorf("with BaseURL set, Host %s still shows in the page", host)
		}
	}
}

// countingStore counts reads.
type countingStore struct {
	*memStore
	gets int
}

func (c *countingStore) GetScenario(ctx context.Context, id string) ([]byte, error) {
	c.gets++
	return c.memStore.GetScenario(ctx, id)
}

// TestSharedScenarioIsReadOnce: a page, its charts, CSV and JSON are about
// one immutable scenario, which is read from the store once.
func TestSharedScenarioIsReadOnce(t *testing.T) {
	store := &countingStore{memStore: newMemStore()}
	s, _ := testServer(t, func(c *Config) { c.Store = store })
	do(t, s, "POST", "/api/scenarios", small)
	for _, u := range []string{"/s/" + pinnedID, "/s/" + pinnedID + "/chart.svg", "/s/" + pinnedID + "/chart.svg?picture=queue",
		"/s/" + pinnedID + "/metrics.csv", "/api/scenarios/" + pinnedID + "/result", "/embed/" + pinnedID} {
		if r := do(t, s, "GET", u, ""); r.code != 200 {
			t.Fatalf("%s: %d", u, r.code)
		}
	}
	if store.gets != 1 {
		t.Errorf("%d reads from the store, want 1", store.gets)
	}
}

func TestChartPNGIsALinkPreview(t *testing.T) {
	if !canDrawPNG {
		t.Skip("built without PNG charts")
	}
	s, _ := testServer(t)
	r := do(t, s, "GET", "/s/layered-retries/chart.png", "")
	img, err := png.Decode(strings.NewReader(r.body))
	if err != nil {
		t.Fatalf("%d: not a PNG: %v", r.code, err)
	}
	if b := img.Bounds(); b.Dx() != 1200 || b.Dy() != 630 {
		t.Errorf("PNG is %v, want 1200 × 630 as link previews use", b)
	}
	o := do(t, s, "GET", "/oembed?url=http%3A%2F%2Fexample.com%2Fs%2Flayered-retries", "")
	if !strings.Contains(o.body, `/s/layered-retries/chart.png`) {
		t.Errorf("oEmbed thumbnail is not the PNG: %s", o.body)
	}
}

// TestHeadAnswersAsGet: HEAD is answered as GET is, on every route, with
// the same status and headers and no body (a 405 would tell link checkers
// and monitors, which ask with HEAD, that the page is missing); the
// request log says HEAD.
func TestHeadAnswersAsGet(t *testing.T) {
	var log strings.Builder
	s, _ := testServer(t, func(c *Config) { c.Logger = slog.New(slog.NewTextHandler(&log, nil)) })
	slug := "layered-retries"
	for _, u := range []string{"/", "/scenarios", "/s/" + slug, "/s/" + slug + "/chart.svg?res=1s", "/s/" + slug + "/metrics.csv",
		"/embed/" + slug, "/oembed?url=http%3A%2F%2Fexample.com%2Fs%2F" + slug, "/api/scenarios/" + slug, "/api/scenarios/" + slug + "/result",
		"/healthz", s.assets.path("style.css"), "/s/AAAAAAAAAAA", "/s/" + slug + "/chart.svg?picture=pie", "/api/scenarios/AAAAAAAAAAA", "/no/such/page"} {
		for _, enc := range []string{"", "gzip"} {
			get := do(t, s, "GET", u, "", "Accept-Encoding", enc)
			head := do(t, s, "HEAD", u, "", "Accept-Encoding", enc)
			if head.code != get.code || head.body != "" {
				t.Errorf("HEAD %s (%s): %d with %d bytes; GET: %d", u, enc, head.code, len(head.body), get.code)
				continue
			}
			if n := head.header.Get("Content-Length"); n != "" && n != strconv.Itoa(len(get.body)) {
				t.Errorf("HEAD %s (%s): Content-Length %s; GET's body is %d bytes", u, enc, n, len(get.body))
			}
			for _, h := range []http.Header{get.header, head.header} {
				h.Del("X-Request-Id")
				h.Del("Content-Length")
			}
			if !reflect.DeepEqual(get.header, head.header) {
				t.Errorf("HEAD %s (%s): headers\n%v\nGET's\n%v", u, enc, head.header, get.header)
			}
		}
	}
	// HEAD of the result's event stream is the plain answer's: no stream
	// whose headers wait for the run (a build without streams answers
	// both with 501).
	if r := do(t, s, "HEAD", "/api/scenarios/"+slug+"/result", "", "Accept", "text/event-stream"); r.code != 501 && (r.code != 200 || !strings.HasPrefix(r.header.Get("Content-Type"), "application/json")) || r.body != "" {
		t.Errorf("HEAD of the event stream: %d %q with %d bytes", r.code, r.header.Get("Content-Type"), len(r.body))
	}
	if !strings.Contains(log.String(), "method=HEAD uri=/healthz status=200") {
		t.Errorf("the request log does not say HEAD:\n%.2000s", log.String())
	}
	if r := do(t, s, "POST", "/healthz", ""); r.code != http.StatusMethodNotAllowed || !strings.Contains(r.header.Get("Allow"), "HEAD") {
		t.Errorf("POST /healthz: %d, Allow %q", r.code, r.header.Get("Allow"))
	}
}

// TestBuildIDNamesTheBuild: answers' ETags carry the build, not only the
// engine's version: a test binary (no VCS stamp) is named by its
// executable's hash, and builds whose pages link other static files (a
// release of the Worker, which cannot read its executable) get other
// ETags for the same request; a revalidation with the ETag a CDN made
// weak, or among others, is still a 304.
func TestBuildIDNamesTheBuild(t *testing.T) {
	if binaryID() == "" {
		t.Fatal("a test binary is not named by its executable's hash")
	}
	one := &assets{byName: map[string]string{"app.js": "/static/app.0123456789.js"}}
	two := &assets{byName: map[string]string{"app.js": "/static/app.9876543210.js"}}
	if a, b := buildID(one), buildID(two); a == b || !strings.HasPrefix(a, engine.EngineVersion+"+") {
		t.Errorf("builds linking other static files: %q and %q", a, b)
	}
	s, _ := testServer(t)
	r := do(t, s, "GET", "/s/layered-retries/chart.svg", "")
	etag := r.header.Get("ETag")
	for _, inm := range []string{etag, "W/" + etag, `"other", ` + etag, "*"} {
		if nm := do(t, s, "GET", "/s/layered-retries/chart.svg", "", "If-None-Match", inm); nm.code != http.StatusNotModified {
			t.Errorf("If-None-Match %s: %d, want 304", inm, nm.code)
		}
	}
	if nm := do(t, s, "GET", "/s/layered-retries/chart.svg", "", "If-None-Match", `"other"`); nm.code != http.StatusOK {
		t.Errorf("If-None-Match of another ETag: %d, want 200", nm.code)
	}
}

// TestShareAnswersTheEmbedSnippets: a script that shares gets the share
// box's snippets, and each of them answers.
func TestShareAnswersTheEmbedSnippets(t *testing.T) {
	s, _ := testServer(t)
	r := do(t, s, "POST", "/api/scenarios", small)
	if r.code != http.StatusCreated {
		t.Fatalf("POST: %d %s", r.code, r.body)
	}
	var got struct {
		ID    string
		Embed struct{ Markdown, IFrame, OEmbed string }
	}
	if err := json.Unmarshal([]byte(r.body), &got); err != nil {
		t.Fatal(err)
	}
	base := "http://example.com"
	if want := "![small](" + base + "/s/" + got.ID + "/chart.svg)"; got.Embed.Markdown != want {
		t.Errorf("markdown %q, want %q", got.Embed.Markdown, want)
	}
	src := regexp.MustCompile(`^<iframe src="([^"]+)"`).FindStringSubmatch(got.Embed.IFrame)
	if src == nil || src[1] != base+"/embed/"+got.ID {
		t.Fatalf("iframe %q, want one of %s/embed/%s", got.Embed.IFrame, base, got.ID)
	}
	if want := base + "/oembed?url=" + url.QueryEscape(base+"/s/"+got.ID); got.Embed.OEmbed != want {
		t.Errorf("oembed %q, want %q", got.Embed.OEmbed, want)
	}
	for _, u := range []string{base + "/s/" + got.ID + "/chart.svg", src[1], got.Embed.OEmbed} {
		if r := do(t, s, "GET", strings.TrimPrefix(u, base), ""); r.code != http.StatusOK {
			t.Errorf("GET %s: %d %s", u, r.code, r.body)
		}
	}
}
