package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/retrylab/retrylab/shared/engine"
	"github.com/retrylab/retrylab/shared/engine/probe"
	"github.com/retrylab/retrylab/shared/scenarios"
	"github.com/retrylab/retrylab/shared/view"
)

const scenarioFile = "../../shared/engine/testdata/e03b.json"

func run(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = cli(context.Background(), args, strings.NewReader(stdin), &out, &errb)
	return code, out.String(), errb.String()
}

func TestRunTable(t *testing.T) {
	code, out, errs := run(t, "", "run", scenarioFile, "--runs", "2")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	lines := strings.Split(out, "\n")
	if !strings.Contains(lines[0], "E03-B synchronized recovery") || !strings.Contains(lines[0], "seeds [1 2]") {
		t.Errorf("header %q", lines[0])
	}
	header := strings.Fields(lines[2])
	if strings.Join(header, " ") != "metric A B C D" {
		t.Errorf("column header %q, want the metric and the four strategies", lines[2])
	}
	// Every metric has a row, and with two runs a spread appears somewhere.
	for _, name := range engine.MetricNames() {
		if !strings.Contains(out, " "+name+" ") {
			t.Errorf("no row for %s", name)
		}
	}
	if !strings.Contains(out, "..") || !strings.Contains(out, "warnings:") {
		t.Errorf("want spreads and warnings in:\n%s", out)
	}
	// The window affected_* counted, as the view says it (#27, item 7).
	if want := "\naffected window: operations started from 8.5s to 15s, pinned by report.affected_from and affected_to.\n"; !strings.Contains(out, want) {
		t.Errorf("want %q in:\n%s", want, out)
	}
	// The page's verdict, word for word, after the window.
	raw, err := os.ReadFile(scenarioFile)
	if err != nil {
		t.Fatal(err)
	}
	sc, err := engine.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	sc.Runs = 2
	res, err := engine.Run(context.Background(), sc, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	v := view.Of(sc, res, view.Options{})
	if v.Verdict == "" {
		t.Fatal("the view has no verdict for E03-B")
	}
	if want := "pinned by report.affected_from and affected_to.\nverdict: " + v.Verdict + "\n"; !strings.Contains(out, want) {
		t.Errorf("want %q in:\n%s", want, out)
	}
}

func TestRunJSONFromStdin(t *testing.T) {
	data := `{"version": 1, "name": "stdin", "workload": {"clients": 1, "arrival": "burst"},
		"dependency": {"workers": 1, "service_time": {"kind": "constant", "mean": "1ms"}, "queue_capacity": 0},
		"strategies": [{"name": "only", "max_attempts": 1}]}`
	code, out, errs := run(t, data, "run", "--format", "json", "-", "--seed", "9")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var res engine.Result
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	if res.Seeds[0] != 9 || res.Strategies[0].Metrics.Succeeded != 1 {
		t.Errorf("seeds %v, succeeded %v", res.Seeds, res.Strategies[0].Metrics.Succeeded)
	}
}

func TestRunErrors(t *testing.T) {
	for _, tc := range []struct {
		desc   string
		stdin  string
		args   []string
		code   int
		stderr string
	}{
		{"no command", "", nil, 2, "usage"},
		{"unknown command", "", []string{"fly"}, 2, `unknown command "fly"`},
		{"no file", "", []string{"run"}, 2, "name a scenario file"},
		{"two files", "", []string{"run", "a.json", "b.json"}, 2, "one scenario at a time"},
		{"bad format", "", []string{"run", scenarioFile, "--format", "xml"}, 2, `--format "xml"`},
		{"missing file", "", []string{"run", "nope.json"}, 1, "no such file"},
		{"invalid scenario", `{"version": 1, "strategies": [{"name": "a", "max_attempts": 101}]}`, []string{"run", "-"}, 1, "-: strategies[0].max_attempts: 101 is out of range 0..100"},
		{"too costly", "", []string{"run", scenarioFile, "--max-events", "1000"}, 1, "over the limit of 1000"},
		{"no runs", "", []string{"run", scenarioFile, "--runs", "0"}, 2, "--runs 0 is out of range 1..1000"},
		{"negative runs", "", []string{"run", scenarioFile, "--runs=-2"}, 2, "--runs -2 is out of range 1..1000"},
		{"too many runs", "", []string{"chart", scenarioFile, "--runs", "1001"}, 2, "--runs 1001 is out of range"},
		{"negative seed", "", []string{"run", "--seed", "-1", scenarioFile}, 2, "--seed -1 is out of range 0..9007199254740991"},
		{"negative max events", "", []string{"run", scenarioFile, "--max-events", "-5"}, 2, "--max-events -5 is negative"},
		{"unknown flag", "", []string{"run", scenarioFile, "--rnus", "3"}, 2, "retrylab help shows every command and flag"},
		{"bad picture", "", []string{"chart", scenarioFile, "--picture", "pie"}, 2, `--picture "pie" is not one of attempts,`},
		{"bad theme", "", []string{"chart", scenarioFile, "--theme", "sepia"}, 2, `--theme "sepia" is not auto, light or dark`},
		{"bad metric", "", []string{"chart", scenarioFile, "--picture", "compare", "--metric", "nope", "--runs", "1"}, 2, "nope"},
		{"serve with an argument", "", []string{"serve", "extra"}, 2, "takes no arguments"},
		{"serve with an unknown flag", "", []string{"serve", "--port", "80"}, 2, "flag provided but not defined: -port"},
		{"a prefix of a slug", "", []string{"run", "e03b-s"}, 1, "no built-in e03b-s; did you mean e03b-synchronized-recovery?\n"},
		{"a prefix of several slugs", "", []string{"chart", "e03"}, 1, "no built-in e03; did you mean e03b-synchronized-recovery or e03a-transient-failures"},
		{"a typo", "", []string{"run", "metadata-strom"}, 1, "did you mean metadata-storm?"},
		{"nothing close", "", []string{"run", "zzz"}, 1, "no built-in zzz\n(nor a file of that name; retrylab list shows every built-in)"},
		{"a gRPC service config", `{"methodConfig": []}`, []string{"run", "-"}, 1, "-: This looks like a gRPC service config (JSON), not a RetryLab scenario: import it instead, with Import a policy in the playground, retrylab import --from grpc - > scenario.json"},
		{"a resilience4j YAML", "resilience4j:\n  retry: {}\n", []string{"chart", "-"}, 1, "retrylab import --from resilience4j - > scenario.json"},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			code, _, errs := run(t, tc.stdin, tc.args...)
			if code != tc.code || !strings.Contains(errs, tc.stderr) {
				t.Errorf("exit %d, stderr %q; want %d and %q", code, errs, tc.code, tc.stderr)
			}
		})
	}
}

