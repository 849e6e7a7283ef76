package main

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/retrylab/retrylab/shared/convert"
	"github.com/retrylab/retrylab/shared/engine"
	"github.com/retrylab/retrylab/shared/engine/probe"
	"github.com/retrylab/retrylab/shared/scenarios"
	"github.com/retrylab/retrylab/shared/view"
)

// checkRuns is how many seeds check runs each incident on, unless --runs
// says otherwise: enough for "on 95% of seeds" to allow one seed.
const checkRuns = 20

// A checkPolicy is one policy of a configuration file: the strategy
// Import made of it and the line of the file it is configured at.
type checkPolicy struct {
	File     string          `json:"file"`
	Line     int             `json:"line"`
	Format   string          `json:"format"`
	Name     string          `json:"policy"`
	Strategy engine.Strategy `json:"-"`
	Cases    []*checkCase    `json:"incidents"`
}

// A checkCase is one policy in one incident: the claims of each
// requirement, and what to do when one fails.
type checkCase struct {
	Incident string            `json:"incident"`
	Holds    bool              `json:"holds"`
	Claims   []view.CheckClaim `json:"claims"`
	Remedy   string            `json:"remedy,omitempty"`
	// Tried is the change check ran for the remedy, and how the
	// requirements fare with it.
	Tried *view.TriedRemedy `json:"tried,omitempty"`
	Link  string            `json:"link,omitempty"`

	scenario *engine.Scenario
	probe    probe.Options // for not metastable
}

// A checkIncident is an incident of the suite: a built-in of
// scenarios.Incidents or a scenario file of --scenario.
type checkIncident struct {
	Name     string `json:"name"`
	Source   string `json:"source"`
	Why      string `json:"why,omitempty"`
	settle   engine.Duration
	scenario func([]engine.Strategy) (*engine.Scenario, error)
}

// multiFlag is a flag that may be given several times.
type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ", ") }
func (m *multiFlag) Set(s string) error { *m = append(*m, s); return nil }

