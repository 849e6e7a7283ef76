package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/retrylab/retrylab/shared/chart"
	"github.com/retrylab/retrylab/shared/engine"
)

// Errors travel typed from where they happen (the engine, the runner, the
// store) to handleError, where errorAnswer alone decides what the client is
// told: the status, a plain message and when to try again. Handlers return
// errors as they get them; the few request checks that have nothing to wrap
// return an *echo.HTTPError with the status and message they mean.

// errBusy sheds load: every run slot is taken.
var errBusy = errors.New("every run slot is taken")

// errTimedOut ends an event stream at the server's request timeout; the
// run it waited for goes on.
var errTimedOut = errors.New("the request timed out")

// errRateLimited refuses a POST past the client's rate.
var errRateLimited = errors.New("too many POSTs from this client")

// A sizeError refuses a scenario whose result is, or is estimated to be,
// larger than the server keeps.
type sizeError struct{ size, limit int64 }

func (e *sizeError) Error() string {
	return fmt.Sprintf("the scenario's result would hold about %s of numbers (time series × resolutions × strategies × sweep values), over the server's limit of %s; "+
		"use a coarser report.series_bucket, fewer report.peak_resolutions or strategies, or a shorter workload. The playground runs anything in your browser.",
		megabytes(e.size), megabytes(e.limit))
}

func megabytes(n int64) string { return fmt.Sprintf("%.1f MB", float64(n)/1e6) }

// A rememberedError is the failure of a run that failed for its cost a
// moment ago, answered again for left more.
type rememberedError struct {
	err  error
	left time.Duration
}

func (e *rememberedError) Error() string { return e.err.Error() }
func (e *rememberedError) Unwrap() error { return e.err }

// A panicError is a panic recovered where the Recover middleware cannot
// (a goroutine of a request's): a 500, its value and stack in the log.
type panicError struct {
	value any
	stack []byte
}

func (e *panicError) Error() string { return fmt.Sprintf("[PANIC RECOVER] %v %s", e.value, e.stack) }

// costly reports whether err refuses a scenario for what running it on the
// server would cost (events or result size): the playground can still run
// it, and a page can still describe it.
func costly(err error) bool {
	var se *sizeError
	return engine.IsCost(err) || errors.As(err, &se)
}

// unwritable reports whether err says the store cannot take writes now (a
// full disk, a read-only database); reads may still work.
func unwritable(err error) bool {
	return errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EROFS) || errors.Is(err, syscall.EIO)
}

// An errorAnswer is what a client is told of an error.
type errorAnswer struct {
	status     int
	msg        string
	retryAfter time.Duration // 0: no Retry-After
	problems   engine.Errors // a bad scenario's, each with its path
	// limit marks a 503 that sheds load or answers a limit (every slot
	// taken, a timeout): the server doing its job, a WARN in the log,
	// where a store fault's 503 or a panic's 500 is an ERROR.
	limit bool
}

// level is how an answer is logged: WARN for a limit's 503, ERROR for the
// server's other faults, INFO otherwise.
func (a errorAnswer) level() slog.Level {
	switch {
	case a.limit:
		return slog.LevelWarn
	case serverFault(a.status):
		return slog.LevelError
	}
	return slog.LevelInfo
}

// logLevelKey holds, in an echo.Context, the level of the error its
// answer gave, for the request's log line.
const logLevelKey = "retrylab.logLevel"

// logError logs a request's error at its answer's level (nothing below
// WARN: the request's own line says enough), and keeps the level for
// that line.
func (s *Server) logError(c echo.Context, a errorAnswer, err error) {
	lvl := a.level()
	c.Set(logLevelKey, lvl)
	if lvl >= slog.LevelWarn {
		s.log.Log(c.Request().Context(), lvl, "request failed", "id", c.Response().Header().Get(echo.HeaderXRequestID), "err", err)
	}
}

// errorAnswer maps an error to its answer: the one place that decides the
// status, message and Retry-After of every error. Anything it does not know
// is the server's fault, a 500 whose details only the log sees.
func (s *Server) errorAnswer(err error) errorAnswer {
	a := s.errorAnswerOf(err)
	if a.status == http.StatusServiceUnavailable && a.retryAfter == 0 {
		a.retryAfter = 2 * time.Second
	}
	return a
}

