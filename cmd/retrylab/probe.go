package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"slices"

	"github.com/retrylab/retrylab/shared/engine"
	"github.com/retrylab/retrylab/shared/engine/probe"
	"github.com/retrylab/retrylab/shared/view"
)

// cmdProbe runs "probe": the smallest load reduction, capacity addition
// and retry budget that end a strategy's retry storm (probe.Run).
func cmdProbe(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("probe", flag.ContinueOnError)
	fs.SetOutput(stderr)
	checkSeeds, seeds := seedFlags(fs)
	format := fs.String("format", "text", "output format: text or json")
	strategy := fs.String("strategy", "", "the strategy to probe (default: the first)")
	at := fs.String("at", "", "when the load reduction and the capacity addition start (default: when the trigger ends)")
	settle := fs.String("settle", "", "how long after the remedy the judged window starts (default 10s)")
	maxEvents := fs.Int64("max-events", view.LocalMaxEvents, "refuse a probe estimated above this many events (0: no limit)")
	parallel := fs.Int("parallel", 0, "simulations at once (0: as many as cores)")
	file, code := parseWithFile(fs, args, stderr, "probe", "scenario")
	if code != 0 {
		return exit(code)
	}
	if err := checkSeeds(); err != nil {
		fmt.Fprintf(stderr, "retrylab probe: %v\n", err)
		return 2
	}
	if *format != "text" && *format != "json" {
		fmt.Fprintf(stderr, "retrylab probe: --format %q is not text or json\n", *format)
		return 2
	}
	if *maxEvents < 0 || *parallel < 0 {
		fmt.Fprintf(stderr, "retrylab probe: --max-events and --parallel may not be negative\n")
		return 2
	}
	opt := probe.Options{Strategy: *strategy, MaxEvents: *maxEvents, Parallelism: *parallel}
	if *at != "" {
		d, err := engine.ParseDuration(*at)
		if err != nil {
			fmt.Fprintf(stderr, "retrylab probe: --at %q is not a duration such as \"25s\"\n", *at)
			return 2
		}
		opt.At = &d // checked against the scenario's duration once it is read
	}
	if *settle != "" {
		d, err := engine.ParseDuration(*settle)
		if err != nil || d <= 0 {
			fmt.Fprintf(stderr, "retrylab probe: --settle %q is not a positive duration such as \"10s\"\n", *settle)
			return 2
		}
		opt.Settle = d
	}
	sc, code := loadScenario(file, stdin, stderr, "probe")
	if code != 0 {
		return code
	}
	seeds(sc)
	if *strategy != "" && !slices.ContainsFunc(sc.Strategies, func(st engine.Strategy) bool { return st.Name == *strategy }) {
		fmt.Fprintf(stderr, "retrylab probe: --strategy %q is not a strategy of %s; it has %s\n", *strategy, file, strategyNames(sc))
		return 2
	}
	if d := opt.At; d != nil && (*d < 0 || sc.Workload.Duration > 0 && *d >= sc.Workload.Duration) {
		fmt.Fprintf(stderr, "retrylab probe: --at %s must be a non-negative duration within the scenario's duration, 0s..%s\n", *d, sc.Workload.Duration)
		return 2
	}
	res, err := probe.Run(ctx, sc, opt)
	if err != nil {
		printErrors(stderr, file, err)
		if engine.IsCost(err) {
			probeCostHint(stderr, "probe")
		}
		return 1
	}
	if *format == "json" {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(res); err != nil {
			fmt.Fprintf(stderr, "retrylab probe: %v\n", err)
			return 1
		}
		return 0
	}
	writeProbe(stdout, res)
	return 0
}

// probeCostHint says, after a probe refused for its cost, what --runs
// and --max-events do about it.
func probeCostHint(w io.Writer, cmd string) {
	fmt.Fprintf(w, "retrylab %s: lower --runs, or give --max-events 0 to run it anyway (no limit)\n", cmd)
}

// writeProbe prints a probe's figures: the criterion, the judged window
// without the trigger (the strategy's healthy baseline) and as it is,
// its finding and what it rests on, then one remedy a line.
func writeProbe(w io.Writer, res *probe.Result) {
	fmt.Fprintf(w, "probe of %s in %s: %s\n", res.Strategy, res.Scenario, res.Criterion)
	fmt.Fprintf(w, "healthy:          %s succeed, amplification %s\n", probe.SuccessRange(res.Healthy.Success), probe.AmplificationRange(res.Healthy.Amplification))
	fmt.Fprintf(w, "without a remedy: %s succeed, amplification %s\n", probe.SuccessRange(res.Baseline), probe.AmplificationRange(res.BaselineAmplification))
	if res.BaselineFastFailed.Max > 0 || res.Healthy.FastFailed.Max > 0 {
		fmt.Fprintf(w, "failed fast:      %s, healthy %s\n", probe.SuccessRange(res.BaselineFastFailed), probe.SuccessRange(res.Healthy.FastFailed))
	}
	fmt.Fprintf(w, "%s\n", res.Persistence)
	for _, r := range res.Remedies {
		if r.Outcome == probe.NoStorm {
			continue
		}
		fmt.Fprintf(w, "%-9s %s, %s", r.Kind, r.Text, simulations(r.Simulations))
		if j := r.Judged; j != nil {
			fmt.Fprintf(w, "; then %s succeed, amplification %s", probe.SuccessRange(j.Success), probe.AmplificationRange(j.Amplification))
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "%s, %d events\n", simulations(res.Simulations), res.Events)
}

// simulations writes n simulations, one in the singular.
func simulations(n int) string {
	if n == 1 {
		return "1 simulation"
	}
	return fmt.Sprintf("%d simulations", n)
}
