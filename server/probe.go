// The metastability probe on the server (Config.Probe, probe.Run as
// retrylab probe runs it): GET /api/scenarios/:id/probe answers its
// result and view as JSON, GET /s/:id/probe as a page, and the comparison
// page links to the probe of each strategy it can run. Without
// Config.Probe (the Worker, which leaves the probe out for size) its
// routes answer 501 naming what runs it, and pages link to no probe.
//
// A probe is many runs of one strategy (the baseline, then bisection of
// three remedies: up to about 25 runs on each seed), so it has budgets of
// its own, derived from the runs': probeCostFactor times Config.MaxEvents
// for its estimate (every simulation bisection can make), and
// probeTimeFactor times Config.RunTimeout for its time. Otherwise it is
// run as a run is: refused before anything runs when over its budget, on
// one of the runner's slots (one core; 503 and Retry-After past the
// waiting queue), shared by the requests that ask for it at once, its
// result kept by (ID, strategy, at, settle), and its answers cached and
// served like every other answer about an ID.

package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/retrylab/retrylab/shared/engine"
	"github.com/retrylab/retrylab/shared/engine/probe"
	"github.com/retrylab/retrylab/shared/view"
)

// errNoProbe answers the probe's routes of a server without Config.Probe.
var errNoProbe = echo.NewHTTPError(http.StatusNotImplemented,
	"this server (the Cloudflare Workers build) does not run metastability probes; use the command line (retrylab probe SLUG|FILE --strategy NAME) or a self-hosted server (retrylab serve)")

// probeCostFactor times Config.MaxEvents is a probe's cost budget: 240
// million events by default. The estimate counts every simulation
// bisection can make at the costliest remedy's cost; the metastable
// built-ins are estimated at 128 million (runaway-cascade's textbook) and
// 195 million (metadata-storm's storage-servers), and process about 17
// million events in 4 s on one core.
const probeCostFactor = view.ProbeCostFactor

// probeTimeFactor times Config.RunTimeout bounds a probe's time: 20 s by
// default, the default request timeout.
const probeTimeFactor = 2

// A probeQuery is what a probe's query asks: the strategy (the first when
// empty), when the remedies start (nil: when the trigger ends) and how
// long after that the judged window starts (0: the engine's default).
type probeQuery struct {
	strategy string
	at       *engine.Duration
	settle   engine.Duration
}

// readProbeQuery reads a probe's query, checking what can be checked
// without the scenario: a bad at or settle is a 400 naming the parameter,
// its value and what is allowed.
func readProbeQuery(c echo.Context) (probeQuery, error) {
	q := probeQuery{strategy: c.QueryParam("strategy")}
	if v := c.QueryParam("at"); v != "" {
		d, err := engine.ParseDuration(v)
		if err != nil || d < 0 {
			return q, echo.NewHTTPError(http.StatusBadRequest, fmt.Sprintf("at %q is not a duration of 0s or more such as 25s: when the load reduction and the added workers start (by default when the trigger ends)", v))
		}
		q.at = &d
	}
	if v := c.QueryParam("settle"); v != "" {
		d, err := engine.ParseDuration(v)
		if err != nil || d <= 0 {
			return q, echo.NewHTTPError(http.StatusBadRequest, fmt.Sprintf("settle %q is not a positive duration such as 10s: how long after the remedy the judged window starts (by default %s)", v, probe.DefaultSettle))
		}
		q.settle = d
	}
	return q, nil
}

// values is the query as the probe reads it, for the answer cache's key:
// durations written one way, so that at=25s and at=25000ms are one entry.
func (q probeQuery) values() url.Values {
	v := url.Values{}
	if q.strategy != "" {
		v.Set("strategy", q.strategy)
	}
	if q.at != nil {
		v.Set("at", q.at.String())
	}
	if q.settle > 0 {
		v.Set("settle", q.settle.String())
	}
	return v
}

// probeValues is canonicalQuery for the probe's routes.
func probeValues(c echo.Context) url.Values {
	q, err := readProbeQuery(c)
	if err != nil {
		return url.Values{"invalid": {c.QueryString()}}
	}
	return q.values()
}

