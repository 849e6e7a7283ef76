package view

import (
	"slices"
	"testing"

	"github.com/retrylab/retrylab/shared/engine"
)

// The tests of this file hold the edges of the sentences about the
// user's own policies (report.yours) where mutation testing (make mutants
// FILE=shared/view/yours.go) found that a changed comparison went
// unnoticed: the closing sentence's seeds, the lists of two, the
// recovery on some of the seeds, the requirement on one seed.

// yoursOf makes a strategy with a success rate (mean, lowest, highest)
// and a peak, without a recovery to judge.
func yoursOf(name string, rate [3]float64, peak float64) engine.StrategyResult {
	st := strat(name, map[string][3]float64{"success_rate": rate, "peak_per_100ms": {peak, peak, peak}})
	st.Metrics.Recovered = engine.NotApplicable
	return st
}

// TestYoursSentencesWordForWord: your policy's sentence says its success
// rate and then the focus metric, each against every other strategy:
// behind some (with their values) and ahead of others, in lists of one,
// two or more; ahead of or behind every other; with no clear difference
// where the ranges overlap; and after them what ahead and behind rest
// on, with several seeds and several strategies only, in the words of the
// ranges the table shows (5th to 95th percentiles from TailSeeds seeds).
func TestYoursSentencesWordForWord(t *testing.T) {
	four := []engine.StrategyResult{
		yoursOf("A", [3]float64{0.9, 0.89, 0.91}, 10),
		yoursOf("B", [3]float64{0.99, 0.98, 1}, 20),
		yoursOf("C", [3]float64{0.95, 0.94, 0.96}, 30),
		yoursOf("D", [3]float64{0.5, 0.4, 0.6}, 40),
	}
	level := []engine.StrategyResult{
		yoursOf("A", [3]float64{0.9, 0.85, 0.95}, 10),
		yoursOf("B", [3]float64{0.92, 0.88, 0.96}, 10),
		yoursOf("C", [3]float64{0.5, 0.4, 0.6}, 10),
	}
	ranges := "Means over 5 seeds; ahead and behind where the ranges do not overlap."
	for _, tc := range []struct {
		desc   string
		strats []engine.StrategyResult
		yours  string
		focus  string
		runs   int
		want   []string
	}{
		{"behind two, ahead of one", four, "A", "peak_per_100ms", 5, []string{
			"Your policy A: success rate 90%, behind B 99% and C 95%, ahead of D; peak calls in 100 ms 10 calls, ahead of every other strategy here.", ranges}},
		{"ahead of two", four, "B", "peak_per_100ms", 5, []string{
			"Your policy B: success rate 99%, ahead of every other strategy here; peak calls in 100 ms 20 calls, behind A 10 calls, ahead of C and D.", ranges}},
		{"behind every other", four, "D", "peak_per_100ms", 5, []string{
			"Your policy D: success rate 50%, behind every other strategy here (B 99%, C 95%, A 90%); peak calls in 100 ms 40 calls, behind every other strategy here (A 10 calls, B 20 calls, C 30 calls).", ranges}},
		{"behind the one other", four[:2], "A", "success_rate", 5, []string{
			"Your policy A: success rate 90%, behind B 99%.", ranges}},
		{"the focus is the success rate", four, "C", "success_rate", 5, []string{
			"Your policy C: success rate 95%, behind B 99%, ahead of A and D.", ranges}},
		{"no clear difference from one", level, "A", "success_rate", 5, []string{
			"Your policy A: success rate 90%, ahead of C, no clear difference from B.", ranges}},
		{"behind one, ahead of none", append([]engine.StrategyResult{yoursOf("X", [3]float64{0.99, 0.98, 1}, 10)}, level[:2]...), "A", "success_rate", 5, []string{
			"Your policy A: success rate 90%, behind X 99%, no clear difference from B.", ranges}},
		{"no clear difference from the others", level[:2], "B", "success_rate", 5, []string{
			"Your policy B: success rate 92%, with no clear difference from the others (A 90%).", ranges}},
		{"from TailSeeds seeds", four, "A", "success_rate", TailSeeds, []string{
			"Your policy A: success rate 90%, behind B 99% and C 95%, ahead of D.",
			"Means over 20 seeds; ahead and behind where the 5th to 95th percentiles do not overlap."}},
		{"one seed", four, "A", "success_rate", 1, []string{
			"Your policy A: success rate 90%, behind B 99% and C 95%, ahead of D."}},
		{"one strategy", four[:1], "A", "peak_per_100ms", 5, []string{
			"Your policy A: success rate 90%; peak calls in 100 ms 10 calls."}},
		{"a name the result does not have", four, "Z", "success_rate", 5, nil},
	} {
		sc := &engine.Scenario{Report: engine.Report{Yours: []string{tc.yours}}}
		if got := yoursSentences(sc, tc.strats, []string{tc.focus}, tc.runs); !slices.Equal(got, tc.want) {
			t.Errorf("%s:\n%q, want\n%q", tc.desc, got, tc.want)
		}
	}
}

// TestYoursRecoveryOnSomeSeeds: a dependency that recovered under load
// on some of the seeds only is said not to have on how many of them;
// on none, on every one, on the one seed, as many words.
func TestYoursRecoveryOnSomeSeeds(t *testing.T) {
	for _, tc := range []struct {
		recovered float64
		runs      int
		want      string
	}{
		{0.5, 4, " With it, the dependency did not recover under load on 2 of the 4 seeds."},
		{0.75, 4, " With it, the dependency did not recover under load on 1 of the 4 seeds."},
		{0, 4, " With it, the dependency did not recover under load on any of the 4 seeds: the storm outlasted the fault."},
		{1, 4, " The dependency recovered under load with it on all 4 seeds."},
		{1, 1, " The dependency recovered under load with it."},
		{0, 1, " With it, the dependency did not recover under load: the storm outlasted the fault."},
		{float64(engine.NotApplicable), 4, ""},
	} {
		st := engine.StrategyResult{Metrics: engine.Metrics{Recovered: engine.Optional(tc.recovered)}}
		if got := recoveredWith(st, tc.runs); got != tc.want {
			t.Errorf("recovered %v on %d seeds: %q, want %q", tc.recovered, tc.runs, got, tc.want)
		}
	}
}

// TestYoursRequirementOnOneSeed: on one seed, a requirement met is met
// "on its one seed", and one missed on some of several seeds says on how
// many; a requirement at most is missed above it.
func TestYoursRequirementOnOneSeed(t *testing.T) {
	th := engine.ThresholdResult{Constraint: engine.Constraint{Metric: "peak_per_100ms", Op: engine.OpAtMost, Value: 150}, Seeds: 1}
	st := engine.StrategyResult{Thresholds: []engine.ThresholdResult{th}}
	if got, want := requirementsMet(st, 1), " It meets the requirement on its one seed."; got != want {
		t.Errorf("met on one seed: %q, want %q", got, want)
	}
	st.Thresholds[0].Crossed = 1
	if got, want := requirementsMet(st, 1), " It misses the requirement: peak calls in 100 ms above 150 calls."; got != want {
		t.Errorf("missed on one seed: %q, want %q", got, want)
	}
	st.Thresholds[0].Seeds, st.Thresholds[0].Crossed = 5, 2
	if got, want := requirementsMet(st, 5), " It misses the requirement: peak calls in 100 ms above 150 calls on 2 of the 5 seeds."; got != want {
		t.Errorf("missed on two of five seeds: %q, want %q", got, want)
	}
}