func TestListPresetsAndBuiltins(t *testing.T) {
	code, out, _ := run(t, "", "list")
	if code != 0 || !strings.HasPrefix(out, "e03b-synchronized-recovery") || strings.Count(out, "\n") != len(scenarios.All()) {
		t.Errorf("list: exit %d\n%s", code, out)
	}
	code, out, _ = run(t, "", "presets")
	if code != 0 || !strings.Contains(out, "ms-standard-resilience\n") || !strings.Contains(out, "differs:") || !strings.Contains(out, "  source: App-vNext/Polly") {
		t.Errorf("presets: exit %d\n%s", code, out)
	}
	if strings.Contains(strings.ToLower(out), "domain"+".md") {
		t.Errorf("presets cites the team's private notes; users do not have them:\n%s", out)
	}
	code, out, errs := run(t, "", "run", "layered-retries", "--format", "json")
	if code != 0 {
		t.Fatalf("run a built-in: exit %d: %s", code, errs)
	}
	var res engine.Result
	if err := json.Unmarshal([]byte(out), &res); err != nil || res.Strategies[0].Metrics.Amplification != 27 {
		t.Errorf("run layered-retries: %v, amplification %v", err, res.Strategies[0].Metrics.Amplification)
	}
	code, _, errs = run(t, "", "run", "no-such-slug")
	if code != 1 || !strings.Contains(errs, "no built-in no-such-slug") {
		t.Errorf("unknown slug: exit %d, %q", code, errs)
	}
	preset := `{"version": 1, "name": "p", "workload": {"clients": 1, "arrival": "burst"},
		"dependency": {"workers": 1, "service_time": {"kind": "constant", "mean": "1ms"}, "queue_capacity": 0},
		"strategies": [{"name": "azure", "preset": "azure-sdk", "max_attempts": 2}]}`
	if code, _, errs := run(t, preset, "run", "-"); code != 0 {
		t.Errorf("a scenario with a preset: exit %d: %s", code, errs)
	}
}