// cmdCheck runs "check": every policy of the configuration files through
// the incidents, each held to the requirements.
func cmdCheck(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("check", flag.ContinueOnError)
	fs.SetOutput(stderr)
	checkSeeds, seeds := seedFlags(fs)
	from := fs.String("from", "", "format of every file: "+strings.Join(convert.ImportFormats, ", ")+" (default: the one each looks like)")
	format := fs.String("format", "table", "output format: table, junit, github or json")
	reqFile := fs.String("requirements", "", "file of requirements, one a line (default: "+strings.TrimSpace(view.DefaultRequirements)+")")
	share := fs.String("share", "", "RetryLab server to post each failing scenario to, e.g. https://retrylab.example")
	maxEvents := fs.Int64("max-events", view.LocalMaxEvents, "refuse a suite with a simulation estimated above this many events (0: no limit)")
	parallel := fs.Int("parallel", 0, "simulations at once (0: as many as cores)")
	suite := fs.String("suite", "default", "the built-in incidents: "+strings.Join(scenarios.Suites, " or "))
	var require, scenarioFiles multiFlag
	fs.Var(&require, "require", "a requirement, as a line of --requirements (repeatable)")
	fs.Var(&scenarioFiles, "scenario", "a scenario file to run as an incident, in place of the built-in suite (repeatable)")
	var paths []string
	rest := args
	for {
		if code := parseFlags(fs, rest); code != 0 {
			return exit(code)
		}
		if fs.NArg() == 0 {
			break
		}
		paths, rest = append(paths, fs.Arg(0)), fs.Args()[1:]
	}
	usageErr := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "retrylab check: "+format+"\n", a...)
		return 2
	}
	if len(paths) == 0 {
		return usageErr("name the configuration files to check, or globs such as 'deploy/*.yaml'")
	}
	if err := checkSeeds(); err != nil {
		return usageErr("%v", err)
	}
	if !slices.Contains([]string{"table", "junit", "github", "json"}, *format) {
		return usageErr("--format %q is not table, junit, github or json", *format)
	}
	if *from != "" {
		if err := convert.CheckFormat(*from, false); err != nil {
			return usageErr("--from %v", err)
		}
	}
	if !slices.Contains(scenarios.Suites, *suite) {
		return usageErr("--suite %q is not %s", *suite, strings.Join(scenarios.Suites, " or "))
	}
	if *maxEvents < 0 || *parallel < 0 {
		return usageErr("--max-events and --parallel may not be negative")
	}
	if *share != "" && !strings.HasPrefix(*share, "http://") && !strings.HasPrefix(*share, "https://") {
		return usageErr("--share %q is not a server's http:// or https:// address", *share)
	}
	reqs, code := checkRequirements(*reqFile, require, stderr)
	if code != 0 {
		return code
	}
	files, code := checkFiles(paths, stderr)
	if code != 0 {
		return code
	}
	policies, code := checkPolicies(files, *from, stderr)
	if code != 0 {
		return code
	}
	incidents, code := checkIncidents(scenarioFiles, *suite, stderr)
	if code != 0 {
		return code
	}
	// Every scenario is built, and its cost checked, before anything runs.
	for _, p := range policies {
		for _, in := range incidents {
			sc, err := in.scenario([]engine.Strategy{p.Strategy})
			if err == nil {
				sc.Runs, sc.Seeds = checkRuns, nil
				seeds(sc)
				sc.Report.Thresholds = nil
				for _, r := range reqs {
					if !r.NotMetastable {
						sc.Report.Thresholds = append(sc.Report.Thresholds, engine.Constraint{Metric: r.Metric, Op: r.Op, Value: r.Value})
					}
				}
				err = sc.Validate()
			}
			if err == nil {
				err = engine.CheckCost(sc, *maxEvents)
			}
			if err != nil {
				printErrors(stderr, fmt.Sprintf("%s: %s in %s", p.File, p.Name, in.Name), err)
				costHint(stderr, "check", err, false)
				return 1
			}
			c := &checkCase{Incident: in.Name, scenario: sc,
				probe: probe.Options{Strategy: p.Name, Settle: in.settle, MaxEvents: *maxEvents, Parallelism: *parallel}}
			if slices.ContainsFunc(reqs, func(r view.Requirement) bool { return r.NotMetastable }) {
				if err := probeCheck(sc, c.probe); err != nil {
					printErrors(stderr, fmt.Sprintf("%s: %s in %s: not metastable", p.File, p.Name, in.Name), err)
					if engine.IsCost(err) {
						probeCostHint(stderr, "check")
					}
					return 1
				}
			}
			p.Cases = append(p.Cases, c)
		}
	}
	for _, p := range policies {
		for _, c := range p.Cases {
			if code := judgeCase(ctx, p, c, reqs, stderr); code != 0 {
				return code
			}
		}
	}
	failed := 0
	for _, p := range policies {
		for _, c := range p.Cases {
			if c.Holds {
				continue
			}
			failed++
			if *share != "" {
				link, err := shareScenario(ctx, *share, c.scenario)
				if err != nil {
					fmt.Fprintf(stderr, "retrylab check: --share: %s in %s: %v\n", p.Name, c.Incident, err)
					return 1
				}
				c.Link = link
			}
		}
	}
	var out bytes.Buffer
	switch *format {
	case "table":
		writeCheckTable(&out, policies, reqs, failed)
	case "github":
		writeCheckGitHub(&out, policies, failed)
	case "junit":
		writeCheckJUnit(&out, policies)
	case "json":
		enc := json.NewEncoder(&out)
		enc.SetIndent("", "  ")
		enc.Encode(struct {
			Requirements []string        `json:"requirements"`
			Incidents    []checkIncident `json:"incidents"`
			Policies     []*checkPolicy  `json:"policies"`
			Failed       int             `json:"failed"`
		}{reqStrings(reqs), incidents, policies, failed})
	}
	stdout.Write(out.Bytes())
	if failed > 0 {
		return 1
	}
	return 0
}

