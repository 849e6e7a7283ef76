// Command retrylab runs retry-policy scenarios.
//
//	retrylab run FILE.json|SLUG [--runs N] [--seed S] [--format table|json]
//	retrylab chart FILE.json|SLUG [--picture P] [--resolution R] [--metric M] [--theme T] [--success-only]
//	retrylab serve [--addr :8080] [--db ./data/retrylab.db]
//	retrylab list
//	retrylab presets
//
// "run -" reads the scenario from standard input; a name that is not a file
// but a built-in's slug runs the built-in.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	iofs "io/fs"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/retrylab/retrylab/shared/chart"
	"github.com/retrylab/retrylab/shared/engine"
	"github.com/retrylab/retrylab/shared/scenarios"
)

const usage = `usage: retrylab <command> [arguments]

commands:
  run FILE.json|SLUG [--runs N] [--seed S] [--format table|json] [--max-events N]
        simulate a scenario, or a built-in by its slug, and compare its
        strategies ("-" reads stdin)
  chart FILE.json|SLUG [--picture attempts|outcomes|queue|compare|latency|sweep]
        [--resolution 10ms|100ms|1s] [--metric NAME] [--theme auto|light|dark]
        [--success-only] [--runs N] [--seed S]
        write a chart of the result as SVG to standard output
  serve [--addr :8080] [--db ./data/retrylab.db] [--trust-proxy]
        serve the web app (share links, pages, charts, API) with SQLite;
        RETRYLAB_ADDR and RETRYLAB_DB set the defaults
  list  the built-in scenarios: slug and title
  presets
        the policy presets usable as "preset": NAME, with their sources
`

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(cli(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// cli runs one command and returns the exit status: 0 on success, 1 when the
// work failed, 2 for a usage error.
func cli(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	switch args[0] {
	case "run":
		return cmdRun(ctx, args[1:], stdin, stdout, stderr)
	case "chart":
		return cmdChart(ctx, args[1:], stdin, stdout, stderr)
	case "serve":
		return cmdServe(ctx, args[1:], stderr)
	case "list":
		tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
		for _, b := range scenarios.All() {
			fmt.Fprintf(tw, "%s\t%s\n", b.Slug, b.Title)
		}
		tw.Flush()
		return 0
	case "presets":
		for _, p := range scenarios.Presets() {
			fmt.Fprintf(stdout, "%s\n  %s (%s)\n", p.Name, p.Title, p.Library)
			for _, d := range p.Differs {
				fmt.Fprintf(stdout, "  differs: %s\n", d)
			}
		}
		return 0
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return 0
	}
	fmt.Fprintf(stderr, "retrylab: unknown command %q\n%s", args[0], usage)
	return 2
}

func cmdRun(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	seeds := seedFlags(fs)
	format := fs.String("format", "table", "output format: table or json")
	maxEvents := fs.Int64("max-events", 200_000_000, "refuse scenarios estimated above this many events (0: no limit)")
	file, code := parseWithFile(fs, args, stderr, "run")
	if code != 0 {
		return code
	}
	if *format != "table" && *format != "json" {
		fmt.Fprintf(stderr, "retrylab run: --format %q is not table or json\n", *format)
		return 2
	}
	sc, code := loadScenario(file, stdin, stderr, "run")
	if code != 0 {
		return code
	}
	seeds(sc)
	res, err := engine.Run(ctx, sc, engine.Options{MaxEvents: *maxEvents, NoSeries: *format == "table"})
	if err != nil {
		printErrors(stderr, file, err)
		return 1
	}
	if *format == "json" {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(res); err != nil {
			fmt.Fprintf(stderr, "retrylab run: %v\n", err)
			return 1
		}
		return 0
	}
	writeTable(stdout, res)
	return 0
}

func cmdChart(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("chart", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var opt chart.Options
	fs.StringVar(&opt.Picture, "picture", "", "picture: "+strings.Join(chart.Pictures, ", ")+" (default sweep for a sweep, else attempts)")
	fs.DurationVar(&opt.Resolution, "resolution", 100*time.Millisecond, "resolution of the attempts picture")
	fs.StringVar(&opt.Metric, "metric", "", "metric of the compare and sweep pictures")
	fs.StringVar(&opt.Theme, "theme", "auto", "auto, light or dark")
	fs.BoolVar(&opt.SuccessOnly, "success-only", false, "latency of successful operations only")
	seeds := seedFlags(fs)
	file, code := parseWithFile(fs, args, stderr, "chart")
	if code != 0 {
		return code
	}
	sc, code := loadScenario(file, stdin, stderr, "chart")
	if code != 0 {
		return code
	}
	seeds(sc)
	res, err := engine.Run(ctx, sc, engine.Options{MaxEvents: 200_000_000})
	if err != nil {
		printErrors(stderr, file, err)
		return 1
	}
	if err := chart.Render(stdout, res, opt); err != nil {
		fmt.Fprintf(stderr, "retrylab chart: %v\n", err)
		return 1
	}
	return 0
}

// seedFlags defines --runs and --seed and returns what applies them to a
// scenario.
func seedFlags(fs *flag.FlagSet) func(*engine.Scenario) {
	runs := fs.Int("runs", 0, "number of seeds (overrides the scenario's runs)")
	seed := fs.Int64("seed", -1, "first seed (overrides the scenario's seed)")
	return func(sc *engine.Scenario) {
		if *runs > 0 {
			sc.Runs, sc.Seeds = *runs, nil
		}
		if *seed >= 0 {
			sc.Seed, sc.Seeds = *seed, nil
		}
	}
}

// parseWithFile parses flags given before and after one file argument.
func parseWithFile(fs *flag.FlagSet, args []string, stderr io.Writer, cmd string) (string, int) {
	var file string
	rest := args
	for {
		if err := fs.Parse(rest); err != nil {
			return "", 2
		}
		if fs.NArg() == 0 {
			break
		}
		if file != "" {
			fmt.Fprintf(stderr, "retrylab %s: one scenario at a time; got %q and %q\n", cmd, file, fs.Arg(0))
			return "", 2
		}
		file, rest = fs.Arg(0), fs.Args()[1:]
	}
	if file == "" {
		fmt.Fprintf(stderr, "retrylab %s: name a scenario file, or - for standard input\n", cmd)
		return "", 2
	}
	return file, 0
}

// loadScenario reads and decodes a scenario from a file, standard input or a
// built-in's slug.
func loadScenario(file string, stdin io.Reader, stderr io.Writer, cmd string) (*engine.Scenario, int) {
	data, err := readInput(file, stdin)
	if errors.Is(err, iofs.ErrNotExist) {
		if b, ok := scenarios.Get(file); ok {
			data, err = b.Scenario, nil
		} else {
			err = fmt.Errorf("%w, and it is not the slug of a built-in scenario (retrylab list shows them)", err)
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "retrylab %s: %v\n", cmd, err)
		return nil, 1
	}
	sc, err := scenarios.Decode(data)
	if err != nil {
		printErrors(stderr, file, err)
		return nil, 1
	}
	return sc, 0
}

func readInput(file string, stdin io.Reader) ([]byte, error) {
	const limit = 16 << 20
	var r io.Reader = stdin
	if file != "-" {
		f, err := os.Open(file)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		r = f
	}
	data, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err == nil && len(data) > limit {
		err = fmt.Errorf("%s is larger than %d MiB", file, limit>>20)
	}
	return data, err
}

func printErrors(w io.Writer, file string, err error) {
	if es := engine.AsErrors(err); es != nil {
		for _, e := range es {
			fmt.Fprintf(w, "%s: %v\n", file, e)
		}
		return
	}
	if errors.Is(err, context.Canceled) {
		fmt.Fprintf(w, "%s: interrupted\n", file)
		return
	}
	fmt.Fprintf(w, "%s: %v\n", file, err)
}

// writeTable prints the metrics as rows and the strategies as columns.
func writeTable(w io.Writer, res *engine.Result) {
	fmt.Fprintf(w, "%s  (engine %s, seeds %v, %d events)\n\n", res.Scenario, res.EngineVersion, seedList(res.Seeds), res.Events)
	if len(res.Sweep) > 0 {
		for _, pt := range res.Sweep {
			v, _ := json.Marshal(pt.Value)
			fmt.Fprintf(w, "== %s\n", v)
			metricTable(w, pt.Strategies)
			fmt.Fprintln(w)
		}
	} else {
		metricTable(w, res.Strategies)
	}
	printTransitions(w, "", res.Strategies)
	for _, pt := range res.Sweep {
		v, _ := json.Marshal(pt.Value)
		printTransitions(w, fmt.Sprintf(" at %s", v), pt.Strategies)
	}
	if len(res.Warnings) > 0 {
		fmt.Fprintln(w, "\nwarnings:")
		for _, s := range res.Warnings {
			fmt.Fprintf(w, "  - %s\n", s)
		}
	}
}

func printTransitions(w io.Writer, where string, strats []engine.StrategyResult) {
	for _, st := range strats {
		if len(st.Transitions) == 0 {
			continue
		}
		fmt.Fprintf(w, "\nbreaker transitions of %s%s (first run):\n", st.Name, where)
		for _, t := range st.Transitions {
			fmt.Fprintf(w, "  %8.3fs  layer %d  %s -> %s\n", t.AtS, t.Layer, t.From, t.To)
		}
	}
}

func metricTable(w io.Writer, strats []engine.StrategyResult) {
	tw := tabwriter.NewWriter(w, 4, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "metric\t")
	for _, st := range strats {
		fmt.Fprintf(tw, "%s\t", st.Name)
	}
	fmt.Fprintln(tw)
	for _, name := range engine.MetricNames() {
		fmt.Fprintf(tw, "%s\t", name)
		for _, st := range strats {
			v, _ := st.Metrics.Metric(name)
			cell := chart.FormatCell(name, v)
			if mm, ok := st.Spread[name]; ok && mm.Min != mm.Max {
				cell += fmt.Sprintf(" [%s..%s]", chart.FormatCell(name, mm.Min), chart.FormatCell(name, mm.Max))
			}
			fmt.Fprintf(tw, "%s\t", cell)
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
}

func seedList(s []int64) string {
	if len(s) > 4 {
		return fmt.Sprintf("%d..%d", s[0], s[len(s)-1])
	}
	return fmt.Sprint(s)
}
