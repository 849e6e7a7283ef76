package view

import "github.com/retrylab/retrylab/shared/engine"

// The costs RetryLab runs, waits for or refuses, in events (engine.Estimate
// counts them before a run), decided once for the server, the playground
// and the command line.
const (
	// ServerMaxEvents is what a server runs for a request by default
	// (retrylab serve's Config.MaxEvents): POST /api/scenarios refuses a
	// scenario estimated above it.
	ServerMaxEvents = 30_000_000
	// ProbeCostFactor times a server's MaxEvents is a probe's budget
	// there: 240 million events by default. The estimate counts every
	// simulation bisection can make at the costliest remedy's cost.
	ProbeCostFactor = 8
	// LocalMaxEvents is what runs on the user's own machine, the
	// playground's Run and the command line's default --max-events: a
	// scenario estimated above it is refused with what makes its cost.
	LocalMaxEvents = 200_000_000
	// AutoRunEvents is the estimate up to which the playground re-runs a
	// scenario on every edit; a costlier one waits for Run.
	AutoRunEvents = 20_000_000
)

// PlaygroundLimits are the limits the playground keeps to, as the page
// reads them (wasm's limits): the ranges of the links' runs and seed
// parameters, and the event budgets above.
type PlaygroundLimits struct {
	Runs          [2]int64 `json:"runs"`
	Seed          [2]int64 `json:"seed"`
	AutoRunEvents int64    `json:"auto_run_events"`
	RunEvents     int64    `json:"run_events"`
	ProbeEvents   int64    `json:"probe_events"`
}

// Playground returns the playground's limits; maxSeed is the largest seed
// the page can carry (2^53 - 1 in JavaScript's numbers).
func Playground(maxSeed int64) PlaygroundLimits {
	return PlaygroundLimits{
		Runs:          [2]int64{1, engine.MaxRuns},
		Seed:          [2]int64{0, maxSeed},
		AutoRunEvents: AutoRunEvents,
		RunEvents:     LocalMaxEvents,
		ProbeEvents:   ProbeCostFactor * ServerMaxEvents,
	}
}
