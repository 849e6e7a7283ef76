package scenarios

import (
	"context"
	"encoding/json"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/retrylab/retrylab/shared/engine"
)

// TestSearchBuiltinsFollowTheBuild: the built-ins with a search are in
// All and Get where the program runs searches (imports package search, as
// these tests do), and nowhere where it does not (the Worker: All is then
// searchless), so that every built-in it lists parses (the server parses
// them all when it starts).
func TestSearchBuiltinsFollowTheBuild(t *testing.T) {
	entries, err := files.ReadDir("catalog")
	if err != nil {
		t.Fatal(err)
	}
	var searching []string
	for _, e := range entries {
		data, err := files.ReadFile("catalog/" + e.Name())
		if err != nil {
			t.Fatal(err)
		}
		var b Builtin
		if err := json.Unmarshal(data, &b); err != nil {
			t.Fatalf("%s: %v", e.Name(), err)
		}
		if b.hasSearch() {
			searching = append(searching, b.Slug)
		}
	}
	if !slices.Equal(searching, searchSlugs) {
		t.Fatalf("the catalogue's built-ins with a search are %v, want %v", searching, searchSlugs)
	}
	for _, slug := range searching {
		_, ok := Get(slug)
		listed := slices.ContainsFunc(All(), func(b *Builtin) bool { return b.Slug == slug })
		if !ok || !listed {
			t.Errorf("%s: Get finds it %v, All lists it %v; want both with package search imported", slug, ok, listed)
		}
	}
	for _, b := range All() {
		if _, err := b.Parse(); err != nil {
			t.Errorf("%s does not parse in this build: %v", b.Slug, err)
		}
	}
	// What All lists in a program without searches (the Worker's).
	for _, b := range searchless {
		if slices.Contains(searchSlugs, b.Slug) {
			t.Errorf("%s is listed in a program without searches", b.Slug)
		}
	}
	if len(searchless)+len(searchSlugs) != len(builtins) {
		t.Errorf("%d built-ins without searches and %d with; want %d in all", len(searchless), len(searchSlugs), len(builtins))
	}
}

