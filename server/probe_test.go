//go:build !nosearch

package server

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/retrylab/retrylab/shared/engine"
	"github.com/retrylab/retrylab/shared/engine/probe"
	"github.com/retrylab/retrylab/shared/scenarios"
)

// shortRunaway is the built-in runaway cascade cut to 40 s, one seed and
// its first two strategies: textbook is still unstable without a trigger
// and needs a remedy (6% less load, or 3 more workers; a retry budget
// fails fast what it refuses, so none keeps it within a point of its
// healthy success), and a probe takes a fraction of a second.
func shortRunaway(t *testing.T) string {
	t.Helper()
	b, ok := scenarios.Get("runaway-cascade")
	if !ok {
		t.Fatal("no runaway-cascade")
	}
	var sc map[string]any
	if err := json.Unmarshal(b.Scenario, &sc); err != nil {
		t.Fatal(err)
	}
	sc["name"] = "Runaway, short"
	sc["runs"] = 1
	sc["workload"].(map[string]any)["duration"] = "40s"
	sc["strategies"] = sc["strategies"].([]any)[:2]
	out, _ := json.Marshal(sc)
	return string(out)
}

// TestProbeAPI: the probe's JSON is probe.Run's result and its view,
// the same bytes every time, cached like any answer about an ID (the
// durations in the query read as the probe reads them), and its page
// shows the same finding with links back.
func TestProbeAPI(t *testing.T) {
	s, _ := testServer(t)
	id := postScenario(t, s, shortRunaway(t))
	r := do(t, s, "GET", "/api/scenarios/"+id+"/probe?strategy=textbook", "")
	if r.code != 200 || !strings.HasPrefix(r.header.Get("Content-Type"), "application/json") {
		t.Fatalf("probe: %d %s", r.code, r.body)
	}
	var got struct {
		Probe probe.Result `json:"probe"`
		View  struct {
			Heading string `json:"heading"`
			Rows    []struct {
				Kind, Finding string
				Found         bool
			} `json:"rows"`
		} `json:"view"`
	}
	if err := json.Unmarshal([]byte(r.body), &got); err != nil {
		t.Fatal(err)
	}
	p := got.Probe
	if p.Strategy != "textbook" || p.Finding != probe.FindingUnstable || p.Metastable || len(p.Remedies) != 3 || p.Simulations != 19 {
		t.Fatalf("probe %+v", p)
	}
	if load := p.Remedies[0]; load.Kind != probe.RemedyLoad || load.Outcome != probe.Found || load.Enough != 0.06 || load.NotEnough != 0.05 {
		t.Errorf("load remedy %+v, want 6%% (5%% not enough)", load)
	}
	// A budget ends the amplification, but the operations whose retry
	// it refuses fail fast: counted as load, they keep it overloaded.
	if b := p.Remedies[2]; b.Outcome != probe.NotFound || b.NotEnough != 0.01 {
		t.Errorf("budget remedy %+v, want none found", b)
	}
	if got.View.Heading != "What keeps textbook out of overload?" || len(got.View.Rows) != 3 || !got.View.Rows[0].Found {
		t.Errorf("view %+v", got.View)
	}
	if cc := r.header.Get("Cache-Control"); cc != idCacheControl || r.header.Get("ETag") == "" {
		t.Errorf("caching: %q, ETag %q", cc, r.header.Get("ETag"))
	}
	if again := do(t, s, "GET", "/api/scenarios/"+id+"/probe?strategy=textbook", ""); again.body != r.body {
		t.Error("the probe's answer differs the second time")
	}
	if nm := do(t, s, "GET", "/api/scenarios/"+id+"/probe?strategy=textbook", "", "If-None-Match", r.header.Get("ETag")); nm.code != http.StatusNotModified {
		t.Errorf("If-None-Match: %d", nm.code)
	}
	// at=0s is the default here (the runaway has no trigger); written
	// either way, it is one answer, not the default's.
	a := do(t, s, "GET", "/api/scenarios/"+id+"/probe?strategy=textbook&at=0s&settle=10000ms", "")
	b := do(t, s, "GET", "/api/scenarios/"+id+"/probe?settle=10s&at=0ms&strategy=textbook&v=2", "")
	if a.code != 200 || a.header.Get("ETag") != b.header.Get("ETag") || a.body != b.body || a.header.Get("ETag") == r.header.Get("ETag") {
		t.Errorf("at=0s&settle=10000ms and at=0ms&settle=10s: %d, ETags %q %q (default's %q)", a.code, a.header.Get("ETag"), b.header.Get("ETag"), r.header.Get("ETag"))
	}
	if first := do(t, s, "GET", "/api/scenarios/"+id+"/probe", ""); !strings.Contains(first.body, `"strategy":"textbook"`) {
		t.Errorf("without strategy, not the first: %.300s", first.body)
	}

	page := do(t, s, "GET", "/s/"+id+"/probe?strategy=textbook", "")
	if page.code != 200 {
		t.Fatalf("page: %d %.300s", page.code, page.body)
	}
	checkHTML(t, "probe page", page.body)
	for _, want := range []string{`<h1 data-testid="title">What keeps textbook out of overload?</h1>`, `data-testid="probe-summary"`,
		`textbook is unstable without a trigger: the scenario has no trigger for a bad state to outlive`,
		`Keeping it out of overload needs 6% less load (between 5% and 6%), or 3 more workers (between 2 and 3) (changes of the load it offers or of the capacity it meets, not the end of a storm)`,
		`data-testid="probe-criterion">The overload has ended when the operations started from 10s to 40s`, `Without a remedy, 94.5% of those operations succeed, with 5.392 calls per operation; healthy (without the trigger), 100%, with 1.123.`,
		`<tr data-remedy="load"><th scope="row">Less load</th><td class="text">6% less load (between 5% and 6%)</td><td class="text">The arrival rate times 0.94 from 0s on</td><td>7</td>`,
		`19 simulations, 990,618 events.`, `href="/s/` + id + `"`, `href="/api/scenarios/` + id + `/probe?strategy=textbook"`,
		`href="/s/` + id + `/probe?strategy=fixed"`, `<meta name="robots" content="noindex">`} {
		if !strings.Contains(page.body, want) {
			t.Errorf("the probe page lacks %q", want)
		}
	}
	if page.header.Get("Cache-Control") != idCacheControl {
		t.Errorf("page caching: %q", page.header.Get("Cache-Control"))
	}

	// The comparison page links to each strategy's probe.
	cmp := do(t, s, "GET", "/s/"+id, "")
	for _, want := range []string{`<h2 id="probe">What ends the storm?</h2>`, `href="/s/` + id + `/probe?strategy=textbook">textbook</a>`, `href="/s/` + id + `/probe?strategy=fixed">fixed</a>`} {
		if !strings.Contains(cmp.body, want) {
			t.Errorf("the comparison page lacks %q", want)
		}
	}
}

