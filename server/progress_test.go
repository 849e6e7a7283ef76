//go:build !nosearch

package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/retrylab/retrylab/shared/engine"
)

// An sseBlock is one block of an event stream: an event with its data,
// or a comment.
type sseBlock struct{ event, data, comment string }

// sseStream reads an event stream block by block.
type sseStream struct {
	resp *http.Response
	sc   *bufio.Scanner
}

// openStream asks a real server for url as an event stream.
func openStream(t *testing.T, base, url string) *sseStream {
	t.Helper()
	req, _ := http.NewRequestWithContext(t.Context(), "GET", base+url, nil)
	req.Header.Set("Accept", "text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 16<<20) // a result is one line
	return &sseStream{resp, sc}
}

// next returns the next block; ok is false at the end of the stream.
func (s *sseStream) next() (b sseBlock, ok bool) {
	for s.sc.Scan() {
		line := s.sc.Text()
		switch {
		case line == "":
			if b != (sseBlock{}) {
				return b, true
			}
		case strings.HasPrefix(line, ":"):
			b.comment = strings.TrimSpace(line[1:])
		case strings.HasPrefix(line, "event: "):
			b.event = line[len("event: "):]
		case strings.HasPrefix(line, "data: "):
			b.data += line[len("data: "):]
		}
	}
	return b, b != (sseBlock{})
}

// rest reads the stream to its end: its progress events, and its last
// event.
func (s *sseStream) rest(t *testing.T) (progress []progressEvent, last sseBlock) {
	t.Helper()
	for {
		b, ok := s.next()
		if !ok {
			if err := s.sc.Err(); err != nil {
				t.Fatal(err)
			}
			return progress, last
		}
		if b.event == "progress" {
			var p progressEvent
			if err := json.Unmarshal([]byte(b.data), &p); err != nil {
				t.Fatalf("progress %q: %v", b.data, err)
			}
			progress = append(progress, p)
		}
		if b.event != "" {
			last = b
		}
	}
}

func get(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestResultStream: with Accept: text/event-stream, /result answers
// progress events that count every simulation, the search's too, at most
// one per whole percent, then the plain answer's JSON as a result event;
// once cached, the result event alone.
func TestResultStream(t *testing.T) {
	s, _ := testServer(t)
	srv := httptest.NewServer(s)
	defer srv.Close()
	body := searchScenario(t, 1000)
	id := postScenario(t, s, body)
	sc, err := engine.Parse([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	if _, err := engine.Run(context.Background(), sc, engine.Options{NoSeries: true, Progress: func(_, n int) { total = n }}); err != nil {
		t.Fatal(err)
	}

	st := openStream(t, srv.URL, "/api/scenarios/"+id+"/result")
	if ct := st.resp.Header.Get("Content-Type"); st.resp.StatusCode != 200 || !strings.HasPrefix(ct, "text/event-stream") || st.resp.Header.Get("Cache-Control") != "no-store" {
		t.Fatalf("stream: %d %q %q", st.resp.StatusCode, ct, st.resp.Header.Get("Cache-Control"))
	}
	if b, _ := st.next(); b.comment != "running" {
		t.Errorf("first block %+v, want the comment that it runs", b)
	}
	progress, last := st.rest(t)
	if len(progress) == 0 || len(progress) > 101 {
		t.Errorf("%d progress events, want 1 to 101", len(progress))
	}
	for i, p := range progress {
		if p.Total != total || p.Done < 1 || p.Done > total || (i > 0 && p.Done <= progress[i-1].Done) {
			t.Errorf("progress %d: %+v after %+v, of %d simulations", i, p, progress[max(i-1, 0)], total)
		}
	}
	resp, err := http.Get(srv.URL + "/api/scenarios/" + id + "/result")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	code, plain := resp.StatusCode, string(b)
	if v := resp.Header.Get("Vary"); v != "Accept, Accept-Encoding" {
		t.Errorf("the plain answer varies by %q: a cache could give it to a stream", v)
	}
	if code != 200 || last.event != "result" || last.data != plain {
		t.Errorf("last event %q (%d bytes), plain answer %d (%d bytes): not the same", last.event, len(last.data), code, len(plain))
	}

	again := openStream(t, srv.URL, "/api/scenarios/"+id+"/result")
	progress, last = again.rest(t)
	if len(progress) != 0 || last.event != "result" || last.data != plain {
		t.Errorf("cached: %d progress events, then %q", len(progress), last.event)
	}

	// What is known before the stream starts is an ordinary answer.
	if r := do(t, s, "GET", "/api/scenarios/AAAAAAAAAAA/result", "", "Accept", "text/event-stream"); r.code != 404 || !strings.Contains(r.body, `"error"`) {
		t.Errorf("unknown ID: %d %s", r.code, r.body)
	}
}

// TestResultStreamsShareTheRun: a second stream of the same ID joins the
// run under way and hears its progress and its result too; a run that
// fails ends both streams with an error event, the JSON error's body.
func TestResultStreamsShareTheRun(t *testing.T) {
	s, _ := testServer(t, func(c *Config) { c.MaxRuns = 1 })
	srv := httptest.NewServer(s)
	defer srv.Close()
	id := postScenario(t, s, small)
	s.runs.slots <- struct{}{} // the run waits for this slot
	a := openStream(t, srv.URL, "/api/scenarios/"+id+"/result")
	if b, _ := a.next(); b.comment != "running" {
		t.Fatalf("first stream: %+v", b)
	}
	b := openStream(t, srv.URL, "/api/scenarios/"+id+"/result")
	if blk, _ := b.next(); blk.comment != "sharing the run under way" {
		t.Fatalf("second stream: %+v", blk)
	}
	<-s.runs.slots
	pa, la := a.rest(t)
	pb, lb := b.rest(t)
	if len(pa) == 0 || len(pb) == 0 || la.event != "result" || lb.event != "result" || la.data != lb.data {
		t.Errorf("first: %d progress events, then %q; second: %d, then %q; same result: %v", len(pa), la.event, len(pb), lb.event, la.data == lb.data)
	}
	if pa[len(pa)-1].Total != pb[len(pb)-1].Total {
		t.Errorf("totals %d and %d", pa[len(pa)-1].Total, pb[len(pb)-1].Total)
	}

	// Shed: no slot and no waiting.
	busy, _ := testServer(t, func(c *Config) { c.MaxRuns, c.MaxWaiting = 1, -1 })
	bsrv := httptest.NewServer(busy)
	defer bsrv.Close()
	id = postScenario(t, busy, small)
	busy.runs.slots <- struct{}{}
	code, plain := get(t, bsrv.URL+"/api/scenarios/"+id+"/result")
	_, last := openStream(t, bsrv.URL, "/api/scenarios/"+id+"/result").rest(t)
	if code != 503 || last.event != "error" || last.data+"\n" != plain {
		t.Errorf("shed: plain %d %q; stream's last event %q %q", code, plain, last.event, last.data)
	}
}

// TestProgressThrottles: a run of 1,000 simulations tells its streams of
// 101 changes: the first simulation (which says the total), then one per
// whole percent, the last when all are done.
func TestProgressThrottles(t *testing.T) {
	var p runProgress
	hook := p.hook()
	_, _, changed := p.state()
	var seen []int
	for done := 1; done <= 1000; done++ {
		hook(done, 1000)
		select {
		case <-changed:
			d, _, ch := p.state()
			seen = append(seen, d)
			changed = ch
		default:
		}
	}
	if len(seen) != 101 || seen[0] != 1 || seen[1] != 10 || seen[len(seen)-1] != 1000 {
		t.Errorf("%d changes: %v", len(seen), seen)
	}
}

// events reads a whole event stream's blocks.
func events(body string) []sseBlock {
	sc := bufio.NewScanner(strings.NewReader(body))
	sc.Buffer(nil, 16<<20)
	st := &sseStream{sc: sc}
	var out []sseBlock
	for b, ok := st.next(); ok; b, ok = st.next() {
		out = append(out, b)
	}
	return out
}

// lastEvent is a stream's last event (not a comment).
func lastEvent(body string) sseBlock {
	var last sseBlock
	for _, b := range events(body) {
		if b.event != "" {
			last = b
		}
	}
	return last
}

// TestStreamRecoversAPanic: a run that panics under an event stream is
// recovered, logged at ERROR with its stack, and ends the stream with an
// error event, the plain answer's 500 (a panic there killed the process:
// the run is on a goroutine of its own, out of the Recover middleware's
// reach).
func TestStreamRecoversAPanic(t *testing.T) {
	var log bytes.Buffer
	s, _ := testServer(t, func(c *Config) { c.Logger = slog.New(slog.NewTextHandler(&log, nil)) })
	s.runs.engineRun = func(context.Context, *engine.Scenario, engine.Options) (*engine.Result, error) {
		panic("boom in the engine")
	}
	plain := do(t, s, "GET", "/api/scenarios/layered-retries/result", "")
	r := do(t, s, "GET", "/api/scenarios/bulkheads/result", "", "Accept", "text/event-stream")
	last := lastEvent(r.body)
	if plain.code != 500 || last.event != "error" || last.data+"\n" != strings.Replace(plain.body, "layered-retries", "bulkheads", 1) {
		t.Errorf("plain answer %d %q; the stream's last event %q %q", plain.code, plain.body, last.event, last.data)
	}
	if !strings.Contains(log.String(), "level=ERROR") || !strings.Contains(log.String(), "boom in the engine") || !strings.Contains(log.String(), "goroutine") {
		t.Errorf("the panic is not logged at ERROR with its stack:\n%s", log.String())
	}
	if r := do(t, s, "GET", "/healthz", ""); r.code != 200 {
		t.Errorf("after the panic: %d", r.code)
	}
}

// blockingEngine replaces s's engine with one that tells started of each
// run and blocks until the test ends (or release is closed), then runs
// the real engine.
func blockingEngine(t *testing.T, s *Server) (started <-chan struct{}, release chan struct{}) {
	t.Helper()
	st := make(chan struct{}, 16)
	release = make(chan struct{})
	var once sync.Once
	t.Cleanup(func() { once.Do(func() { close(release) }) })
	s.runs.engineRun = func(ctx context.Context, sc *engine.Scenario, opt engine.Options) (*engine.Result, error) {
		st <- struct{}{}
		<-release
		return engine.Run(ctx, sc, opt)
	}
	return st, release
}

// TestStreamTimeout: a stream whose request times out (the server's
// request timeout) ends with an error event saying so and what to do, a
// 503's, not silently.
func TestStreamTimeout(t *testing.T) {
	s, _ := testServer(t, func(c *Config) { c.RequestTimeout = 1 }) // 1 ns: over before the run ends
	blockingEngine(t, s)
	r := do(t, s, "GET", "/api/scenarios/layered-retries/result", "", "Accept", "text/event-stream")
	last := lastEvent(r.body)
	if last.event != "error" || !strings.Contains(last.data, "a request may last (1ns)") || !strings.Contains(last.data, "ask again in a moment") {
		t.Errorf("the stream ends with %q %q; want an error event saying it timed out:\n%s", last.event, last.data, r.body)
	}
}

// A gatedWriter is a ResponseWriter whose write of the event stream's
// first progress event tells wrote and then waits for gate.
type gatedWriter struct {
	header      http.Header
	body        bytes.Buffer
	wrote, gate chan struct{}
}

func (w *gatedWriter) Header() http.Header { return w.header }
func (w *gatedWriter) WriteHeader(int)     {}
func (w *gatedWriter) Flush()              {}
func (w *gatedWriter) Write(p []byte) (int, error) {
	if w.wrote != nil && strings.HasPrefix(string(p), "event: progress") {
		close(w.wrote)
		w.wrote = nil
		<-w.gate
	}
	return w.body.Write(p)
}

// TestLastProgressPrecedesTheResult: the last progress event (done ==
// total) always comes before the result event, even when the stream
// learns of the last progress and of the result at once. The run's last
// progress and its end happen while the stream is writing the first
// progress event; once every goroutine has done what it can
// (synctest.Wait), the stream goes on. A stream that picked the result or
// the progress at random then would drop the progress half the time: 64
// times over, such a stream passes once in 2^64.
func TestLastProgressPrecedesTheResult(t *testing.T) {
	for range 64 {
		synctest.Test(t, func(t *testing.T) {
			s, _ := testServer(t)
			w := &gatedWriter{header: http.Header{}, wrote: make(chan struct{}), gate: make(chan struct{})}
			wrote := w.wrote
			s.runs.engineRun = func(ctx context.Context, sc *engine.Scenario, opt engine.Options) (*engine.Result, error) {
				opt.Progress(1, 2)
				<-wrote // the stream is writing 1 of 2
				opt.Progress(2, 2)
				return &engine.Result{}, nil
			}
			req := httptest.NewRequest("GET", "/api/scenarios/layered-retries/result", nil)
			req.Header.Set("Accept", "text/event-stream")
			served := make(chan struct{})
			go func() {
				s.ServeHTTP(w, req)
				close(served)
			}()
			synctest.Wait() // the run is over; the stream waits in its write
			close(w.gate)
			<-served
			var got []string
			for _, b := range events(w.body.String()) {
				if b.event != "" {
					got = append(got, b.event+" "+b.data)
				}
			}
			if len(got) != 3 || got[1] != `progress {"done":2,"total":2}` || !strings.HasPrefix(got[2], "result ") {
				t.Fatalf("events %q; want progress 1 of 2, 2 of 2, then the result", got)
			}
		})
	}
}