// checkRequirements reads the requirements of --requirements and of each
// --require, in that order; without any, view.DefaultRequirements.
func checkRequirements(file string, flags []string, stderr io.Writer) ([]view.Requirement, int) {
	var reqs []view.Requirement
	if file != "" {
		data, err := os.ReadFile(file)
		if err != nil {
			fmt.Fprintf(stderr, "retrylab check: --requirements: %v\n", err)
			return nil, 2
		}
		rs, err := view.ParseRequirements(string(data))
		if err != nil {
			for _, line := range strings.Split(err.Error(), "\n") {
				fmt.Fprintf(stderr, "%s: %s\n", file, line)
			}
			return nil, 2
		}
		reqs = rs
	}
	for _, f := range flags {
		if strings.Contains(f, "\n") {
			fmt.Fprintf(stderr, "retrylab check: --require %q: one requirement a flag\n", f)
			return nil, 2
		}
		rs, err := view.ParseRequirements(f)
		if err == nil && len(rs) == 0 {
			err = errors.New("is empty")
		}
		if err != nil {
			fmt.Fprintf(stderr, "retrylab check: --require %q: %s\n", f, strings.TrimPrefix(err.Error(), "line 1: "))
			return nil, 2
		}
		reqs = append(reqs, rs...)
	}
	if len(reqs) == 0 {
		reqs, _ = view.ParseRequirements(view.DefaultRequirements)
	}
	metrics := 0
	for _, r := range reqs {
		if !r.NotMetastable {
			metrics++
		}
	}
	if metrics > engine.MaxThresholds {
		fmt.Fprintf(stderr, "retrylab check: %d requirements on metrics; at most %d\n", metrics, engine.MaxThresholds)
		return nil, 2
	}
	return reqs, 0
}

func reqStrings(reqs []view.Requirement) []string {
	var out []string
	for _, r := range reqs {
		out = append(out, r.String())
	}
	return out
}

// checkFiles expands the paths and globs into files, each once, in the
// order given (a glob's matches sorted).
func checkFiles(paths []string, stderr io.Writer) ([]string, int) {
	var files []string
	for _, p := range paths {
		if p == "-" {
			fmt.Fprintln(stderr, "retrylab check: reads files, not standard input; name them")
			return nil, 2
		}
		matches := []string{p}
		if strings.ContainsAny(p, "*?[") {
			m, err := filepath.Glob(p)
			if err != nil {
				fmt.Fprintf(stderr, "retrylab check: %q is not a glob: %v\n", p, err)
				return nil, 2
			}
			if len(m) == 0 {
				fmt.Fprintf(stderr, "retrylab check: %q matches no file\n", p)
				return nil, 2
			}
			matches = m
		}
		for _, f := range matches {
			if fi, err := os.Stat(f); err == nil && fi.IsDir() {
				fmt.Fprintf(stderr, "retrylab check: %s is a directory; name its files, or a glob such as %s\n", f, filepath.Join(f, "*.yaml"))
				return nil, 2
			}
			if !slices.Contains(files, f) {
				files = append(files, f)
			}
		}
	}
	return files, 0
}

// checkPolicies imports every policy of every file, each with its line.
func checkPolicies(files []string, from string, stderr io.Writer) ([]*checkPolicy, int) {
	var out []*checkPolicy
	for _, file := range files {
		data, err := readInput(file, nil)
		if err != nil {
			fmt.Fprintf(stderr, "retrylab check: %v\n", err)
			return nil, 1
		}
		format := cmp.Or(from, convert.Detect(data))
		if format == "" {
			fmt.Fprintf(stderr, "retrylab check: %s looks like none of the formats import reads; name its format with --from: %s\n", file, strings.Join(convert.ImportFormats, ", "))
			return nil, 2
		}
		im, err := convert.Import(format, data)
		if err != nil {
			printErrors(stderr, file, err)
			return nil, 1
		}
		var names []string
		for _, st := range im.Strategies {
			names = append(names, st.Name)
		}
		lines := policyLines(data, names)
		for i, st := range im.Strategies {
			out = append(out, &checkPolicy{File: filepath.ToSlash(file), Line: lines[i], Format: format, Name: st.Name, Strategy: st})
		}
	}
	return out, 0
}

