package view_test

import (
	"fmt"

	"github.com/retrylab/retrylab/shared/engine"
	"github.com/retrylab/retrylab/shared/view"
)

// The probe of the runaway-cascade built-in's textbook policy, as
// `retrylab probe runaway-cascade --format json` prints it.
func ExampleProbe() {
	res := &engine.ProbeResult{
		Strategy:              "textbook",
		Seeds:                 3,
		Prevents:              true,
		Criterion:             "the storm has ended when the operations started from 10s to 3m0s, on each of 3 seeds, succeed within 1 percentage point of the strategy's own healthy success rate, or make at most 10% more calls per operation than its own healthy amplification (healthy: the same seed without the trigger and without the retries' feedback on load-dependent errors), with the load reduction or the workers added from 0s on; the scenario has no trigger, so from the start they keep a storm from forming rather than end one",
		Healthy:               engine.WindowStats{Success: engine.MinMax{Min: 1, Max: 1}, Amplification: engine.MinMax{Min: 1.128296752055848, Max: 1.1676521698564315}},
		Baseline:              engine.MinMax{Min: 0.16355332214016507, Max: 0.17028929775779447},
		BaselineAmplification: engine.MinMax{Min: 5.974430574454239, Max: 5.99741696117223},
		Metastable:            true,
		Remedies: []engine.RemedyResult{
			{Kind: engine.RemedyLoad, Outcome: engine.ProbeFound, Enough: 0.11, NotEnough: 0.1, Simulations: 24,
				Change: "the arrival rate times 0.89 from 0s on", Text: "11% less load (between 10% and 11%)"},
			{Kind: engine.RemedyBudget, Outcome: engine.ProbeFound, Enough: 0.24, NotEnough: 0.25, Simulations: 24,
				Change: `budget {"kind":"ratio","ratio":0.24,"window":"1s"} for strategy "textbook"`,
				Text:   "a 24% retry budget (between 24% and 25%; at a price: 74.17%..78.55% succeed, against 100.00% healthy)"},
		},
		Simulations: 81,
		Events:      20583590,
		Summary:     "Keeping textbook out of a storm needs 11% less load (between 10% and 11%), or 6 more workers (between 5 and 6), or a 24% retry budget (between 24% and 25%; at a price: 74.17%..78.55% succeed, against 100.00% healthy).",
	}
	v := view.Probe(res)
	fmt.Println(v.Heading)
	fmt.Println(v.Baseline)
	for _, r := range v.Rows {
		fmt.Printf("%s | %s | %s | %s\n", r.Remedy, r.Finding, r.Change, r.Simulations)
	}
	fmt.Println(v.Cost)
	// Output:
	// What ends the storm of textbook?
	// Without a remedy, 16.4% to 17% of those operations succeed, with 5.974 to 5.997 calls per operation; healthy (without the trigger), 100%, with 1.128 to 1.168.
	// Less load | 11% less load (between 10% and 11%) | The arrival rate times 0.89 from 0s on | 24
	// A retry budget | A 24% retry budget (between 24% and 25%; at a price: 74.17%..78.55% succeed, against 100.00% healthy) | Budget {"kind":"ratio","ratio":0.24,"window":"1s"} for strategy "textbook" | 24
	// 81 simulations, 20,583,590 events.
}
