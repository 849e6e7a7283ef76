//go:build !noconvert

package server

import (
	"encoding/json"
	"net/url"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/retrylab/retrylab/shared/convert"
	"github.com/retrylab/retrylab/shared/engine"
)

const grpcConfig = `{"methodConfig": [{"name": [{"service": "EchoService"}], "timeout": "2s",
  "retryPolicy": {"maxAttempts": 4, "initialBackoff": "0.1s", "maxBackoff": "1s", "backoffMultiplier": 2,
    "retryableStatusCodes": ["UNAVAILABLE"], "waitForReady": true}}]}`

const awsConfig = "[default]\nretry_mode = adaptive\nmax_attempts = 5\n"

func TestImport(t *testing.T) {
	s, store := testServer(t)
	wrapped := func(format, config string) string {
		b, _ := json.Marshal(map[string]string{"format": format, "config": config})
		return string(b)
	}
	for _, tc := range []struct {
		desc, url, body, ctype string
		code                   int
		contains               string
	}{
		{"wrapped gRPC", "/api/import", wrapped("grpc", grpcConfig), "application/json", 200, `"name":"EchoService/*"`},
		{"a JSON format's document as it is", "/api/import", `{"format": "grpc", "config": ` + grpcConfig + `}`, "application/json", 200, `"name":"EchoService/*"`},
		{"raw AWS with ?format", "/api/import?format=aws", awsConfig, "text/plain", 200, `"based_on":"aws-adaptive"`},
		{"notes with their paths", "/api/import?format=grpc", grpcConfig, "application/json", 200, `"path":"methodConfig[0].retryPolicy.waitForReady","level":"warning"`},
		{"raw as a form", "/api/import?format=aws", awsConfig, "application/x-www-form-urlencoded", 415, `is a form; send the configuration as it is`},
		{"wrapped as text", "/api/import", wrapped("grpc", grpcConfig), "text/plain", 415, `send {\"format\": …, \"config\": …} as JSON`},
		{"not JSON", "/api/import", `{"format": "grpc",`, "application/json", 400, `is not {\"format\": …, \"config\": …}`},
		{"unknown field", "/api/import", `{"format": "grpc", "cfg": "x"}`, "application/json", 400, `unknown field`},
		{"no config", "/api/import", `{"format": "grpc"}`, "application/json", 422, `config: is missing`},
		{"no format", "/api/import", wrapped("", grpcConfig), "application/json", 422, `format: is missing; supported: \"grpc\", \"envoy\", \"istio\", \"linkerd\", \"resilience4j\", \"polly\", \"aws\"`},
		{"export-only code", "/api/import", wrapped("resilience4j-java", "x"), "application/json", 422, `format: \"resilience4j-java\" is export only (RetryLab writes it but does not read it); supported: \"grpc\", \"envoy\"`},
		{"INI as a JSON object", "/api/import", `{"format": "aws", "config": {"default": {"max_attempts": 3}}}`, "application/json", 422, `config: is JSON, not a string; the aws format is the INI text of a shared config file`},
		{"export-only format", "/api/import?format=cenkalti", "x", "text/plain", 422, `export only`},
		{"unknown format", "/api/import?format=xml", "x", "text/plain", 422, `format: \"xml\" is not a format RetryLab can import`},
		{"invalid config", "/api/import?format=grpc", `{"methodConfig": [{"retryPolicy": {"maxAttempts": 1}}]}`, "application/json", 422, `"path":"methodConfig[0].retryPolicy.maxAttempts"`},
		{"too large", "/api/import?format=aws", "[default]\n" + strings.Repeat("# x\n", 20<<10), "text/plain", 413, `the configuration is larger than 64 KiB`},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			r := do(t, s, "POST", tc.url, tc.body, "Content-Type", tc.ctype)
			if r.code != tc.code || !strings.HasPrefix(r.header.Get("Content-Type"), "application/json") || !strings.Contains(r.body, tc.contains) {
				t.Errorf("%d %q, want %d containing %q\n%.600s", r.code, r.header.Get("Content-Type"), tc.code, tc.contains, r.body)
			}
		})
	}
	if len(store.m) != 0 {
		t.Errorf("import stored %d scenarios; it stores nothing", len(store.m))
	}

	// The scenario is valid as it is: sharing it works.
	r := do(t, s, "POST", "/api/import?format=grpc", grpcConfig)
	var ans struct {
		Scenario json.RawMessage `json:"scenario"`
		Notes    []convert.Note  `json:"notes"`
	}
	if err := json.Unmarshal([]byte(r.body), &ans); err != nil {
		t.Fatal(err)
	}
	sc, err := engine.Parse(ans.Scenario)
	if err != nil {
		t.Fatalf("the imported scenario does not parse: %v", err)
	}
	if len(sc.Strategies) != 1 || sc.Strategies[0].MaxAttempts != 4 || len(sc.Dependency.Phases) != 2 || len(ans.Notes) == 0 {
		t.Errorf("strategies %+v, phases %d, notes %v", sc.Strategies, len(sc.Dependency.Phases), ans.Notes)
	}
	if r := do(t, s, "POST", "/api/scenarios", string(ans.Scenario)); r.code != 201 {
		t.Errorf("sharing the imported scenario: %d %s", r.code, r.body)
	}
}

