package server

import (
	"context"
	"errors"
	"runtime/debug"
	"sync"
	"time"

	"github.com/retrylab/retrylab/shared/engine"
)

// A runner runs scenarios for the server: results are cached by ID (they are
// deterministic), concurrent requests for the same ID share one run, no more
// than MaxRuns run at once, and up to MaxWaiting more wait for a slot (as long
// as a request waits for them). Past that, requests are shed at once with 503:
// a short queue, not an unbounded one.
//
// A run that failed for what it costs (it hit the run timeout or the event
// limit, or its result is larger than the server keeps) is remembered for
// failedFor: requests for it in that time get the same answer at once
// instead of running it again.
type runner struct {
	cfg     Config
	metrics *metrics
	spend   *spending // what each client may start; nil: no limit
	slots   chan struct{}
	waiting chan struct{}
	now     func() time.Time
	// engineRun is engine.Run; tests replace it with one that blocks or
	// panics.
	engineRun func(context.Context, *engine.Scenario, engine.Options) (*engine.Result, error)

	cache    *lru[*engine.Result]
	failed   *lru[failure]
	mu       sync.Mutex
	inflight map[string]*flight
}

// failedFor is how long a run that failed for its cost is not tried again.
const failedFor = 10 * time.Minute

// A failure is a remembered failed run: its error, and until when.
type failure struct {
	err   error
	until time.Time
}

// A flight is a run that requests for one ID share. It is no request's
// own: it waits for a run slot, and runs, until it ends, hits the run
// timeout, or the last request waiting for it gives up, whoever stays.
type flight struct {
	done chan struct{}
	res  *engine.Result
	err  error
	// progress is how far the run has got, for the event streams waiting
	// on it (progress.go).
	progress runProgress
	// waiters counts the requests waiting for it (under runner.mu); when
	// the last gives up, stop ends its wait for a slot.
	waiters int
	stop    context.CancelFunc
}

func newRunner(cfg Config, m *metrics) *runner {
	r := &runner{cfg: cfg, metrics: m, slots: make(chan struct{}, cfg.MaxRuns), waiting: make(chan struct{}, cfg.MaxWaiting),
		now:       time.Now,
		engineRun: engine.Run,
		cache:     newLRU(cfg.CacheSize, cfg.CacheBytes, cfg.MaxResultBytes, resultBytes),
		failed:    newLRU(4*cfg.CacheSize, 1<<20, 1<<10, func(f failure) int64 { return 256 + int64(len(f.err.Error())) }),
		inflight:  map[string]*flight{}}
	m.watchSlots(r.slots)
	return r
}

// resultBytes is what a result is counted for in the cache: its numbers at
// 8 bytes each (4 for a series number, 8 to 16 for others), and what holds
// them.
func resultBytes(res *engine.Result) int64 { return 1024 + 8*res.Size() }

// result returns the result of scenario sc, stored under id.
func (r *runner) result(ctx context.Context, id string, sc *engine.Scenario) (*engine.Result, error) {
	return r.watched(ctx, id, sc, nil)
}

// cached returns the result of id when it is at hand, without running
// anything.
func (r *runner) cached(id string) (*engine.Result, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.cache.get(id)
}

// watched is result; watch, when given, is told of the run the request
// starts (joined false) or joins (true) before it waits for it, not of a
// result from the cache or a remembered failure. The request waits until
// the run is done or its ctx is; the run stops when every request waiting
// for it has gone (not with the ctx of the one that started it).
func (r *runner) watched(ctx context.Context, id string, sc *engine.Scenario, watch func(f *flight, joined bool)) (*engine.Result, error) {
	start := r.now() // before any flight can start: its run's time is the wait
	r.mu.Lock()
	if res, ok := r.cache.get(id); ok {
		r.mu.Unlock()
		r.metrics.cacheHits.Inc()
		return res, nil
	}
	if f, ok := r.failed.get(id); ok {
		if left := f.until.Sub(r.now()); left > 0 {
			r.mu.Unlock()
			return nil, &rememberedError{f.err, left}
		}
	}
	f, joined := r.inflight[id]
	// A flight every waiter has left is stopping: a new request starts
	// another rather than share its end.
	joined = joined && f.waiters > 0
	var fctx context.Context
	var settle func(time.Duration)
	if joined {
		f.waiters++
	} else {
		// The client that starts a run pays for the time it holds a
		// slot; one that could not pay for the whole timeout starts none.
		var err error
		if settle, err = r.spend.reserve(clientOf(ctx), r.cfg.RunTimeout); err != nil {
			r.mu.Unlock()
			return nil, err
		}
		f = &flight{done: make(chan struct{}), waiters: 1}
		fctx, f.stop = context.WithCancel(context.WithoutCancel(ctx))
		r.inflight[id] = f
	}
	r.mu.Unlock()
	if watch != nil {
		watch(f, joined)
	}
	if !joined {
		go r.fly(fctx, id, sc, f, settle)
	}
	// The wait is paid for by the run: not by the answer being built.
	defer func() { waitedFor(ctx, r.now().Sub(start)) }()
	select {
	case <-f.done:
		return f.res, f.err
	case <-ctx.Done():
		r.leave(f)
		return nil, ctx.Err()
	}
}

