package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sync/atomic"
	"testing"
)

// parallelScenario reads testdata/name.json, with at least runs runs when it
// names no seeds.
func parallelScenario(t testing.TB, name string, runs int) *Scenario {
	t.Helper()
	data, err := os.ReadFile("testdata/" + name + ".json")
	if err != nil {
		t.Fatal(err)
	}
	sc, err := Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	if len(sc.Seeds) == 0 {
		sc.Runs = max(sc.Runs, runs)
	}
	return sc
}

// TestParallelSameBytes checks that the parallelism does not change a
// result, byte for byte, with and without its time series, for a sweep too.
func TestParallelSameBytes(t *testing.T) {
	for _, name := range []string{"e03b", "sweep", "mixed", "pipeline", "consumer", "scripted"} {
		for _, noSeries := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/noSeries=%v", name, noSeries), func(t *testing.T) {
				sc := parallelScenario(t, name, 3)
				var want []byte
				for _, par := range []int{1, 2, 8, 0} {
					res, err := Run(context.Background(), sc, Options{NoSeries: noSeries, Parallelism: par})
					if err != nil {
						t.Fatal(err)
					}
					got, err := json.Marshal(res)
					if err != nil {
						t.Fatal(err)
					}
					if want == nil {
						want = got
						continue
					}
					if !bytes.Equal(got, want) {
						t.Errorf("parallelism %d: %d bytes differ from the serial run's %d", par, len(got), len(want))
					}
				}
			})
		}
	}
}

// TestParallelCancel checks that cancelling the context stops a parallel run
// and that its error wraps ErrStopped and the context's.
func TestParallelCancel(t *testing.T) {
	sc := parallelScenario(t, "e03b", 40)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var calls atomic.Int32
	res, err := Run(ctx, sc, Options{NoSeries: true, Parallelism: 4, Progress: func(done, total int) {
		calls.Add(1)
		if done == 2 {
			cancel()
		}
	}})
	if res != nil || !errors.Is(err, ErrStopped) || !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, %v; want no result and an error wrapping ErrStopped and context.Canceled", res, err)
	}
	// The four running when it is cancelled may finish; none starts after.
	if n, total := calls.Load(), int32(40*len(sc.Strategies)); n >= total/2 {
		t.Errorf("%d of %d simulations finished after the cancel at 2", n, total)
	}

	ctx, cancel = context.WithCancel(context.Background())
	cancel()
	if _, err := Run(ctx, sc, Options{Parallelism: 8}); !errors.Is(err, ErrStopped) || !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled before: %v", err)
	}
}

// TestParallelProgress checks that a parallel run reports every count from 1
// to the total once, in order, one call at a time.
func TestParallelProgress(t *testing.T) {
	sc := parallelScenario(t, "sweep", 5)
	var got []int
	var inside atomic.Int32
	total := -1
	_, err := Run(context.Background(), sc, Options{Parallelism: 8, Progress: func(done, n int) {
		if inside.Add(1) != 1 {
			t.Error("progress called from two goroutines at once")
		}
		got = append(got, done)
		total = n
		inside.Add(-1)
	}})
	if err != nil {
		t.Fatal(err)
	}
	want := len(SeedsOf(sc)) * len(sc.Strategies) * len(sc.Sweep.Values)
	if total != want || len(got) != want {
		t.Fatalf("total %d, %d calls; want %d", total, len(got), want)
	}
	for i, d := range got {
		if d != i+1 {
			t.Fatalf("call %d reported %d", i, d)
		}
	}
}

// TestParallelFirstError checks that a parallel run returns the error that a
// serial run does, that of the first simulation to fail, when several fail.
func TestParallelFirstError(t *testing.T) {
	calls := 0
	for _, par := range []int{1, 2, 8} {
		err := runParallel(context.Background(), 20, par, func(ctx context.Context, k int) error {
			if k == 5 || k == 6 || k == 15 {
				return fmt.Errorf("simulation %d", k)
			}
			return nil
		}, &progress{f: func(int, int) { calls++ }})
		if err == nil || err.Error() != "simulation 5" {
			t.Errorf("parallelism %d: %v; want simulation 5's error", par, err)
		}
	}
}

// BenchmarkE03BRuns100 runs E03-B on 100 seeds (400 simulations), serially
// and on two goroutines: `go test -bench E03BRuns100 -cpu 1,2` shows the
// speed-up of the second with two cores.
func BenchmarkE03BRuns100(b *testing.B) {
	sc := parallelScenario(b, "e03b", 100)
	sc.Runs = 100
	for _, par := range []int{1, 2} {
		b.Run(fmt.Sprintf("parallelism=%d", par), func(b *testing.B) {
			for b.Loop() {
				if _, err := Run(context.Background(), sc, Options{NoSeries: true, Parallelism: par}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestParallelSameError checks that a run whose simulations the event limit
// stops reports the same error whatever the parallelism: the first
// simulation's to fail in the serial order.
func TestParallelSameError(t *testing.T) {
	sc, err := Parse([]byte(`{"version": 1, "name": "endless", "runs": 4,
		"workload": {"clients": 1, "arrival": "uniform", "rate": 100, "operations": 50},
		"dependency": {"workers": 10, "service_time": {"kind": "constant", "mean": "1ms"}, "queue_capacity": 100, "error_rate": 1},
		"strategies": [{"name": "bounded", "max_attempts": 3},
			{"name": "endless", "max_attempts": 0, "backoff": {"kind": "constant", "base": "1ms"}},
			{"name": "endless-slower", "max_attempts": 0, "backoff": {"kind": "constant", "base": "3ms"}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	limit := Estimate(sc)
	var want string
	for _, par := range []int{1, 2, 8} {
		_, err := Run(context.Background(), sc, Options{MaxEvents: limit, NoSeries: true, Parallelism: par})
		var ce *CostError
		if !errors.As(err, &ce) || ce.Processed == 0 || !errors.Is(err, ErrStopped) {
			t.Fatalf("parallelism %d: %v; want a CostError of a stopped simulation", par, err)
		}
		got := fmt.Sprintf("%+v %v", *ce, err)
		if par == 1 {
			want = got
		} else if got != want {
			t.Errorf("parallelism %d: %s; the serial run gives %s", par, got, want)
		}
	}
}
