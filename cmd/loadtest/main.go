// Command loadtest measures a running RetryLab server: requests per second
// and latency percentiles for cached page GETs and for share POSTs. It sends
// traffic to loopback only and stops by itself.
//
//	loadtest [-base http://127.0.0.1:8080] [-duration 5s] [-concurrency 32] [-post-concurrency 4] [-wide N]
//
// Phase 1 shares one scenario, fetches its page once so that the server has
// run and cached it, then fetches that page from -concurrency workers for
// -duration. Phase 2 shares distinct scenarios from -post-concurrency
// workers for -duration; the server limits POSTs per client IP (2/s, burst
// 20 by default), so most of them are answered 429, which is expected and
// counted apart from errors. Every phase also stops after 2,000,000
// requests.
//
// Phase 3 (-wide N, 0 to skip) watches the server's memory under abuse: it
// sends the requests an adversarial campaign found costly (1,200
// overlapping phases, a million clients × 1,000 runs, a result of millions
// of numbers, one result under many made-up query parameters), then shares
// N distinct wide scenarios (20 strategies over 24 h, each result about
// 700,000 numbers, just under the server's size limit) from
// -post-concurrency workers and fetches each one's result, page, chart and
// CSV. It samples the server's resident memory from its /metrics
// (process_resident_memory_bytes) every 100 ms and reports the peak. It
// stops after N scenarios or 90 s.
//
// The client asks for gzip, as browsers do, and reuses connections. Latency
// is measured from sending a request to reading the last byte of its answer;
// percentiles are exact (nearest rank over all recorded durations). When the
// load generator and the server share a machine they compete for its CPUs,
// which the figures include.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

const (
	maxDuration    = 60 * time.Second
	maxRequests    = 2_000_000 // per phase
	maxConcurrency = 1024
	maxWide        = 500
	widePhaseLimit = 90 * time.Second
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

// run runs the load test and returns the exit status: 0 on success, 1 when
// the test could not be done, 2 for a usage error.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("loadtest", flag.ContinueOnError)
	fs.SetOutput(stderr)
	base := fs.String("base", "http://127.0.0.1:8080", "base URL of the server; its host must be a loopback address or localhost")
	duration := fs.Duration("duration", 5*time.Second, "length of each phase (at most 60s)")
	concurrency := fs.Int("concurrency", 32, "workers fetching the cached page")
	postConcurrency := fs.Int("post-concurrency", 4, "workers sharing scenarios")
	wide := fs.Int("wide", 0, "wide scenarios to share and fetch in phase 3, watching the server's memory (0 skips it; at most 500)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "loadtest: unexpected arguments %q\n", fs.Args())
		return 2
	}
	u, err := loopbackBase(*base)
	if err != nil {
		fmt.Fprintf(stderr, "loadtest: %v\n", err)
		return 2
	}
	switch {
	case *duration <= 0 || *duration > maxDuration:
		fmt.Fprintf(stderr, "loadtest: -duration %v: want more than 0 and at most %v\n", *duration, maxDuration)
		return 2
	case *concurrency < 1 || *concurrency > maxConcurrency:
		fmt.Fprintf(stderr, "loadtest: -concurrency %d: want 1 to %d\n", *concurrency, maxConcurrency)
		return 2
	case *postConcurrency < 1 || *postConcurrency > maxConcurrency:
		fmt.Fprintf(stderr, "loadtest: -post-concurrency %d: want 1 to %d\n", *postConcurrency, maxConcurrency)
		return 2
	case *wide < 0 || *wide > maxWide:
		fmt.Fprintf(stderr, "loadtest: -wide %d: want 0 to %d\n", *wide, maxWide)
		return 2
	}

	lt := &loadTest{
		base:   strings.TrimRight(u.String(), "/"),
		client: newClient(max(*concurrency, *postConcurrency)),
		stamp:  strconv.FormatInt(time.Now().UnixNano(), 36),
	}
	fmt.Fprintf(stdout, "loadtest: %s, %v per phase, GET concurrency %d, POST concurrency %d\n\n", lt.base, *duration, *concurrency, *postConcurrency)

	// Phase 1: the cached page.
	id, err := lt.share(ctx, "loadtest-page-"+lt.stamp)
	if err != nil {
		fmt.Fprintf(stderr, "loadtest: sharing the page's scenario: %v\n", err)
		return 1
	}
	page := lt.base + "/s/" + id
	if status, err := lt.get(ctx, page); err != nil || status != http.StatusOK {
		fmt.Fprintf(stderr, "loadtest: warming %s: status %d, %v\n", page, status, err)
		return 1
	}
	get := lt.phase(ctx, "GET /s/{id} (cached)", *concurrency, *duration, func(ctx context.Context, _ int64) (int, error) {
		return lt.get(ctx, page)
	}, http.StatusOK)
	get.report(stdout)
	if ctx.Err() != nil {
		return 1
	}

	// Phase 2: share POSTs, mostly rate-limited.
	post := lt.phase(ctx, "POST /api/scenarios", *postConcurrency, *duration, func(ctx context.Context, n int64) (int, error) {
		return lt.post(ctx, scenario(fmt.Sprintf("loadtest-%s-%d", lt.stamp, n)))
	}, http.StatusCreated, http.StatusTooManyRequests)
	post.report(stdout)

	fmt.Fprintln(stdout, "| phase | concurrency | requests | errors | req/s | p50 | p90 | p99 | max |")
	fmt.Fprintln(stdout, "|---|--:|--:|--:|--:|--:|--:|--:|--:|")
	fmt.Fprintln(stdout, get.summary())
	fmt.Fprintln(stdout, post.summary())
	if ok := post.byStatus[http.StatusCreated]; ok.n() > 0 {
		fmt.Fprintln(stdout, post.summaryOf("POST /api/scenarios, 201 only", ok))
	}
	if ctx.Err() != nil {
		return 1
	}
	if *wide > 0 {
		fmt.Fprintln(stdout)
		if !lt.widePhase(ctx, *wide, *postConcurrency, stdout) {
			return 1
		}
	}
	return 0
}

