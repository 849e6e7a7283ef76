package chart

import (
	"bytes"
	"cmp"
	"context"
	"encoding/xml"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/retrylab/retrylab/shared/engine"
	"github.com/retrylab/retrylab/shared/internal/golden"
	"github.com/retrylab/retrylab/shared/scenarios"
)

var results = map[string]*engine.Result{}

// result runs a built-in once per test binary.
func result(t testing.TB, slug string) *engine.Result {
	t.Helper()
	if r, ok := results[slug]; ok {
		return r
	}
	b, ok := scenarios.Get(slug)
	if !ok {
		t.Fatalf("no built-in %q", slug)
	}
	sc, err := b.Parse()
	if err != nil {
		t.Fatal(err)
	}
	r, err := engine.Run(context.Background(), sc, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	results[slug] = r
	return r
}

func render(t testing.TB, res *engine.Result, opt Options) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := Render(&b, res, opt); err != nil {
		t.Fatalf("%+v: %v", opt, err)
	}
	checkSVG(t, b.Bytes())
	return b.Bytes()
}

// checkSVG parses the whole document as XML and checks the safety rules: no
// script or foreign content, no event attribute, no reference to anything
// outside the document.
func checkSVG(t testing.TB, svg []byte) {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(svg))
	var root string
	inStyle := false
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("not well-formed XML: %v", err)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			if root == "" {
				root = tok.Name.Local
			}
			switch strings.ToLower(tok.Name.Local) {
			case "script", "foreignobject", "image", "use", "a", "iframe":
				t.Fatalf("element <%s> is not allowed", tok.Name.Local)
			}
			inStyle = tok.Name.Local == "style"
			for _, a := range tok.Attr {
				name, value := strings.ToLower(a.Name.Local), strings.ToLower(a.Value)
				if strings.HasPrefix(name, "on") || strings.Contains(name, "href") || strings.Contains(value, "javascript:") || strings.Contains(value, "url(") {
					t.Fatalf("attribute %s=%q is not allowed", a.Name.Local, a.Value)
				}
			}
		case xml.CharData:
			if inStyle && (bytes.Contains(tok, []byte("url(")) || bytes.Contains(tok, []byte("@import"))) {
				t.Fatalf("the style refers outside the document")
			}
		case xml.EndElement:
			inStyle = false
		}
	}
	s := string(svg)
	if root != "svg" || !strings.Contains(s, `viewBox="0 0 `) || !strings.Contains(s, "<title") || !strings.Contains(s, "<desc") {
		t.Fatalf("not a standalone SVG with a viewBox, title and description")
	}
}

// goldenCases are the pictures kept as goldens in testdata, one built-in
// each: TestEveryPictureHasAGolden checks that every picture is among
// them or the frontier's (frontier_test.go).
var goldenCases = []struct {
	file string
	slug string
	opt  Options
}{
	{"e03b-attempts-10ms.svg", "e03b-synchronized-recovery", Options{Resolution: 10 * time.Millisecond, Theme: "light"}},
	{"e03b-attempts-100ms.svg", "e03b-synchronized-recovery", Options{}},
	{"e03b-attempts-1s.svg", "e03b-synchronized-recovery", Options{Resolution: time.Second, Theme: "dark"}},
	{"e03b-attempts-mid.svg", "e03b-synchronized-recovery", Options{Width: Mid, Theme: "light"}},
	{"e03b-outcomes.svg", "e03b-synchronized-recovery", Options{Picture: Outcomes}},
	{"e03b-queue.svg", "e03b-synchronized-recovery", Options{Picture: Queue}},
	{"e03b-compare.svg", "e03b-synchronized-recovery", Options{Picture: Compare, Metric: "peak_per_100ms"}},
	{"e03b-latency.svg", "e03b-synchronized-recovery", Options{Picture: Latency}},
	{"breaker-outcomes.svg", "breaker-timeline", Options{Picture: Outcomes, Theme: "dark"}},
	{"metadata-queue.svg", "metadata-storm", Options{Picture: Queue}},
	{"load-spike-outcomes.svg", "load-spike-storm", Options{Picture: Outcomes}},
	{"mixed-fleet-fleets.svg", "mixed-fleet", Options{Picture: Fleets}},
	{"token-bucket-sweep.svg", "token-bucket-sweep", Options{Picture: Sweep, Metric: "attempts"}},
	{"bulkheads-calls.svg", "bulkheads", Options{Picture: Calls}},
	{"shared-breaker-outcomes.svg", "shared-breaker", Options{Picture: Outcomes, Theme: "light"}},
	{"autoscale-lag-queue.svg", "autoscale-lag", Options{Picture: Queue}},
}