// errorAnswerOf is errorAnswer before a 503 gets its default Retry-After.
func (s *Server) errorAnswerOf(err error) errorAnswer {
	var (
		re *rememberedError
		ce *engine.CostError
		se *sizeError
		oe *chart.OptionError
		he *echo.HTTPError
		ie *importError
		os *overspentError
	)
	switch {
	case errors.As(err, &re):
		a := s.errorAnswerOf(re.err)
		if a.status == http.StatusServiceUnavailable {
			a.retryAfter = max(re.left.Round(time.Second), time.Second)
		}
		return a
	case errors.As(err, &ie):
		return errorAnswer{status: http.StatusUnprocessableEntity, msg: "the configuration could not be imported; every problem is listed with its path in the configuration", problems: ie.problems}
	case engine.AsErrors(err) != nil:
		es := engine.AsErrors(err)
		status := http.StatusUnprocessableEntity
		if len(es) == 1 && es[0].Path == "" {
			status = http.StatusBadRequest // not JSON, or not one object
		}
		return errorAnswer{status: status, msg: "the scenario is not valid; every problem is listed with its path", problems: es}
	case errors.As(err, &ce):
		return errorAnswer{status: http.StatusUnprocessableEntity,
			msg: ce.Error() + ". The server runs scenarios up to its limit; the playground runs anything in your browser."}
	case errors.As(err, &se):
		return errorAnswer{status: http.StatusUnprocessableEntity, msg: se.Error()}
	case errors.Is(err, engine.ErrStopped): // before DeadlineExceeded, which it may wrap
		return errorAnswer{status: http.StatusServiceUnavailable, limit: true, retryAfter: failedFor, msg: fmt.Sprintf(
			"the run took longer than the server allows (%s); it is not run again for %s. The playground runs anything in your browser.",
			s.cfg.RunTimeout, failedFor)}
	case errors.Is(err, errTimedOut):
		return errorAnswer{status: http.StatusServiceUnavailable, limit: true, msg: fmt.Sprintf(
			"the run took longer than a request may last (%s); it goes on while another request waits for it, and its result is kept once it is done: ask again in a moment",
			s.cfg.RequestTimeout)}
	case errors.Is(err, errBusy):
		return errorAnswer{status: http.StatusServiceUnavailable, limit: true,
			msg: "the server is running as many scenarios as it can; try again in a moment, or run it in the playground"}
	case unwritable(err):
		return errorAnswer{status: http.StatusServiceUnavailable, retryAfter: time.Minute,
			msg: "the server cannot store scenarios right now; shared scenarios can still be opened. Try again later, or share from the playground, whose links carry the scenario itself."}
	case errors.As(err, &os):
		return errorAnswer{status: http.StatusTooManyRequests, limit: true, retryAfter: os.wait, msg: os.Error()}
	case errors.Is(err, errRateLimited):
		return errorAnswer{status: http.StatusTooManyRequests, retryAfter: time.Duration(max(1, int(1/s.cfg.PostRate+0.999))) * time.Second,
			msg: "too many scenarios shared from this address; wait a moment and try again"}
	case errors.As(err, &oe):
		return errorAnswer{status: http.StatusBadRequest, msg: oe.Msg}
	case errors.As(err, &he):
		// A handler's own 503 answers a limit (a probe's timeout).
		limit := he.Code == http.StatusServiceUnavailable
		if m, ok := he.Message.(string); ok {
			return errorAnswer{status: he.Code, msg: m, limit: limit}
		}
		return errorAnswer{status: he.Code, msg: http.StatusText(he.Code), limit: limit}
	case errors.Is(err, context.DeadlineExceeded):
		return errorAnswer{status: http.StatusServiceUnavailable, limit: true, msg: "the server took too long; try again"}
	case errors.Is(err, context.Canceled):
		// The client went away: nobody reads the answer, and it is no error
		// of ours.
		return errorAnswer{status: 499}
	}
	return errorAnswer{status: http.StatusInternalServerError, msg: "something went wrong on our side; it has been logged"}
}

// An apiError is the JSON body of an API error: a message for people and,
// for a bad scenario, every problem with its path.
type apiError struct {
	Error  string              `json:"error"`
	Errors []engine.FieldError `json:"errors,omitempty"`
}

// answerErrors answers the errors of next (with handleError), so that the
// middlewares outside it see an answer, not an error.
func (s *Server) answerErrors(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if err := next(c); err != nil {
			s.handleError(err, c)
		}
		return nil
	}
}

// handleError turns errors into answers: JSON for the API, pages otherwise.
// Details go to the log; the client gets a plain message.
func (s *Server) handleError(err error, c echo.Context) {
	if c.Response().Committed {
		return
	}
	a := s.errorAnswer(err)
	status := a.status
	if status == 499 {
		c.Response().WriteHeader(499)
		return
	}
	s.logError(c, a, err)
	h := c.Response().Header()
	if a.retryAfter > 0 {
		h.Set("Retry-After", strconv.Itoa(max(1, int(a.retryAfter.Seconds()))))
	}
	// An error is never immutable, whatever the handler had set for the
	// answer it meant to give, and has no ETag to revalidate.
	h.Del("ETag")
	switch {
	case status == http.StatusNotFound: // an ID may be shared a moment later
		h.Set("Cache-Control", "public, max-age=60")
	case status >= 400:
		h.Set("Cache-Control", "no-store")
	}
	if wantsJSON(c) {
		_ = c.JSON(status, apiError{Error: a.msg, Errors: a.problems})
		return
	}
	if status == http.StatusNotFound {
		id := c.Param("id")
		switch {
		case id != "" && !errors.Is(err, errNotFound) && !errors.Is(err, echo.ErrNotFound):
			// Not the ID but something the request names about it (an
			// export's strategy): its message says what.
			_ = render(c, status, errorPage(s.assets, status, http.StatusText(status), a.msg))
		case id != "" && strings.HasPrefix(c.Path(), "/embed/"):
			_ = render(c, status, embedMissing(s.assets, id))
		case id != "":
			_ = render(c, status, notFoundPage(s.assets, "with the ID "+strconv.Quote(id)))
		default:
			_ = render(c, status, notFoundPage(s.assets, ""))
		}
		return
	}
	_ = render(c, status, errorPage(s.assets, status, http.StatusText(status), a.msg))
}

// serverFault reports whether an answer's status is the server's fault,
// worth an ERROR in the log: a 5xx, but not 501, which answers a request
// for something the server does not do.
func serverFault(status int) bool {
	return status >= 500 && status != http.StatusNotImplemented
}

// wantsJSON reports whether an error is answered in JSON: for the API, for
// oEmbed, for an export asked for as JSON (as=json), and for clients that
// ask for it.
func wantsJSON(c echo.Context) bool {
	p := c.Request().URL.Path
	return strings.HasPrefix(p, "/api/") || p == "/oembed" || c.QueryParam("as") == "json" ||
		strings.Contains(c.Request().Header.Get("Accept"), "application/json")
}
