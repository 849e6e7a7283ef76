package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// partScenarios are the scenarios the part tests split: a plain one, a
// sweep, seeds listed, a plan of several dependencies with a pool, a
// bulkhead, layers and breakers (their transitions and every kind of
// bin), and a breaker of a strategy's first level that opens.
func partScenarios(t *testing.T) map[string]*Scenario {
	t.Helper()
	several, err := Parse([]byte(severalScenario))
	if err != nil {
		t.Fatal(err)
	}
	several.Runs = 3
	breaker, err := Parse([]byte(`{"version": 1, "name": "breaker parts", "runs": 2,
		"workload": {"clients": 5, "arrival": "poisson", "rate": 20, "duration": "10s"},
		"dependency": {"workers": 2, "service_time": {"kind": "constant", "mean": "10ms"}, "queue_capacity": 5,
			"phases": [{"kind": "outage", "from": "2s", "to": "5s"}]},
		"strategies": [{"name": "a", "max_attempts": 2, "breaker": {"kind": "consecutive", "failures": 5, "break": "1s"}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	return map[string]*Scenario{
		"e03b":      parallelScenario(t, "e03b", 3),
		"sweep":     parallelScenario(t, "sweep", 2),
		"consumer":  parallelScenario(t, "consumer", 1),
		"mixed":     parallelScenario(t, "mixed", 2),
		"fleets":    parallelScenario(t, "fleets", 2),
		"several":   several,
		"autoscale": autoscalePartScenario(t),
		"breaker":   breaker,
	}
}

// resultJSON runs sc with Run and returns its Result's JSON.
func resultJSON(t *testing.T, sc *Scenario, opt Options) []byte {
	t.Helper()
	res, err := Run(context.Background(), sc, opt)
	if err != nil {
		t.Fatal(err)
	}
	return mustJSON(t, res)
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// roundTrip sends a part through JSON, as the browser's workers do, and
// checks that it comes back the same.
func roundTrip(t *testing.T, p *Part) *Part {
	t.Helper()
	b := mustJSON(t, p)
	var q Part
	if err := json.Unmarshal(b, &q); err != nil {
		t.Fatal(err)
	}
	if c := mustJSON(t, &q); !bytes.Equal(b, c) {
		t.Fatalf("a part changes through JSON:\n%s\n%s", b, c)
	}
	return &q
}

// onePerSimulation runs each simulation of sc as a part of its own.
func onePerSimulation(t *testing.T, sc *Scenario, opt Options) []*Part {
	t.Helper()
	n, _, err := Simulations(sc)
	if err != nil {
		t.Fatal(err)
	}
	parts := make([]*Part, n)
	for k := range n {
		p, err := RunPart(context.Background(), sc, opt, []int{k})
		if err != nil {
			t.Fatal(err)
		}
		parts[k] = roundTrip(t, p)
	}
	return parts
}

// regroup splits the simulations of parts (one each) at random into
// between one and len(parts) parts, in random order.
func regroup(rnd *rand.Rand, parts []*Part) []*Part {
	groups := make([]*Part, 1+rnd.IntN(len(parts)))
	for _, k := range rnd.Perm(len(parts)) {
		g := rnd.IntN(len(groups))
		if groups[g] == nil {
			p := *parts[k]
			p.Simulations = nil
			groups[g] = &p
		}
		groups[g].Simulations = append(groups[g].Simulations, parts[k].Simulations...)
	}
	var out []*Part
	for _, g := range groups {
		if g != nil {
			out = append(out, g)
		}
	}
	return out
}

// TestPartsMergeToRun checks that however a run is split into parts, and
// in whatever order they come, Merge gives Run's Result, byte for byte,
// with and without its time series.
func TestPartsMergeToRun(t *testing.T) {
	for name, sc := range partScenarios(t) {
		for _, noSeries := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/noSeries=%v", name, noSeries), func(t *testing.T) {
				opt := Options{NoSeries: noSeries}
				want := resultJSON(t, sc, opt)
				parts := onePerSimulation(t, sc, opt)

				// One part of every simulation, in a shuffled order, on
				// several goroutines: the same outputs as one at a time.
				rnd := rand.New(rand.NewPCG(1, uint64(len(parts))))
				ks := rnd.Perm(len(parts))
				all, err := RunPart(context.Background(), sc, Options{NoSeries: noSeries, Parallelism: 3}, ks)
				if err != nil {
					t.Fatal(err)
				}
				for j, k := range ks {
					if a, b := mustJSON(t, &all.Simulations[j]), mustJSON(t, &parts[k].Simulations[0]); !bytes.Equal(a, b) {
						t.Fatalf("simulation %d differs run with the others and alone", k)
					}
				}
				check := func(what string, ps []*Part) {
					t.Helper()
					res, err := Merge(sc, ps...)
					if err != nil {
						t.Fatalf("%s: %v", what, err)
					}
					if got := mustJSON(t, res); !bytes.Equal(got, want) {
						t.Fatalf("%s: the merged result (%d bytes) differs from Run's (%d bytes)", what, len(got), len(want))
					}
				}
				check("one part", []*Part{roundTrip(t, all)})
				check("a part per simulation", parts)
				for i := range 30 {
					check(fmt.Sprintf("random split %d", i), regroup(rnd, parts))
				}
			})
		}
	}
}

// TestPartsFirstSeeds checks that the simulations of a run's first j
// seeds merge into the Result of the same scenario on those seeds alone,
// so that a result shown early is the one a shorter run gives.
func TestPartsFirstSeeds(t *testing.T) {
	for name, sc := range partScenarios(t) {
		t.Run(name, func(t *testing.T) {
			parts := onePerSimulation(t, sc, Options{})
			n, perSeed, err := Simulations(sc)
			if err != nil {
				t.Fatal(err)
			}
			seeds := len(SeedsOf(sc))
			if n != len(parts) || perSeed*seeds != n {
				t.Fatalf("Simulations: %d, %d per seed; want %d with %d seeds", n, perSeed, len(parts), seeds)
			}
			for j := 1; j <= seeds; j++ {
				first := FirstSeeds(sc, j)
				if got := len(SeedsOf(first)); got != j {
					t.Fatalf("FirstSeeds(%d) has %d seeds", j, got)
				}
				res, err := Merge(first, parts[:j*perSeed]...)
				if err != nil {
					t.Fatal(err)
				}
				if got, want := mustJSON(t, res), resultJSON(t, first, Options{}); !bytes.Equal(got, want) {
					t.Errorf("the first %d seeds' parts merge into %d bytes, not the %d of a run on them alone", j, len(got), len(want))
				}
			}
		})
	}
}

// TestSimulationsOfASweepOfSeeds checks that a sweep that changes the
// seeds offers no early result: its seeds are not those of the scenario.
func TestSimulationsOfASweepOfSeeds(t *testing.T) {
	sc := parallelScenario(t, "sweep", 1)
	sc.Runs = 2
	sc.Sweep = &Sweep{Path: "runs", Values: []json.RawMessage{json.RawMessage("1"), json.RawMessage("3")}}
	n, perSeed, err := Simulations(sc)
	if err != nil {
		t.Fatal(err)
	}
	if want := (1 + 3) * len(sc.Strategies); n != want || perSeed != n {
		t.Errorf("Simulations: %d, %d per seed; want %d, all of them", n, perSeed, want)
	}
	parts := onePerSimulation(t, sc, Options{})
	res, err := Merge(sc, parts...)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := mustJSON(t, res), resultJSON(t, sc, Options{}); !bytes.Equal(got, want) {
		t.Errorf("merged %d bytes, Run gives %d", len(got), len(want))
	}
}

// TestMergeRefuses checks that Merge refuses parts that do not make up the
// run, and parts that do not fit it, with an error rather than a wrong
// result or a panic.
func TestMergeRefuses(t *testing.T) {
	sc := parallelScenario(t, "mixed", 2)
	parts := onePerSimulation(t, sc, Options{})
	other := *sc
	other.Seed = sc.Seed + 100
	otherSeed := onePerSimulation(t, &other, Options{})
	noSeries := onePerSimulation(t, sc, Options{NoSeries: true})
	changed := *sc
	changed.Dependency.Workers++

	edit := func(f func(o *SimulationOutput)) []*Part {
		ps := append([]*Part(nil), parts...)
		ps[0] = roundTrip(t, ps[0]) // a copy
		f(&ps[0].Simulations[0])
		return ps
	}
	for _, c := range []struct {
		desc  string
		sc    *Scenario
		parts []*Part
		want  string
	}{
		{"none", sc, nil, "no parts"},
		{"one missing", sc, parts[1:], "simulation 0 (strategy"},
		{"one twice", sc, append(parts, parts[3]), "simulation 3 is in two parts"},
		{"another seed", sc, append(parts[:1:1], otherSeed[1:]...), "ran on seed"},
		{"another scenario", &changed, parts, "another scenario"},
		{"series in some", sc, append(parts[:1:1], noSeries[1:]...), "time series"},
		{"beyond the run", FirstSeeds(sc, 1), parts, "is not of this run"},
		{"levels cut", sc, edit(func(o *SimulationOutput) { o.Levels = o.Levels[:0] }), "levels of attempts"},
		{"bins cut", sc, edit(func(o *SimulationOutput) { o.Bins[2] = o.Bins[2][:len(o.Bins[2])-1] }), "bins, not"},
		{"bins dropped", sc, edit(func(o *SimulationOutput) { o.Bins = nil }), "none where they do"},
		{"odd base", sc, edit(func(o *SimulationOutput) { o.Base = 3 * o.Base }), "doubled"},
		{"breaker out of range", sc, edit(func(o *SimulationOutput) { o.Transitions = [][5]int64{{1, 0, 0, 7, 0}} }), "out of range"},
		{"an unchanged copy (the control)", sc, edit(func(*SimulationOutput) {}), ""},
	} {
		t.Run(c.desc, func(t *testing.T) {
			res, err := Merge(c.sc, c.parts...)
			if c.want == "" {
				if err != nil {
					t.Fatalf("the control fails: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %v, %v; want an error saying %q", res != nil, err, c.want)
			}
		})
	}
	v := *parts[0]
	v.EngineVersion = "0"
	if _, err := Merge(sc, append([]*Part{&v}, parts[1:]...)...); err == nil || !strings.Contains(err.Error(), "engine version") {
		t.Errorf("a part of another engine version: %v", err)
	}
}

// TestRunPartRefuses checks RunPart's own errors: simulations that are not
// the run's or asked twice, and the checks Run makes, the same.
func TestRunPartRefuses(t *testing.T) {
	sc := parallelScenario(t, "e03b", 2)
	n, _, err := Simulations(sc)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		ks   []int
		want string
	}{
		{[]int{n}, "is not of this run"},
		{[]int{-1}, "is not of this run"},
		{[]int{1, 0, 1}, "asked for twice"},
	} {
		if _, err := RunPart(context.Background(), sc, Options{}, c.ks); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ks %v: %v; want %q", c.ks, err, c.want)
		}
	}
	if p, err := RunPart(context.Background(), sc, Options{}, nil); err != nil || len(p.Simulations) != 0 {
		t.Errorf("no simulations: %v, %v; want an empty part", p, err)
	}
	limit := Estimate(sc) - 1
	_, want := Run(context.Background(), sc, Options{MaxEvents: limit})
	if _, err := RunPart(context.Background(), sc, Options{MaxEvents: limit}, []int{0}); !IsCost(err) || err.Error() != want.Error() {
		t.Errorf("over the limit: %v; Run says %v", err, want)
	}
	bad := *sc
	bad.Strategies = nil
	_, want = Run(context.Background(), &bad, Options{})
	if _, err := RunPart(context.Background(), &bad, Options{}, []int{0}); err == nil || err.Error() != want.Error() {
		t.Errorf("invalid: %v; Run says %v", err, want)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := RunPart(ctx, sc, Options{}, []int{0}); !errors.Is(err, ErrStopped) {
		t.Errorf("cancelled: %v, want it stopped", err)
	}
}

// TestCountsJSON checks that counts round-trip through JSON, whatever
// their values, and that what is not counts is an error.
func TestCountsJSON(t *testing.T) {
	in := Counts{0, 1, -1, 63, 64, 300, -300, 1 << 30, -1 << 31, 1<<31 - 1}
	b := mustJSON(t, in)
	var out Counts
	if err := json.Unmarshal(b, &out); err != nil || fmt.Sprint(out) != fmt.Sprint(in) {
		t.Errorf("%v became %s, then %v (%v)", in, b, out, err)
	}
	for _, bad := range []string{`"gA=="`, `"gICAgIAg"`, `[1, 2]`, `"not base64!"`} {
		if err := json.Unmarshal([]byte(bad), &out); err == nil {
			t.Errorf("%s decoded into %v", bad, out)
		}
	}
}

// TestRunBatchAnswersForEverySimulation: a run handed off through
// Options.RunBatch ends with RunBatch's error when it gives one, even
// after every part has been put, and with an error naming a simulation
// that was never put when RunBatch returns without error.
func TestRunBatchAnswersForEverySimulation(t *testing.T) {
	sc, err := Parse([]byte(`{"version": 1, "name": "handed-off", "seeds": [1, 2],
		"workload": {"clients": 1, "arrival": "uniform", "rate": 10, "operations": 5},
		"dependency": {"workers": 1, "service_time": {"kind": "constant", "mean": "1ms"}, "queue_capacity": 0},
		"strategies": [{"name": "s", "max_attempts": 1}]}`))
	if err != nil {
		t.Fatal(err)
	}
	gone := errors.New("the workers went away")
	for _, tc := range []struct {
		name string
		put  []int // the simulations RunBatch puts
		err  error // and returns
		want string
	}{
		{"all put, then an error", []int{0, 1}, gone, gone.Error()},
		{"none put, an error", nil, gone, gone.Error()},
		{"one put, no error", []int{1}, nil, `engine: simulation 0 (strategy "s" on seed 1) of the batch is missing`},
		{"all put, no error", []int{0, 1}, nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opt := Options{RunBatch: func(ctx context.Context, b *Batch, put func(*Part) error) error {
				if len(tc.put) > 0 {
					part, err := b.Run(ctx, tc.put, Options{})
					if err != nil {
						return err
					}
					if err := put(part); err != nil {
						return err
					}
				}
				return tc.err
			}}
			_, err := RunTuned(context.Background(), sc, nil, opt)
			if got := fmt.Sprint(err); tc.want == "" && err != nil || tc.want != "" && got != tc.want {
				t.Errorf("error %v; want %q", err, tc.want)
			}
			if tc.err != nil && !errors.Is(err, tc.err) {
				t.Errorf("error %v is not RunBatch's", err)
			}
		})
	}
}
