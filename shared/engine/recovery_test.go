package engine

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// recoveryOf is recovery over every step at once, as the engine measured
// it before recoveryCounts: total and ok count operations by start, per
// step after the fault; only the first judged steps are judged.
func recoveryOf(m *model, total, ok []int32, judged int) (sec, recovered Optional) {
	if m.faultEnd == 0 || judged < recoveryWindow {
		return NotApplicable, NotApplicable
	}
	total, ok = total[:min(len(total), judged)], ok[:min(len(ok), judged)]
	last := judged - recoveryWindow
	from := min(len(total), last+1)
	for k := from - 1; k >= 0; k-- {
		var t, o int32
		for j := k; j < min(k+recoveryWindow, len(total)); j++ {
			t += total[j]
			o += ok[j]
		}
		if t > 0 && float64(o) < float64(0.99*float64(t)) {
			break
		}
		from = k
	}
	if from <= last && from < len(total) {
		return Optional(round3(float64(int64(from)*recoveryStep) / 1e9)), 1
	}
	return NotApplicable, 0
}

// same reports whether a and b are equal or both do not apply.
func same(a, b Optional) bool { return a == b || !a.Applies() && !b.Applies() }

// TestRecoveryCounts checks recoveryCounts, which decides windows as the
// run goes, against recoveryOf on random runs: operations starting in
// order, ending out of order, some long after, with bursts of failures.
func TestRecoveryCounts(t *testing.T) {
	m := &model{faultEnd: 1}
	for seed := range uint64(200) {
		r := rand.New(rand.NewPCG(seed, 9))
		steps := []int{0, 5, 50, 3000, 20000}[seed%5]
		failFrom := r.IntN(steps + 1) // failures stop here, mostly
		type op struct {
			start, end int
			ok         bool
		}
		var ops []op
		for k := range steps {
			for range r.IntN(4) {
				o := op{start: k, end: k + r.IntN(3), ok: r.IntN(1000) != 0}
				switch r.IntN(1000) {
				case 0:
					o.end += 3000 // far longer than settleSteps
				case 1, 2, 3:
					o.end += 20
				}
				if k < failFrom && r.IntN(20) == 0 {
					o.ok = false
				}
				ops = append(ops, o)
			}
		}
		// run feeds ops to rc as a run would, in time order, and returns
		// the most steps rc held at once.
		run := func(rc *recoveryCounts) (most int) {
			byEnd := slices.Clone(ops)
			slices.SortStableFunc(byEnd, func(a, b op) int { return a.end - b.end })
			e := 0
			for _, o := range ops {
				for ; e < len(byEnd) && byEnd[e].end < o.start; e++ {
					rc.end(byEnd[e].start, byEnd[e].ok)
				}
				rc.start(o.start)
				most = max(most, len(rc.total))
			}
			for ; e < len(byEnd); e++ {
				rc.end(byEnd[e].start, byEnd[e].ok)
			}
			return most
		}
		var total, ok []int32
		for _, o := range ops {
			for len(total) <= o.start {
				total, ok = append(total, 0), append(ok, 0)
			}
			total[o.start]++
			if o.ok {
				ok[o.start]++
			}
		}
		// The judged span: all of it, none, less than a window, or part.
		judged := []int{1 << 30, 0, recoveryWindow - 1, recoveryWindow, r.IntN(steps + 30)}[seed/5%5]
		wantS, wantR := recoveryOf(m, total, ok, judged)
		var rc recoveryCounts
		rc.reset(judged)
		most := run(&rc)
		if s, rec := rc.recovery(m); !same(s, wantS) || !same(rec, wantR) {
			t.Errorf("seed %d, %d steps: recovery %v s, recovered %v; want %v, %v", seed, steps, s, rec, wantS, wantR)
		}
		// Long operations hold their steps (3,000 and a few), and rc
		// waits for twice what it held to settle again; the others are
		// dropped once 2,048 are held.
		if most > 6100 {
			t.Errorf("seed %d, %d steps: %d steps held at once", seed, steps, most)
		}
		// Reset, for another run of the same.
		rc.reset(judged)
		run(&rc)
		if s, rec := rc.recovery(m); !same(s, wantS) || !same(rec, wantR) {
			t.Errorf("seed %d, after a reset: recovery %v s, recovered %v; want %v, %v", seed, s, rec, wantS, wantR)
		}
	}
}

// TestRecoveryAtSettle has the last failure at the first window a settle
// leaves undecided: an operation open from step 109 on holds the steps
// from there; the failure at step 100 makes windows 91 to 100 fail, 100
// the last.
func TestRecoveryAtSettle(t *testing.T) {
	m := &model{faultEnd: 1}
	rc := recoveryCounts{judged: 1 << 30}
	for k := range 3 * settleSteps {
		rc.start(k)
		if k != 109 {
			rc.end(k, k != 100)
		}
	}
	rc.end(109, true)
	if s, rec := rc.recovery(m); s != 10.1 || rec != 1 {
		t.Errorf("recovery %v s, recovered %v; want 10.1 s, 1", s, rec)
	}
}

// TestRecoveryNotApplicable: without a fault window there is nothing to
// recover from, and a dependency that fails all along (its own errors,
// load_errors) does not make one: recovery_s and recovered are null, with
// no spread, quantiles or worst seed, never 0 s and 100% beside a success
// rate of 20%. With a fault they are numbers.
func TestRecoveryNotApplicable(t *testing.T) {
	sc := stormScenario(t)
	sc.Dependency.Phases = nil
	sc.Workload.Rate = 700 // the load errors' curve fails most calls
	res, err := Run(context.Background(), sc, Options{NoSeries: true})
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(res.Strategies[0])
	if err != nil {
		t.Fatal(err)
	}
	js := string(b)
	for _, want := range []string{`"recovery_s":null`, `"recovered":null`} {
		if !strings.Contains(js, want) {
			t.Errorf("no %s in %s", want, js)
		}
	}
	var back struct {
		Spread, Quantiles, WorstSeeds map[string]json.RawMessage
	}
	back.Spread, back.Quantiles, back.WorstSeeds = map[string]json.RawMessage{}, map[string]json.RawMessage{}, map[string]json.RawMessage{}
	var raw map[string]json.RawMessage
	_ = json.Unmarshal(b, &raw)
	_ = json.Unmarshal(raw["spread"], &back.Spread)
	_ = json.Unmarshal(raw["quantiles"], &back.Quantiles)
	_ = json.Unmarshal(raw["worst_seeds"], &back.WorstSeeds)
	for _, k := range []string{"recovery_s", "recovered"} {
		if back.Spread[k] != nil || back.Quantiles[k] != nil || back.WorstSeeds[k] != nil {
			t.Errorf("%s has a spread, quantiles or a worst seed: %s", k, js)
		}
	}
	if res.Strategies[0].Metrics.SuccessRate > 0.5 {
		t.Errorf("success rate %v; the scenario meant a failing dependency", res.Strategies[0].Metrics.SuccessRate)
	}
	// With the outage, recovery applies and is judged: the storm lasts
	// while the load arrives, so recovered is 0 and there is no time.
	res, err = Run(context.Background(), stormScenario(t), Options{NoSeries: true})
	if err != nil {
		t.Fatal(err)
	}
	b, _ = json.Marshal(res.Strategies[0].Metrics)
	if !strings.Contains(string(b), `"recovered":0,`) || !strings.Contains(string(b), `"recovery_s":null`) {
		t.Errorf("with a fault: %s", b)
	}
}
