package conformance

import (
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/failsafe-go/failsafe-go"
	"github.com/failsafe-go/failsafe-go/hedgepolicy"
	"github.com/failsafe-go/failsafe-go/retrypolicy"
	"github.com/failsafe-go/failsafe-go/timeout"
)

// failsafeHedgeRun makes the script's calls one after another through a
// real failsafe-go hedge policy (hedgepolicy, delay apart, maxHedges
// extra copies, cancelling on a success only: CancelIf) inside a timeout
// of deadline, each copy answered at once from the call's script (503 a
// failure), and returns the copies each call started. After each call it
// waits past the deadline by a delay, so that a copy the policy would
// still start is counted.
func failsafeHedgeRun(t *testing.T, script []CallScript, delay, deadline time.Duration, maxHedges int) []int {
	t.Helper()
	copies := make([]int, len(script))
	for k, cs := range script {
		var n atomic.Int32
		hp := hedgepolicy.NewBuilderWithDelay[any](delay).WithMaxHedges(maxHedges).
			CancelIf(func(_ any, err error) bool { return err == nil }).Build()
		to := timeout.New[any](deadline)
		start := time.Now()
		_, _ = failsafe.With[any](to, hp).Get(func() (any, error) {
			a := cs[min(int(n.Add(1))-1, len(cs)-1)]
			if a.Status != 200 {
				return nil, errors.New("503")
			}
			return "ok", nil
		})
		time.Sleep(time.Until(start.Add(deadline + delay)))
		copies[k] = int(n.Load())
	}
	return copies
}

// TestFailsafeHedgeCancelIf: failsafe-go's hedge executor
// (hedgepolicy/hedgeexecutor.go, v0.9.8, l. 41-55 and 98-106) waits for
// the hedge timer or for a result its CancelIf cancels on; a failure it
// does not cancel on only ends the wait for that copy, so the next copy
// still leaves at its delay; once the timeout has cancelled the
// execution no copy follows (l. 109-111). Copies 1 s apart, 4 at
// most, a timeout of 2.5 s: an always-failing call sends copies at 0,
// 1 and 2 s (half a second from the deadline either way: the library's
// timers run on a machine that may be loaded, and a test must not race
// them). The engine runs the same policy with
// hedging.after_failure "wait", call by call; with the default "send"
// each failure sends the next copy at once and all 4 go.
func TestFailsafeHedgeCancelIf(t *testing.T) {
	const delay, deadline, maxHedges = time.Second, 2500 * time.Millisecond, 3
	ok, fail := Answer{Status: 200}, Answer{Status: 503}
	script := []CallScript{{fail}, {fail, ok}, {ok}, {fail, fail, ok}}
	want := []int{3, 2, 1, 3} // the executor's loop, worked by hand
	lib := failsafeHedgeRun(t, script, delay, deadline, maxHedges)
	if !equalInts(lib, want) {
		t.Errorf("failsafe-go started %v copies per call; its source says %v", lib, want)
	}
	policy := func(after string) map[string]any {
		return map[string]any{"max_attempts": maxHedges + 1, "deadline": deadline.String(),
			"retry_on": map[string]any{"statuses": []int{503}},
			"hedging":  map[string]any{"delay": delay.String(), "after_failure": after}}
	}
	eng, _, err := EngineCalls(policy("wait"), script, Spacing)
	if err != nil {
		t.Fatal(err)
	}
	if k := firstDiff(lib, eng); k >= 0 {
		t.Errorf("call %d (%v): failsafe-go started %d copies, the engine %d\nfailsafe-go %v\nengine      %v", k, script[k], lib[k], eng[k], lib, eng)
	}
	send, _, err := EngineCalls(policy("send"), script, Spacing)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(send) != fmt.Sprint([]int{4, 2, 1, 3}) {
		t.Errorf("with after_failure send the engine made %v copies per call; want every failure to send the next at once: [4 2 1 3]", send)
	}
}

// TestFailsafeTimeoutAroundRetry: a timeout.New around a retry policy is
// a deadline for the whole call (timeout/timeoutexecutor.go, v0.9.8,
// l. 30-52: the timer cancels the execution, and the
// retry policy's delay ends with it): 5 retries 750 ms apart inside
// 1.875 s make attempts at 0, 0.75 and 1.5 s, and none at 2.25 s (375 ms
// from the deadline either way, for a loaded machine's timers). The
// engine runs the same policy with that deadline, call by call.
func TestFailsafeTimeoutAroundRetry(t *testing.T) {
	const delay, deadline = 750 * time.Millisecond, 1875 * time.Millisecond
	ok, fail := Answer{Status: 200}, Answer{Status: 503}
	script := []CallScript{{fail}, {fail, ok}, {ok}, {fail, fail, ok}}
	want := []int{3, 2, 1, 3}
	lib := make([]int, len(script))
	for k, cs := range script {
		var n atomic.Int32
		rp := retrypolicy.NewBuilder[any]().WithMaxRetries(5).WithDelay(delay).Build()
		start := time.Now()
		_, _ = failsafe.With[any](timeout.New[any](deadline), rp).Get(func() (any, error) {
			if a := cs[min(int(n.Add(1))-1, len(cs)-1)]; a.Status != 200 {
				return nil, errors.New("503")
			}
			return "ok", nil
		})
		time.Sleep(time.Until(start.Add(deadline + delay)))
		lib[k] = int(n.Load())
	}
	if !equalInts(lib, want) {
		t.Errorf("failsafe-go made %v attempts per call; its source says %v", lib, want)
	}
	p := map[string]any{"max_attempts": 6, "deadline": deadline.String(),
		"backoff":  map[string]any{"kind": "constant", "base": delay.String()},
		"retry_on": map[string]any{"statuses": []int{503}}}
	eng, _, err := EngineCalls(p, script, Spacing)
	if err != nil {
		t.Fatal(err)
	}
	if k := firstDiff(lib, eng); k >= 0 {
		t.Errorf("call %d (%v): failsafe-go made %d attempts, the engine %d\nfailsafe-go %v\nengine      %v", k, script[k], lib[k], eng[k], lib, eng)
	}
}