// checkIncidents returns the suite: the scenario files of --scenario, or
// the built-in incidents of the suite named (scenarios.Suite).
func checkIncidents(files []string, suite string, stderr io.Writer) ([]checkIncident, int) {
	var out []checkIncident
	for _, f := range files {
		sc, code := loadScenario(f, nil, stderr, "check")
		if code != 0 {
			return nil, code
		}
		if sc.Sweep != nil || sc.Search != nil {
			fmt.Fprintf(stderr, "retrylab check: --scenario %s has a sweep or a search; an incident is a scenario without them\n", f)
			return nil, 2
		}
		name := strings.TrimSuffix(filepath.Base(f), filepath.Ext(f))
		data := sc.Canonical()
		out = append(out, checkIncident{Name: name, Source: filepath.ToSlash(f), Why: sc.Description,
			scenario: func(sts []engine.Strategy) (*engine.Scenario, error) {
				sc, err := scenarios.Parse(data)
				if err != nil {
					return nil, err
				}
				sc.Strategies = sts
				return sc, nil
			}})
	}
	if len(files) > 0 {
		return out, 0
	}
	for _, in := range scenarios.Suite(suite) {
		out = append(out, checkIncident{Name: in.Name, Source: in.Slug, Why: in.Why, settle: in.Settle, scenario: in.Run})
	}
	return out, 0
}

// judgeCase runs one policy in one incident and judges each requirement.
func judgeCase(ctx context.Context, p *checkPolicy, c *checkCase, reqs []view.Requirement, stderr io.Writer) int {
	res, err := engine.Run(ctx, c.scenario, engine.Options{MaxEvents: c.probe.MaxEvents, NoSeries: true, Parallelism: c.probe.Parallelism})
	if err != nil {
		printErrors(stderr, fmt.Sprintf("%s: %s in %s", p.File, p.Name, c.Incident), err)
		costHint(stderr, "check", err, false)
		return 1
	}
	st := &res.Strategies[0]
	c.Holds = true
	var probed *probe.Result
	k := 0 // the next threshold
	for _, r := range reqs {
		var claim view.CheckClaim
		if r.NotMetastable {
			pr, err := probe.Run(ctx, c.scenario, c.probe)
			if err != nil {
				printErrors(stderr, fmt.Sprintf("%s: %s in %s", p.File, p.Name, c.Incident), err)
				return 1
			}
			probed = pr
			claim = view.JudgeMetastable(pr)
		} else {
			claim = view.JudgeThreshold(r, st, st.Thresholds[k])
			k++
		}
		c.Holds = c.Holds && claim.Holds
		c.Claims = append(c.Claims, claim)
	}
	if !c.Holds {
		c.Tried = tryRemedy(ctx, p, c, reqs)
		c.Remedy = view.CheckRemedy(p.Strategy, probed, c.Tried)
	}
	return 0
}

// tryRemedy runs the case again with view.RemedyChange's change to its
// policy, on the same seeds, and judges the requirements on metrics
// again; nil when there is no change to try or its run is refused.
// "not metastable" is not judged again: a probe is too costly to repeat.
// It lists the requirements that failed, and any that the change makes
// fail.
func tryRemedy(ctx context.Context, p *checkPolicy, c *checkCase, reqs []view.Requirement) *view.TriedRemedy {
	change, st, ok := view.RemedyChange(p.Strategy)
	if !ok {
		return nil
	}
	sc := *c.scenario
	sc.Strategies = []engine.Strategy{st}
	res, err := engine.Run(ctx, &sc, engine.Options{MaxEvents: c.probe.MaxEvents, NoSeries: true, Parallelism: c.probe.Parallelism})
	if err != nil {
		return nil
	}
	tried := &view.TriedRemedy{Change: change}
	k := 0 // the next threshold; c.Claims[j] is reqs[j]'s
	for j, r := range reqs {
		if r.NotMetastable {
			continue
		}
		if cl := view.JudgeThreshold(r, &res.Strategies[0], res.Strategies[0].Thresholds[k]); !c.Claims[j].Holds || !cl.Holds {
			tried.Claims = append(tried.Claims, cl)
		}
		k++
	}
	return tried
}

// errDry stops the probe of probeCheck before its first simulation.
var errDry = errors.New("dry run")

// probeCheck reports what would refuse the probe of a case before it
// runs (an empty judged window, its cost): probe.Run checks them
// before its first simulation, which a RunBatch that runs nothing stops.
func probeCheck(sc *engine.Scenario, opt probe.Options) error {
	opt.RunBatch = func(context.Context, *engine.Batch, func(*engine.Part) error) error { return errDry }
	if _, err := probe.Run(context.Background(), sc, opt); !errors.Is(err, errDry) {
		return err
	}
	return nil
}

