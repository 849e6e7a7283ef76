package conformance

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	retryablehttp "github.com/hashicorp/go-retryablehttp"
)

// rhServer is a loopback HTTP server answering from a script: the k-th
// request gets answers[k] (the last repeats). A status of ConnectionError
// closes the connection without answering. retryAfter, when set, is sent
// with every answer as a Retry-After header.
type rhServer struct {
	mu         sync.Mutex
	answers    []int
	retryAfter string
	requests   int
}

func (s *rhServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	a := s.answers[min(s.requests, len(s.answers)-1)]
	s.requests++
	s.mu.Unlock()
	if a == rhTimeout {
		// Answer after the client has given up: it times out.
		select {
		case <-r.Context().Done():
		case <-time.After(10 * rhAttemptTimeout):
		}
		return
	}
	if a == ConnectionError {
		conn, _, err := w.(http.Hijacker).Hijack()
		if err == nil {
			conn.Close()
		}
		return
	}
	if s.retryAfter != "" {
		w.Header().Set("Retry-After", s.retryAfter)
	}
	w.WriteHeader(a)
}

// rhTimeout, as an answer of rhServer, answers only after the client's
// attempt timeout (rhAttemptTimeout, its http.Client.Timeout): a timeout.
const rhTimeout = -2

// rhAttemptTimeout is the client's http.Client.Timeout when a script has
// timeouts: each request, an attempt, times out after it.
const rhAttemptTimeout = 50 * time.Millisecond

// rhCall makes one GET with go-retryablehttp's default client (RetryMax 4,
// RetryWaitMin 1 s, RetryWaitMax 30 s, DefaultRetryPolicy) against a
// loopback server answering from answers; its Backoff records what
// DefaultBackoff chooses and waits 0, so nothing waits for the wall clock.
// It returns the requests the server saw and the recorded waits.
func rhCall(t *testing.T, answers []int, retryAfter string) (int, []time.Duration) {
	t.Helper()
	s := &rhServer{answers: answers, retryAfter: retryAfter}
	srv := httptest.NewServer(s)
	defer srv.Close()
	c := retryablehttp.NewClient()
	c.Logger = nil
	if slices.Contains(answers, rhTimeout) {
		c.HTTPClient.Timeout = rhAttemptTimeout
	}
	var waits []time.Duration
	c.Backoff = func(lo, hi time.Duration, n int, resp *http.Response) time.Duration {
		waits = append(waits, retryablehttp.DefaultBackoff(lo, hi, n, resp))
		return 0
	}
	resp, err := c.Get(srv.URL)
	if err == nil {
		resp.Body.Close()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.requests, waits
}

// TestRetryablehttpWaits: DefaultBackoff's waits (2^n × 1 s, capped at
// 30 s, no jitter) match the engine's go-retryablehttp preset retry by
// retry, through the client's own loop (4 retries) and past the cap.
func TestRetryablehttpWaits(t *testing.T) {
	n, waits := rhCall(t, []int{503}, "")
	p, err := Policy("go-retryablehttp", nil)
	if err != nil {
		t.Fatal(err)
	}
	eng, err := EngineWaits(p, 4, 1)
	if err != nil {
		t.Fatal(err)
	}
	if n != 5 || fmt.Sprint(waits) != fmt.Sprint(eng) {
		t.Errorf("go-retryablehttp made %d requests waiting %v; the engine waits %v", n, waits, eng)
	}
	p["max_attempts"] = 10
	eng, err = EngineWaits(p, 9, 1)
	if err != nil {
		t.Fatal(err)
	}
	for i, e := range eng {
		if w := retryablehttp.DefaultBackoff(time.Second, 30*time.Second, i, nil); w != e {
			t.Errorf("retry %d: DefaultBackoff %v, the engine %v", i+1, w, e)
		}
	}
	t.Logf("waits %v", eng)
}

// TestRetryablehttpRetryOn: DefaultRetryPolicy retries connection errors,
// 429, and every 5xx but 501 (client.go, baseRetryPolicy); the engine's
// preset retries 429, the range 500-599 except 501, and connection
// errors. Each outcome is tried on both: retried means 5 attempts, not
// retried 1.
func TestRetryablehttpRetryOn(t *testing.T) {
	p, err := Policy("go-retryablehttp", nil)
	if err != nil {
		t.Fatal(err)
	}
	outcomes := []int{ConnectionError, 400, 404, 408, 409, 429, 500, 501, 502, 503, 504, 505, 506, 507, 508, 509, 510, 511, 599}
	for _, o := range outcomes {
		lib, _ := rhCall(t, []int{o}, "")
		eng, _, err := EngineScript(p, o, []Call{FailAll})
		if err != nil {
			t.Fatal(err)
		}
		name := fmt.Sprint(o)
		if o == ConnectionError {
			name = "connection error"
		}
		if lib != eng[0] {
			t.Errorf("%s: the library made %d attempts, the engine %d", name, lib, eng[0])
		}
	}
}

// TestRetryablehttpRetryAfter: DefaultBackoff takes Retry-After (seconds
// or a date) from 429 and 503 answers only, and then waits exactly that,
// even when shorter than the backoff (client.go, DefaultBackoff). The
// engine's preset says the same: retry_after mode "replace" on statuses
// 429 and 503. Compared wait by wait.
func TestRetryablehttpRetryAfter(t *testing.T) {
	p, err := Policy("go-retryablehttp", nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		status int
		after  time.Duration
		want   []time.Duration // the library, from its source
	}{
		{503, time.Second, []time.Duration{time.Second, time.Second, time.Second, time.Second}},
		{429, 3 * time.Second, []time.Duration{3 * time.Second, 3 * time.Second, 3 * time.Second, 3 * time.Second}},
		{500, 3 * time.Second, []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second}},
	} {
		_, lib := rhCall(t, []int{c.status}, fmt.Sprint(int(c.after.Seconds())))
		if fmt.Sprint(lib) != fmt.Sprint(c.want) {
			t.Errorf("%d with Retry-After %v: the library waited %v, its source says %v", c.status, c.after, lib, c.want)
		}
		eng, err := EngineWaitsStatus(p, 4, 1, c.status, c.after)
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(lib) != fmt.Sprint(eng) {
			t.Errorf("%d + Retry-After %v: the library waited %v, the engine %v", c.status, c.after, lib, eng)
		}
	}
}