// loopbackBase parses base and refuses it unless it is an http or https URL
// whose host is a loopback IP address or "localhost".
func loopbackBase(base string) (*url.URL, error) {
	u, err := url.Parse(base)
	if err != nil {
		return nil, fmt.Errorf("-base %q: %v", base, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, fmt.Errorf("-base %q: want an http:// or https:// URL", base)
	}
	if u.User != nil || u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("-base %q: want a scheme, host and optional path only", base)
	}
	if !isLoopbackHost(u.Hostname()) {
		return nil, fmt.Errorf("-base %q: refusing to load a host that is not loopback (127.0.0.0/8, ::1 or localhost)", base)
	}
	return u, nil
}

// isLoopbackHost reports whether host is "localhost" or a loopback IP.
func isLoopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// newClient returns a client tuned for keep-alive that only ever connects
// to loopback addresses (whatever "localhost" resolves to) and follows no
// redirects.
func newClient(conns int) *http.Client {
	dialer := &net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}
	tr := &http.Transport{
		Proxy: nil,
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			c, err := dialer.DialContext(ctx, network, addr)
			if err != nil {
				return nil, err
			}
			if a, ok := c.RemoteAddr().(*net.TCPAddr); !ok || !a.IP.IsLoopback() {
				c.Close()
				return nil, fmt.Errorf("refusing to talk to %v: not a loopback address", c.RemoteAddr())
			}
			return c, nil
		},
		MaxIdleConns:        conns,
		MaxIdleConnsPerHost: conns,
		IdleConnTimeout:     90 * time.Second,
		TLSHandshakeTimeout: 5 * time.Second,
		ForceAttemptHTTP2:   false,
	}
	return &http.Client{
		Transport:     tr,
		Timeout:       30 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

type loadTest struct {
	base   string
	client *http.Client
	stamp  string // makes this run's scenario names distinct from earlier runs'
}

// scenario returns a small valid scenario named name.
func scenario(name string) []byte {
	return fmt.Appendf(nil, `{"version":1,"name":%q,"workload":{"clients":1,"arrival":"burst"},`+
		`"dependency":{"workers":1,"service_time":{"kind":"constant","mean":"1ms"},"queue_capacity":0},`+
		`"strategies":[{"name":"s","max_attempts":1}]}`, name)
}

// get fetches u and reads the whole answer.
func (lt *loadTest) get(ctx context.Context, u string) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return 0, err
	}
	return lt.do(req, nil)
}