// TestProbeRefusals: what the probe cannot do is a 4xx naming why, before
// anything runs: never a 500.
func TestProbeRefusals(t *testing.T) {
	s, _ := testServer(t)
	id := postScenario(t, s, shortRunaway(t))
	for _, tc := range []struct {
		url  string
		code int
		want string
	}{
		{"/api/scenarios/" + id + "/probe?strategy=Z", 404, `strategy: this scenario has no strategy \"Z\"; it has \"textbook\", \"fixed\"`},
		{"/s/" + id + "/probe?strategy=Z", 404, `it has &#34;textbook&#34;, &#34;fixed&#34;`},
		{"/api/scenarios/AAAAAAAAAAA/probe", 404, `no scenario with that ID`},
		{"/api/scenarios/token-bucket-sweep/probe", 422, `this scenario sweeps`},
		{"/s/token-bucket-sweep/probe", 422, `the probe runs a scenario without a sweep`},
		{"/api/scenarios/" + id + "/probe?at=soon", 400, `at \"soon\" is not a duration of 0s or more`},
		{"/api/scenarios/" + id + "/probe?at=-1s", 400, `at \"-1s\" is not a duration of 0s or more`},
		{"/api/scenarios/" + id + "/probe?settle=0s", 400, `settle \"0s\" is not a positive duration`},
		{"/s/" + id + "/probe?settle=x", 400, `settle &#34;x&#34; is not a positive duration`},
		{"/api/scenarios/" + id + "/probe?at=35s", 422, `the probe cannot judge this scenario with at=35s: the judged window is empty`},
		{"/api/scenarios/layered-retries/probe", 422, `the probe cannot judge this scenario: the judged window is empty`},
	} {
		r := do(t, s, "GET", tc.url, "")
		if r.code != tc.code || !strings.Contains(r.body, tc.want) {
			t.Errorf("%s: %d %.400s; want %d and %q", tc.url, r.code, r.body, tc.code, tc.want)
		}
		if r.header.Get("ETag") != "" || strings.Contains(r.header.Get("Cache-Control"), "immutable") {
			t.Errorf("%s: an error with an ETag or cached as immutable", tc.url)
		}
	}

	// Over the probe budget (8 × the run budget): refused before it runs.
	small, _ := testServer(t, func(c *Config) { c.MaxEvents = 1_000_000 })
	id2 := postScenario(t, small, shortRunaway(t))
	r := do(t, small, "GET", "/api/scenarios/"+id2+"/probe?strategy=textbook", "")
	if r.code != 422 || !strings.Contains(r.body, "a probe runs the strategy up to") || !strings.Contains(r.body, "over the limit of 8.0 million; reduce") {
		t.Errorf("over budget: %d %s", r.code, r.body)
	}
}