func TestRunsAndSeedOverrideTheScenario(t *testing.T) {
	code, out, errs := run(t, "", "run", "layered-retries", "--runs", "3", "--seed", "0", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var res engine.Result
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(res.Seeds) != "[0 1 2]" {
		t.Errorf("seeds %v, want [0 1 2]", res.Seeds)
	}
}

// TestHelpDocumentsEveryFlag keeps the usage text in step with the flags: every
// flag of every command appears in retrylab help as --name, and so does every
// environment variable serve reads.
func TestHelpDocumentsEveryFlag(t *testing.T) {
	code, help, _ := run(t, "", "help")
	if code != 0 || !strings.HasPrefix(help, "usage: retrylab") {
		t.Fatalf("help: exit %d\n%s", code, help)
	}
	flagLine := regexp.MustCompile(`(?m)^  -([a-z-]+)`)
	for _, cmd := range []string{"run", "probe", "chart", "serve", "import", "export"} {
		code, _, errs := run(t, "", cmd, "-h")
		flags := flagLine.FindAllStringSubmatch(errs, -1)
		if code != 0 || len(flags) == 0 {
			t.Fatalf("%s -h: exit %d, no flags in\n%s", cmd, code, errs)
		}
		section := help[strings.Index(help, "\n  "+cmd+" ")+1:]
		if next := regexp.MustCompile(`\n  [a-z]`).FindStringIndex(section); next != nil {
			section = section[:next[0]] // up to the next command
		}
		for _, f := range flags {
			if !strings.Contains(section, "--"+f[1]+" ") && !strings.Contains(section, "--"+f[1]+"\n") && !strings.Contains(section, "--"+f[1]+",") {
				t.Errorf("retrylab help does not document %s --%s", cmd, f[1])
			}
		}
	}
	src, err := os.ReadFile("serve.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, env := range regexp.MustCompile(`RETRYLAB_[A-Z_]+`).FindAllString(string(src), -1) {
		if !strings.Contains(help, env) {
			t.Errorf("retrylab help does not mention %s, which serve reads", env)
		}
	}
	for _, want := range []string{"--base-url URL", "Exit status", "2 for a usage error"} {
		if !strings.Contains(help, want) {
			t.Errorf("help lacks %q", want)
		}
	}
}

func TestSearchCommand(t *testing.T) {
	if !engine.Searches() {
		t.Skip("this build runs no search")
	}
	code, out, errs := run(t, "", "search", "e03b-synchronized-recovery", "--strategy", "C", "--runs", "2")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{
		"search from C: 108 candidates by successive halving (108 on 1 seed, 54 on 2), 162 simulations\n",
		"objectives: affected_success_rate max, peak_per_100ms min; constraints: none\n",
		"\nmax_attempts  backoff  ",
		"\nrecommendation: ",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in:\n%s", want, out)
		}
	}
	// The recommendation is the frontier's first row, in words.
	rows := strings.Split(out[strings.Index(out, "\nmax_attempts  backoff"):], "\n")
	rec := out[strings.Index(out, "\nrecommendation: ")+len("\nrecommendation: "):]
	if first := strings.Fields(rows[2])[0]; !strings.HasPrefix(rec, "The search from C recommends "+first+" attempts, backoff exponential ") || !strings.HasSuffix(rows[2], "  recommended") {
		t.Errorf("first row %q, recommendation %q", rows[2], rec[:40])
	}

	code, out, errs = run(t, "", "search", "--format", "json", "--runs", "1", scenarioFile)
	if code != 0 {
		t.Fatalf("json: exit %d: %s", code, errs)
	}
	var res engine.Result
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	if s := res.Search; s == nil || s.Strategy != "A" || s.Recommendation == nil || len(s.Frontier) == 0 || len(res.Strategies) != 4 {
		t.Errorf("json: search %+v, %d strategies; want a search from the first strategy, A, beside the four", s, len(res.Strategies))
	}

	code, _, errs = run(t, "", "search", scenarioFile, "--strategy", "Z")
	if code != 2 || !strings.Contains(errs, `--strategy "Z" is not a strategy of `+scenarioFile+`; it has "A", "B", "C", "D"`) {
		t.Errorf("unknown strategy: exit %d, %q", code, errs)
	}
	code, _, errs = run(t, "", "search", "token-bucket-sweep")
	if code != 1 || !strings.Contains(errs, "sweeps dependency.error_rate; a search varies a strategy of a scenario without a sweep") {
		t.Errorf("sweep: exit %d, %q", code, errs)
	}
}