// shareScenario posts a scenario to a RetryLab server (POST
// /api/scenarios) and returns its page's link.
func shareScenario(ctx context.Context, base string, sc *engine.Scenario) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimSuffix(base, "/")+"/api/scenarios", bytes.NewReader(sc.Canonical()))
	if err != nil {
		return "", err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	var answer struct {
		URL   string `json:"url"`
		Error string `json:"error"`
	}
	json.Unmarshal(body, &answer)
	if resp.StatusCode != http.StatusCreated || answer.URL == "" {
		return "", fmt.Errorf("the server answered %s: %s", resp.Status, cmp.Or(answer.Error, strings.TrimSpace(string(body))))
	}
	return answer.URL, nil
}

// policyLines returns the line of each named policy in a configuration's
// text, the converters keeping no positions. The policies come in
// document order, so each is looked for from the previous one's line
// (then from the top): the first line where the name, or failing that
// what Import made it of, is a value (after ":" or "=", or quoted), else
// stands as a word; comment lines never count. A name of parts
// ("reviews/grpc", "Resilience:Inventory") is each part in turn, each
// after the one before. Line 1 when none is found.
func policyLines(data []byte, names []string) []int {
	lines := strings.Split(string(data), "\n")
	comment := regexp.MustCompile(`^\s*(#|//|;)`)
	// find returns the index of the first line at or after from (else
	// from the top) that has word, as a value first, or -1.
	find := func(word string, from int) int {
		q := regexp.QuoteMeta(word)
		for _, re := range []*regexp.Regexp{
			regexp.MustCompile(`([:=]\s*["']?` + q + `["']?\s*([,}\]]|$))|"` + q + `"`),
			regexp.MustCompile(`(^|[^\w.\-])` + q + `($|[^\w.\-])`),
		} {
			match := func(l string) bool { return !comment.MatchString(l) && re.MatchString(l) }
			if n := slices.IndexFunc(lines[from:], match); n >= 0 {
				return n + from
			}
			if n := slices.IndexFunc(lines, match); n >= 0 {
				return n
			}
		}
		return -1
	}
	out := make([]int, len(names))
	from := 0
	for i, name := range names {
		out[i] = 1
		for _, path := range nameCandidates(name) {
			at, n := from, -1
			for _, part := range path {
				if n = find(part, at); n < 0 {
					break
				}
				at = n
			}
			if n >= 0 {
				out[i], from = n+1, n
				break
			}
		}
	}
	return out
}

// nameCandidates returns what of an imported strategy's name a
// configuration may spell, each a path of parts to find in turn: the
// name; the name without what Import appended (" (2)", " (+3
// identical)"); its parts split at "/" and ":"; the first of a list
// ("shop.Cart, shop.Checkout/Pay"); then its words, longest first.
func nameCandidates(name string) [][]string {
	out := [][]string{{name}}
	add := func(path ...string) {
		if slices.ContainsFunc(out, func(p []string) bool { return slices.Equal(p, path) }) {
			return
		}
		for _, p := range path {
			if strings.TrimSpace(p) == "" {
				return
			}
		}
		out = append(out, path)
	}
	base := regexp.MustCompile(`( \([^()]*\))+$`).ReplaceAllString(name, "")
	add(base)
	first, _, _ := strings.Cut(base, ", ")
	add(first)
	if parts := strings.FieldsFunc(first, func(r rune) bool { return r == '/' || r == ':' }); len(parts) > 1 {
		add(parts...)
	}
	words := regexp.MustCompile(`[^\w.\-]+`).Split(base, -1)
	slices.SortStableFunc(words, func(a, b string) int { return len(b) - len(a) })
	for _, w := range words {
		if len(w) >= 3 {
			add(w)
		}
	}
	return out
}