// TestProbeSheds: a probe takes a run slot; with every slot taken and no
// waiting, it is shed with 503 and Retry-After, and runs once one is
// free.
func TestProbeSheds(t *testing.T) {
	s, _ := testServer(t, func(c *Config) { c.MaxRuns, c.MaxWaiting = 1, -1 })
	id := postScenario(t, s, shortRunaway(t))
	s.runs.slots <- struct{}{} // every slot taken
	r := do(t, s, "GET", "/api/scenarios/"+id+"/probe?strategy=fixed", "")
	if r.code != 503 || r.header.Get("Retry-After") == "" || !strings.Contains(r.body, "running as many scenarios as it can") {
		t.Errorf("busy: %d %q %s", r.code, r.header.Get("Retry-After"), r.body)
	}
	<-s.runs.slots
	if r := do(t, s, "GET", "/api/scenarios/"+id+"/probe?strategy=fixed", ""); r.code != 200 {
		t.Errorf("free again: %d %.300s", r.code, r.body)
	}
}

// TestProbeBudgetTakesTheMetastableBuiltins: with the default config, the
// server probes every strategy of the metastable built-ins, and the
// comparison page of a scenario the probe cannot judge (no window after
// its trigger) or of a sweep links to no probe.
func TestProbeBudgetTakesTheMetastableBuiltins(t *testing.T) {
	s, _ := testServer(t)
	for _, slug := range []string{"runaway-cascade", "metadata-storm"} {
		sub := s.builtins[slug]
		if got := s.probeLinks(slug, sub.sc); len(got) != len(sub.sc.Strategies) {
			t.Errorf("%s: %d probes of %d strategies within the budget", slug, len(got), len(sub.sc.Strategies))
		}
	}
	for _, slug := range []string{"layered-retries", "token-bucket-sweep"} {
		if got := s.probeLinks(slug, s.builtins[slug].sc); len(got) != 0 {
			t.Errorf("%s: probes %v", slug, got)
		}
	}
}

// TestProbeTimeout: a probe that outlasts its timeout (twice a run's) is
// a 503 saying so, and is remembered: asked again, it is the same answer
// at once, with Retry-After.
func TestProbeTimeout(t *testing.T) {
	s, _ := testServer(t, func(c *Config) { c.RunTimeout = 1 }) // 1 ns: over before the first simulation
	id := postScenario(t, s, shortRunaway(t))
	for i := range 2 {
		r := do(t, s, "GET", "/api/scenarios/"+id+"/probe?strategy=textbook", "")
		if r.code != 503 || !strings.Contains(r.body, "the probe took longer than the server allows (2ns)") || r.header.Get("Retry-After") == "" {
			t.Errorf("request %d: %d %q %s", i+1, r.code, r.header.Get("Retry-After"), r.body)
		}
	}
}

