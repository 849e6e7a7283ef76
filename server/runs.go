package server

import (
	"container/list"
	"context"
	"errors"
	"net/http"
	"sync"

	"github.com/labstack/echo/v4"

	"github.com/retrylab/retrylab/shared/engine"
)

// A runner runs scenarios for the server: results are cached by ID (they are
// deterministic), concurrent requests for the same ID share one run, no more
// than MaxRuns run at once, and up to MaxWaiting more wait for a slot (as long
// as their request lasts). Past that, requests are shed at once with 503:
// a short queue, not an unbounded one.
type runner struct {
	cfg     Config
	metrics *metrics
	slots   chan struct{}
	waiting chan struct{}

	mu       sync.Mutex
	cache    map[string]*list.Element
	order    *list.List // most recently used first
	inflight map[string]*flight
}

type cached struct {
	id  string
	res *engine.Result
}

type flight struct {
	done chan struct{}
	res  *engine.Result
	err  error
}

func newRunner(cfg Config, m *metrics) *runner {
	return &runner{cfg: cfg, metrics: m, slots: make(chan struct{}, cfg.MaxRuns), waiting: make(chan struct{}, cfg.MaxWaiting),
		cache: map[string]*list.Element{}, order: list.New(), inflight: map[string]*flight{}}
}

// errBusy sheds load: every run slot is taken.
var errBusy = echo.NewHTTPError(http.StatusServiceUnavailable, "the server is running as many scenarios as it can; try again in a moment, or run it in the playground")

// result returns the result of scenario sc, stored under id.
func (r *runner) result(ctx context.Context, id string, sc *engine.Scenario) (*engine.Result, error) {
	r.mu.Lock()
	if el, ok := r.cache[id]; ok {
		r.order.MoveToFront(el)
		r.mu.Unlock()
		r.metrics.cacheHits.Inc()
		return el.Value.(*cached).res, nil
	}
	if f, ok := r.inflight[id]; ok {
		r.mu.Unlock()
		select {
		case <-f.done:
			return f.res, f.err
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	f := &flight{done: make(chan struct{}), err: errRunFailed}
	r.inflight[id] = f
	r.mu.Unlock()
	defer func() { // also when the run panics: nobody waits for a flight that never lands
		r.mu.Lock()
		delete(r.inflight, id)
		if f.err == nil {
			r.cache[id] = r.order.PushFront(&cached{id: id, res: f.res})
			for r.order.Len() > r.cfg.CacheSize {
				old := r.order.Remove(r.order.Back()).(*cached)
				delete(r.cache, old.id)
			}
		}
		r.mu.Unlock()
		close(f.done)
	}()
	f.res, f.err = r.run(ctx, sc)
	return f.res, f.err
}

// errRunFailed is what requests sharing a run get when it panicked.
var errRunFailed = errors.New("the run failed")

func (r *runner) run(ctx context.Context, sc *engine.Scenario) (*engine.Result, error) {
	if est := engine.Estimate(sc); est > r.cfg.MaxEvents {
		return nil, tooCostly(&engine.CostError{Estimate: est, Limit: r.cfg.MaxEvents})
	}
	if err := r.acquire(ctx); err != nil {
		return nil, err
	}
	defer func() { <-r.slots }()
	// Other requests may be waiting for this run: the client that started it
	// going away does not stop it, only the run timeout does.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), r.cfg.RunTimeout)
	defer cancel()
	timer := r.metrics.runSeconds
	done := timer.start()
	res, err := engine.Run(ctx, sc, engine.Options{MaxEvents: r.cfg.MaxEvents})
	done()
	switch {
	case engine.IsCost(err):
		var ce *engine.CostError
		errors.As(err, &ce)
		return nil, tooCostly(ce)
	case errors.Is(err, engine.ErrStopped):
		return nil, echo.NewHTTPError(http.StatusServiceUnavailable, "the run took longer than the server allows; try again later, or run it in the playground, which runs anything in your browser")
	case err != nil:
		return nil, err
	}
	return res, nil
}

// acquire takes a run slot, waiting in the short queue if every slot is
// taken, or sheds the request if the queue is full too.
func (r *runner) acquire(ctx context.Context) error {
	select {
	case r.slots <- struct{}{}:
		return nil
	default:
	}
	select {
	case r.waiting <- struct{}{}:
		defer func() { <-r.waiting }()
	default:
		r.metrics.shed.Inc()
		return errBusy
	}
	select {
	case r.slots <- struct{}{}:
		return nil
	case <-ctx.Done():
		r.metrics.shed.Inc()
		return errBusy
	}
}

// A pageCache keeps the final bytes of answers about IDs, plain and
// gzipped: they never change for an engine version, so a cached page costs a
// map lookup instead of a render and a compression.
type pageCache struct {
	mu    sync.Mutex
	m     map[string]*list.Element
	order *list.List
	max   int
}

type cachedPage struct {
	key, ctype string
	body, gz   []byte
	builtin    bool // about a built-in, whose answers may change with a release
	headers    http.Header
}

func newPageCache(n int) *pageCache {
	return &pageCache{m: map[string]*list.Element{}, order: list.New(), max: n}
}

func (pc *pageCache) get(key string) (*cachedPage, bool) {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	if el, ok := pc.m[key]; ok {
		pc.order.MoveToFront(el)
		return el.Value.(*cachedPage), true
	}
	return nil, false
}

func (pc *pageCache) put(p *cachedPage) {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	if _, ok := pc.m[p.key]; ok {
		return
	}
	pc.m[p.key] = pc.order.PushFront(p)
	for pc.order.Len() > pc.max {
		old := pc.order.Remove(pc.order.Back()).(*cachedPage)
		delete(pc.m, old.key)
	}
}

func tooCostly(ce *engine.CostError) error {
	return echo.NewHTTPError(http.StatusUnprocessableEntity,
		ce.Error()+". The server runs scenarios up to its limit; the playground runs anything in your browser.")
}