// rhAnswers turns a call's script into rhServer's answers.
func rhAnswers(cs CallScript) []int {
	var as []int
	for _, a := range cs {
		if a.IsTimeout() {
			as = append(as, rhTimeout)
		} else {
			as = append(as, a.Status)
		}
	}
	return as
}

// TestRetryablehttpAttemptsPerOutcome: calls whose attempts meet
// different outcomes in turn (statuses, connection errors, timeouts of
// the client's http.Client.Timeout), the library's requests against the
// engine's go-retryablehttp preset's attempts (with an attempt timeout).
// DefaultRetryPolicy retries any error from the transport but a few
// (client.go, baseRetryPolicy: redirects, scheme, header, certificate),
// a timeout included, as the preset's retry_on (timeout) does.
func TestRetryablehttpAttemptsPerOutcome(t *testing.T) {
	p, err := Policy("go-retryablehttp", map[string]any{"attempt_timeout": AttemptTimeout.String()})
	if err != nil {
		t.Fatal(err)
	}
	ok := Answer{Status: 200}
	scripts := []struct {
		name   string
		script CallScript
		want   int // the library's requests, from its source
	}{
		{"503, 503, then 200", CallScript{{Status: 503}, {Status: 503}, ok}, 3},
		{"connection error, 500, then 200", CallScript{{Status: ConnectionError}, {Status: 500}, ok}, 3},
		{"429, then 404", CallScript{{Status: 429}, {Status: 404}}, 2},
		{"502, then 501", CallScript{{Status: 502}, {Status: 501}}, 2},
		{"timeout, then 200", CallScript{TimedOut, ok}, 2},
		{"503, timeout, then 200", CallScript{{Status: 503}, TimedOut, ok}, 3},
	}
	for _, sc := range scripts {
		lib, _ := rhCall(t, rhAnswers(sc.script), "")
		if lib != sc.want {
			t.Errorf("%s: the library made %d requests, its source says %d", sc.name, lib, sc.want)
		}
		if eng := engineAttempts(t, p, sc.script); lib != eng {
			t.Errorf("%s: the library made %d requests, the engine %d", sc.name, lib, eng)
		}
	}
}