// leave is a request's giving up on flight f: the last to leave stops
// it, waiting for a slot or running.
func (r *runner) leave(f *flight) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if f.waiters--; f.waiters == 0 {
		f.stop()
	}
}

// fly runs the flight f of id and lands it: its result cached, or its
// failure remembered when it failed for its cost, and f.done closed. A
// panic is recovered here, out of the Recover middleware's reach, and is
// every waiting request's 500.
func (r *runner) fly(ctx context.Context, id string, sc *engine.Scenario, f *flight, settle func(used time.Duration)) {
	var used time.Duration
	defer func() {
		settle(used)
		if p := recover(); p != nil {
			f.res, f.err = nil, &panicError{p, debug.Stack()}
		}
		f.stop()
		r.mu.Lock()
		if r.inflight[id] == f { // not a later flight that replaced it
			delete(r.inflight, id)
		}
		switch {
		case f.err == nil:
			if !r.cache.put(id, f.res) {
				// Larger than the server keeps (its estimate was short):
				// served to the requests that waited for it, but not run
				// again for every later one.
				r.failed.put(id, failure{&sizeError{resultBytes(f.res), r.cfg.MaxResultBytes}, r.now().Add(failedFor)})
			}
		case costly(f.err) || errors.Is(f.err, engine.ErrStopped) && !errors.Is(f.err, context.Canceled):
			// Too costly, or stopped by the run timeout; not a run
			// stopped because every request for it left.
			r.failed.put(id, failure{f.err, r.now().Add(failedFor)})
		}
		r.mu.Unlock()
		close(f.done)
	}()
	f.res, f.err = r.run(ctx, sc, f.progress.hook(), &used)
}

// run runs sc; progress, when not nil, hears of each simulation
// (engine.Options.Progress). It stops at the run timeout, or when ctx
// ends (every request for it has left); used is set to the time it held a
// slot.
func (r *runner) run(ctx context.Context, sc *engine.Scenario, progress func(done, total int), used *time.Duration) (*engine.Result, error) {
	if err := checkCost(r.cfg, sc); err != nil {
		return nil, err
	}
	if err := r.acquire(ctx); err != nil {
		return nil, err
	}
	defer func(start time.Time) { *used = r.now().Sub(start); <-r.slots }(r.now())
	ctx, cancel := context.WithTimeout(ctx, r.cfg.RunTimeout)
	defer cancel()
	timer := r.metrics.runSeconds
	done := timer.start()
	// Errors come back as the engine gives them: *engine.CostError, or
	// engine.ErrStopped for the run timeout; errorAnswer tells the client.
	// A run takes one slot and one core: its simulations run one after the
	// other (Parallelism 1), so MaxRuns slots keep at most MaxRuns cores
	// busy. The server uses every core by running several requests at
	// once; a run on all cores would crowd out the others and make slots
	// mean nothing.
	res, err := r.engineRun(ctx, sc, engine.Options{MaxEvents: r.cfg.MaxEvents, Parallelism: 1, Progress: progress})
	done()
	return res, err
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

// checkCost refuses, before it runs, a scenario over the server's budgets:
// its estimated events, and the size of its result.
func checkCost(cfg Config, sc *engine.Scenario) error {
	if err := engine.CheckCost(sc, cfg.MaxEvents); err != nil {
		return err // with what in the scenario makes its cost
	}
	if est := 1024 + 8*engine.EstimateSize(sc); est > cfg.MaxResultBytes {
		return &sizeError{est, cfg.MaxResultBytes}
	}
	return nil
}