// options are the engine's options for the probe the query asks for.
func (s *Server) probeOptions(q probeQuery) probe.Options {
	return probe.Options{Strategy: q.strategy, At: q.at, Settle: q.settle,
		MaxEvents: probeCostFactor * s.cfg.MaxEvents, Parallelism: 1}
}

// probeFits checks the query against the scenario before anything runs:
// the strategy is one of its own (404 listing them), it has no sweep
// (422), and probe.Run would run it: valid, with a judged window, and
// within the server's probe budget (422 saying why not).
//
// A probe refused for its cost is remembered for failedFor under its
// key (probeKey), as a run refused for its cost is: the check runs the
// probe's set-up, which is not free.
func (s *Server) probeFits(id string, q probeQuery) func(sc *engine.Scenario) error {
	return func(sc *engine.Scenario) error {
		if sc.Sweep != nil {
			return echo.NewHTTPError(http.StatusUnprocessableEntity, fmt.Sprintf("this scenario sweeps %s; the probe runs a scenario without a sweep: share one of its values as a scenario of its own and probe that", sc.Sweep.Path))
		}
		if q.strategy != "" && !slices.ContainsFunc(sc.Strategies, func(st engine.Strategy) bool { return st.Name == q.strategy }) {
			names := make([]string, len(sc.Strategies))
			for i, st := range sc.Strategies {
				names[i] = strconv.Quote(st.Name)
			}
			return echo.NewHTTPError(http.StatusNotFound, fmt.Sprintf("strategy: this scenario has no strategy %q; it has %s", q.strategy, strings.Join(names, ", ")))
		}
		key := probeKey(id, sc, q)
		pr := s.probes
		pr.mu.Lock()
		f, ok := pr.failed.get(key)
		pr.mu.Unlock()
		if left := f.until.Sub(s.runs.now()); ok && left > 0 {
			return &rememberedError{f.err, left}
		}
		err := s.probeCheck(sc, s.probeOptions(q))
		var ce *engine.CostError
		switch {
		case err == nil:
			return nil
		case engine.AsErrors(err) != nil:
			return err
		case errors.As(err, &ce):
			err := echo.NewHTTPError(http.StatusUnprocessableEntity, fmt.Sprintf("%v. A probe's budget on this server is %d times a run's; retrylab probe runs any probe on your own machine.",
				err, probeCostFactor))
			pr.mu.Lock()
			pr.failed.put(key, failure{err, s.runs.now().Add(failedFor)})
			pr.mu.Unlock()
			return err
		}
		msg := "the probe cannot judge this scenario: " + err.Error()
		if q.at != nil || q.settle > 0 {
			msg = fmt.Sprintf("the probe cannot judge this scenario with %s: %v", strings.ReplaceAll(q.values().Encode(), "&", ", "), err)
		}
		if strings.Contains(msg, "remedy time or a shorter settle") {
			msg += " (the query's at= and settle=)"
		}
		return echo.NewHTTPError(http.StatusUnprocessableEntity, msg)
	}
}

// probeKey names the probe of sc (stored under id) that q asks for, in
// the probes' result cache and remembered failures: the strategy named,
// the first when none is.
func probeKey(id string, sc *engine.Scenario, q probeQuery) string {
	if q.strategy == "" {
		q.strategy = sc.Strategies[0].Name
	}
	return id + "?" + q.values().Encode()
}

// probeCheck returns what the probe refuses before it simulates
// anything (an invalid scenario or options, an empty judged window, an
// estimate over the budget), or nil when it would run. probe.Run makes
// every such check before its first simulation, which checks the context
// first: with a context already cancelled, nothing runs.
func (s *Server) probeCheck(sc *engine.Scenario, opt probe.Options) error {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	opt.Parallelism = 1 // the first simulation runs alone, and checks ctx first
	_, err := s.probes.run(ctx, sc, opt)
	if errors.Is(err, engine.ErrStopped) && errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}