func TestExport(t *testing.T) {
	s, _ := testServer(t)
	slug := "e03b-synchronized-recovery"
	base := "/s/" + slug + "/export?"
	for _, tc := range []struct {
		desc, query string
		code        int
		ctype       string
		contains    string
	}{
		{"gRPC", "format=grpc&strategy=D", 200, "application/json", `"retryPolicy"`},
		{"AWS is INI", "format=aws&strategy=C", 200, "text/plain", "[default]\nretry_mode = standard\nmax_attempts = 4\n"},
		{"Polly", "format=polly&strategy=B", 200, "application/json", `"MaxRetryAttempts": 3`},
		{"failsafe-go is Go", "format=failsafe-go&strategy=C", 200, "text/plain", "package retrylab"},
		{"cenkalti is Go", "format=cenkalti&strategy=C", 200, "text/plain", "backoff.WithMaxTries(4)"},
		{"with notes as JSON", "format=grpc&strategy=D&as=json", 200, "application/json", `"notes":[{"path":"attempt_timeout","level":"warning"`},
		{"unknown strategy", "format=grpc&strategy=Z", 404, "text/html", `no strategy &#34;Z&#34;; it has &#34;A&#34;, &#34;B&#34;, &#34;C&#34;, &#34;D&#34;`},
		{"no strategy of several", "format=grpc", 422, "text/html", `strategy: is missing`},
		{"every strategy as Kubernetes documents", "format=istio", 200, "text/plain", "---\napiVersion: networking.istio.io/v1"},
		{"every strategy as one resilience4j tree", "format=resilience4j&as=json", 200, "application/json", `"path":"strategies[3].`},
		{"YAML as text", "format=envoy&strategy=C", 200, "text/plain", "retry_policy"},
		{"unknown format", "format=yaml&strategy=A", 422, "text/html", `format: &#34;yaml&#34; is not a format RetryLab can export`},
		{"no format", "strategy=A", 422, "text/html", `format: is missing`},
		{"bad as", "format=grpc&strategy=A&as=xml", 422, "text/html", `as: &#34;xml&#34; is not`},
		{"unknown strategy as JSON", "format=grpc&strategy=Z&as=json", 404, "application/json", `no strategy \"Z\"`},
		{"C# as text", "format=polly-csharp&strategy=C&as=json", 200, "application/json", `"content_type":"text/plain; charset=UTF-8"`},
		{"unknown ID", "format=grpc", 404, "text/html", `not-found`},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			u := base + tc.query
			if tc.desc == "unknown ID" {
				u = "/s/AAAAAAAAAAA/export?" + tc.query
			}
			r := do(t, s, "GET", u, "")
			if r.code != tc.code || !strings.HasPrefix(r.header.Get("Content-Type"), tc.ctype) || !strings.Contains(r.body, tc.contains) {
				t.Errorf("%d %q, want %d %q containing %q\n%.600s", r.code, r.header.Get("Content-Type"), tc.code, tc.ctype, tc.contains, r.body)
			}
		})
	}

	// The answer is what convert.Export writes, cached like the other
	// answers about an ID, under the query as the route reads it.
	sc := s.builtins[slug].sc
	want, _, _ := convert.Export("polly", sc.Strategies[3])
	first := do(t, s, "GET", base+"format=polly&strategy=D&utm=1", "")
	if first.body != string(want) || first.header.Get("ETag") == "" || first.header.Get("Cache-Control") != "public, max-age=300" {
		t.Errorf("answer %q, headers %v; want %q", first.body, first.header, want)
	}
	if r := do(t, s, "GET", base+"strategy=D&format=polly&as=text", "", "If-None-Match", first.header.Get("ETag")); r.code != 304 {
		t.Errorf("the same export asked another way: %d, want 304", r.code)
	}

	// A shared scenario of one strategy needs no strategy named, and a
	// name that needs escaping is found.
	one := strings.Replace(small, `, {"name": "b", "max_attempts": 1}`, "", 1)
	r := do(t, s, "POST", "/api/scenarios", one)
	var created struct{ ID string }
	json.Unmarshal([]byte(r.body), &created)
	if r := do(t, s, "GET", "/s/"+created.ID+"/export?format=aws", ""); r.code != 200 || !strings.Contains(r.body, "[default]") || r.header.Get("Cache-Control") != idCacheControl {
		t.Errorf("one strategy: %d %v %q", r.code, r.header, r.body)
	}
}