// TestSearchTableGroupsTies: the frontier table lists, of each run of
// points with the same figures, the view's first three and counts the
// others; the JSON keeps every point. The default search on the built-in
// thundering-herd-jitter (no operation started during the freeze
// succeeds) finds 140 points with the same figures.
func TestSearchTableGroupsTies(t *testing.T) {
	if !engine.Searches() {
		t.Skip("this build runs no search")
	}
	code, out, errs := run(t, "", "search", "thundering-herd-jitter")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	table := out[strings.Index(out, "\nfrontier: "):strings.Index(out, "\nno recommendation: ")]
	lines := strings.Split(strings.TrimSpace(table), "\n")
	want := []string{"frontier: 140 points,", "max_attempts  backoff", "2 ", "2 ", "2 ", "... and 137 more with the same figures", "(--format json lists all 140 points)"}
	if len(lines) != len(want) {
		t.Fatalf("the frontier table has %d lines, want %d:\n%s", len(lines), len(want), table)
	}
	for i, w := range want {
		if !strings.HasPrefix(lines[i], w) {
			t.Errorf("line %d is %q, want it to start %q", i+1, lines[i], w)
		}
	}
	// The rows listed are aligned as one table, in characters (a
	// backoff's "→" is three bytes).
	col := func(line, s string) int { return utf8.RuneCountInString(line[:strings.Index(line, s)]) }
	if a, b := col(lines[1], "affected_success_rate"), col(lines[4], "0.00%"); a != b {
		t.Errorf("the rows' columns do not line up with the header's (%d, %d):\n%s", a, b, table)
	}

	code, out, errs = run(t, "", "search", "thundering-herd-jitter", "--format", "json")
	if code != 0 {
		t.Fatalf("json: exit %d: %s", code, errs)
	}
	var res engine.Result
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	if res.Search == nil || len(res.Search.Frontier) != 140 {
		t.Errorf("json: %+v, want the 140 frontier points", res.Search)
	}
}

// TestSearchLayered: the default search of a layered strategy (the
// built-in layered-retries' 3x3) varies its knobs at every level and
// which level retries, and the table and sentences say so in words.
func TestSearchLayered(t *testing.T) {
	if !engine.Searches() {
		t.Skip("this build runs no search")
	}
	code, out, errs := run(t, "", "search", "layered-retries")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{
		"\nsearch from 3x3: 192 candidates by successive halving",
		"\nlevels[*].max_attempts  levels[*].backoff  ",
		"  retry_level  ",
		"  every level  ",
		"backoff at every level",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in:\n%s", want, out)
		}
	}
}

