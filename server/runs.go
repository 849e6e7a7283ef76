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

	cache    *lru[*engine.Result]
	mu       sync.Mutex
	inflight map[string]*flight
}

type flight struct {
	done chan struct{}
	res  *engine.Result
	err  error
}

func newRunner(cfg Config, m *metrics) *runner {
	return &runner{cfg: cfg, metrics: m, slots: make(chan struct{}, cfg.MaxRuns), waiting: make(chan struct{}, cfg.MaxWaiting),
		cache: newLRU[*engine.Result](cfg.CacheSize), inflight: map[string]*flight{}}
}

// errBusy sheds load: every run slot is taken.
var errBusy = echo.NewHTTPError(http.StatusServiceUnavailable, "the server is running as many scenarios as it can; try again in a moment, or run it in the playground")

// result returns the result of scenario sc, stored under id.
func (r *runner) result(ctx context.Context, id string, sc *engine.Scenario) (*engine.Result, error) {
	r.mu.Lock()
	if res, ok := r.cache.get(id); ok {
		r.mu.Unlock()
		r.metrics.cacheHits.Inc()
		return res, nil
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
			r.cache.put(id, f.res)
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

// cachedPage is the final bytes of an answer about an ID, plain and gzipped:
// they never change for an engine version, so a cached page costs a map
// lookup instead of a render and a compression.
type cachedPage struct {
	ctype    string
	body, gz []byte
	builtin  bool // about a built-in, whose answers may change with a release
	headers  http.Header
}

// An lru keeps up to max values by key and drops the least recently used.
// It is safe for concurrent use.
type lru[V any] struct {
	mu    sync.Mutex
	max   int
	m     map[string]*list.Element
	order *list.List // of lruEntry[V], most recently used first
}

type lruEntry[V any] struct {
	key string
	v   V
}

func newLRU[V any](max int) *lru[V] {
	return &lru[V]{max: max, m: map[string]*list.Element{}, order: list.New()}
}

func (c *lru[V]) get(key string) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.m[key]; ok {
		c.order.MoveToFront(el)
		return el.Value.(lruEntry[V]).v, true
	}
	var zero V
	return zero, false
}

// put keeps v under key, unless the key is there already.
func (c *lru[V]) put(key string, v V) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.m[key]; ok {
		return
	}
	c.m[key] = c.order.PushFront(lruEntry[V]{key, v})
	for c.order.Len() > c.max {
		delete(c.m, c.order.Remove(c.order.Back()).(lruEntry[V]).key)
	}
}

func (c *lru[V]) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.order.Len()
}

func tooCostly(ce *engine.CostError) error {
	return echo.NewHTTPError(http.StatusUnprocessableEntity,
		ce.Error()+". The server runs scenarios up to its limit; the playground runs anything in your browser.")
}
