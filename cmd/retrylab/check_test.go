package main

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/retrylab/retrylab/server"
	"github.com/retrylab/retrylab/shared/engine"
	"github.com/retrylab/retrylab/shared/engine/probe"
	"github.com/retrylab/retrylab/shared/scenarios"
	"github.com/retrylab/retrylab/shared/view"
)

const (
	stormyEnvoy = "testdata/check/repo/envoy/routes.yaml"
	safeGRPC    = "testdata/check/repo/grpc/service_config.json"
)

// runCheck runs retrylab check with args and returns its exit status and
// outputs.
func runCheck(t testing.TB, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := cli(context.Background(), append([]string{"check"}, args...), strings.NewReader(""), &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// TestCheckRepository checks the fixture repository: the storm-prone
// Envoy route (ten retries 25 ms apart, no budget that bounds them) fails
// with an annotation at its route's line, and the gRPC service config
// (two attempts, backoff, retryThrottling) passes.
func TestCheckRepository(t *testing.T) {
	code, out, errs := runCheck(t, "--format", "github", "--runs", "10", stormyEnvoy)
	if code != 1 {
		t.Fatalf("storm-prone Envoy route: exit %d; want 1\n%s%s", code, out, errs)
	}
	src, _ := os.ReadFile(stormyEnvoy)
	line := strings.Split(string(src), "\n")[8-1]
	if !strings.Contains(line, "name: checkout") {
		t.Fatalf("line 8 of the fixture is %q; the test expects the route's name there", line)
	}
	for _, in := range scenarios.Suite("default") {
		want := "::error file=" + stormyEnvoy + ",line=8,title=retrylab check%3A checkout in " + in.Name + "::amplification <= 1.1 on 95%25 of seeds FAILS: "
		if !strings.Contains(out, want) {
			t.Errorf("no annotation %q in\n%s", want, out)
		}
	}
	if !strings.Contains(out, "Remedy: Its only retry budget is a limit of 100000 retries at once") || !strings.Contains(out, "With a ratio retry budget of 10%25 of requests over 1s in place of its own, on the same seeds, it meets ") {
		t.Errorf("no remedy in\n%s", out)
	}
	code, out, errs = runCheck(t, "--runs", "10", safeGRPC)
	if code != 0 {
		t.Fatalf("safe gRPC config: exit %d; want 0\n%s%s", code, out, errs)
	}
	if !regexp.MustCompile(`ok +inventory\.Inventory +freeze +`+regexp.QuoteMeta(safeGRPC)+`:4\n`).MatchString(out) || !strings.Contains(out, "0 of 3 checks") {
		t.Errorf("table:\n%s", out)
	}
}

// TestCheckClaims holds what check says against the run: each seed of
// the incident run alone, the count of seeds that meet the bound and the
// worst seed are the claim's.
func TestCheckClaims(t *testing.T) {
	code, out, errs := runCheck(t, "--format", "json", "--runs", "6", "--require", "amplification <= 1.1", stormyEnvoy)
	if code != 1 {
		t.Fatalf("exit %d\n%s", code, errs)
	}
	var got struct {
		Policies []checkPolicy `json:"policies"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	p := got.Policies[0]
	policies, _ := checkPolicies([]string{stormyEnvoy}, "", os.Stderr)
	// perSeed runs each seed of sc alone: how many meet amplification
	// <= 1.1, and the worst.
	perSeed := func(sc *engine.Scenario) (int, engine.SeedValue) {
		whole, err := engine.Run(context.Background(), sc, engine.Options{NoSeries: true})
		if err != nil {
			t.Fatal(err)
		}
		held, worst := 0, engine.SeedValue{Value: -1}
		for _, seed := range whole.Seeds {
			one := *sc
			one.Runs, one.Seed = 1, seed
			res, err := engine.Run(context.Background(), &one, engine.Options{NoSeries: true})
			if err != nil {
				t.Fatal(err)
			}
			a := res.Strategies[0].Metrics.Amplification
			if a <= 1.1 {
				held++
			}
			if a > worst.Value {
				worst = engine.SeedValue{Seed: seed, Value: a}
			}
		}
		return held, worst
	}
	for i, in := range scenarios.Suite("default")[:2] { // the cheapest
		c := p.Cases[i]
		claim := c.Claims[0]
		sc, err := in.Run([]engine.Strategy{policies[0].Strategy})
		if err != nil {
			t.Fatal(err)
		}
		sc.Runs = 6
		held, worst := perSeed(sc)
		if claim.Held != held || claim.Seeds != 6 || claim.Needed != 6 || claim.Holds != (held == 6) {
			t.Errorf("%s: claim %+v; the seeds alone: %d of 6 meet it", in.Name, claim, held)
		}
		if claim.Worst == nil || *claim.Worst != worst {
			t.Errorf("%s: worst seed %+v; the seeds alone: %+v", in.Name, claim.Worst, worst)
		}
		if want := fmt.Sprintf("on only %d of the 6 seeds; every seed required. Its worst seed, %d, has ", held, worst.Seed); !strings.Contains(claim.Text, want) {
			t.Errorf("%s: %q does not say %q", in.Name, claim.Text, want)
		}
		// The remedy tried: the same incident with the change, each seed
		// alone again.
		change, st, _ := view.RemedyChange(policies[0].Strategy)
		sc.Strategies = []engine.Strategy{st}
		held, _ = perSeed(sc)
		if c.Tried == nil || c.Tried.Change != change || c.Tried.Claims[0].Held != held {
			t.Errorf("%s: tried %+v; with %s the seeds alone: %d of 6 meet it", in.Name, c.Tried, change, held)
		}
		verb := "still fails"
		if held == 6 {
			verb = "meets"
		}
		if want := fmt.Sprintf("With %s, on the same seeds, it %s amplification <= 1.1 (%d of the 6 seeds).", change, verb, held); !strings.HasSuffix(c.Remedy, want) {
			t.Errorf("%s: remedy %q does not end %q", in.Name, c.Remedy, want)
		}
	}
}

// TestCheckJUnit validates the JUnit output against what the common
// JUnit XML schema requires: testsuites, each testsuite with name, tests,
// failures, errors and time, each testcase with name, classname and time,
// each failure with a message; and counts that add up.
func TestCheckJUnit(t *testing.T) {
	code, out, errs := runCheck(t, "--format", "junit", "--runs", "4", stormyEnvoy, safeGRPC)
	if code != 1 {
		t.Fatalf("exit %d\n%s", code, errs)
	}
	if !strings.HasPrefix(out, xml.Header) {
		t.Errorf("no XML declaration: %.80s", out)
	}
	type node struct {
		XMLName xml.Name
		Attrs   []xml.Attr `xml:",any,attr"`
		Nodes   []node     `xml:",any"`
		Text    string     `xml:",chardata"`
	}
	var root node
	if err := xml.Unmarshal([]byte(out), &root); err != nil {
		t.Fatal(err)
	}
	attr := func(n node, name string) (string, bool) {
		for _, a := range n.Attrs {
			if a.Name.Local == name {
				return a.Value, true
			}
		}
		return "", false
	}
	need := func(n node, names ...string) {
		for _, name := range names {
			if _, ok := attr(n, name); !ok {
				t.Errorf("<%s> lacks %s", n.XMLName.Local, name)
			}
		}
	}
	count := func(n node, name string) int {
		v, _ := attr(n, name)
		i, err := strconv.Atoi(v)
		if err != nil {
			t.Errorf("<%s %s=%q>: not a count", n.XMLName.Local, name, v)
		}
		return i
	}
	if root.XMLName.Local != "testsuites" {
		t.Fatalf("root <%s>", root.XMLName.Local)
	}
	need(root, "name", "tests", "failures", "errors", "time")
	tests, failures := 0, 0
	for _, s := range root.Nodes {
		if s.XMLName.Local != "testsuite" {
			t.Errorf("<%s> in testsuites", s.XMLName.Local)
		}
		need(s, "name", "tests", "failures", "errors", "time")
		cases, failed := 0, 0
		for _, c := range s.Nodes {
			if c.XMLName.Local != "testcase" {
				t.Errorf("<%s> in testsuite", c.XMLName.Local)
			}
			need(c, "name", "classname", "time")
			cases++
			for _, f := range c.Nodes {
				switch f.XMLName.Local {
				case "failure":
					need(f, "message")
					failed++
				case "system-out":
				default:
					t.Errorf("<%s> in testcase", f.XMLName.Local)
				}
			}
		}
		if count(s, "tests") != cases || count(s, "failures") != failed {
			t.Errorf("suite %v: counts %d tests, %d failures", s.Attrs, cases, failed)
		}
		tests, failures = tests+cases, failures+failed
	}
	if len(root.Nodes) != 2 || tests != 6 || failures != 3 || count(root, "tests") != 6 || count(root, "failures") != 3 {
		t.Errorf("%d suites, %d tests, %d failures:\n%s", len(root.Nodes), tests, failures, out)
	}
}

// TestCheckDeterministic: the same files and flags give the same bytes.
func TestCheckDeterministic(t *testing.T) {
	for _, format := range []string{"table", "github", "json", "junit"} {
		_, a, _ := runCheck(t, "--format", format, "--runs", "3", "--parallel", "1", stormyEnvoy, safeGRPC)
		_, b, _ := runCheck(t, "--format", format, "--runs", "3", "--parallel", "2", stormyEnvoy, safeGRPC)
		if a != b || a == "" {
			t.Errorf("--format %s: two runs differ", format)
		}
	}
}

func TestCheckExitStatuses(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "reqs.txt")
	os.WriteFile(bad, []byte("# ok\namplification <= 1.1\nsuccess_rate => 0.9\n"), 0o644)
	other := filepath.Join(dir, "notes.txt")
	os.WriteFile(other, []byte("hello\n"), 0o644)
	for _, tc := range []struct {
		desc   string
		args   []string
		code   int
		stderr string
	}{
		{"no files", nil, 2, "name the configuration files"},
		{"help", []string{"-h"}, 0, "usage of retrylab check"},
		{"unknown flag", []string{"--nope", safeGRPC}, 2, "retrylab help"},
		{"format", []string{"--format", "xml", safeGRPC}, 2, `--format "xml" is not table, junit, github or json`},
		{"from", []string{"--from", "yaml", safeGRPC}, 2, "--from"},
		{"require", []string{"--require", "amplification < 1", safeGRPC}, 2, `--require "amplification < 1": "<" is not a comparison; allowed "<=" or ">="`},
		{"requirements file", []string{"--requirements", bad, safeGRPC}, 2, bad + `: line 3: "=>" is not a comparison`},
		{"glob", []string{filepath.Join(dir, "*.yaml")}, 2, "matches no file"},
		{"directory", []string{dir}, 2, "is a directory"},
		{"stdin", []string{"-"}, 2, "not standard input"},
		{"share", []string{"--share", "example.com", safeGRPC}, 2, "--share"},
		{"runs", []string{"--runs", "0", safeGRPC}, 2, "--runs 0 is out of range"},
		{"not a configuration", []string{other}, 2, "looks like none of the formats"},
		{"missing file", []string{filepath.Join(dir, "gone.yaml")}, 1, "no such file"},
		{"costly", []string{"--max-events", "1000", safeGRPC}, 1, "retrylab check: --max-events N raises the limit; --max-events 0 runs it anyway (no limit)"},
		{"costly probe", []string{"--require", "not metastable", stormyEnvoy}, 1, "checkout in failover: not metastable: a probe runs the strategy up to 25 times on each of 20 seeds"},
		{"suite", []string{"--suite", "full", safeGRPC}, 2, `--suite "full" is not default or extended`},
		{"holds", []string{"--runs", "2", "--require", "amplification <= 100", stormyEnvoy}, 0, ""},
		{"fails", []string{"--runs", "2", "--require", "success_rate >= 1.01", safeGRPC}, 1, ""},
	} {
		code, _, stderr := runCheck(t, tc.args...)
		if code != tc.code || !strings.Contains(stderr, tc.stderr) {
			t.Errorf("%s: exit %d, stderr %q; want %d and %q", tc.desc, code, stderr, tc.code, tc.stderr)
		}
	}
}

// TestCheckExtended runs the extended suite: the load-sensitive
// downstream too.
func TestCheckExtended(t *testing.T) {
	code, out, errs := runCheck(t, "--suite", "extended", "--runs", "2", safeGRPC)
	if code != 0 || !regexp.MustCompile(`ok +inventory\.Inventory +load-sensitive `).MatchString(out) {
		t.Errorf("exit %d\n%s%s", code, out, errs)
	}
}

// TestCheckMetastable judges "not metastable" by the probe: the claim is
// the probe's finding.
func TestCheckMetastable(t *testing.T) {
	code, out, errs := runCheck(t, "--format", "json", "--runs", "2", "--require", "not metastable", safeGRPC)
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	var got struct {
		Policies []checkPolicy `json:"policies"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	for _, c := range got.Policies[0].Cases {
		cl := c.Claims[0]
		if cl.Requirement != "not metastable" || cl.Finding == "" || cl.Finding == probe.FindingMetastable || !strings.HasPrefix(cl.Text, "The probe finds it "+string(cl.Finding)+" on 2 seeds: ") {
			t.Errorf("%s: %+v", c.Incident, cl)
		}
	}
}

// TestCheckShare posts the failing scenarios to the real server with its
// memory store and prints their links, which answer.
func TestCheckShare(t *testing.T) {
	srv, err := server.New(server.Config{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	code, out, errs := runCheck(t, "--runs", "2", "--share", ts.URL, stormyEnvoy, safeGRPC)
	if code != 1 {
		t.Fatalf("exit %d\n%s", code, errs)
	}
	links := regexp.MustCompile(`Chart: (\S+)`).FindAllStringSubmatch(out, -1)
	if len(links) != 3 {
		t.Fatalf("%d links; want one per failing case:\n%s", len(links), out)
	}
	for _, l := range links {
		resp, err := http.Get(strings.Replace(l[1], "/s/", "/api/scenarios/", 1))
		if err != nil {
			t.Fatal(err)
		}
		var sc struct {
			Strategies []struct{ Name string } `json:"strategies"`
		}
		json.NewDecoder(resp.Body).Decode(&sc)
		resp.Body.Close()
		if resp.StatusCode != 200 || len(sc.Strategies) != 1 || sc.Strategies[0].Name != "checkout" {
			t.Errorf("%s: %s, %+v", l[1], resp.Status, sc)
		}
	}
}

func TestPolicyLines(t *testing.T) {
	doc := "# checkout and cart\nroutes:\n- name: cart\n  x: 1\n- name: checkout\n- name: checkout\n{\"service\": \"a.B\"}\n"
	got := policyLines([]byte(doc), []string{"cart", "checkout", "checkout (2)", "a.B", "missing"})
	want := []int{3, 5, 5, 7, 1}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("policyLines = %v; want %v", got, want)
	}
	// Names of parts: each part after the one before.
	mesh := "kind: VirtualService\nname: reviews\nhttp:\n- name: web\n- name: grpc\n"
	if got := policyLines([]byte(mesh), []string{"reviews/grpc", "reviews/web"}); fmt.Sprint(got) != "[5 4]" {
		t.Errorf("reviews/grpc, reviews/web: %v; want [5 4]", got)
	}
	if got := policyLines([]byte("{\n\"methodConfig\": [{\"name\": [{\"service\": \"shop.Cart\"}]}]}"), []string{"shop.Cart, shop.Checkout/Pay"}); got[0] != 2 {
		t.Errorf("a list of names: line %d; want 2", got[0])
	}
	// The second "checkout" policy after the first's line: from the line
	// of the one before it, so the same line or later.
	got = policyLines([]byte(doc), []string{"checkout", "checkout (2)"})
	if got[1] < got[0] {
		t.Errorf("out of order: %v", got)
	}
}

// BenchmarkCheckDefaultSuite runs the default suite (three incidents, 20
// seeds) on 10 policies: five Envoy routes and five gRPC methods of
// different attempts and backoffs.
func BenchmarkCheckDefaultSuite(b *testing.B) {
	dir := b.TempDir()
	var envoy, grpc strings.Builder
	envoy.WriteString("name: edge\nvirtual_hosts:\n- name: shop\n  domains: [\"*\"]\n  routes:\n")
	grpc.WriteString("{\"methodConfig\": [\n")
	for i := range 5 {
		fmt.Fprintf(&envoy, "  - name: r%d\n    match: {prefix: /r%d}\n    route: {cluster: c, retry_policy: {retry_on: 5xx, num_retries: %d, retry_back_off: {base_interval: 0.%ds}}}\n", i, i, 1+i, 1+i)
		comma := ","
		if i == 4 {
			comma = ""
		}
		fmt.Fprintf(&grpc, "{\"name\": [{\"service\": \"s.S%d\"}], \"retryPolicy\": {\"maxAttempts\": %d, \"initialBackoff\": \"0.%ds\", \"maxBackoff\": \"2s\", \"backoffMultiplier\": 2, \"retryableStatusCodes\": [\"UNAVAILABLE\"]}}%s\n", i, 2+i%4, 1+i, comma)
	}
	grpc.WriteString("]}\n")
	os.WriteFile(filepath.Join(dir, "routes.yaml"), []byte(envoy.String()), 0o644)
	os.WriteFile(filepath.Join(dir, "service_config.json"), []byte(grpc.String()), 0o644)
	for b.Loop() {
		code, out, errs := runCheck(b, "--format", "json", filepath.Join(dir, "*"))
		if code == 2 || !strings.Contains(out, `"failed"`) {
			b.Fatalf("exit %d\n%s", code, errs)
		}
		if n := strings.Count(out, `"incident":`); n != 10*len(scenarios.Suite("default")) {
			b.Fatalf("%d cases; want 10 policies × %d incidents", n, len(scenarios.Suite("default")))
		}
	}
}