// post shares body and reads the whole answer.
func (lt *loadTest) post(ctx context.Context, body []byte) (int, error) {
	status, _, err := lt.postBody(ctx, body)
	return status, err
}

func (lt *loadTest) postBody(ctx context.Context, body []byte) (int, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, lt.base+"/api/scenarios", bytes.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	var b bytes.Buffer
	status, err := lt.do(req, &b)
	return status, b.Bytes(), err
}

// do sends req and reads its answer into w (or discards it) so that the
// connection can be reused.
func (lt *loadTest) do(req *http.Request, w io.Writer) (int, error) {
	resp, err := lt.client.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	if w == nil {
		w = io.Discard
	}
	if _, err := io.Copy(w, resp.Body); err != nil {
		return resp.StatusCode, err
	}
	return resp.StatusCode, nil
}

// share POSTs a scenario and returns its ID, waiting out a few 429s.
func (lt *loadTest) share(ctx context.Context, name string) (string, error) {
	return lt.shareBody(ctx, scenario(name), 5)
}

// shareBody POSTs body and returns its ID, waiting out up to attempts-1 429s.
func (lt *loadTest) shareBody(ctx context.Context, doc []byte, attempts int) (string, error) {
	for attempt := 1; ; attempt++ {
		status, body, err := lt.postBody(ctx, doc)
		if err != nil {
			return "", err
		}
		switch {
		case status == http.StatusCreated:
			var r struct{ ID string }
			if err := json.Unmarshal(body, &r); err != nil || r.ID == "" {
				return "", fmt.Errorf("201 without an ID: %.200q", body)
			}
			return r.ID, nil
		case status == http.StatusTooManyRequests && attempt < attempts:
			select {
			case <-time.After(time.Second):
			case <-ctx.Done():
				return "", ctx.Err()
			}
		default:
			return "", fmt.Errorf("status %d: %.200q", status, body)
		}
	}
}

// A sample is the latencies of the answers in one class.
type sample struct {
	lat []time.Duration
}

func (s *sample) add(d time.Duration) { s.lat = append(s.lat, d) }

// n is the number of answers.
func (s sample) n() int64 { return int64(len(s.lat)) }

// A result is one phase's outcome.
type result struct {
	name        string
	concurrency int
	elapsed     time.Duration
	all         sample         // every request, answered or not
	errors      int64          // transport errors and unexpected statuses
	transport   int64          // transport errors alone
	byStatus    map[int]sample // answers by status
	expected    []int
}

// phase runs do from workers goroutines until d has passed, ctx ends or
// maxRequests have been started. Statuses other than expected count as
// errors.
func (lt *loadTest) phase(ctx context.Context, name string, workers int, d time.Duration,
	do func(ctx context.Context, n int64) (int, error), expected ...int) *result {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	var (
		started atomic.Int64
		wg      sync.WaitGroup
		parts   = make([]*result, workers)
	)
	begin := time.Now()
	for w := range workers {
		r := &result{byStatus: map[int]sample{}}
		parts[w] = r
		wg.Go(func() {
			for ctx.Err() == nil {
				n := started.Add(1)
				if n > maxRequests {
					return
				}
				t0 := time.Now()
				status, err := do(ctx, n)
				lat := time.Since(t0)
				if err != nil && ctx.Err() != nil {
					return // cut off by the end of the phase: not counted
				}
				r.all.add(lat)
				if err != nil {
					r.transport++
					r.errors++
					continue
				}
				s := r.byStatus[status]
				s.add(lat)
				r.byStatus[status] = s
				if !slices.Contains(expected, status) {
					r.errors++
				}
			}
		})
	}
	wg.Wait()
	res := &result{name: name, concurrency: workers, elapsed: time.Since(begin), byStatus: map[int]sample{}, expected: expected}
	for _, p := range parts {
		res.all.lat = append(res.all.lat, p.all.lat...)
		res.errors += p.errors
		res.transport += p.transport
		for st, s := range p.byStatus {
			t := res.byStatus[st]
			t.lat = append(t.lat, s.lat...)
			res.byStatus[st] = t
		}
	}
	slices.Sort(res.all.lat)
	for st, s := range res.byStatus {
		slices.Sort(s.lat)
		res.byStatus[st] = s
	}
	return res
}

