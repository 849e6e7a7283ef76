// Command retrylab runs retry-policy scenarios: from a file, standard input or
// a built-in's slug, printing a table or JSON, or drawing a chart; it also
// searches a strategy's settings (retrylab search), probes the way out of a
// retry storm (retrylab probe), imports and exports
// retry configurations (gRPC, AWS, Polly, Go code), lists
// the built-ins and presets and serves the web app. "retrylab help"
// prints every command and flag (the usage constant below).
package main

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	iofs "io/fs"
	"os"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/retrylab/retrylab/server"
	"github.com/retrylab/retrylab/shared/chart"
	"github.com/retrylab/retrylab/shared/convert"
	"github.com/retrylab/retrylab/shared/engine"
	"github.com/retrylab/retrylab/shared/scenarios"
	"github.com/retrylab/retrylab/shared/view"
)

var usage = `usage: retrylab <command> [arguments]

commands:
  run FILE.json|SLUG|- [flags]
        simulate a scenario and print a table comparing its strategies; the
        scenario is a file, "-" for standard input, or a built-in's slug
        --runs N        number of seeds, 1..1000 (overrides the scenario's runs)
        --seed S        first seed, 0..9007199254740991 (overrides the scenario's seed)
        --format F      table (default: one row per metric, one column per
                        strategy) or json (the full result, time series included)
        --max-events N  refuse a scenario estimated above N events
                        (default 200000000; 0: no limit)
        --parallel N    run up to N simulations (strategy × seed × sweep
                        value) at once (default 0: as many as cores); the
                        result is the same whatever N
        a scenario with a search block prints its frontier and
        recommendation after the table (in json: "search")
  search FILE.json|SLUG|- [--strategy NAME] [--write FILE] [flags]
        run with a default search added from the strategy NAME (default: the
        first): every combination of max_attempts 2, 3, 4, 6; exponential
        backoff 100ms..2s, 200ms..2s, 500ms..5s, 1s..10s; jitter none, full,
        equal, decorrelated; no budget, a 10% ratio or a gRPC token bucket
        (192 candidates), maximising affected_success_rate, then minimising
        peak_per_100ms, without constraints; a strategy with an
        attempt_timeout, a deadline, a breaker or a budget also varies
        each around its own value (half, its own, double; the breaker's
        threshold and placement; the budget's ratio, window and reserve),
        trading the middle jitters, backoffs and attempts for them to stay
        at 192 candidates at most (a hedged strategy: no backoff or jitter
        knobs, hedging.delay half, its own and double, and latency_p99_ms
        minimised second; a layered strategy: max_attempts
        2, 3, 4, the four backoffs, jitter none or full and no budget or
        the 10% ratio at every level, levels[*], and retry_level every
        level, the outermost, the middle and the innermost, 192 candidates
        at most; a strategy based on a library's preset, such as an imported
        gRPC, Envoy, Istio, resilience4j, Polly or AWS policy: only values its format
        writes exactly, which the table names); a scenario with a search
        block of its own runs that one, unless --strategy names a
        strategy, whose default search then replaces it; flags as for run
        --write FILE    also write the scenario with the search it ran (the
                        default one or its own) and its seeds, as JSON, to
                        FILE: retrylab run FILE gives the same
                        recommendation, POST /api/scenarios or the
                        playground shares it (64 KiB at most)
  probe FILE.json|SLUG|- [--strategy NAME] [--at DURATION] [flags]
        find by bisection the smallest load reduction, capacity addition and
        ratio retry budget (at every level allowed to retry) that end the
        strategy's retry storm, and for a layered strategy the innermost
        level that ends it retrying alone (default: the first strategy;
        the first two from --at, default when the trigger
        ends), judged in a window after it on every seed against the same
        strategy without the trigger (its healthy baseline): a strategy at
        its baseline is not in a storm and gets no remedy
        --settle D      the window starts D after the remedy (default 10s)
        --format F      text (default) or json (the probe's result)
        --runs N, --seed S, --max-events N, --parallel N
                        as for run
  check FILE|GLOB... [flags]
        import every policy of the configuration files (the format each
        looks like, or --from) and run each through a suite of incidents
        (the built-in freeze, outage and failover, each with the policy in
        place of its strategies), on 20 seeds, held to requirements; exit
        status 1 when one fails
        --require R     a requirement (repeatable): METRIC <= NUMBER or
                        METRIC >= NUMBER, optionally followed by "on P% of
                        seeds", or "not metastable" (the probe's finding)
        --requirements FILE
                        requirements, one a line, # for comments (default:
                        ` + strings.TrimSpace(view.DefaultRequirements) + `)
        --suite S       default, or extended: a load-sensitive downstream too
        --scenario FILE a scenario file to run as an incident in place of
                        the built-in suite (repeatable)
        --format F      table (default), junit (JUnit XML, a test case per
                        policy and incident), github (workflow commands
                        annotating each failing policy's line) or json
        --share URL     post each failing scenario to the RetryLab server
                        at URL (POST /api/scenarios) and print its link
        --from FORMAT   as for import
        --runs N, --seed S, --max-events N, --parallel N
                        as for run (--runs default 20)
  chart FILE.json|SLUG|- [flags]
        run the scenario and write a chart of the result as SVG to standard output
        --picture P     ` + strings.Join(chart.Pictures, ", ") + `
                        (default: sweep for a sweep's result, else attempts)
        --resolution R  bucket of the attempts picture: 10ms, 100ms (default) or 1s
        --metric M      metric of the compare and sweep pictures (a metric name
                        as in run's table; default attempts, or success_rate for
                        sweep); every picture refuses a name that is not a metric
        --theme T       auto (default: follows the reader), light or dark
        --success-only  latency picture of successful operations only
        --runs N, --seed S, --max-events N
                        as for run
  import [--from FORMAT] [--into SLUG] FILE|-
        read a retry configuration into a scenario and print it as JSON: the
        policies it configures as strategies, on the workload and dependency
        of the built-in ` + scenarios.ImportWorkload + `
        (a 1.5 s freeze, its backlog answered 503, then 5 s at half
        capacity), ready for retrylab run; what is not carried over exactly
        goes to standard error as FILE: PATH: LEVEL: MESSAGE, PATH in FILE
        --from FORMAT   ` + strings.Join(convert.ImportFormats, ", ") + ` (default:
                        the one the document looks like, said on standard error)
        --into SLUG     a built-in (retrylab list) whose strategies the
                        policies replace, on its workload, dependency and
                        seeds: your policy against its incident (its
                        search, if it has one, is left out)
  export --to FORMAT FILE.json|SLUG|- [--strategy NAME]
        write a scenario's strategies as configurations of FORMAT; what the
        format cannot express goes to standard error as
        FILE: strategies[N].FIELD: LEVEL: MESSAGE
        --to FORMAT     ` + strings.Join(convert.ExportFormats[:7], ", ") + `,
                        ` + strings.Join(convert.ExportFormats[7:], ", ") + `
        --strategy NAME the strategy to export; without it, every strategy,
                        each after a comment line naming it (each part is a
                        document of its own); the JSON formats need it when
                        there are several
  serve [flags]
        serve the web app (share links, pages, charts, embeds, API) with SQLite,
        until SIGINT or SIGTERM
        --addr A        address to listen on (default :8080; env RETRYLAB_ADDR)
        --db FILE       SQLite database file, created on first run
                        (default ./data/retrylab.db; env RETRYLAB_DB)
        --trust-proxy   take client IPs and the scheme from X-Forwarded-For and
                        X-Forwarded-Proto; only behind a proxy that sets them
                        (env RETRYLAB_TRUST_PROXY=1)
        --base-url URL  public origin of absolute links in share URLs, embed
                        snippets and oEmbed, e.g. https://retrylab.example
                        (env RETRYLAB_BASE_URL; default: the request's own
                        scheme and Host)
        --memory-limit MiB
                        soft limit of the Go heap (default 512; 0 for none;
                        GOMEMLIMIT, when set, wins)
  list  the built-in scenarios: slug and title
  show SLUG
        print a built-in's scenario as JSON, presets expanded, as
        GET /api/scenarios/SLUG answers it: a scenario file to edit and run
  presets
        the policy presets usable as "preset": NAME, with their sources and
        where the engine cannot express them exactly
  help  this text

Flags may come before or after the scenario, as -flag or --flag. A flag given
on the command line wins over its environment variable.

Exit status: 0 on success; 1 when the work failed (an invalid scenario, with
every problem and its JSON path; a file or built-in that does not exist; a
scenario over --max-events; a configuration that cannot be imported, with
every problem and its path); 2 for a usage error (an unknown command or flag,
a flag value out of range, a format not supported, an export that needs
--strategy, a --strategy the scenario does not have).
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
	case "run", "search":
		return cmdRun(ctx, args[0], args[1:], stdin, stdout, stderr)
	case "probe":
		return cmdProbe(ctx, args[1:], stdin, stdout, stderr)
	case "check":
		return cmdCheck(ctx, args[1:], stdout, stderr)
	case "chart":
		return cmdChart(ctx, args[1:], stdin, stdout, stderr)
	case "serve":
		return cmdServe(ctx, args[1:], stderr)
	case "import":
		return cmdImport(args[1:], stdin, stdout, stderr)
	case "export":
		return cmdExport(args[1:], stdin, stdout, stderr)
	case "show":
		return cmdShow(args[1:], stdout, stderr)
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
			for _, src := range p.Sources {
				fmt.Fprintf(stdout, "  source: %s\n", src)
			}
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

// cmdRun runs "run" or, as cmd "search", a default search of one
// strategy of the scenario (engine.DefaultSearch).
func cmdRun(ctx context.Context, cmd string, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet(cmd, flag.ContinueOnError)
	fs.SetOutput(stderr)
	checkSeeds, seeds := seedFlags(fs)
	format := fs.String("format", "table", "output format: table or json")
	maxEvents := fs.Int64("max-events", view.LocalMaxEvents, "refuse scenarios estimated above this many events (0: no limit)")
	parallel := fs.Int("parallel", 0, "simulations at once (0: as many as cores)")
	var strategy, write *string
	if cmd == "search" {
		strategy = fs.String("strategy", "", "the strategy to search from (default: the first)")
		write = fs.String("write", "", "write the scenario with the search it ran, as JSON, to this file")
	}
	file, code := parseWithFile(fs, args, stderr, cmd, "scenario")
	if code != 0 {
		return exit(code)
	}
	if err := checkSeeds(); err != nil {
		fmt.Fprintf(stderr, "retrylab %s: %v\n", cmd, err)
		return 2
	}
	if *format != "table" && *format != "json" {
		fmt.Fprintf(stderr, "retrylab %s: --format %q is not table or json\n", cmd, *format)
		return 2
	}
	if *maxEvents < 0 {
		fmt.Fprintf(stderr, "retrylab %s: --max-events %d is negative; give a number of events, or 0 for no limit\n", cmd, *maxEvents)
		return 2
	}
	if *parallel < 0 {
		fmt.Fprintf(stderr, "retrylab %s: --parallel %d is negative; give a number of simulations at once, or 0 for as many as cores\n", cmd, *parallel)
		return 2
	}
	if cmd == "search" && !engine.Searches() {
		fmt.Fprintf(stderr, "retrylab search: this retrylab was built with -tags nosearch (as the Cloudflare Worker is), which leaves the search out; build it without that tag to search\n")
		return 1
	}
	sc, code := loadScenario(file, stdin, stderr, cmd)
	if code != 0 {
		return code
	}
	seeds(sc)
	defaulted := false // the search is the default one, not the scenario's
	switch {
	case strategy != nil && sc.Search != nil && *strategy == "":
		// The scenario's own search, as written.
		fmt.Fprintf(stderr, "retrylab search: %s has a search block: running it as written (--strategy NAME runs the default search of NAME instead)\n", file)
	case strategy != nil:
		if own := sc.Search; own != nil {
			// The default search replaces the scenario's own, constraints
			// and all: they were written for its strategy.
			cs := "no constraints"
			if len(own.Constraints) > 0 {
				var parts []string
				for i := range own.Constraints {
					parts = append(parts, own.Constraints[i].String())
				}
				cs = "constraints " + strings.Join(parts, ", ")
			}
			fmt.Fprintf(stderr, "retrylab search: the scenario's own search (from %s, with %s) is replaced by the default search from %s, which has no constraints; leave out --strategy to run the scenario's own\n", own.Strategy, cs, *strategy)
		}
		name := *strategy
		if name == "" && len(sc.Strategies) > 0 {
			name = sc.Strategies[0].Name
		}
		if !slices.ContainsFunc(sc.Strategies, func(st engine.Strategy) bool { return st.Name == name }) {
			fmt.Fprintf(stderr, "retrylab search: --strategy %q is not a strategy of %s; it has %s\n", name, file, strategyNames(sc))
			return 2
		}
		if sc.Sweep != nil {
			fmt.Fprintf(stderr, "retrylab search: %s sweeps %s; a search varies a strategy of a scenario without a sweep\n", file, sc.Sweep.Path)
			return 1
		}
		sc.Search = engine.DefaultSearchFor(sc, name)
		defaulted = true
	}
	// The scenario as it runs, search and seeds included, before the run
	// can touch it: what --write shares.
	written := sc.Canonical()
	res, err := engine.Run(ctx, sc, engine.Options{MaxEvents: *maxEvents, NoSeries: *format == "table", Parallelism: *parallel})
	if err != nil {
		printErrors(stderr, file, err)
		if defaulted && slices.ContainsFunc(engine.AsErrors(err), func(e engine.FieldError) bool { return strings.HasPrefix(e.Path, "search") }) {
			fmt.Fprintf(stderr, "retrylab search: the errors at search... are in the default search retrylab search added from %q (retrylab help lists its knobs), not in %s; search that strategy with a search block of your own\n", sc.Search.Strategy, file)
		}
		costHint(stderr, cmd, err, sc.Search != nil)
		return 1
	}
	if write != nil && *write != "" {
		if code := writeScenario(*write, written, sc, stderr); code != 0 {
			return code
		}
	}
	if *format == "json" {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(res); err != nil {
			fmt.Fprintf(stderr, "retrylab %s: %v\n", cmd, err)
			return 1
		}
		return 0
	}
	writeTable(stdout, sc, res)
	return 0
}

// writeScenario writes scenario (canonical JSON), indented, to file for
// search --write: the scenario with the search sc ran (its own, or the
// default one retrylab search added) and the seeds it ran on, so that
// retrylab run FILE gives the same recommendation and the file can be
// shared (POST /api/scenarios, the playground) and embedded. It says on
// stderr what it wrote, when the file is over what a server stores, and
// when a server's default budget of events would not run it.
func writeScenario(file string, scenario []byte, sc *engine.Scenario, stderr io.Writer) int {
	var out bytes.Buffer
	if err := json.Indent(&out, scenario, "", "  "); err != nil {
		fmt.Fprintf(stderr, "retrylab search: --write: %v\n", err)
		return 1
	}
	out.WriteByte('\n')
	if err := os.WriteFile(file, out.Bytes(), 0o644); err != nil {
		fmt.Fprintf(stderr, "retrylab search: --write: %v\n", err)
		return 1
	}
	fmt.Fprintf(stderr, "retrylab search: wrote %s, the scenario with its search from %s: retrylab run %s runs it again, retrylab export --to FORMAT --strategy %q %s exports its recommendation, and POST /api/scenarios or the playground shares it\n", file, sc.Search.Strategy, file, sc.Search.Strategy+" (search 1)", file)
	if out.Len() > server.MaxScenarioBytes {
		fmt.Fprintf(stderr, "retrylab search: %s is %d KiB, over the %d KiB a server stores: share a smaller scenario\n", file, (out.Len()+1023)>>10, server.MaxScenarioBytes>>10)
	}
	if w, err := engine.Parse(scenario); err == nil {
		var ce *engine.CostError
		if err := engine.CheckCost(w, server.DefaultMaxEvents); errors.As(err, &ce) {
			fmt.Fprintf(stderr, "retrylab search: %s is estimated over the %d million events a server runs by default (retrylab serve): POST /api/scenarios refuses it there (422); the playground runs it in the browser\n", file, server.DefaultMaxEvents/1_000_000)
		}
	}
	return 0
}

// costHint says, after a run refused or stopped for its cost, what
// --max-events does about it.
func costHint(w io.Writer, cmd string, err error, search bool) {
	var ce *engine.CostError
	switch {
	case !errors.As(err, &ce):
	case ce.Processed > 0:
		fmt.Fprintf(w, "retrylab %s: --max-events N raises the limit on each simulation; --max-events 0 removes it\n", cmd)
	case ce.Detail != nil && ce.Detail.Unbounded != "":
		fmt.Fprintf(w, "retrylab %s: --max-events 0 would run it without a limit, and nothing but an interrupt would stop it\n", cmd)
	case search:
		fmt.Fprintf(w, "retrylab %s: the estimate is a bound, often well above what runs where retries storm; --max-events 0 runs it anyway (no limit)\n", cmd)
	default:
		fmt.Fprintf(w, "retrylab %s: --max-events N raises the limit; --max-events 0 runs it anyway (no limit)\n", cmd)
	}
}

// strategyNames lists the scenario's strategies' names, quoted.
func strategyNames(sc *engine.Scenario) string {
	names := make([]string, len(sc.Strategies))
	for i, st := range sc.Strategies {
		names[i] = fmt.Sprintf("%q", st.Name)
	}
	return strings.Join(names, ", ")
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
	maxEvents := fs.Int64("max-events", view.LocalMaxEvents, "refuse scenarios estimated above this many events (0: no limit)")
	checkSeeds, seeds := seedFlags(fs)
	file, code := parseWithFile(fs, args, stderr, "chart", "scenario")
	if code != 0 {
		return exit(code)
	}
	if err := checkSeeds(); err != nil {
		fmt.Fprintf(stderr, "retrylab chart: %v\n", err)
		return 2
	}
	if *maxEvents < 0 {
		fmt.Fprintf(stderr, "retrylab chart: --max-events %d is negative; give a number of events, or 0 for no limit\n", *maxEvents)
		return 2
	}
	// The options known before the run are checked before it.
	if opt.Picture != "" && !slices.Contains(chart.Pictures, opt.Picture) {
		fmt.Fprintf(stderr, "retrylab chart: --picture %q is not one of %s\n", opt.Picture, strings.Join(chart.Pictures, ", "))
		return 2
	}
	if names := engine.MetricNames(); opt.Metric != "" && !slices.Contains(names, opt.Metric) {
		// Every picture: one that does not draw a metric would ignore it.
		hint := ""
		if near := engine.NearNames(opt.Metric, names); len(near) > 0 {
			for i, n := range near {
				near[i] = strconv.Quote(n)
			}
			hint = "; did you mean " + strings.Join(near, " or ") + "?"
		}
		fmt.Fprintf(stderr, "retrylab chart: --metric %q is not a metric name%s (metrics: %s)\n", opt.Metric, hint, strings.Join(names, ", "))
		return 2
	}
	if !slices.Contains([]string{"auto", "light", "dark"}, opt.Theme) {
		fmt.Fprintf(stderr, "retrylab chart: --theme %q is not auto, light or dark\n", opt.Theme)
		return 2
	}
	sc, code := loadScenario(file, stdin, stderr, "chart")
	if code != 0 {
		return code
	}
	seeds(sc)
	res, err := engine.Run(ctx, sc, engine.Options{MaxEvents: *maxEvents})
	if err != nil {
		printErrors(stderr, file, err)
		costHint(stderr, "chart", err, sc.Search != nil)
		return 1
	}
	opt.Descriptions = view.Descriptions(sc)
	opt.Search = sc.Search // the frontier picture's objectives
	if err := chart.Render(stdout, res, opt); err != nil {
		fmt.Fprintf(stderr, "retrylab chart: %v\n", err)
		var oe *chart.OptionError
		if errors.As(err, &oe) {
			return 2 // a flag that does not fit this result, e.g. --metric
		}
		return 1
	}
	return 0
}

// seedFlags defines --runs and --seed; after parsing, check reports a value
// out of range (a usage error) and apply sets those given on the scenario.
func seedFlags(fs *flag.FlagSet) (check func() error, apply func(*engine.Scenario)) {
	runs := fs.Int("runs", 0, "number of seeds, 1..1000 (overrides the scenario's runs)")
	seed := fs.Int64("seed", 0, "first seed, 0..2^53-1 (overrides the scenario's seed)")
	given := func(name string) bool {
		set := false
		fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
		return set
	}
	check = func() error {
		if given("runs") && (*runs < 1 || *runs > engine.MaxRuns) {
			return fmt.Errorf("--runs %d is out of range 1..%d", *runs, engine.MaxRuns)
		}
		if given("seed") && (*seed < 0 || *seed > maxSeed) {
			return fmt.Errorf("--seed %d is out of range 0..%d", *seed, maxSeed)
		}
		return nil
	}
	apply = func(sc *engine.Scenario) {
		if given("runs") {
			sc.Runs, sc.Seeds = *runs, nil
		}
		if given("seed") {
			sc.Seed, sc.Seeds = *seed, nil
		}
	}
	return check, apply
}

// maxSeed is the engine's largest seed: seeds survive a round trip through
// JavaScript.
const maxSeed = 1<<53 - 1

// parseWithFile parses flags given before and after one file argument. A
// non-zero code ends the command with that status; -h ends it with 0 (helpDone).
func parseWithFile(fs *flag.FlagSet, args []string, stderr io.Writer, cmd, what string) (string, int) {
	var file string
	rest := args
	for {
		if code := parseFlags(fs, rest); code != 0 {
			return "", code
		}
		if fs.NArg() == 0 {
			break
		}
		if file != "" {
			fmt.Fprintf(stderr, "retrylab %s: one %s at a time; got %q and %q\n", cmd, what, file, fs.Arg(0))
			return "", 2
		}
		file, rest = fs.Arg(0), fs.Args()[1:]
	}
	if file == "" {
		fmt.Fprintf(stderr, "retrylab %s: name a %s file, or - for standard input\n", cmd, what)
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
		} else if !strings.ContainsAny(file, `/\`) && !strings.HasSuffix(file, ".json") {
			// Not a path: most likely a mistyped slug.
			msg := "no built-in " + file
			if near := closeSlugs(file); len(near) > 0 {
				msg += "; did you mean " + strings.Join(near, " or ") + "?"
			}
			fmt.Fprintf(stderr, "retrylab %s: %s\n(nor a file of that name; retrylab list shows every built-in)\n", cmd, msg)
			return nil, 1
		} else {
			err = fmt.Errorf("%w, and it is not the slug of a built-in scenario (retrylab list shows them)", err)
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "retrylab %s: %v\n", cmd, err)
		return nil, 1
	}
	if slug, ok := catalogueEntry(data); ok {
		fmt.Fprintf(stderr, "%s: this is a catalogue entry; run it by its slug %s, or `retrylab show %s` prints its scenario\n", file, slug, slug)
		return nil, 1
	}
	sc, err := scenarios.Decode(data)
	if err != nil {
		if hint := convert.ImportHint(data); hint != "" {
			// A configuration, not a scenario with mistakes: its errors as
			// a scenario (no version, unknown fields) would send the reader
			// to fix what is not broken.
			fmt.Fprintf(stderr, "%s: %s\n", file, strings.Replace(hint, " FILE,", " "+file+" > scenario.json,", 1))
			return nil, 1
		}
		printErrors(stderr, file, err)
		return nil, 1
	}
	return sc, 0
}

// catalogueEntry reports whether data is a file of the catalogue
// (shared/scenarios/catalog): an object with a slug and a scenario and no
// version, whose scenario is a field of it. It returns the slug.
func catalogueEntry(data []byte) (string, bool) {
	var entry struct {
		Version  json.RawMessage `json:"version"`
		Slug     string          `json:"slug"`
		Scenario json.RawMessage `json:"scenario"`
	}
	if json.Unmarshal(data, &entry) != nil || entry.Version != nil || entry.Slug == "" || len(entry.Scenario) == 0 {
		return "", false
	}
	return entry.Slug, true
}

// cmdShow prints a built-in's scenario as the API's GET
// /api/scenarios/SLUG answers it (its canonical JSON, presets expanded),
// indented.
func cmdShow(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("show", flag.ContinueOnError)
	fs.SetOutput(stderr)
	if code := parseFlags(fs, args); code != 0 {
		return exit(code)
	}
	switch fs.NArg() {
	case 0:
		fmt.Fprintln(stderr, "retrylab show: name a built-in's slug (retrylab list shows them)")
		return 2
	case 1:
	default:
		fmt.Fprintf(stderr, "retrylab show: one built-in at a time; got %s\n", strings.Join(fs.Args(), " "))
		return 2
	}
	slug := fs.Arg(0)
	b, ok := scenarios.Get(slug)
	if !ok {
		msg := "no built-in " + slug
		if near := closeSlugs(slug); len(near) > 0 {
			msg += "; did you mean " + strings.Join(near, " or ") + "?"
		}
		fmt.Fprintf(stderr, "retrylab show: %s (retrylab list shows every built-in)\n", msg)
		return 1
	}
	sc, err := b.Parse()
	if err != nil { // the built-ins are valid: the scenarios package's tests
		printErrors(stderr, slug, err)
		return 1
	}
	var out bytes.Buffer
	if err := json.Indent(&out, sc.Canonical(), "", "  "); err != nil {
		fmt.Fprintf(stderr, "retrylab show: %v\n", err)
		return 1
	}
	out.WriteByte('\n')
	stdout.Write(out.Bytes())
	return 0
}

// helpDone is parseFlags' code for -h or --help: the usage was printed, and
// the command ends with status 0.
const helpDone = -1

// parseFlags parses a command's flags. -h prints the command's flags with
// their defaults; a mistake is printed by the flag package, with a pointer to
// the full usage. It returns 0 to go on, 2 for a usage error, helpDone for -h.
func parseFlags(fs *flag.FlagSet, args []string) int {
	fs.Usage = func() {}
	switch err := fs.Parse(args); {
	case errors.Is(err, flag.ErrHelp):
		fmt.Fprintf(fs.Output(), "usage of retrylab %s (retrylab help shows every command):\n", fs.Name())
		fs.PrintDefaults()
		return helpDone
	case err != nil:
		fmt.Fprintln(fs.Output(), "retrylab help shows every command and flag")
		return 2
	}
	return 0
}

// exit turns parseFlags' code into an exit status.
func exit(code int) int { return max(code, 0) }

// closeSlugs returns the built-ins' slugs that name could have meant: those
// it begins or is part of, then those a few typing mistakes away, at most five.
func closeSlugs(name string) []string {
	name = strings.ToLower(name)
	var part, typo []string
	for _, b := range scenarios.All() {
		switch {
		case len(name) >= 2 && strings.HasPrefix(b.Slug, name),
			len(name) >= 3 && strings.Contains(b.Slug, name):
			part = append(part, b.Slug)
		case engine.EditDistance(name, b.Slug) <= 1+len(b.Slug)/5:
			typo = append(typo, b.Slug)
		}
	}
	near := append(part, typo...)
	return near[:min(len(near), 5)]
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

// writeTable prints the metrics as rows and the strategies as columns,
// then the search's frontier and recommendation, if sc has a search.
func writeTable(w io.Writer, sc *engine.Scenario, res *engine.Result) {
	fmt.Fprintf(w, "%s  (engine %s, seeds %v, %d events)\n\n", res.Scenario, res.EngineVersion, seedList(res.Seeds), res.Events)
	if len(res.Sweep) > 0 {
		for _, pt := range res.Sweep {
			v, _ := json.Marshal(pt.Value)
			fmt.Fprintf(w, "== %s\n", v)
			metricTable(w, pt.Strategies, false)
			fmt.Fprintln(w)
		}
	}
	var v *view.View // what the tail and the search show, as on a page
	if len(res.Sweep) == 0 {
		v = view.Of(sc, res, view.Options{})
		tails := len(res.Seeds) >= view.TailSeeds
		if tails {
			fmt.Fprintf(w, "each cell: the mean [lowest..highest] and p5/p50/p95 over the %d seeds\n", len(res.Seeds))
		}
		metricTable(w, res.Strategies, tails)
		fmt.Fprintf(w, "\n%s\n", lowerFirst(v.Window)) // which operations affected_* counted
		if v.Verdict != "" {
			fmt.Fprintf(w, "verdict: %s\n", v.Verdict) // the page's verdict, checked by shared/view
		}
		for _, y := range v.Yours {
			fmt.Fprintln(w, y)
		}
		writeTail(w, v)
	}
	printTransitions(w, "", res.Strategies)
	for _, pt := range res.Sweep {
		v, _ := json.Marshal(pt.Value)
		printTransitions(w, fmt.Sprintf(" at %s", v), pt.Strategies)
	}
	if v != nil && v.Search != nil && res.Search != nil && sc.Search != nil {
		writeSearch(w, sc.Search, res.Search, v.Search)
		writeAcross(w, sc.Search, res.Search, v.Search) // robust.go: each variant's metrics
	}
	if len(res.Warnings) > 0 {
		fmt.Fprintln(w, "\nwarnings:")
		for _, s := range res.Warnings {
			fmt.Fprintf(w, "  - %s\n", s)
		}
	}
}

// writeSearch prints how a search went, its frontier (one row per point:
// the knobs' values in words, then the objectives' and constraints'
// metrics, and "recommended" after the recommended point's; of each run
// of points with the same figures, the rows the view's groups list, then
// how many more there are) and its recommendation (its lead, then its
// detail), or why there is none, in the view's words, as pages say them.
func writeSearch(w io.Writer, s *engine.Search, r *engine.SearchResult, sv *view.SearchView) {
	groups := sv.Groups
	var rounds []string
	for i, rd := range r.Rounds {
		unit := ""
		if i == 0 {
			unit = " seed"
			if rd.Seeds > 1 {
				unit = " seeds"
			}
		}
		rounds = append(rounds, fmt.Sprintf("%d on %d%s", rd.Candidates, rd.Seeds, unit))
	}
	fmt.Fprintf(w, "\nsearch from %s: %d candidates by successive halving (%s), %d simulations\n",
		r.Strategy, r.Evaluated, strings.Join(rounds, ", "), r.Simulations)
	var metrics, objectives []string
	for _, o := range s.Objectives {
		metrics = append(metrics, o.Metric)
		objectives = append(objectives, o.Metric+" "+string(o.Goal))
	}
	constraints := []string{}
	for _, c := range s.Constraints {
		if !slices.Contains(metrics, c.Metric) {
			metrics = append(metrics, c.Metric)
		}
		constraints = append(constraints, fmt.Sprintf("%s %s %g", c.Metric, c.Op, c.Value))
	}
	fmt.Fprintf(w, "objectives: %s; constraints: %s\n", strings.Join(objectives, ", "), cmp.Or(strings.Join(constraints, ", "), "none"))
	if sv.Limits != "" {
		fmt.Fprintf(w, "%s\n", sv.Limits)
	}
	if r.Same != "" {
		fmt.Fprintf(w, "same strategies: %s\n", r.Same)
	}
	if len(r.Frontier) == 0 {
		fmt.Fprintf(w, "\n%s\n", sv.Note)
		return
	}
	last := r.Rounds[len(r.Rounds)-1].Candidates
	fmt.Fprintf(w, "\nfrontier: %d points, of the %d candidates of the last round (%d meet the constraints):\n", len(r.Frontier), last, r.Feasible)
	// The rows are aligned together, then each group's count of the
	// points it does not list goes after its rows, outside the columns.
	var tab bytes.Buffer
	tw := tabwriter.NewWriter(&tab, 4, 0, 2, ' ', 0)
	var head []string
	for _, k := range s.Knobs {
		head = append(head, k.Path)
	}
	fmt.Fprintln(tw, strings.Join(append(head, metrics...), "\t"))
	more := map[int]string{} // after the row of that point
	hidden := 0
	for _, g := range groups {
		for _, i := range g.Shown {
			p := r.Frontier[i]
			// The knobs' values in the view's words ("exponential 200 ms
			// → 2 s", "no budget", "every level"), as pages say them.
			row := slices.Clone(sv.Points[i].Settings)
			for _, m := range metrics {
				v, _ := p.Metrics.Metric(m)
				row = append(row, tableCell(m, v, p.Spread))
			}
			if sv.Points[i].Recommended {
				row = append(row, "recommended")
			}
			fmt.Fprintln(tw, strings.Join(row, "\t"))
		}
		if g.More != "" {
			more[g.Shown[len(g.Shown)-1]] = g.More
			hidden += len(g.Hidden)
		}
	}
	tw.Flush()
	lines := strings.SplitAfter(tab.String(), "\n")
	io.WriteString(w, lines[0])
	row := 1
	for _, g := range groups {
		for _, i := range g.Shown {
			io.WriteString(w, lines[row])
			row++
			if m, ok := more[i]; ok {
				fmt.Fprintf(w, "... %s\n", m)
			}
		}
	}
	if hidden > 0 {
		fmt.Fprintf(w, "(--format json lists all %d points)\n", len(r.Frontier))
	}
	if sv.Recommendation == "" {
		fmt.Fprintf(w, "\nno recommendation: %s\n", sv.Note)
		return
	}
	// The lead in one sentence, then the detail on a line of its own.
	fmt.Fprintf(w, "\nrecommendation: %s\n  in detail: %s\n", cmp.Or(sv.Lead, sv.Recommendation), sv.Recommendation)
}

func printTransitions(w io.Writer, where string, strats []engine.StrategyResult) {
	for _, st := range strats {
		if len(st.Transitions) == 0 {
			continue
		}
		fmt.Fprintf(w, "\nbreaker transitions of %s%s (first run):\n", st.Name, where)
		for _, t := range st.Transitions {
			dep := ""
			if t.Dependency != "" {
				dep = "  " + t.Dependency
			}
			fmt.Fprintf(w, "  %8.3fs  layer %d%s  %s -> %s\n", t.AtS, t.Layer, dep, t.From, t.To)
		}
	}
}

// writeTail prints what the view says of the seeds' tail: each strategy's
// worst seed for the focus metric and how often it crosses each of the
// scenario's thresholds.
func writeTail(w io.Writer, v *view.View) {
	if v.Worst != nil || len(v.Thresholds) > 0 {
		fmt.Fprintln(w)
	}
	if v.Worst != nil {
		var seeds []string
		for _, s := range v.Worst.Seeds {
			seeds = append(seeds, fmt.Sprintf("%s on seed %d (%s)", s.Strategy, s.Seed, s.Value))
		}
		fmt.Fprintf(w, "%s %s (--seed S --runs 1 reruns one)\n", lowerFirst(v.Worst.Text), strings.Join(seeds, "; "))
	}
	for _, t := range v.Thresholds {
		fmt.Fprintln(w, t)
	}
}

// lowerFirst writes s's first letter in lower case.
func lowerFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToLower(s[:1]) + s[1:]
}

// metricTable prints a row per metric and a column per strategy; with
// tails, each cell has the metric's p5/p50/p95 over the seeds too.
func metricTable(w io.Writer, strats []engine.StrategyResult, tails bool) {
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
			cell := tableCell(name, v, st.Spread)
			if words, ok := st.Metrics.Missing(name); ok {
				cell = words // n/a, or no recovery time: not recovered under load
			}
			if q, ok := st.Quantiles[name]; ok && tails {
				cell += fmt.Sprintf(" %s/%s/%s", chart.FormatCell(name, q.P5), chart.FormatCell(name, q.P50), chart.FormatCell(name, q.P95))
			}
			fmt.Fprintf(tw, "%s\t", cell)
		}
		fmt.Fprintln(tw)
	}
	// With fleets, each fleet's own metrics follow, named "fleet NAME:
	// metric"; with several calls in the plan, each call's, named "call:
	// metric".
	parts := func(n int, label func(k int) string, names []string, cell func(st *engine.StrategyResult, k int, name string) string) {
		for k := range n {
			for _, name := range names {
				fmt.Fprintf(tw, "%s: %s\t", label(k), name)
				for i := range strats {
					fmt.Fprintf(tw, "%s\t", cell(&strats[i], k, name))
				}
				fmt.Fprintln(tw)
			}
		}
	}
	if len(strats) > 0 {
		parts(len(strats[0].Fleets), func(k int) string { return "fleet " + strats[0].Fleets[k].Name }, engine.FleetMetricNames(),
			func(st *engine.StrategyResult, k int, name string) string {
				v, _ := st.Fleets[k].Metrics.Metric(name)
				return tableCell(name, v, st.Fleets[k].Spread)
			})
		parts(len(strats[0].Calls), func(k int) string { return strats[0].Calls[k].Name }, engine.CallMetricNames(),
			func(st *engine.StrategyResult, k int, name string) string {
				v, _ := st.Calls[k].Metrics.Metric(name)
				return tableCell(name, v, st.Calls[k].Spread)
			})
	}
	tw.Flush()
}

// tableCell formats metric name's value v with its range over the seeds,
// when spread has one that is not a single value.
func tableCell(name string, v float64, spread map[string]engine.MinMax) string {
	cell := chart.FormatCell(name, v)
	if mm, ok := spread[name]; ok && mm.Min != mm.Max {
		cell += fmt.Sprintf(" [%s..%s]", chart.FormatCell(name, mm.Min), chart.FormatCell(name, mm.Max))
	}
	return cell
}

func seedList(s []int64) string {
	if len(s) > 4 {
		return fmt.Sprintf("%d..%d", s[0], s[len(s)-1])
	}
	return fmt.Sprint(s)
}
