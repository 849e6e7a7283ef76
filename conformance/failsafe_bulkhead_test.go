package conformance

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/failsafe-go/failsafe-go"
	"github.com/failsafe-go/failsafe-go/bulkhead"
)

// failsafeBulkheadRun starts calls executions at once through one real
// failsafe-go bulkhead of maxConcurrency permits that waits up to maxWait
// for one, each holding its permit for hold, and returns how many were
// refused with bulkhead.ErrFull.
func failsafeBulkheadRun(calls int, maxConcurrency uint, maxWait, hold time.Duration) int {
	bh := bulkhead.NewBuilder[any](maxConcurrency).WithMaxWaitTime(maxWait).Build()
	var wg sync.WaitGroup
	var mu sync.Mutex
	full := 0
	for range calls {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := failsafe.With[any](bh).Get(func() (any, error) {
				time.Sleep(hold)
				return "ok", nil
			})
			if errors.Is(err, bulkhead.ErrFull) {
				mu.Lock()
				full++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return full
}

// TestFailsafeBulkhead: failsafe-go's bulkhead (bulkhead/bulkhead.go,
// v0.9.8, AcquirePermitWithMaxWait, l. 135-163) is a semaphore of
// maxConcurrency permits; an execution that finds none waits up to
// maxWaitTime for one (0: refused at once) and is refused with ErrFull
// after it; any number may wait. Five executions start at once, each
// holding a permit for 1 s, through 2 permits: with no wait 3 are refused;
// with 1.5 s, two run at 0, two at 1 s and the fifth would start at 2 s,
// after its wait: 1 refused; with 2.5 s none (every boundary half a
// second away, for a loaded machine's timers). The engine runs the same
// bulkhead (max_waiting set to the number of callers: failsafe-go has no
// limit on waiters) on five operations at once against a dependency that
// answers in 1 s.
func TestFailsafeBulkhead(t *testing.T) {
	const calls, permits, hold = 5, 2, time.Second
	waits := []time.Duration{0, 1500 * time.Millisecond, 2500 * time.Millisecond}
	want := []int{3, 1, 0} // the semaphore, worked by hand
	var strategies []any
	lib := make([]int, len(waits))
	for i, w := range waits {
		lib[i] = failsafeBulkheadRun(calls, permits, w, hold)
		b := map[string]any{"dependency": "dependency", "max_concurrent": permits}
		if w > 0 {
			b["max_waiting"], b["max_wait"] = calls, w.String()
		}
		strategies = append(strategies, map[string]any{"name": fmt.Sprintf("wait %v", w), "max_attempts": 1, "bulkheads": []any{b}})
	}
	if !equalInts(lib, want) {
		t.Errorf("failsafe-go refused %v of %d executions (waits %v); its source says %v", lib, calls, waits, want)
	}
	res, err := runScenario(map[string]any{"version": 1, "name": "failsafe-go bulkhead",
		"workload":   map[string]any{"clients": calls, "arrival": "burst"},
		"dependency": map[string]any{"workers": calls, "service_time": map[string]any{"kind": "constant", "mean": hold.String()}, "queue_capacity": 0},
		"strategies": strategies}, true)
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range res.Strategies {
		if got := int(s.Metrics.BulkheadRejected); got != lib[i] {
			t.Errorf("%s: the engine's bulkhead refused %d of %d calls, failsafe-go's %d", s.Name, got, calls, lib[i])
		}
	}
}
