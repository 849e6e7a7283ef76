//go:build !noconvert && !nosearch

package server

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/retrylab/retrylab/shared/convert"
	"github.com/retrylab/retrylab/shared/engine"
	"github.com/retrylab/retrylab/shared/engine/probe"
)

// TestImportHostileYAML: the 17-byte merge key that overflowed the stack
// and ended retrylab serve is a 422 for every YAML format, raw and
// wrapped, and the server goes on answering.
func TestImportHostileYAML(t *testing.T) {
	s, _ := testServer(t)
	const doc = "a:\n  <<: &s [*s]\n"
	for _, f := range convert.ImportFormats {
		if convert.Syntax(f) != "yaml" {
			continue
		}
		r := do(t, s, "POST", "/api/import?format="+f, doc, "Content-Type", "application/yaml")
		if r.code != 422 || !strings.Contains(r.body, "refers to a node that contains it") {
			t.Errorf("%s raw: %d %.300s", f, r.code, r.body)
		}
		r = do(t, s, "POST", "/api/import", fmt.Sprintf(`{"format": %q, "config": %q}`, f, doc))
		if r.code != 422 || !strings.Contains(r.body, "refers to a node that contains it") {
			t.Errorf("%s wrapped: %d %.300s", f, r.code, r.body)
		}
	}
	if r := do(t, s, "GET", "/healthz", ""); r.code != 200 {
		t.Errorf("after the hostile imports: %d", r.code)
	}
}

// TestRawImportFromAnotherSite: a raw configuration sent as text/plain, or
// with no type, which any site's page can make a browser send without
// asking, is taken only from this site's pages or from no browser (curl);
// a type no cross-site page can send without asking is taken from anyone.
func TestRawImportFromAnotherSite(t *testing.T) {
	s, _ := testServer(t)
	const aws = "[default]\nmax_attempts = 3\n"
	for _, tc := range []struct {
		desc   string
		header []string
		code   int
	}{
		{"text/plain from another origin", []string{"Content-Type", "text/plain", "Origin", "https://evil.example"}, 415},
		{"text/plain, cross-site without Origin", []string{"Content-Type", "text/plain", "Sec-Fetch-Site", "cross-site"}, 415},
		{"no type from another origin", []string{"Content-Type", "", "Origin", "https://evil.example"}, 415},
		{"text/plain from this origin", []string{"Content-Type", "text/plain", "Origin", "http://example.com"}, 200},
		{"text/plain from no browser", []string{"Content-Type", "text/plain"}, 200},
		{"octet-stream from another origin", []string{"Content-Type", "application/octet-stream", "Origin", "https://evil.example"}, 200},
	} {
		r := do(t, s, "POST", "/api/import?format=aws", aws, tc.header...)
		if r.code != tc.code {
			t.Errorf("%s: %d %.300s; want %d", tc.desc, r.code, r.body, tc.code)
		}
		if r.code == 415 && !strings.Contains(r.body, "can be sent by a page of any site; send the configuration as application/yaml, application/json or, for an AWS config, application/octet-stream") {
			t.Errorf("%s: %s", tc.desc, r.body)
		}
	}
}

// TestImportEnvelopeDuplicateKeys: the import's JSON envelope refuses a
// key given twice, as the configurations do, instead of the last winning.
func TestImportEnvelopeDuplicateKeys(t *testing.T) {
	s, _ := testServer(t)
	r := do(t, s, "POST", "/api/import", `{"format": "grpc", "format": "aws", "config": "[default]\nmax_attempts = 3\n"}`)
	if r.code != 400 || !strings.Contains(r.body, "format: the key is given twice") {
		t.Errorf("%d %s", r.code, r.body)
	}
}

// clock is a fake time for the runner and the spending, moved by hand.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) get() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// TestSpendingBoundsEachClient: every new run a client starts with a GET
// costs it the time the run holds a slot; past what it has earned, it is
// refused with 429 and a Retry-After of when it will have earned enough,
// while other clients, and answers at hand, are served as before.
func TestSpendingBoundsEachClient(t *testing.T) {
	s, _ := testServer(t, func(c *Config) { c.SpendRate, c.SpendBurst, c.RunTimeout = 0.25, 40*time.Second, 10*time.Second })
	clk := &clock{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	s.spend.now, s.runs.now = clk.get, clk.get
	real := s.runs.engineRun
	s.runs.engineRun = func(ctx context.Context, sc *engine.Scenario, opt engine.Options) (*engine.Result, error) {
		clk.add(8 * time.Second) // each run holds its slot for 8 s
		return real(ctx, sc, opt)
	}
	var ids []string
	for i := range 8 {
		ids = append(ids, postScenario(t, s, strings.Replace(small, `"name": "small"`, fmt.Sprintf(`"name": "small %d"`, i), 1)))
	}
	// 40 s at once: a run reserves 10 s, uses 8 s, and 2 s are earned
	// meanwhile: six runs, and 4 s left.
	for i := range 6 {
		if r := do(t, s, "GET", "/api/scenarios/"+ids[i]+"/result", ""); r.code != 200 {
			t.Fatalf("run %d: %d %.300s", i+1, r.code, r.body)
		}
	}
	r := do(t, s, "GET", "/api/scenarios/"+ids[6]+"/result", "")
	if r.code != 429 || r.header.Get("Retry-After") != "24" || !strings.Contains(r.body, "the work asked for may take 10s and 4s is left") {
		t.Errorf("the seventh run: %d Retry-After %q %.300s; want 429 for 24 s (6 s more at 25%% of a core)", r.code, r.header.Get("Retry-After"), r.body)
	}
	if r := do(t, s, "GET", "/api/scenarios/"+ids[0]+"/result", ""); r.code != 200 {
		t.Errorf("a result at hand: %d", r.code)
	}
	if code := httptestRequestFrom(t, s, "/api/scenarios/"+ids[6]+"/result", "198.51.100.7:1"); code != 200 {
		t.Errorf("another client: %d", code)
	}
	clk.add(24 * time.Second)
	if r := do(t, s, "GET", "/api/scenarios/"+ids[7]+"/result", ""); r.code != 200 {
		t.Errorf("24 s later: %d %.300s", r.code, r.body)
	}
}

// httptestRequestFrom GETs u from the address addr and returns the status.
func httptestRequestFrom(t *testing.T, s *Server, u, addr string) int {
	t.Helper()
	req, _ := http.NewRequest("GET", u, nil)
	req.RemoteAddr = addr
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, req)
	return rec.Code
}