func TestRunPrintsSearch(t *testing.T) {
	if !engine.Searches() {
		t.Skip("this build runs no search")
	}
	code, out, errs := run(t, "", "run", "../../shared/engine/testdata/search.json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"\nsearch from C: 18 candidates", "constraints: peak_per_100ms <= 70\n", "\nmax_attempts  jitter.kind  ", "\nrecommendation: "} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in:\n%s", want, out)
		}
	}
}

func TestProbeCommand(t *testing.T) {
	code, out, errs := run(t, "", "probe", "e03b-synchronized-recovery", "--strategy", "C", "--runs", "2")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{
		"probe of C in E03-B synchronized recovery: the storm has ended when the operations started from 25s to 30s, on each of 2 seeds, succeed within 1 percentage point of the strategy's own healthy success rate, or make at most 10% more calls per operation than its own healthy amplification",
		"with the load reduction or the workers added from 15s, when the trigger ends\n",
		"\nhealthy:          100.00% succeed, amplification 1.000\n",
		"\nwithout a remedy: 100.00% succeed, amplification 1.000\n",
		"\nnot in a storm: after the trigger it is at its own baseline (100.00% success, amplification 1.000, as without the trigger)\n",
		"\n4 simulations, ",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in:\n%s", want, out)
		}
	}
	code, out, errs = run(t, "", "probe", "--format", "json", "--runs", "1", "--at", "16s", "e03b-synchronized-recovery")
	if code != 0 {
		t.Fatalf("json: exit %d: %s", code, errs)
	}
	var res probe.Result
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	if res.Strategy != "A" || res.At != engine.Duration(16e9) || res.Seeds != 1 || len(res.Remedies) != 3 { // one level: no retrying at one level only
		t.Errorf("result %+v", res)
	}
	for _, bad := range [][]string{{"--at", "soon"}, {"--strategy", "Z"}, {"--format", "table"}, {"--settle", "0s"}} {
		if code, _, _ := run(t, "", append([]string{"probe", "e03b-synchronized-recovery"}, bad...)...); code != 2 {
			t.Errorf("probe %v: exit %d, want 2", bad, code)
		}
	}
}