func TestGolden(t *testing.T) {
	for _, tc := range goldenCases {
		t.Run(tc.file, func(t *testing.T) {
			got := render(t, result(t, tc.slug), tc.opt)
			golden.Check(t, filepath.Join("testdata", tc.file), got)
		})
	}
}

func TestSmall(t *testing.T) {
	// The E03-B attempts chart at 100 ms must stay well under 50 KB, and a
	// 10 ms one of a long run must not grow with it (decimation per pixel).
	if n := len(render(t, result(t, "e03b-synchronized-recovery"), Options{})); n > 30_000 {
		t.Errorf("E03-B at 100 ms is %d bytes", n)
	}
	if n := len(render(t, result(t, "metadata-storm"), Options{Resolution: 10 * time.Millisecond})); n > 60_000 {
		t.Errorf("a 2-minute run at 10 ms is %d bytes", n)
	}
}

func TestDeterministic(t *testing.T) {
	res := result(t, "e03b-synchronized-recovery")
	for _, p := range []string{Attempts, Outcomes, Queue, Compare, Latency} {
		a, b := render(t, res, Options{Picture: p}), render(t, res, Options{Picture: p})
		if !bytes.Equal(a, b) {
			t.Errorf("%s: two renderings differ", p)
		}
	}
}

func TestHostileNames(t *testing.T) {
	hostile := []string{
		`"><script>alert(1)</script>`,
		`]]><x onload="alert(1)">`,
		"ctl\x00\x01\x1b[31m\x7f\u0085\u2028end",
		strings.Repeat("long", 2500),
		"\xff\xfe invalid utf-8 \xc3",
		"&amp; &lt;already&gt; &#x3c;",
		"\u202ertl override\u202c and 🙂",
	}
	base := result(t, "e03b-synchronized-recovery")
	res := *base
	res.Scenario = strings.Join(hostile, " ")
	res.Strategies = nil
	for i, st := range base.Strategies[:4] {
		st.Name = hostile[i+1]
		res.Strategies = append(res.Strategies, st)
	}
	res.Phases = append([]engine.PhaseSpan(nil), base.Phases...)
	res.Phases[0].Label = hostile[0]
	for _, p := range []string{Attempts, Outcomes, Queue, Compare, Latency} {
		out := string(render(t, &res, Options{Picture: p}))
		if strings.Contains(out, "<script") || strings.Contains(out, "<x ") || strings.Contains(out, "long"+strings.Repeat("long", 100)) {
			t.Errorf("%s: hostile text came through unescaped or uncut", p)
		}
	}
	// A shape holds the text as it reads: the SVG writer escapes it, a
	// raster draws it.
	d, err := Draw(&res, Options{Picture: Attempts})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, sh := range d.Shapes {
		found = found || sh.Kind == ShapeText && sh.Text == hostile[0]
	}
	if !found {
		t.Errorf("no text shape reads the phase's label %q as it is", hostile[0])
	}
	sw := *result(t, "token-bucket-sweep")
	sw.Scenario = hostile[0]
	out := string(render(t, &sw, Options{Picture: Sweep}))
	if strings.Contains(out, "<script") {
		t.Error("sweep: hostile text came through")
	}
}

func TestOptionErrors(t *testing.T) {
	res := result(t, "e03b-synchronized-recovery")
	for _, tc := range []struct {
		opt  Options
		want string
	}{
		{Options{Picture: "pie"}, `picture "pie" is not one of`},
		{Options{Theme: "neon"}, `theme "neon"`},
		{Options{Picture: Compare, Metric: "happiness"}, `metric "happiness" is not one of`},
		{Options{Resolution: 7 * time.Millisecond}, "resolution 7 ms is not available"},
		{Options{Picture: Sweep}, "has no sweep"},
		{Options{Width: 1e6}, "width and height"},
	} {
		err := Render(io.Discard, res, tc.opt)
		var oe *OptionError
		if !errors.As(err, &oe) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want an OptionError containing %q", tc.opt, err, tc.want)
		}
	}
	noSeries := *res
	noSeries.Strategies = append([]engine.StrategyResult(nil), res.Strategies...)
	noSeries.Strategies[0].Series = nil
	if err := Render(io.Discard, &noSeries, Options{}); err == nil {
		t.Error("a result without series drew an attempts chart")
	}
	sweep := result(t, "token-bucket-sweep")
	if err := Render(io.Discard, sweep, Options{Picture: Attempts}); err == nil || !strings.Contains(err.Error(), "sweep") {
		t.Errorf("attempts of a sweep: %v", err)
	}
	var b strings.Builder
	if err := Render(&b, sweep, Options{}); err != nil || !strings.Contains(b.String(), "across the sweep") {
		t.Errorf("a sweep with no picture named: %v, want the sweep picture", err)
	}
}