// TestProbeRecoversAPanic: a probe runs on a goroutine of its own (no
// request's); a panic there is the requests' 500, not the end of the
// process.
func TestProbeRecoversAPanic(t *testing.T) {
	s, _ := testServer(t)
	s.probes.run = func(ctx context.Context, sc *engine.Scenario, opt probe.Options) (*probe.Result, error) {
		if ctx.Err() != nil {
			return probe.Run(ctx, sc, opt) // the check before the flight (probeCheck)
		}
		panic("boom in the probe")
	}
	if r := do(t, s, "GET", "/api/scenarios/runaway-cascade/probe?strategy=textbook", ""); r.code != 500 || !strings.Contains(r.body, "something went wrong on our side") {
		t.Errorf("a probe that panics: %d %s", r.code, r.body)
	}
	if r := do(t, s, "GET", "/healthz", ""); r.code != 200 {
		t.Errorf("after the panic: %d", r.code)
	}
}

// TestProbeOverBudgetIsRemembered: a probe refused for its cost is
// remembered, as a run refused for its cost is: asked again within 10
// minutes, the same 422 at once, without checking again (here, the budget
// raised meanwhile would let it run, and every slot being taken, shed it);
// after that it is checked again.
func TestProbeOverBudgetIsRemembered(t *testing.T) {
	s, _ := testServer(t, func(c *Config) { c.MaxEvents, c.MaxRuns, c.MaxWaiting = 1_000_000, 1, -1 })
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s.runs.now = func() time.Time { return now }
	id := postScenario(t, s, shortRunaway(t))
	u := "/api/scenarios/" + id + "/probe?strategy=textbook"
	first := do(t, s, "GET", u, "")
	if first.code != 422 || !strings.Contains(first.body, "over the limit of 8.0 million") {
		t.Fatalf("over budget: %d %s", first.code, first.body)
	}
	s.cfg.MaxEvents = 30_000_000
	s.runs.slots <- struct{}{} // every slot taken: a probe that ran would be shed
	now = now.Add(4 * time.Minute)
	for _, v := range []string{u, "/api/scenarios/" + id + "/probe", "/s/" + id + "/probe?strategy=textbook"} {
		if r := do(t, s, "GET", v, ""); r.code != 422 || !strings.Contains(r.body, "over the limit of 8.0 million") {
			t.Errorf("%s 4 minutes later: %d %.300s; want the remembered refusal", v, r.code, r.body)
		}
	}
	now = now.Add(7 * time.Minute)
	if r := do(t, s, "GET", u, ""); r.code != 503 || !strings.Contains(r.body, "running as many scenarios as it can") {
		t.Errorf("11 minutes later: %d %.300s; want it checked again (and shed)", r.code, r.body)
	}
}

// TestNoProbe: a server without Config.Probe (the Worker's) answers the
// probe's requests with 501 naming what runs a probe, and links to no
// probe.
func TestNoProbe(t *testing.T) {
	s, _ := testServer(t, func(c *Config) { c.Probe = nil })
	for _, url := range []string{"/api/scenarios/runaway-cascade/probe?strategy=textbook", "/s/runaway-cascade/probe?strategy=textbook"} {
		r := do(t, s, "GET", url, "")
		if r.code != 501 || !strings.Contains(r.body, "retrylab probe SLUG|FILE") || !strings.Contains(r.body, "retrylab serve") {
			t.Errorf("%s: %d %s", url, r.code, r.body)
		}
	}
	if r := do(t, s, "GET", "/s/runaway-cascade", ""); r.code != 200 || strings.Contains(r.body, `data-testid="probes"`) {
		t.Errorf("page: %d, or it links to probes", r.code)
	}
}