// TestSearchKeepsTheScenariosOwnSearch: search on a file with a search
// block runs that block (and says so), unless --strategy asks for the
// default search, which replaces it (and says so).
func TestSearchKeepsTheScenariosOwnSearch(t *testing.T) {
	if !engine.Searches() {
		t.Skip("this build runs no search")
	}
	b, _ := scenarios.Get("e03b-synchronized-recovery")
	sc, err := b.Parse()
	if err != nil {
		t.Fatal(err)
	}
	sc.Runs = 1
	sc.Search = &engine.Search{Strategy: "C",
		Knobs:       []engine.Knob{{Path: "max_attempts", Values: []json.RawMessage{json.RawMessage("2"), json.RawMessage("3")}}},
		Objectives:  []engine.Objective{{Metric: "retries", Goal: engine.GoalMin}},
		Constraints: []engine.Constraint{{Metric: "affected_success_rate", Op: engine.OpAtLeast, Value: 0.5}}}
	file := filepath.Join(t.TempDir(), "s.json")
	if err := os.WriteFile(file, sc.Canonical(), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := run(t, "", "search", file)
	if code != 0 || !strings.Contains(errs, "has a search block: running it as written") || !strings.Contains(out, "search from C: 2 candidates") || !strings.Contains(out, "constraints: affected_success_rate >= 0.5") {
		t.Errorf("own search: exit %d\nstderr %s\nstdout %s", code, errs, out)
	}
	code, out, errs = run(t, "", "search", "--strategy", "A", file)
	if code != 0 || !strings.Contains(errs, `the scenario's own search (from C, with constraints affected_success_rate >= 0.5) is replaced by the default search from A, which has no constraints`) || !strings.Contains(out, "search from A: 108 candidates") {
		t.Errorf("default search: exit %d\nstderr %s\nstdout %.300s", code, errs, out)
	}
}

// TestRunTableTail: from 20 seeds each cell has its p5/p50/p95, and the
// table is followed by the worst seed of the focus metric (the first,
// peak_per_100ms) and a line per strategy and threshold with the engine's
// count.
func TestRunTableTail(t *testing.T) {
	raw, err := os.ReadFile(scenarioFile)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	doc["report"] = map[string]any{"focus": []string{"peak_per_100ms"},
		"thresholds": []map[string]any{{"metric": "peak_per_100ms", "op": "<=", "value": 100}}}
	b, _ := json.Marshal(doc)
	code, out, errs := run(t, string(b), "run", "-", "--runs", "20")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(out, "p5/p50/p95 over the 20 seeds") || !regexp.MustCompile(` peak_per_100ms .*\] \d+/\d+/\d+`).MatchString(out) {
		t.Errorf("no p5/p50/p95 in:\n%s", out)
	}
	code, js, _ := run(t, string(b), "run", "-", "--runs", "20", "--format", "json")
	if code != 0 {
		t.Fatal(code)
	}
	var res engine.Result
	if err := json.Unmarshal([]byte(js), &res); err != nil {
		t.Fatal(err)
	}
	a := res.Strategies[0]
	w := a.WorstSeeds["peak_per_100ms"]
	if want := fmt.Sprintf("worst seed for peak calls in 100 ms: A on seed %d (%g calls);", w.Seed, w.Value); !strings.Contains(out, want) {
		t.Errorf("want %q in:\n%s", want, out)
	}
	if want := fmt.Sprintf("A has peak calls in 100 ms above 100 calls on %s of the 20 seeds (%d).", strings.TrimSuffix(fmt.Sprintf("%.1f", a.Thresholds[0].Share*100), ".0")+"%", a.Thresholds[0].Crossed); !strings.Contains(out, want) {
		t.Errorf("want %q in:\n%s", want, out)
	}
}

// TestRunRecoveryNotApplicable: without a fault to recover from, the
// table says recovery does not apply, never 0 s and 100% beside a
// dependency that fails a call in five.
func TestRunRecoveryNotApplicable(t *testing.T) {
	sc := `{"version": 1, "name": "errors all along", "seed": 1,
  "workload": {"clients": 10, "arrival": "poisson", "rate": 50, "duration": "5s"},
  "dependency": {"workers": 10, "service_time": {"kind": "constant", "mean": "20ms"}, "error_rate": 0.2},
  "strategies": [{"name": "once", "max_attempts": 1}]}`
	code, out, errs := run(t, sc, "run", "-")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{`\s+recovery_s\s+n/a\s*\n`, `\s+recovered\s+n/a\s*\n`} {
		if !regexp.MustCompile(want).MatchString(out) {
			t.Errorf("no %s in:\n%s", want, out)
		}
	}
	code, out, _ = run(t, sc, "run", "-", "--format", "json")
	if code != 0 || !strings.Contains(out, `"recovery_s": null`) || !strings.Contains(out, `"recovered": null`) {
		t.Errorf("json: exit %d, recovery not null:\n%s", code, out)
	}
}

// TestRunNotRecoveredUnderLoad: failover-incident's every-layer does not
// recover while arrivals run: the table says so in words, with no time,
// and recovered reads 0%.
func TestRunNotRecoveredUnderLoad(t *testing.T) {
	code, out, errs := run(t, "", "run", "failover-incident")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{`\s+recovery_s\s+not recovered under load\s+0\s+not recovered under load\s+0\s*\n`, `\s+recovered\s+0\.00%\s+100\.00%\s+0\.00%\s+100\.00%\s*\n`} {
		if !regexp.MustCompile(want).MatchString(out) {
			t.Errorf("no %s in:\n%s", want, out)
		}
	}
}

// TestSearchDefaultOfAHedgedStrategy: the default search of a hedged
// strategy varies only what copies have (their number, a budget, their
// delay, and its attempt timeout) and judges latency too: no error about
// a backoff the user never wrote.
func TestSearchDefaultOfAHedgedStrategy(t *testing.T) {
	if !engine.Searches() {
		t.Skip("this build runs no search")
	}
	b, _ := scenarios.Get("hedged-requests")
	sc, err := b.Parse()
	if err != nil {
		t.Fatal(err)
	}
	sc.Sweep, sc.Runs = nil, 1
	file := filepath.Join(t.TempDir(), "hedged.json")
	if err := os.WriteFile(file, sc.Canonical(), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := run(t, "", "search", file, "--strategy", "hedge at 50 ms")
	if code != 0 || strings.Contains(errs, "backoff") || !strings.Contains(out, "search from hedge at 50 ms: 108 candidates") ||
		!strings.Contains(out, "\nmax_attempts  budget  ") || !strings.Contains(out, "objectives: affected_success_rate max, latency_p99_ms min, peak_per_100ms min;") {
		t.Errorf("exit %d\nstderr %s\nstdout %.600s", code, errs, out)
	}
}

// TestSearchSentencesInWords: the command line prints the view's
// sentences: the recommendation in words, with the caution of one seed,
// and, where the frontier ties, why none is recommended.
func TestSearchSentencesInWords(t *testing.T) {
	if !engine.Searches() {
		t.Skip("this build runs no search")
	}
	code, out, errs := run(t, "", "search", "e03b-synchronized-recovery", "--strategy", "C", "--runs", "1")
	if code != 0 || !strings.Contains(out, "\nrecommendation: The search from C recommends 3 attempts, backoff exponential 1 s → 10 s, jitter full, attempt_timeout 1 s, deadline 5 s: success rate in the affected window ") ||
		!strings.Contains(out, "\n  in detail: 3 attempts, backoff exponential 1 s → 10 s, jitter full, attempt_timeout 1 s, deadline 5 s gives the highest success rate in the affected window on its 1 seed") ||
		!strings.Contains(out, "It rests on 1 seed only: run more seeds before trusting it.") {
		t.Errorf("one seed: exit %d\nstderr %s\nstdout %s", code, errs, out)
	}
	code, out, errs = run(t, "", "search", "thundering-herd-jitter")
	if code != 0 || !strings.Contains(out, "\nno recommendation: No objective separates the 140 frontier points: ") {
		t.Errorf("ties: exit %d\nstderr %s\nstdout %s", code, errs, out)
	}
}

// TestSearchWithinGRPC: an imported gRPC retryPolicy is searched within
// gRPC's limits, and the table says so (TestLibrarySearchExports in
// shared/convert exports every candidate).
func TestSearchWithinGRPC(t *testing.T) {
	if !engine.Searches() {
		t.Skip("this build runs no search")
	}
	code, scenario, errs := run(t, "", "import", "--from", "grpc", "../../shared/convert/testdata/import/grpc-a6-retry.json")
	if code != 0 {
		t.Fatalf("import: exit %d: %s", code, errs)
	}
	code, out, errs := run(t, scenario, "search", "-")
	if code != 0 {
		t.Fatalf("search: exit %d: %s", code, errs)
	}
	for _, want := range []string{
		": 32 candidates by successive halving",
		"\nsearched within gRPC's limits (every candidate exports as grpc exactly): 2..5 attempts",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the search's table lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, `"kind":"full"`) || strings.Contains(out, "\n6 ") {
		t.Errorf("a candidate outside gRPC's limits:\n%s", out)
	}
}

// TestConfigGivenAsAScenario: a configuration run as a scenario is told
// where it goes, and not its errors as a scenario, which would send the
// reader to fix what is not broken.
func TestConfigGivenAsAScenario(t *testing.T) {
	code, _, errs := run(t, `{"methodConfig": []}`, "run", "-")
	if code != 1 || !strings.Contains(errs, "retrylab import --from grpc") || strings.Contains(errs, "version") || strings.Contains(errs, "not a known field") {
		t.Errorf("exit %d, stderr %q", code, errs)
	}
}