func TestTicks(t *testing.T) {
	for _, tc := range []struct {
		lo, hi float64
		want   string
	}{
		{0, 30, "0 5 10 15 20 25 30"},
		{0, 237, "0 50 100 150 200"},
		{0, 1, "0 0.2 0.4 0.6 0.8 1"},
		{0, 0.05, "0 0.01 0.02 0.03 0.04 0.05"},
		{0, 86400 * 99, "0 2M 4M 6M 8M"},
	} {
		xs, _ := ticks(tc.lo, tc.hi, 6)
		var got []string
		for _, x := range xs {
			got = append(got, label(x))
		}
		if strings.Join(got, " ") != tc.want {
			t.Errorf("ticks(%g, %g) = %s, want %s", tc.lo, tc.hi, strings.Join(got, " "), tc.want)
		}
	}
}

// TestTitlesFit draws charts of scenarios with long names of wide letters
// and checks that the title's estimated width stays inside the chart.
func TestTitlesFit(t *testing.T) {
	for _, name := range []string{strings.Repeat("W", 200), strings.Repeat("漢", 100), strings.Repeat("il", 150)} {
		for _, width := range []float64{Narrow, Mid, Wide} {
			got := titleOf(&engine.Result{Scenario: name}, "calls reaching the dependency per 100 ms", width)
			size := 15.0
			if largeText(width) {
				size = 16
			}
			if w := textWidth(got, size); w > width-marginL-marginR {
				t.Errorf("%.20s… at %v: title %.40q… is about %.0f wide in %.0f", name, width, got, w, width-marginL-marginR)
			}
		}
	}
}

func TestLegendsDescribeStrategies(t *testing.T) {
	res := result(t, "e03b-synchronized-recovery")
	var b strings.Builder
	opt := Options{Theme: "light", Descriptions: map[string]string{"A": "immediate retry"}}
	if err := Render(&b, res, opt); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "A — immediate retry · peak") {
		t.Errorf("the attempts legend does not describe A:\n%.2000s", b.String())
	}
}

// several runs testdata/several-scenario.json: two dependencies with
// phases that overlap, three plan calls, a breaker per dependency and a
// client pool.
func several(t testing.TB) *engine.Result {
	t.Helper()
	if r, ok := results["several"]; ok {
		return r
	}
	b, err := os.ReadFile(filepath.Join("testdata", "several-scenario.json"))
	if err != nil {
		t.Fatal(err)
	}
	sc, err := engine.Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	r, err := engine.Run(context.Background(), sc, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	results["several"] = r
	return r
}

func TestSeveralDependencies(t *testing.T) {
	res := several(t)
	if !HasCalls(res) || HasCalls(result(t, "e03b-synchronized-recovery")) {
		t.Fatal("HasCalls: want true for several calls only")
	}
	if res.Strategies[0].Series.PoolInUse == nil || len(breakerBands(&res.Strategies[0])) != 2 {
		t.Fatalf("the scenario no longer has a pool and two breakers that trip: %+v", res.Strategies[0].Transitions)
	}
	for _, tc := range []struct {
		file string
		opt  Options
	}{
		{"several-calls.svg", Options{Picture: Calls}},
		{"several-calls-narrow.svg", Options{Picture: Calls, Width: 400, Theme: "dark"}},
		{"several-outcomes.svg", Options{Picture: Outcomes}},
		{"several-queue.svg", Options{Picture: Queue}},
		{"several-attempts-narrow.svg", Options{Width: 400}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			got := render(t, res, tc.opt)
			golden.Check(t, filepath.Join("testdata", tc.file), got)
		})
	}
	out := string(render(t, res, Options{Picture: Calls}))
	for _, want := range []string{">catalog<", ">pay<", ">recs<", "client pool: slots in use", "catalog: latency ×3", "payment: errors 80%"} {
		if !strings.Contains(out, want) {
			t.Errorf("the calls picture lacks %q", want)
		}
	}
	if out := string(render(t, res, Options{Picture: Outcomes})); !strings.Contains(out, ">payment<") {
		t.Error("the outcomes picture does not name the payment breaker's band")
	}
	// Without a series per call, the picture says why it cannot be drawn.
	err := Render(io.Discard, result(t, "e03b-synchronized-recovery"), Options{Picture: Calls})
	var oe *OptionError
	if !errors.As(err, &oe) || !strings.Contains(err.Error(), "one call") {
		t.Errorf("calls of a one-call result: %v", err)
	}
}

