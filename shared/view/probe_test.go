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
		Strategy:   "textbook",
		Seeds:      3,
		Criterion:  "the storm has ended when at least 99% of the operations started from 10s to 3m0s succeed, on each of 3 seeds, with the load reduction or the workers added from 0s",
		Baseline:   engine.MinMax{Min: 0.16355332214016507, Max: 0.17028929775779447},
		Metastable: true,
		Remedies: []engine.RemedyResult{
			{Kind: engine.RemedyLoad, Outcome: engine.ProbeFound, Enough: 0.11, NotEnough: 0.1, Simulations: 24,
				Change: "the arrival rate times 0.89 from 0s on", Text: "11% less load (between 10% and 11%)"},
			{Kind: engine.RemedyBudget, Outcome: engine.ProbeNotFound, NotEnough: 0.01, Simulations: 3,
				Change: `budget {"kind":"ratio","ratio":0.01,"window":"1s"} for strategy "textbook"`,
				Text:   "not found in range (a 1% retry budget does not end it)"},
		},
		Simulations: 28,
		Events:      16294941,
		Summary:     "Recovery of textbook needs 11% less load (between 10% and 11%); budget: not found in range (a 1% retry budget does not end it).",
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
	// Without a remedy, 16.4% to 17% of those operations succeed.
	// Less load | 11% less load (between 10% and 11%) | The arrival rate times 0.89 from 0s on | 24
	// A retry budget | Not found in range (a 1% retry budget does not end it) |  | 3
	// 28 simulations, 16,294,941 events.
}