func TestPageHasExportPanels(t *testing.T) {
	s, _ := testServer(t)
	slug := "e03b-synchronized-recovery"
	r := do(t, s, "GET", "/s/"+slug, "")
	doc, err := html.Parse(strings.NewReader(r.body))
	if err != nil {
		t.Fatal(err)
	}
	var panels, copies int
	var links []string
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		attr := map[string]string{}
		for _, a := range n.Attr {
			attr[a.Key] = a.Val
		}
		switch {
		case n.Data == "details" && attr["data-testid"] == "export":
			panels++
		case n.Data == "button" && strings.HasPrefix(attr["data-copy"], "export-"):
			copies++
		case n.Data == "a" && strings.Contains(attr["href"], "/export?"):
			links = append(links, attr["href"])
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	n := len(s.builtins[slug].sc.Strategies)
	if panels != n || copies != n || len(links) != 2*n*len(convert.ExportFormats) {
		t.Fatalf("%d panels, %d copy buttons, %d links; want %d, %d, %d", panels, copies, len(links), n, n, 2*n*len(convert.ExportFormats))
	}
	// Every link answers (the panel works without JavaScript).
	for _, l := range links {
		if r := do(t, s, "GET", l, ""); r.code != 200 {
			t.Errorf("%s: %d %.200s", l, r.code, r.body)
		}
	}
	want, _, _ := convert.Export("grpc", s.builtins[slug].sc.Strategies[0])
	if !strings.Contains(r.body, html.EscapeString(string(want))) {
		t.Errorf("the page does not show A's gRPC service config")
	}
	// A strategy name that needs escaping in a URL is escaped.
	u, _ := url.Parse(links[0])
	if u.Query().Get("strategy") != "A" {
		t.Errorf("first link %s", links[0])
	}
}

// TestConfigSentAsAScenario: a gRPC service config, an Envoy route and an
// AWS config posted where a scenario goes are refused (422, nothing
// stored) with, first, where they go: the format they look like and how
// to import it; a scenario with a mistake gets no such hint.
func TestConfigSentAsAScenario(t *testing.T) {
	s, st := testServer(t)
	for _, c := range []struct{ format, body string }{
		{"grpc", `{"methodConfig": [{"name": [{"service": "a.B"}], "retryPolicy": {"maxAttempts": 3, "initialBackoff": "0.1s", "maxBackoff": "1s", "backoffMultiplier": 2, "retryableStatusCodes": ["UNAVAILABLE"]}}]}`},
		{"envoy", "name: r\nvirtual_hosts:\n- name: v\n  domains: [\"*\"]\n"},
		{"aws", "[default]\nretry_mode = standard\n"},
	} {
		r := do(t, s, "POST", "/api/scenarios", c.body)
		var out struct {
			Errors []struct{ Message string }
		}
		json.Unmarshal([]byte(r.body), &out)
		want := "This looks like a"
		if r.code != 422 || len(out.Errors) == 0 || !strings.HasPrefix(out.Errors[0].Message, want) || !strings.Contains(out.Errors[0].Message, "retrylab import --from "+c.format+" FILE") {
			t.Errorf("%s sent as a scenario: %d %.600s", c.format, r.code, r.body)
		}
	}
	r := do(t, s, "POST", "/api/scenarios", strings.Replace(small, `"rate"`, `"rates"`, 1))
	if r.code != 422 || strings.Contains(r.body, "This looks like") {
		t.Errorf("a scenario with a mistake: %d %.300s", r.code, r.body)
	}
	if len(st.m) != 0 {
		t.Errorf("%d scenarios stored", len(st.m))
	}
}
