//go:build !nosearch

// Progress over the API: GET /api/scenarios/:id/result with Accept:
// text/event-stream answers Server-Sent Events while the scenario runs.
// The Worker build leaves this out (nosearch, for size); progress_none.go
// is the other side of this pair.
//
// How progress reaches every request waiting for the same run: the
// runner's flight (runs.go), which requests for an ID share, holds a
// runProgress that the run's engine.Options.Progress writes. Each stream
// reads it and waits on its changed channel, which a write closes and
// replaces: a broadcast, so one run feeds any number of streams, and a
// slow stream never holds the run back (it skips to the latest count).
// A stream that joins a run late starts from the count the run has
// reached. The run does not stop when the stream that started it goes
// away: the others still get it, as the plain answer's requests do.

package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"runtime/debug"
	"strings"
	"sync"

	"github.com/labstack/echo/v4"
)

// handleResultOrStream answers GET /api/scenarios/:id/result: as an event
// stream when the client asks for one, else as handleResult.
func (s *Server) handleResultOrStream(c echo.Context) error {
	if !wantsEventStream(c) || c.Request().Method == http.MethodHead {
		// HEAD is the plain answer's: a stream's headers would wait for
		// the whole run, with nothing to flush.
		return s.handleResult(c)
	}
	return s.streamResult(c)
}

// wantsEventStream reports whether the client asks for Server-Sent Events.
func wantsEventStream(c echo.Context) bool {
	return strings.Contains(c.Request().Header.Get("Accept"), "text/event-stream")
}

// A runProgress is how far a run has got: done of total simulations
// (searches count theirs). It tells its readers of a change only when the
// whole percentage changes, or the run has done everything: at most 101
// events a stream, whatever the run's size, and as many on any machine.
type runProgress struct {
	mu          sync.Mutex
	done, total int
	changed     chan struct{} // closed and replaced at each change
}

// hook returns the engine.Options.Progress that writes p.
func (p *runProgress) hook() func(done, total int) {
	return func(done, total int) {
		p.mu.Lock()
		defer p.mu.Unlock()
		if p.total > 0 && total == p.total && done != total && 100*done/total == 100*p.done/p.total {
			return
		}
		p.done, p.total = done, total
		if p.changed != nil {
			close(p.changed)
		}
		p.changed = make(chan struct{})
	}
}

// state returns how far the run has got (total 0: not started) and a
// channel closed when that changes.
func (p *runProgress) state() (done, total int, changed <-chan struct{}) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.changed == nil {
		p.changed = make(chan struct{})
	}
	return p.done, p.total, p.changed
}

// progressEvent is a progress event's data.
type progressEvent struct {
	Done  int `json:"done"`
	Total int `json:"total"`
}

// streamResult answers GET /api/scenarios/:id/result as Server-Sent
// Events: progress events {"done", "total"} while the scenario runs, then
// a result event with the plain answer's JSON, or an error event with the
// JSON error's body. A cached result, or a remembered failure, is its one
// event at once. What is known before the stream starts (an unknown ID, a
// scenario over the cost budget) is an ordinary error answer.
func (s *Server) streamResult(c echo.Context) error {
	id := c.Param("id")
	ctx := c.Request().Context()
	sub, err := s.lookup(ctx, id)
	if err != nil {
		return err
	}
	if err := checkCost(s.cfg, sub.sc); err != nil {
		return err
	}
	h := c.Response().Header()
	h.Set(echo.HeaderContentType, "text/event-stream; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("Access-Control-Allow-Origin", "*")
	h.Set("X-Accel-Buffering", "no") // proxies: pass each event on
	c.Response().WriteHeader(http.StatusOK)
	w := c.Response()
	flush := func() { _ = http.NewResponseController(w.Writer).Flush() }
	flush()

	type watch struct {
		f      *flight
		joined bool
	}
	type outcome struct {
		body []byte
		err  error
	}
	flights := make(chan watch, 1)
	out := make(chan outcome, 1)
	go func() { // buffered: it never blocks, whenever the stream ends
		defer func() {
			// Out of the Recover middleware's reach: a panic here would
			// end the process. It ends the stream as it ends the plain
			// answer, with a 500 logged with its stack.
			if p := recover(); p != nil {
				out <- outcome{err: &panicError{p, debug.Stack()}}
			}
		}()
		res, err := s.runs.watched(ctx, id, sub.sc, func(f *flight, joined bool) { flights <- watch{f, joined} })
		if err != nil {
			out <- outcome{err: err}
			return
		}
		body, err := json.Marshal(res)
		out <- outcome{body, err}
	}()

	var f *flight
	var changed <-chan struct{}
	last := progressEvent{}
	// progressed writes how far the run has got, when that changed.
	progressed := func() {
		if f == nil {
			return
		}
		var ev progressEvent
		ev.Done, ev.Total, changed = f.progress.state()
		if ev.Total > 0 && ev != last {
			last = ev
			body, _ := json.Marshal(ev)
			writeEvent(w, "progress", body)
			flush()
		}
	}
	for {
		select {
		case wf := <-flights:
			f = wf.f
			// A comment, which clients ignore: says whether this stream
			// started the run or shares one already under way.
			if wf.joined {
				fmt.Fprint(w, ": sharing the run under way\n\n")
			} else {
				fmt.Fprint(w, ": running\n\n")
			}
			flush()
		case <-changed:
		case o := <-out:
			if o.err != nil {
				if ctx.Err() != nil && errors.Is(o.err, ctx.Err()) {
					return s.streamEnd(c, ctx.Err())
				}
				return s.streamError(c, o.err)
			}
			// The run's last progress happened before its end: a
			// stream that learns of both at once writes that progress
			// first (select picks among ready cases at random), and
			// of the flight too, told of before the run started.
			select {
			case wf := <-flights:
				f = wf.f
			default:
			}
			progressed()
			writeEvent(w, "result", o.body)
			flush()
			return nil
		case <-ctx.Done():
			return s.streamEnd(c, ctx.Err())
		}
		progressed()
	}
}

// streamEnd ends an event stream whose request ended (ctx.Err() is err):
// silently when the client went away, with an error event when the
// request timed out.
func (s *Server) streamEnd(c echo.Context, err error) error {
	if errors.Is(err, context.DeadlineExceeded) {
		return s.streamError(c, errTimedOut)
	}
	return nil // the client went away
}

// streamError ends an event stream with an error event: the body the
// JSON error answer would have.
func (s *Server) streamError(c echo.Context, err error) error {
	a := s.errorAnswer(err)
	if a.status == 499 {
		return nil
	}
	s.logError(c, a, err)
	body, _ := json.Marshal(apiError{Error: a.msg, Errors: a.problems})
	writeEvent(c.Response(), "error", body)
	_ = http.NewResponseController(c.Response().Writer).Flush()
	return nil
}

// writeEvent writes one Server-Sent Event; data is one line of JSON.
func writeEvent(w io.Writer, event string, data []byte) {
	fmt.Fprintf(w, "event: %s\ndata: %s\n\n", event, data)
}