func TestSeveralHostileNames(t *testing.T) {
	base := several(t)
	res := *base
	hostile := `"><script>alert(1)</script>` + strings.Repeat("long", 200)
	res.Phases = append([]engine.PhaseSpan(nil), base.Phases...)
	res.Phases[0].Dependency = hostile
	res.Strategies = nil
	for _, st := range base.Strategies {
		se := *st.Series
		se.Calls = append([]engine.CallSeries(nil), se.Calls...)
		se.Calls[0].Name = hostile
		st.Series = &se
		st.Transitions = append([]engine.Transition(nil), st.Transitions...)
		for i := range st.Transitions {
			st.Transitions[i].Dependency = hostile
		}
		res.Strategies = append(res.Strategies, st)
	}
	for _, p := range []string{Calls, Outcomes, Queue, Attempts} {
		for _, w := range []float64{0, 400} {
			out := string(render(t, &res, Options{Picture: p, Width: w}))
			if strings.Contains(out, "<script") || strings.Contains(out, strings.Repeat("long", 20)) {
				t.Errorf("%s: hostile text came through unescaped or uncut", p)
			}
		}
	}
}

func TestSeveralDependenciesWording(t *testing.T) {
	res := several(t)
	if out := string(render(t, res, Options{})); !strings.Contains(out, "calls reaching the dependencies per 100 ms") {
		t.Error("the attempts picture of several dependencies speaks of one")
	}
	if out := string(render(t, res, Options{Picture: Queue})); !strings.Contains(out, "queued, all dependencies") {
		t.Error("the queue picture of several dependencies does not say it adds up their queues")
	}
}

func TestSeveralBuiltins(t *testing.T) {
	out := string(render(t, result(t, "shared-breaker"), Options{Picture: Outcomes}))
	if strings.Contains(out, "recommendations: recommendations") {
		t.Error("a phase label that names its dependency is prefixed with it again")
	}
	if !strings.Contains(out, ">recommend") {
		t.Error("the per-dependency breaker's band is not named")
	}
	out = string(render(t, result(t, "bulkheads"), Options{Picture: Calls, Width: 400}))
	if !strings.Contains(out, "client pool: slots in use") || !strings.Contains(out, ">payment<") {
		t.Error("the bulkheads' calls picture lacks its pool or its payment call")
	}
}

// TestCompareWithoutAValue: failover-incident's recovery time by
// strategy (its page's first figure) draws no bar for every-layer and
// jitter, which do not recover under load, and says so in words, rather
// than a bar at 0 s; one-layer and budget keep their bars.
func TestCompareWithoutAValue(t *testing.T) {
	s := string(render(t, result(t, "failover-incident"), Options{Picture: Compare, Metric: "recovery_s"}))
	if n := strings.Count(s, ">"+engine.NotRecovered+"<"); n != 2 {
		t.Errorf("%d strategies read %q, want 2:\n%s", n, engine.NotRecovered, s)
	}
	if n := strings.Count(s, `class="kb c`); n != 2 {
		t.Errorf("%d bars, want 2 (one-layer's and budget's):\n%s", n, s)
	}
}

// TestSweepWithoutAValue: in priority-shedding's sweep, "retry
// everything" does not recover under load without shedding: its recovery
// time line has no point there (three points of four, not a fourth at
// 0 s).
func TestSweepWithoutAValue(t *testing.T) {
	res := result(t, "priority-shedding")
	if res.Sweep[0].Strategies[0].Metrics.RecoveryS.Applies() {
		t.Fatal("retry everything recovers without shedding: the test needs a point without a value")
	}
	s := string(render(t, res, Options{Picture: Sweep, Metric: "recovery_s"}))
	if n := strings.Count(s, `<circle class="o c`); n != 3 {
		t.Errorf("%d points, want 3:\n%s", n, s)
	}
}

// TestEveryPictureHasAGolden walks Pictures: a picture without a golden
// (goldenCases, or the frontier's own tests) fails here.
func TestEveryPictureHasAGolden(t *testing.T) {
	has := map[string]bool{Frontier: true} // frontier_test.go
	for _, tc := range goldenCases {
		has[cmp.Or(tc.opt.Picture, Attempts)] = true
	}
	for _, p := range Pictures {
		if !has[p] {
			t.Errorf("the picture %q has no golden in goldenCases", p)
		}
	}
}