// percentile returns the p-th percentile (0 < p <= 100) of sorted by the
// nearest-rank method, or 0 for no durations.
func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	rank := int(math.Ceil(p / 100 * float64(len(sorted))))
	return sorted[min(max(rank, 1), len(sorted))-1]
}

func (r *result) rate(n int64) float64 {
	if r.elapsed <= 0 {
		return 0
	}
	return float64(n) / r.elapsed.Seconds()
}

func (r *result) report(w io.Writer) {
	fmt.Fprintf(w, "%s: %d workers for %v\n", r.name, r.concurrency, r.elapsed.Round(time.Millisecond))
	fmt.Fprintf(w, "  requests  %d (%.0f req/s), errors %d (transport %d)\n", r.all.n(), r.rate(r.all.n()), r.errors, r.transport)
	statuses := slices.Sorted(func(yield func(int) bool) {
		for st := range r.byStatus {
			if !yield(st) {
				return
			}
		}
	})
	for _, st := range statuses {
		s := r.byStatus[st]
		note := ""
		switch {
		case st == http.StatusTooManyRequests && slices.Contains(r.expected, st):
			note = " (rate-limited, expected)"
		case !slices.Contains(r.expected, st):
			note = " (error)"
		}
		fmt.Fprintf(w, "  %d       %d (%.1f/s)%s\n", st, s.n(), r.rate(s.n()), note)
	}
	fmt.Fprintf(w, "  latency   %s\n", latencies(r.all.lat))
	if len(r.byStatus) > 1 {
		for _, st := range statuses {
			fmt.Fprintf(w, "  latency of %d only: %s\n", st, latencies(r.byStatus[st].lat))
		}
	}
	fmt.Fprintln(w)
}

func latencies(sorted []time.Duration) string {
	if len(sorted) == 0 {
		return "no answers"
	}
	return fmt.Sprintf("p50 %v  p90 %v  p99 %v  max %v",
		short(percentile(sorted, 50)), short(percentile(sorted, 90)), short(percentile(sorted, 99)), short(sorted[len(sorted)-1]))
}

// summary is one Markdown table row for the phase.
func (r *result) summary() string { return r.summaryOf(r.name, r.all) }

func (r *result) summaryOf(name string, s sample) string {
	var p50, p90, p99, mx time.Duration
	if len(s.lat) > 0 {
		p50, p90, p99, mx = percentile(s.lat, 50), percentile(s.lat, 90), percentile(s.lat, 99), s.lat[len(s.lat)-1]
	}
	errs := r.errors
	if name != r.name {
		errs = 0 // a single status class has no errors of its own
	}
	return fmt.Sprintf("| %s | %d | %d | %d | %.0f | %v | %v | %v | %v |",
		name, r.concurrency, s.n(), errs, r.rate(s.n()), short(p50), short(p90), short(p99), short(mx))
}

// short rounds d for display to about three significant digits.
func short(d time.Duration) time.Duration {
	switch {
	case d >= time.Second:
		return d.Round(time.Millisecond)
	case d >= 10*time.Millisecond:
		return d.Round(100 * time.Microsecond)
	case d >= time.Millisecond:
		return d.Round(10 * time.Microsecond)
	default:
		return d.Round(time.Microsecond)
	}
}
