package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// wideScenario returns a scenario named name whose result is wide: 20
// strategies over 24 hours in 20 s buckets, about 700,000 numbers, just
// under the server's default size limit of 8 MB.
func wideScenario(name string) []byte {
	var st []string
	for i := range 20 {
		st = append(st, fmt.Sprintf(`{"name":"s%d","max_attempts":3,"attempt_timeout":"1s","backoff":{"kind":"exponential","base":"100ms"},"jitter":{"kind":"full"}}`, i))
	}
	return fmt.Appendf(nil, `{"version":1,"name":%q,"workload":{"clients":10,"rate":0.2,"duration":"24h"},`+
		`"dependency":{"workers":1,"service_time":{"kind":"exponential","mean":"300ms"},"queue_capacity":5,"phases":[{"kind":"outage","from":"1h","to":"2h"}]},`+
		`"strategies":[%s],"report":{"series_bucket":"20s"}}`, name, strings.Join(st, ","))
}

// hostile are the campaign's costly requests, with the status each must get.
func hostile(stamp string) []struct {
	name   string
	body   []byte // POSTed when set, else path is fetched
	path   string
	status int
} {
	phases := strings.TrimSuffix(strings.Repeat(`{"kind":"latency","from":"1s","to":"2s","factor":2},`, 1200), ",")
	many := make([]string, 20)
	for i := range many {
		many[i] = fmt.Sprintf(`{"name":"s%d","max_attempts":1}`, i)
	}
	strategies := strings.Join(many, ",")
	return []struct {
		name   string
		body   []byte
		path   string
		status int
	}{
		{"1,200 overlapping phases (was a 422 of 88 MB)", fmt.Appendf(nil, `{"version":1,"name":"phases %s","workload":{"clients":1,"rate":1,"duration":"2s"},`+
			`"dependency":{"workers":1,"service_time":{"kind":"constant","mean":"1ms"},"queue_capacity":1,"phases":[%s]},"strategies":[{"name":"a","max_attempts":1}]}`, stamp, phases), "", 422},
		{"a million clients × 1,000 runs × 20 strategies", fmt.Appendf(nil, `{"version":1,"name":"crowd %s","runs":1000,"workload":{"clients":1000000,"arrival":"burst","operations":1},`+
			`"dependency":{"workers":1,"service_time":{"kind":"constant","mean":"1ms"},"queue_capacity":1},"strategies":[%s]}`, stamp, strategies), "", 422},
		{"a result of millions of numbers", fmt.Appendf(nil, `{"version":1,"name":"numbers %s","workload":{"clients":1,"rate":0.02,"duration":"24h"},`+
			`"dependency":{"workers":1,"service_time":{"kind":"constant","mean":"1ms"},"queue_capacity":1},"strategies":[%s],`+
			`"report":{"series_bucket":"1ms","peak_resolutions":["1ms","2ms","3ms","4ms","5ms"]}}`, stamp, strategies), "", 422},
		{"a result under made-up parameters", nil, "/api/scenarios/e03b-synchronized-recovery/result?v=", 200},
		{"an embed of a made-up picture", nil, "/embed/e03b-synchronized-recovery?picture=bogus", 400},
	}
}

// rssSampler reads the server's resident memory from its /metrics.
type rssSampler struct {
	first, peak, last atomic.Int64
}

func (lt *loadTest) sampleRSS(ctx context.Context, r *rssSampler) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, lt.base+"/metrics", nil)
	if err != nil {
		return err
	}
	resp, err := lt.client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		io.Copy(io.Discard, resp.Body)
		return fmt.Errorf("/metrics: status %d", resp.StatusCode)
	}
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		v, ok := strings.CutPrefix(sc.Text(), "process_resident_memory_bytes ")
		if !ok {
			continue
		}
		f, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return err
		}
		n := int64(f)
		r.first.CompareAndSwap(0, n)
		r.last.Store(n)
		for p := r.peak.Load(); n > p && !r.peak.CompareAndSwap(p, n); p = r.peak.Load() {
		}
		io.Copy(io.Discard, resp.Body)
		return nil
	}
	return fmt.Errorf("/metrics has no process_resident_memory_bytes")
}