// probeRuns keeps the probes' results and the probes under way.
type probeRuns struct {
	mu       sync.Mutex
	cache    *lru[*probe.Result]
	failed   *lru[failure]
	inflight map[string]*probeFlight
	// run is Config.Probe, nil without it; tests replace it.
	run func(context.Context, *engine.Scenario, probe.Options) (*probe.Result, error)
}

// A probeFlight is a probe that requests for it share: no request's own,
// as a runner's flight is not (runs.go).
type probeFlight struct {
	done    chan struct{}
	res     *probe.Result
	err     error
	waiters int // under probeRuns.mu
	stop    context.CancelFunc
}

func newProbeRuns(cfg Config) *probeRuns {
	return &probeRuns{
		cache:    newLRU(cfg.CacheSize, 4<<20, 64<<10, func(r *probe.Result) int64 { return 4096 }),
		failed:   newLRU(cfg.CacheSize, 1<<20, 1<<10, func(f failure) int64 { return 256 + int64(len(f.err.Error())) }),
		inflight: map[string]*probeFlight{},
		run:      cfg.Probe,
	}
}

// probe returns the probe of sc (stored under id) that q asks for, run at
// most once at a time and kept: its result is deterministic. The request
// waits until the probe is done or its ctx is; the probe stops when every
// request waiting for it has gone.
func (s *Server) probe(ctx context.Context, id string, sc *engine.Scenario, q probeQuery) (*probe.Result, error) {
	start := s.runs.now() // before any flight can start: its probe's time is the wait
	if q.strategy == "" {
		q.strategy = sc.Strategies[0].Name
	}
	key := probeKey(id, sc, q)
	pr := s.probes
	pr.mu.Lock()
	if res, ok := pr.cache.get(key); ok {
		pr.mu.Unlock()
		return res, nil
	}
	if f, ok := pr.failed.get(key); ok {
		if left := f.until.Sub(s.runs.now()); left > 0 {
			pr.mu.Unlock()
			return nil, &rememberedError{f.err, left}
		}
	}
	f, joined := pr.inflight[key]
	// A flight every waiter has left is stopping: start another.
	joined = joined && f.waiters > 0
	if joined {
		f.waiters++
	} else {
		// Its client pays for the time it holds a slot, as for a run.
		settle, err := s.spend.reserve(clientOf(ctx), probeTimeFactor*s.cfg.RunTimeout)
		if err != nil {
			pr.mu.Unlock()
			return nil, err
		}
		var fctx context.Context
		f = &probeFlight{done: make(chan struct{}), waiters: 1}
		fctx, f.stop = context.WithCancel(context.WithoutCancel(ctx))
		pr.inflight[key] = f
		go s.flyProbe(fctx, key, sc, q, f, settle)
	}
	pr.mu.Unlock()
	// The wait is paid for by the probe: not by the answer being built.
	defer func() { waitedFor(ctx, s.runs.now().Sub(start)) }()
	select {
	case <-f.done:
		return f.res, f.err
	case <-ctx.Done():
		pr.mu.Lock()
		if f.waiters--; f.waiters == 0 {
			f.stop() // nobody waits: stop it, waiting for a slot or running
		}
		pr.mu.Unlock()
		return nil, ctx.Err()
	}
}

// flyProbe runs the probe flight f and lands it: its result kept, or its
// remembered failure; a panic is recovered (every waiting request's 500).
func (s *Server) flyProbe(ctx context.Context, key string, sc *engine.Scenario, q probeQuery, f *probeFlight, settle func(used time.Duration)) {
	pr := s.probes
	var used time.Duration
	defer func() {
		settle(used)
		if p := recover(); p != nil {
			f.res, f.err = nil, &panicError{p, debug.Stack()}
		}
		f.stop()
		pr.mu.Lock()
		if pr.inflight[key] == f { // not a later flight that replaced it
			delete(pr.inflight, key)
		}
		var re *rememberedError
		switch {
		case f.err == nil:
			pr.cache.put(key, f.res)
		case errors.As(f.err, &re):
			pr.failed.put(key, failure{re.err, s.runs.now().Add(re.left)})
		}
		pr.mu.Unlock()
		close(f.done)
	}()
	f.res, f.err = s.runProbe(ctx, sc, q, &used)
}