// storyPolicySearch asserts every number and comparison the catalogue's
// text of e03b-policy-search tells (summary, look_at, notes), each as the
// text writes it and as the text contains it.
func storyPolicySearch(t *testing.T, sc *engine.Scenario) {
	b, _ := Get("e03b-policy-search")
	text := strings.Join(append([]string{b.Summary, b.LookAt}, b.Notes...), "\n")

	// Experiment 1 number for number, plus the search.
	e1 := builtin(t, "e03b-synchronized-recovery")
	if sc.Search == nil {
		t.Fatal("no search")
	}
	same := *sc
	same.Name, same.Search = e1.Name, nil
	if a, b := same.Canonical(), e1.Canonical(); string(a) != string(b) {
		t.Errorf("the scenario without its search differs from experiment 1's:\n%s\n%s", a, b)
	}

	// The knobs: 2 to 4 attempts, Brooker's four jitters, no budget or
	// D's; C's own settings among them (C: 4 attempts, full jitter from
	// 200 ms capped at 2 s, no budget); the timeouts left as C has them.
	var paths, values []string
	for _, k := range sc.Search.Knobs {
		paths = append(paths, k.Path)
		var vs []string
		for _, v := range k.Values {
			var x any
			if len(v) == 0 {
				v = json.RawMessage("null") // as the decoder keeps a null
			}
			if err := json.Unmarshal(v, &x); err != nil {
				t.Fatal(err)
			}
			c, _ := json.Marshal(x) // sorted keys
			vs = append(vs, string(c))
		}
		values = append(values, strings.Join(vs, " "))
	}
	if !slices.Equal(paths, []string{"max_attempts", "backoff", "jitter", "budget"}) ||
		values[0] != "2 3 4" || values[2] != `{"kind":"none"} {"kind":"full"} {"kind":"equal"} {"kind":"decorrelated"}` ||
		!strings.HasPrefix(values[3], "null ") {
		t.Errorf("knobs %v: %q", paths, values)
	}
	for _, st := range sc.Strategies {
		if st.Name != "C" {
			continue
		}
		if st.MaxAttempts != 4 || st.Backoff.Base.String() != "200ms" || st.Backoff.Multiplier != 2 || st.Backoff.Max.String() != "2s" ||
			st.Jitter.Kind != engine.JitterFull || st.Budget != nil ||
			!strings.Contains(values[1], `{"base":"200ms","kind":"exponential","max":"2s","multiplier":2}`) {
			t.Errorf("C is not 4 attempts with full jitter from 200 ms capped at 2 s among the candidates: %+v", st.Policy)
		}
	}

	// Each backoff is a preset's, or C's: base, multiplier and cap.
	type backoff struct {
		Base       string  `json:"base"`
		Multiplier float64 `json:"multiplier"`
		Max        string  `json:"max"`
	}
	shipped := []backoff{{"200ms", 2, "2s"}} // C's
	for _, p := range Presets() {
		var pol struct{ Backoff *backoff }
		if err := json.Unmarshal(p.Policy, &pol); err == nil && pol.Backoff != nil {
			shipped = append(shipped, *pol.Backoff)
		}
	}
	for _, v := range sc.Search.Knobs[1].Values {
		var bo backoff
		if err := json.Unmarshal(v, &bo); err != nil {
			t.Fatal(err)
		}
		if !slices.Contains(shipped, bo) {
			t.Errorf("backoff %s is no preset's", v)
		}
	}

	// The presets as the notes name them: attempts, backoff and jitter.
	type policy struct {
		MaxAttempts int      `json:"max_attempts"`
		Backoff     *backoff `json:"backoff"`
		Jitter      struct {
			Kind     string  `json:"kind"`
			Fraction float64 `json:"fraction"`
		} `json:"jitter"`
	}
	preset := func(name string) policy {
		t.Helper()
		i := slices.IndexFunc(Presets(), func(p *Preset) bool { return p.Name == name })
		if i < 0 {
			t.Fatalf("no preset %q", name)
		}
		var pol policy
		if err := json.Unmarshal(Presets()[i].Policy, &pol); err != nil {
			t.Fatal(err)
		}
		return pol
	}
	for name, attempts := range map[string]int{"envoy-retry": 2, "aws-standard-2026": 3, "aws-standard-legacy": 3, "google-sre": 3,
		"resilience4j": 3, "failsafe-go": 3, "polly-v8-retry": 4, "ms-standard-resilience": 4, "azure-sdk": 4,
		"go-retryablehttp": 5, "azure-storage": 6} {
		if got := preset(name).MaxAttempts; got != attempts {
			t.Errorf("%s: %d attempts, the notes say %d", name, got, attempts)
		}
	}
	for name, bo := range map[string]backoff{"envoy-retry": {"25ms", 2, "250ms"}, "aws-standard-2026": {"50ms", 2, "20s"},
		"grpc-retry-throttling": {"100ms", 2, "1s"}, "cenkalti-backoff": {"500ms", 1.5, "1m"}, "azure-sdk": {"800ms", 2, "1m"},
		"go-retryablehttp": {"1s", 2, "30s"}, "aws-standard-legacy": {"2s", 2, "20s"}, "polly-v8-retry": {"2s", 0, ""},
		"ms-standard-resilience": {"2s", 2, ""}, "google-sre": {"100ms", 2, ""}, "retries-that-fail-better": {"200ms", 2, "10s"}} {
		if got := preset(name).Backoff; got == nil || *got != bo {
			t.Errorf("%s: backoff %+v, the notes say %+v", name, got, bo)
		}
	}
	for name, f := range map[string]float64{"grpc-retry-throttling": 0.2, "azure-sdk": 0.2, "cenkalti-backoff": 0.5, "ms-standard-resilience": 0.5} {
		if j := preset(name).Jitter; j.Kind != "proportional" || j.Fraction != f {
			t.Errorf("%s: jitter %+v, the notes say ±%v", name, j, f)
		}
	}
	// Google SRE's and "Retries That Fail Better"'s backoffs wait as
	// gRPC's and C's do for up to 4 attempts (3 waits).
	waits := func(bo backoff) []time.Duration {
		base, _ := time.ParseDuration(bo.Base)
		limit := time.Duration(math.MaxInt64)
		if bo.Max != "" {
			limit, _ = time.ParseDuration(bo.Max)
		}
		var w []time.Duration
		for i := range 3 {
			w = append(w, min(limit, time.Duration(float64(base)*math.Pow(bo.Multiplier, float64(i)))))
		}
		return w
	}
	if !slices.Equal(waits(*preset("google-sre").Backoff), waits(*preset("grpc-retry-throttling").Backoff)) ||
		!slices.Equal(waits(*preset("retries-that-fail-better").Backoff), waits(backoff{"200ms", 2, "2s"})) {
		t.Error("Google SRE's or Retries That Fail Better's backoff does not wait as gRPC's or C's for 4 attempts")
	}
	// The recommendation is the pre-2026 AWS standard mode without its
	// retry quota; the budget knob's ratio is D's.
	aws := preset("aws-standard-legacy")
	if aws.Jitter.Kind != "full" {
		t.Errorf("aws-standard-legacy's jitter is %q", aws.Jitter.Kind)
	}
	var dBudget json.RawMessage
	for _, st := range sc.Strategies {
		if st.Name == "D" {
			dBudget, _ = json.Marshal(st.Budget)
		}
	}
	var knobBudget engine.Budget
	if err := json.Unmarshal(sc.Search.Knobs[3].Values[1], &knobBudget); err != nil {
		t.Fatal(err)
	}
	if kb, _ := json.Marshal(&knobBudget); string(kb) != string(dBudget) {
		t.Errorf("the budget knob's ratio %s is not D's %s", kb, dBudget)
	}

	// The cost notes: within the budget; 5 and 6 attempts pass it; the
	// proportional jitters bring it within a tenth of it.
	est := engine.Estimate(sc)
	if est > maxEvents {
		t.Errorf("estimated at %d events, over %d", est, maxEvents)
	}
	more := func(knob int, values ...string) int64 {
		t.Helper()
		v := builtin(t, b.Slug)
		for _, s := range values {
			v.Search.Knobs[knob].Values = append(v.Search.Knobs[knob].Values, json.RawMessage(s))
		}
		n := 1
		for _, k := range v.Search.Knobs {
			n *= len(k.Values)
		}
		v.Search.Budget = n
		return engine.Estimate(v)
	}
	if e := more(0, "5", "6"); e <= maxEvents {
		t.Errorf("with 5 and 6 attempts: estimated at %d events, want over %d", e, maxEvents)
	}
	if e := more(2, `{"kind":"proportional","fraction":0.2}`, `{"kind":"proportional","fraction":0.5}`); e <= maxEvents*9/10 {
		t.Errorf("with the proportional jitters: estimated at %d events, want within a tenth of %d", e, maxEvents)
	}

	res := run(t, sc)
	s := res.Search
	c, d := metrics(t, res, "C"), metrics(t, res, "D")
	cSpread := strategyResult(t, res, "C").Spread["peak_per_100ms"]

	// The constraints are C's level.
	cons := sc.Search.Constraints
	if cons[0].Metric != "affected_success_rate" || c.AffectedSuccessRate < cons[0].Value || c.AffectedSuccessRate-cons[0].Value >= 0.001 {
		t.Errorf("constraint %v: want C's %v rounded down to a tenth of a point", cons[0], c.AffectedSuccessRate)
	}
	if cons[1].Metric != "peak_per_100ms" || cons[1].Value != c.PeakPer100ms {
		t.Errorf("constraint %v: want C's peak %v", cons[1], c.PeakPer100ms)
	}

	n := 1
	for _, k := range sc.Search.Knobs {
		n *= len(k.Values)
	}
	last := s.Rounds[len(s.Rounds)-1]
	if len(s.Frontier) != 3 || s.Recommendation == nil {
		t.Fatalf("frontier of %d points, recommendation %v; the story has 3 and one", len(s.Frontier), s.Recommendation)
	}
	rec, tie, high := s.Frontier[0].Metrics, s.Frontier[1].Metrics, s.Frontier[2].Metrics
	recSpread := s.Frontier[0].Spread["peak_per_100ms"]

	pct := func(x float64) string { return strconv.FormatFloat(x*100, 'f', 2, 64) + "%" }
	one := func(x float64) string { return strconv.FormatFloat(x, 'f', 1, 64) }
	whole := func(x float64) string { return strconv.FormatFloat(x, 'f', 0, 64) }
	secs := func(ms float64) string { return strconv.FormatFloat(ms/1000, 'f', 2, 64) + " s" }
	for _, f := range []struct{ text, got string }{
		{"tries 192 settings", "tries " + strconv.Itoa(s.Evaluated) + " settings"},
		{"192, the knobs' 3 x 8 x 4 x 2", strconv.Itoa(sc.Search.Budget) + ", the knobs' 3 x 8 x 4 x 2"},
		{"all 192 on seed 1", "all " + strconv.Itoa(s.Rounds[0].Candidates) + " on seed " + strconv.Itoa(s.Rounds[0].Seeds)},
		{"12 candidates on all ten seeds", strconv.Itoa(last.Candidates) + " candidates on all ten seeds"},
		{"504 simulations", strconv.Itoa(s.Simulations) + " simulations"},
		{"All 12 meet both", "All " + strconv.Itoa(s.Feasible) + " meet both"},
		{"from C's 89.4 calls to 25.4", "from C's " + one(c.PeakPer100ms) + " calls to " + one(rec.PeakPer100ms)},
		{"from 99.11% to 99.86%", "from " + pct(c.AffectedSuccessRate) + " to " + pct(rec.AffectedSuccessRate)},
		{"p99 latency 2.93 s against C's 1.99 s", "p99 latency " + secs(rec.LatencyP99ms) + " against C's " + secs(c.LatencyP99ms)},
		{"peak of 25.4 [20..30]", "peak of " + one(rec.PeakPer100ms) + " [" + whole(recSpread.Min) + ".." + whole(recSpread.Max) + "]"},
		{"highest affected success, 99.97%, for a peak of 32.5", "highest affected success, " + pct(high.AffectedSuccessRate) + ", for a peak of " + one(high.PeakPer100ms)},
		{"C's peak is 89.4 [78..112]", "C's peak is " + one(c.PeakPer100ms) + " [" + whole(cSpread.Min) + ".." + whole(cSpread.Max) + "]"},
		{"lower peak still (19.6) but keeps only 78.37%", "lower peak still (" + one(d.PeakPer100ms) + ") but keeps only " + pct(d.AffectedSuccessRate)},
		{"C's 99.11% over the ten seeds", "C's " + pct(c.AffectedSuccessRate) + " over the ten seeds"},
		{"146.7 retries on average against C's 248.7", one(rec.Retries) + " retries on average against C's " + one(c.Retries)},
	} {
		if f.got != f.text {
			t.Errorf("the story says %q; the run gives %q", f.text, f.got)
		}
		if !strings.Contains(text, f.text) {
			t.Errorf("the story no longer says %q", f.text)
		}
	}
	if n != s.Evaluated || len(sc.Search.Knobs[0].Values) != 3 || len(sc.Search.Knobs[1].Values) != 8 ||
		len(sc.Search.Knobs[2].Values) != 4 || len(sc.Search.Knobs[3].Values) != 2 {
		t.Errorf("%d candidates from knobs %v", s.Evaluated, sc.Search.Knobs)
	}

	// The comparisons: a lower peak and a higher affected success than C,
	// a longer tail, fewer retries; D lower still on the peak but below
	// C's level; the highest affected success of the frontier last.
	if rec.PeakPer100ms >= c.PeakPer100ms || rec.AffectedSuccessRate <= c.AffectedSuccessRate ||
		rec.LatencyP99ms <= c.LatencyP99ms || rec.Retries >= c.Retries {
		t.Errorf("recommended %+v against C %+v", rec, c)
	}
	if d.PeakPer100ms >= rec.PeakPer100ms || d.AffectedSuccessRate >= cons[0].Value {
		t.Errorf("D: peak %v, affected success %v", d.PeakPer100ms, d.AffectedSuccessRate)
	}
	if high.AffectedSuccessRate <= max(rec.AffectedSuccessRate, tie.AffectedSuccessRate) {
		t.Errorf("the last frontier point's affected success %v is not the frontier's highest", high.AffectedSuccessRate)
	}
	// 3 or 4 attempts from 2 s tie on every metric; then 4 from 1 s
	// capped at 30 s; all with full jitter and no budget.
	want := []string{
		`{"max_attempts": 3, "backoff": {"kind": "exponential", "base": "2s", "multiplier": 2, "max": "20s"}, "jitter": {"kind": "full"}, "budget": null}`,
		`{"max_attempts": 4, "backoff": {"kind": "exponential", "base": "2s", "multiplier": 2, "max": "20s"}, "jitter": {"kind": "full"}, "budget": null}`,
		`{"max_attempts": 4, "backoff": {"kind": "exponential", "base": "1s", "multiplier": 2, "max": "30s"}, "jitter": {"kind": "full"}, "budget": null}`,
	}
	for i, p := range s.Frontier {
		var got, exp map[string]any
		raw, _ := json.Marshal(p.Settings)
		if err := json.Unmarshal(raw, &got); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal([]byte(want[i]), &exp); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, exp) {
			t.Errorf("frontier point %d: %s, want %s", i, raw, want[i])
		}
	}
	if !reflect.DeepEqual(rec, tie) || !reflect.DeepEqual(s.Frontier[0].Spread, s.Frontier[1].Spread) {
		t.Errorf("3 and 4 attempts from 2 s differ: %+v and %+v", rec, tie)
	}
	if !reflect.DeepEqual(s.Recommendation.SearchPoint.Metrics, rec) {
		t.Error("the recommendation is not the first frontier point")
	}
}