// widePhase runs phase 3 and reports whether every answer was as expected.
func (lt *loadTest) widePhase(ctx context.Context, n, workers int, w io.Writer) bool {
	ctx, cancel := context.WithTimeout(ctx, widePhaseLimit)
	defer cancel()
	var rss rssSampler
	if err := lt.sampleRSS(ctx, &rss); err != nil {
		fmt.Fprintf(w, "phase 3: cannot read the server's memory (%v); skipped\n", err)
		return true
	}
	sampling, stopSampling := context.WithCancel(ctx)
	var sampler sync.WaitGroup
	sampler.Go(func() {
		for t := time.NewTicker(100 * time.Millisecond); ; {
			select {
			case <-sampling.Done():
				t.Stop()
				return
			case <-t.C:
				lt.sampleRSS(sampling, &rss)
			}
		}
	})
	begin := time.Now()
	ok := true
	fmt.Fprintf(w, "phase 3: the campaign's costly requests, then %d wide results\n", n)
	for _, h := range hostile(lt.stamp) {
		t0 := time.Now()
		var status, size int
		var err error
		if h.body != nil {
			for attempt := 1; attempt <= 30; attempt++ { // phase 2 used up the POST budget
				var body []byte
				status, body, err = lt.postBody(ctx, h.body)
				size = len(body)
				if err != nil || status != http.StatusTooManyRequests {
					break
				}
				select {
				case <-time.After(time.Second):
				case <-ctx.Done():
				}
				t0 = time.Now()
			}
		} else {
			for i := range 100 { // a new parameter each time: one cache entry, not 100
				var b countWriter
				req, _ := http.NewRequestWithContext(ctx, http.MethodGet, lt.base+h.path+strconv.Itoa(i), nil)
				status, err = lt.do(req, &b)
				size = b.n
				if err != nil || status != h.status {
					break
				}
			}
		}
		fmt.Fprintf(w, "  %s: %d, %d bytes, %v\n", h.name, status, size, short(time.Since(t0)))
		if err != nil || status != h.status {
			fmt.Fprintf(w, "    want %d (%v)\n", h.status, err)
			ok = false
		}
	}
	var (
		next    atomic.Int64
		mu      sync.Mutex
		lat     = map[string][]time.Duration{}
		byCode  = map[int]int{}
		failed  atomic.Int64
		wg      sync.WaitGroup
		fetches = []string{"/api/scenarios/%s/result", "/s/%s", "/s/%s/chart.svg?picture=queue", "/s/%s/metrics.csv"}
	)
	for range workers {
		wg.Go(func() {
			for ctx.Err() == nil {
				i := next.Add(1)
				if i > int64(n) {
					return
				}
				id, err := lt.shareBody(ctx, wideScenario(fmt.Sprintf("loadtest-wide-%s-%d", lt.stamp, i)), 30)
				if err != nil {
					if ctx.Err() == nil {
						failed.Add(1)
					}
					continue
				}
				for _, f := range fetches {
					t0 := time.Now()
					status, err := lt.get(ctx, lt.base+fmt.Sprintf(f, id))
					d := time.Since(t0)
					if err != nil {
						if ctx.Err() == nil {
							failed.Add(1)
						}
						continue
					}
					mu.Lock()
					byCode[status]++
					lat[f] = append(lat[f], d)
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	stopSampling()
	sampler.Wait()
	lt.sampleRSS(context.Background(), &rss)
	shared := min(next.Load(), int64(n))
	fmt.Fprintf(w, "  %d wide scenarios shared and fetched in %v (transport errors %d), answers %v\n", shared, short(time.Since(begin)), failed.Load(), byCode)
	for _, f := range fetches {
		l := lat[f]
		slices.Sort(l)
		fmt.Fprintf(w, "  GET %-28s %s\n", strings.ReplaceAll(f, "%s", "{id}"), latencies(l))
	}
	mb := func(n int64) string { return fmt.Sprintf("%.0f MB", float64(n)/1e6) }
	fmt.Fprintf(w, "  server memory (RSS): %s at the start, peak %s, %s at the end\n", mb(rss.first.Load()), mb(rss.peak.Load()), mb(rss.last.Load()))
	for code := range byCode {
		if code != http.StatusOK {
			ok = false
		}
	}
	return ok && failed.Load() == 0 && ctx.Err() == nil
}

// countWriter counts the bytes written to it.
type countWriter struct{ n int }

func (c *countWriter) Write(p []byte) (int, error) { c.n += len(p); return len(p), nil }