// runProbe runs a probe on one of the runner's slots, under the probe
// timeout, or until ctx ends (every request for it has left); used is set
// to the time it held the slot. One that hits the timeout is not run
// again for failedFor.
func (s *Server) runProbe(ctx context.Context, sc *engine.Scenario, q probeQuery, used *time.Duration) (*probe.Result, error) {
	if err := s.runs.acquire(ctx); err != nil {
		return nil, err
	}
	defer func(start time.Time) { *used = s.runs.now().Sub(start); <-s.runs.slots }(s.runs.now())
	timeout := probeTimeFactor * s.cfg.RunTimeout
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	done := s.metrics.runSeconds.start()
	res, err := s.probes.run(ctx, sc, s.probeOptions(q))
	done()
	if errors.Is(err, engine.ErrStopped) && errors.Is(err, context.DeadlineExceeded) {
		return nil, &rememberedError{echo.NewHTTPError(http.StatusServiceUnavailable, fmt.Sprintf(
			"the probe took longer than the server allows (%s); it is not run again for %s. retrylab probe runs it on your own machine.", timeout, failedFor)), failedFor}
	}
	return res, err
}

func (s *Server) handleProbeAPI(c echo.Context) error {
	if s.probes.run == nil {
		return errNoProbe
	}
	q, err := readProbeQuery(c)
	if err != nil {
		return err
	}
	id := c.Param("id")
	sub, err := s.begin(c, id, s.probeFits(id, q))
	if sub == nil {
		return err
	}
	c.Response().Header().Set("Access-Control-Allow-Origin", "*")
	return s.serveCached(c, sub.builtin != nil, echo.MIMEApplicationJSON, func() ([]byte, error) {
		res, err := s.probe(c.Request().Context(), id, sub.sc, q)
		if err != nil {
			return nil, err
		}
		return json.Marshal(view.AnswerOf(res))
	})
}

func (s *Server) handleProbePage(c echo.Context) error {
	if s.probes.run == nil {
		return errNoProbe
	}
	q, err := readProbeQuery(c)
	if err != nil {
		return err
	}
	id := c.Param("id")
	sub, err := s.begin(c, id, s.probeFits(id, q))
	if sub == nil {
		return err
	}
	return s.serveCached(c, sub.builtin != nil, echo.MIMETextHTMLCharsetUTF8, func() ([]byte, error) {
		res, err := s.probe(c.Request().Context(), id, sub.sc, q)
		if err != nil {
			return nil, err
		}
		v := &probePageView{Title: title(sub.sc, sub.builtin), Builtin: sub.builtin != nil, Probe: view.Probe(res),
			PageURL: "/s/" + id, APIURL: "/api/scenarios/" + id + "/probe"}
		if qs := q.values().Encode(); qs != "" {
			v.APIURL += "?" + qs
		}
		for _, l := range s.probeLinks(id, sub.sc) {
			if l.Strategy != res.Strategy {
				v.Others = append(v.Others, l)
			}
		}
		return renderBytes(c, probePage(s.assets, v))
	})
}

// probeLinks are the links to the probe of each of sc's strategies that
// the server would run with the default options (none for a sweep, or
// without Config.Probe): the comparison page's "What ends the storm?"
// line.
func (s *Server) probeLinks(id string, sc *engine.Scenario) []strategyLink {
	if sc.Sweep != nil || s.probes.run == nil {
		return nil
	}
	var links []strategyLink
	for _, st := range sc.Strategies {
		q := probeQuery{strategy: st.Name}
		if s.probeCheck(sc, s.probeOptions(q)) == nil {
			links = append(links, strategyLink{Strategy: st.Name, URL: "/s/" + id + "/probe?" + q.values().Encode()})
		}
	}
	return links
}