// TestSearchFixesTheBadFleet (#32): the default search of mixed-fleet's
// as-deployed strategy changes the old SDK's policy only, the web tier
// staying as it is, and recommends settings that end the storm for both
// fleets.
func TestSearchFixesTheBadFleet(t *testing.T) {
	sc := builtin(t, "mixed-fleet")
	sc.Search = engine.DefaultSearchFor(sc, "as-deployed")
	res, err := engine.Run(context.Background(), sc, engine.Options{MaxEvents: 0})
	if err != nil {
		t.Fatal(err)
	}
	rec := res.Search.Recommendation
	if rec == nil {
		t.Fatalf("no recommendation: %+v", res.Search)
	}
	deployed := strategyResult(t, res, "as-deployed")
	if rec.Metrics.SuccessRate < 0.85 || rec.Metrics.SuccessRate <= deployed.Metrics.SuccessRate || rec.Metrics.Recovered != 1 {
		t.Errorf("recommended %v: success %v, recovered %v; as deployed %v; want the storm ended", rec.Settings,
			rec.Metrics.SuccessRate, float64(rec.Metrics.Recovered), deployed.Metrics.SuccessRate)
	}
	for _, k := range sc.Search.Knobs {
		if strings.HasPrefix(k.Path, "workload") {
			t.Errorf("the search changes %s, beyond the strategy's own policy", k.Path)
		}
	}
}