// caseText is a case's claims, remedy and link, as sentences.
func caseText(c *checkCase) []string {
	var out []string
	for _, cl := range c.Claims {
		mark := "holds"
		if !cl.Holds {
			mark = "FAILS"
		}
		out = append(out, fmt.Sprintf("%s %s: %s", cl.Requirement, mark, cl.Text))
	}
	if c.Remedy != "" {
		out = append(out, "Remedy: "+c.Remedy)
	}
	if c.Link != "" {
		out = append(out, "Chart: "+c.Link)
	}
	return out
}

// writeCheckTable prints a line per policy and incident, then what failed.
func writeCheckTable(w io.Writer, policies []*checkPolicy, reqs []view.Requirement, failed int) {
	total := 0
	fmt.Fprintf(w, "requirements: %s\n\n", strings.Join(reqStrings(reqs), "; "))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "result\tpolicy\tincident\tat")
	for _, p := range policies {
		for _, c := range p.Cases {
			total++
			mark := "ok"
			if !c.Holds {
				mark = "FAIL"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s:%d\n", mark, p.Name, c.Incident, p.File, p.Line)
		}
	}
	tw.Flush()
	for _, p := range policies {
		for _, c := range p.Cases {
			if c.Holds {
				continue
			}
			fmt.Fprintf(w, "\n%s:%d: %s in %s:\n", p.File, p.Line, p.Name, c.Incident)
			for _, s := range caseText(c) {
				fmt.Fprintf(w, "  %s\n", s)
			}
		}
	}
	fmt.Fprintf(w, "\n%d of %d checks (policy × incident) failed\n", failed, total)
}

// writeCheckGitHub prints a workflow command per failing case, an error
// at the policy's line, then a summary line.
func writeCheckGitHub(w io.Writer, policies []*checkPolicy, failed int) {
	esc := strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A")
	prop := strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C")
	total := 0
	for _, p := range policies {
		for _, c := range p.Cases {
			total++
			if c.Holds {
				continue
			}
			title := fmt.Sprintf("retrylab check: %s in %s", p.Name, c.Incident)
			fmt.Fprintf(w, "::error file=%s,line=%d,title=%s::%s\n", prop.Replace(p.File), p.Line, prop.Replace(title), esc.Replace(strings.Join(caseText(c), "\n")))
		}
	}
	fmt.Fprintf(w, "retrylab check: %d of %d checks (policy × incident) failed\n", failed, total)
}

// The JUnit XML most CI systems read (the schema of Ant's JUnit task, as
// Jenkins, GitLab and GitHub's reporters take it): one test suite per
// configuration file, one test case per policy and incident. Times are
// 0: check's output is the same bytes for the same files and flags.
// Errors are 0 too: what check cannot judge it refuses before it runs.
type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Time     string       `xml:"time,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Errors   int         `xml:"errors,attr"`
	Time     string      `xml:"time,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr"`
	Failure   *junitProblem `xml:"failure,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitProblem struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

func writeCheckJUnit(w io.Writer, policies []*checkPolicy) {
	all := junitSuites{Name: "retrylab check", Time: "0"}
	for _, p := range policies {
		if len(all.Suites) == 0 || all.Suites[len(all.Suites)-1].Name != p.File {
			all.Suites = append(all.Suites, junitSuite{Name: p.File, Time: "0"})
		}
		s := &all.Suites[len(all.Suites)-1]
		for _, c := range p.Cases {
			tc := junitCase{Name: p.Name + " in " + c.Incident, Classname: p.File, Time: "0"}
			text := fmt.Sprintf("%s:%d\n%s", p.File, p.Line, strings.Join(caseText(c), "\n"))
			var failing []string
			for _, cl := range c.Claims {
				if !cl.Holds {
					failing = append(failing, cl.Requirement)
				}
			}
			switch {
			case !c.Holds:
				tc.Failure = &junitProblem{Message: "fails " + strings.Join(failing, "; "), Type: "requirement", Text: text}
				s.Failures++
			default:
				tc.SystemOut = text
			}
			s.Tests++
			s.Cases = append(s.Cases, tc)
		}
		all.Tests, all.Failures, all.Errors = 0, 0, 0
		for _, s := range all.Suites {
			all.Tests += s.Tests
			all.Failures += s.Failures
			all.Errors += s.Errors
		}
	}
	io.WriteString(w, xml.Header)
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	enc.Encode(all)
	io.WriteString(w, "\n")
}