// TestProbesAtNewTimesCost: each new at= of a probe is a new probe; a
// client that asks for probe after probe is refused once it has spent its
// time, before anything more runs.
func TestProbesAtNewTimesCost(t *testing.T) {
	s, _ := testServer(t, func(c *Config) { c.SpendRate, c.SpendBurst, c.RunTimeout = 0.25, 40*time.Second, 10*time.Second })
	clk := &clock{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	s.spend.now, s.runs.now = clk.get, clk.get
	var probes atomic.Int32
	real := s.probes.run
	s.probes.run = func(ctx context.Context, sc *engine.Scenario, opt probe.Options) (*probe.Result, error) {
		if ctx.Err() != nil {
			return real(ctx, sc, opt) // the check before the flight (probeCheck)
		}
		probes.Add(1)
		clk.add(15 * time.Second)
		return real(ctx, sc, opt)
	}
	id := postScenario(t, s, shortRunaway(t))
	var codes []int
	for i := range 4 {
		r := do(t, s, "GET", fmt.Sprintf("/api/scenarios/%s/probe?strategy=fixed&at=%ds", id, 20+i), "")
		codes = append(codes, r.code)
	}
	// 40 s: a probe reserves 20 s (its timeout) and uses 15 s.
	if fmt.Sprint(codes) != "[200 200 429 429]" || probes.Load() != 2 {
		t.Errorf("statuses %v after %d probes; want two probes, then 429 without a third", codes, probes.Load())
	}
}

// smallRunner is a runner of maxRuns slots without limits that matter
// here, and the scenario small.
func smallRunner(t *testing.T, maxRuns int) (*runner, *engine.Scenario) {
	t.Helper()
	sc, err := engine.Parse([]byte(small))
	if err != nil {
		t.Fatal(err)
	}
	return newRunner(Config{MaxEvents: 1 << 40, MaxResultBytes: 1 << 30, RunTimeout: time.Hour, MaxRuns: maxRuns, MaxWaiting: 1, CacheSize: 4, CacheBytes: 1 << 30}, newMetrics()), sc
}

// TestRunStopsWhenEveryoneLeaves: a run whose every request has gone
// stops, running or waiting, and is not remembered as failed: the next
// request runs it afresh.
func TestRunStopsWhenEveryoneLeaves(t *testing.T) {
	r, sc := smallRunner(t, 1)
	var runs atomic.Int32
	running, stopped := make(chan struct{}), make(chan error, 1)
	r.engineRun = func(ctx context.Context, sc *engine.Scenario, opt engine.Options) (*engine.Result, error) {
		if runs.Add(1) == 1 {
			close(running)
			<-ctx.Done() // the first run would never end by itself
			stopped <- ctx.Err()
			return nil, fmt.Errorf("%w: %w", engine.ErrStopped, ctx.Err())
		}
		return engine.Run(ctx, sc, opt)
	}
	ctx, hangUp := context.WithCancel(context.Background())
	started := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		_, err := r.watched(ctx, "id", sc, func(*flight, bool) { close(started) })
		done <- err
	}()
	<-started
	<-running
	hangUp()
	if err := <-stopped; !errors.Is(err, context.Canceled) {
		t.Errorf("the run, its only request gone: %v", err)
	}
	<-done
	res, err := r.result(context.Background(), "id", sc)
	if err != nil || res == nil || runs.Load() != 2 {
		t.Errorf("asked again: %v after %d runs; want a fresh run's result", err, runs.Load())
	}
}

// TestRequestsThatHangUpShareOneRun: ten requests for one result, each
// hanging up once the next has come (an event stream that reconnects
// early), share one run: none starts a run of its own while another waits
// for the run under way, and the last gets its result.
func TestRequestsThatHangUpShareOneRun(t *testing.T) {
	r, sc := smallRunner(t, 2)
	var runs atomic.Int32
	release := make(chan struct{})
	r.engineRun = func(ctx context.Context, sc *engine.Scenario, opt engine.Options) (*engine.Result, error) {
		runs.Add(1)
		<-release
		return engine.Run(ctx, sc, opt)
	}
	results := make(chan error, 10)
	var hangUp context.CancelFunc
	for i := range 10 {
		ctx, cancel := context.WithCancel(context.Background())
		joined := make(chan bool, 1)
		go func() {
			_, err := r.watched(ctx, "id", sc, func(_ *flight, j bool) { joined <- j })
			results <- err
		}()
		if j := <-joined; j != (i > 0) {
			t.Fatalf("request %d: joined %v", i+1, j)
		}
		if hangUp != nil {
			hangUp() // the one before goes once this one waits too
		}
		hangUp = cancel
	}
	close(release)
	var ok int
	for range 10 {
		if <-results == nil {
			ok++
		}
	}
	if runs.Load() != 1 || ok != 1 {
		t.Errorf("%d runs, %d results; want one run, its result for the last request", runs.Load(), ok)
	}
	hangUp()
}
