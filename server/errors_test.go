package server

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/retrylab/retrylab/shared/chart"
	"github.com/retrylab/retrylab/shared/engine"
)

// TestErrorAnswer pins what errorAnswer, the one map from errors to
// answers, tells the client of each kind of error, wrapped as the server's
// code wraps it.
func TestErrorAnswer(t *testing.T) {
	s, _ := testServer(t, func(c *Config) { c.RunTimeout, c.PostRate = 10*time.Second, 2 })
	stopped := fmt.Errorf("%w: %w", engine.ErrStopped, context.DeadlineExceeded)
	cost := &engine.CostError{Estimate: 2e9, Limit: 3e7}
	for _, tc := range []struct {
		desc       string
		err        error
		status     int
		msg        string // a part of the message
		retryAfter time.Duration
		problems   int
	}{
		{"not JSON", engine.Errors{{Message: "invalid character"}}, 400, "the scenario is not valid", 0, 1},
		{"invalid fields", engine.Errors{{Path: "workload.rate", Message: "must be > 0"}, {Path: "name", Message: "missing"}}, 422, "every problem is listed", 0, 2},
		{"too costly", cost, 422, "the playground runs anything in your browser", 0, 0},
		{"result too large", &sizeError{9e6, 8e6}, 422, "9.0 MB of numbers", 0, 0},
		{"run timeout", stopped, 503, "took longer than the server allows (10s)", failedFor, 0},
		{"run timeout remembered", &rememberedError{stopped, 359600 * time.Millisecond}, 503, "took longer", 360 * time.Second, 0},
		{"run timeout remembered, under a second left", &rememberedError{stopped, 400 * time.Millisecond}, 503, "took longer", time.Second, 0},
		{"too costly remembered", &rememberedError{cost, time.Minute}, 422, "events", 0, 0},
		{"every slot taken", errBusy, 503, "running as many scenarios as it can", 2 * time.Second, 0},
		{"full store", fmt.Errorf("storing scenario x: %w", fmt.Errorf("disk: %w", syscall.ENOSPC)), 503, "cannot store scenarios right now", time.Minute, 0},
		{"read-only store", fmt.Errorf("storing scenario x: %w", syscall.EROFS), 503, "cannot store scenarios right now", time.Minute, 0},
		{"rate limited", errRateLimited, 429, "too many scenarios shared", time.Second, 0},
		{"chart option", &chart.OptionError{Msg: "no series at 7ms"}, 400, "no series at 7ms", 0, 0},
		{"request check", echo.NewHTTPError(http.StatusUnsupportedMediaType, "send JSON"), 415, "send JSON", 0, 0},
		{"request timeout", context.DeadlineExceeded, 503, "the server took too long", 2 * time.Second, 0},
		{"client gone", context.Canceled, 499, "", 0, 0},
		{"anything else", errors.New("disk on fire"), 500, "something went wrong on our side", 0, 0},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			a := s.errorAnswer(tc.err)
			if a.status != tc.status || !strings.Contains(a.msg, tc.msg) || a.retryAfter != tc.retryAfter || len(a.problems) != tc.problems {
				t.Errorf("errorAnswer(%v) = %d %q, Retry-After %v, %d problems; want %d containing %q, Retry-After %v, %d problems",
					tc.err, a.status, a.msg, a.retryAfter, len(a.problems), tc.status, tc.msg, tc.retryAfter, tc.problems)
			}
			if strings.Contains(a.msg, "disk on fire") {
				t.Errorf("the message %q shows the error's detail", a.msg)
			}
		})
	}
}
