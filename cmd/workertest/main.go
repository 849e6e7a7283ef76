// Command workertest checks that the Cloudflare Worker build answers like the
// native server: it sends the same requests to both (loopback addresses only)
// and compares status, content type and body, with each side's own address
// written as HOST. It prints one line per check and a closing
// "N passed, M failed" line, and exits 1 if any check failed.
//
//	workertest -native http://127.0.0.1:8099 -worker http://127.0.0.1:8787
package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"
)

type check struct {
	name, method, path, body string
	header                   []string
	// sameStart: the bodies need only agree up to this text (the Worker
	// has its own, smaller cost budget, so the limit it names differs).
	sameStart string
}

// small is a scenario both sides store under the same content-hash ID.
const small = `{"version":1,"name":"worker check","workload":{"clients":2,"rate":10,"duration":"2s"},` +
	`"dependency":{"workers":2,"service_time":{"kind":"constant","mean":"5ms"},"queue_capacity":5,` +
	`"phases":[{"kind":"outage","from":"500ms","to":"1s"}]},` +
	`"strategies":[{"name":"a","max_attempts":3,"attempt_timeout":"100ms"},{"name":"b","max_attempts":1}]}`

func main() {
	native := flag.String("native", "http://127.0.0.1:8099", "the native server")
	worker := flag.String("worker", "http://127.0.0.1:8787", "the worker under wrangler dev")
	flag.Parse()
	for _, u := range []string{*native, *worker} {
		if err := loopback(u); err != nil {
			fmt.Fprintln(os.Stderr, "workertest:", err)
			os.Exit(2)
		}
	}
	client := &http.Client{Timeout: 60 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

	// Share first: the ID is the content's, so both sides must agree on it.
	id := ""
	for _, base := range []string{*native, *worker} {
		resp, err := client.Post(base+"/api/scenarios", "application/json", strings.NewReader(small))
		if err != nil {
			fmt.Fprintln(os.Stderr, "workertest:", err)
			os.Exit(1)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		got := between(string(b), `"id":"`, `"`)
		if id != "" && got != id {
			fmt.Printf("FAIL share: native ID %s, worker ID %s\n", id, got)
			os.Exit(1)
		}
		id = got
	}

	checks := []check{
		{"share again (idempotent)", "POST", "/api/scenarios", small, nil, ""},
		{"health", "GET", "/healthz", "", nil, ""},
		// A shared scenario's shell: the native server's page for a
		// built-in also carries its first result, which the Worker leaves
		// out (NoFirstResult).
		{"playground shell", "GET", "/?s=" + id, "", nil, ""},
		{"gallery", "GET", "/scenarios", "", nil, ""},
		{"shared page", "GET", "/s/" + id, "", nil, ""},
		{"shared page at 1 s", "GET", "/s/" + id + "?res=1s", "", nil, ""},
		{"scenario JSON", "GET", "/api/scenarios/" + id, "", nil, ""},
		{"result JSON", "GET", "/api/scenarios/" + id + "/result", "", nil, ""},
		{"chart", "GET", "/s/" + id + "/chart.svg?res=10ms", "", nil, ""},
		{"outcomes chart", "GET", "/s/" + id + "/chart.svg?picture=outcomes&theme=dark", "", nil, ""},
		{"CSV", "GET", "/s/" + id + "/metrics.csv", "", nil, ""},
		{"embed", "GET", "/embed/" + id + "?picture=attempts&res=100ms&theme=light", "", nil, ""},
		{"oEmbed", "GET", "/oembed?url=" + url.QueryEscape("http://HOST/s/"+id) + "&maxwidth=500", "", nil, ""},
		{"built-in page", "GET", "/s/layered-retries", "", nil, ""},
		{"built-in result", "GET", "/api/scenarios/breaker-timeline/result", "", nil, ""},
		{"unknown ID", "GET", "/s/AAAAAAAAAAA", "", nil, ""},
		{"unknown result", "GET", "/api/scenarios/AAAAAAAAAAA/result", "", nil, ""},
		{"bad chart option", "GET", "/s/" + id + "/chart.svg?picture=pie", "", nil, ""},
		{"invalid scenario", "POST", "/api/scenarios", strings.Replace(small, `"max_attempts":3`, `"max_attempts":101`, 1), nil, "out of range 0..100"},
		{"not JSON", "POST", "/api/scenarios", `{"version":1,`, nil, ""},
		{"too large", "POST", "/api/scenarios", `{"name":"` + strings.Repeat("x", 70<<10) + `"}`, nil, ""},
		{"too costly", "POST", "/api/scenarios", strings.Replace(strings.Replace(small, `"duration":"2s"`, `"duration":"24h"`, 1), `"rate":10`, `"rate":100000`, 1), nil, "over the limit of"},
		{"not modified", "GET", "/api/scenarios/" + id, "", []string{"If-None-Match", "ETAG"}, ""},
		// Not in the Worker build (noconvert, for size): 501 naming the
		// command line and the self-hosted server.
		{"export", "GET", "/s/" + id + "/export?format=grpc&strategy=a", "", nil, ""},
		{"import", "POST", "/api/import", `{"format":"aws","config":"[default]\nmax_attempts = 3\n"}`, nil, ""},
	}
	passed, failed := 0, 0
	for _, c := range checks {
		a, errA := fetch(client, *native, c)
		b, errB := fetch(client, *worker, c)
		var problem string
		switch {
		case errA != nil || errB != nil:
			problem = fmt.Sprintf("native: %v; worker: %v", errA, errB)
		case a.status != b.status:
			problem = fmt.Sprintf("status %d (native) vs %d (worker)", a.status, b.status)
		case a.ctype != b.ctype:
			problem = fmt.Sprintf("content type %q vs %q", a.ctype, b.ctype)
		case c.sameStart != "":
			ia, ib := bytes.Index(a.body, []byte(c.sameStart)), bytes.Index(b.body, []byte(c.sameStart))
			if ia < 0 || ia != ib || !bytes.Equal(a.body[:ia], b.body[:ib]) {
				problem = fmt.Sprintf("bodies differ before %q", c.sameStart)
			}
		case !bytes.Equal(a.body, b.body):
			problem = fmt.Sprintf("bodies differ (%d vs %d bytes) at byte %d", len(a.body), len(b.body), firstDiff(a.body, b.body))
		}
		if problem != "" {
			failed++
			fmt.Printf("FAIL %s: %s %s: %s\n", c.name, c.method, c.path, problem)
		} else {
			passed++
			fmt.Printf("ok   %s: %s %s → %d\n", c.name, c.method, c.path, a.status)
		}
	}
	fmt.Printf("%d passed, %d failed\n", passed, failed)
	if failed > 0 {
		os.Exit(1)
	}
}

type answer struct {
	status int
	ctype  string
	body   []byte
}

// fetch sends a check to one side; "HOST" in the path and the body's own
// address are normalised so that both sides compare.
func fetch(client *http.Client, base string, c check) (answer, error) {
	host := strings.TrimPrefix(strings.TrimPrefix(base, "http://"), "https://")
	path := strings.ReplaceAll(c.path, "HOST", host)
	path = strings.ReplaceAll(path, url.QueryEscape("http://"+host), url.QueryEscape(base))
	req, err := http.NewRequest(c.method, base+path, strings.NewReader(c.body))
	if err != nil {
		return answer{}, err
	}
	if c.body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(c.header); i += 2 {
		v := c.header[i+1]
		if v == "ETAG" { // the ETag this side gives the same URL
			resp, err := client.Get(base + path)
			if err != nil {
				return answer{}, err
			}
			resp.Body.Close()
			v = resp.Header.Get("ETag")
		}
		req.Header.Set(c.header[i], v)
	}
	resp, err := client.Do(req)
	if err != nil {
		return answer{}, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return answer{}, err
	}
	body = bytes.ReplaceAll(body, []byte(host), []byte("HOST"))
	body = bytes.ReplaceAll(body, []byte(url.QueryEscape(host)), []byte("HOST"))
	return answer{resp.StatusCode, resp.Header.Get("Content-Type"), body}, nil
}

func between(s, a, b string) string {
	_, rest, ok := strings.Cut(s, a)
	if !ok {
		return ""
	}
	v, _, _ := strings.Cut(rest, b)
	return v
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// loopback refuses any address that is not this machine's.
func loopback(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return fmt.Errorf("%q is not a URL", raw)
	}
	h := u.Hostname()
	if h == "localhost" {
		return nil
	}
	if ip := net.ParseIP(h); ip != nil && ip.IsLoopback() {
		return nil
	}
	return fmt.Errorf("%s is not a loopback address: this tool only talks to this machine", h)
}
