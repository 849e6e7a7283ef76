package view_test

import (
	"testing"

	"github.com/retrylab/retrylab/shared/engine/probe"
	"github.com/retrylab/retrylab/shared/view"
)

// TestProbeCostGroupsDigitsInThrees: the probe's cost writes its count of
// events with a comma between groups of three digits, none in front of a
// number whose digits are a whole number of groups, and 0 as 0.
func TestProbeCostGroupsDigitsInThrees(t *testing.T) {
	for events, want := range map[int64]string{
		0:         "1 simulations, 0 events.",
		7:         "1 simulations, 7 events.",
		999:       "1 simulations, 999 events.",
		1000:      "1 simulations, 1,000 events.",
		123456:    "1 simulations, 123,456 events.",
		1234567:   "1 simulations, 1,234,567 events.",
		100200300: "1 simulations, 100,200,300 events.",
		-1234:     "1 simulations, -1,234 events.",
	} {
		if got := view.Probe(&probe.Result{Simulations: 1, Events: events}).Cost; got != want {
			t.Errorf("%d events: %q, want %q", events, got, want)
		}
	}
}

// TestProbeSentencesStartWithACapital: the criterion and each remedy's
// finding and change start with a capital letter, the first and the last
// of the alphabet included, and what already starts otherwise is left as
// it is.
func TestProbeSentencesStartWithACapital(t *testing.T) {
	res := &probe.Result{
		Criterion: "a storm has ended when",
		Remedies: []probe.RemedyResult{
			{Kind: probe.RemedyLoad, Outcome: probe.Found, Text: "all it takes is 5% less load", Change: "arrival rate times 0.95"},
			{Kind: probe.RemedyCapacity, Outcome: probe.Found, Text: "zero workers more are enough", Change: "zero added"},
			{Kind: probe.RemedyBudget, Outcome: probe.NotFound, Text: "50% is the most tried", Change: "budget"},
			{Kind: probe.RemedyOneLevel, Outcome: probe.NotFound, Text: "{odd} text", Change: "`one level`"},
			{Kind: "future", Outcome: probe.Found, Text: "", Change: "Already capital"},
		},
	}
	v := view.Probe(res)
	if v.Criterion != "A storm has ended when." {
		t.Errorf("criterion %q", v.Criterion)
	}
	want := []view.ProbeRow{
		{Kind: "load", Remedy: "Less load", Found: true, Finding: "All it takes is 5% less load", Change: "Arrival rate times 0.95", Simulations: "0"},
		{Kind: "capacity", Remedy: "More workers", Found: true, Finding: "Zero workers more are enough", Change: "Zero added", Simulations: "0"},
		{Kind: "budget", Remedy: "A retry budget", Finding: "50% is the most tried", Simulations: "0"},
		{Kind: "one_level", Remedy: "Retry at one level", Finding: "{odd} text", Simulations: "0"},
		{Kind: "future", Remedy: "future", Found: true, Change: "Already capital", Simulations: "0"},
	}
	if len(v.Rows) != len(want) {
		t.Fatalf("%d rows, want %d", len(v.Rows), len(want))
	}
	for i, r := range v.Rows {
		if r != want[i] {
			t.Errorf("row %d: %+v\nwant %+v", i, r, want[i])
		}
	}
}

// TestProbeHeadingOfAResultFromBeforeFindings: a result saved before
// the probe had findings asks what ends the storm when it says the
// strategy is metastable, and whether it is in one when not.
func TestProbeHeadingOfAResultFromBeforeFindings(t *testing.T) {
	for _, tc := range []struct {
		res  probe.Result
		want string
	}{
		{probe.Result{Strategy: "eager", Metastable: true}, "What ends the storm of eager?"},
		{probe.Result{Strategy: "eager"}, "Is eager in a storm?"},
		{probe.Result{Strategy: "eager", Metastable: true, Finding: probe.FindingUnstable}, "What keeps eager out of overload?"},
		{probe.Result{Strategy: "eager", Finding: probe.FindingMetastable}, "What ends the storm of eager?"},
		{probe.Result{Strategy: "eager", Metastable: true, Finding: probe.FindingRecovering}, "Is eager in a storm?"},
	} {
		if got := view.Probe(&tc.res).Heading; got != tc.want {
			t.Errorf("finding %q, metastable %v: %q, want %q", tc.res.Finding, tc.res.Metastable, got, tc.want)
		}
	}
}
