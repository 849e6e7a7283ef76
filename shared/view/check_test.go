package view

import (
	"errors"
	"strings"
	"testing"

	"github.com/retrylab/retrylab/shared/engine"
	"github.com/retrylab/retrylab/shared/engine/probe"
)

func TestParseRequirements(t *testing.T) {
	rs, err := ParseRequirements("# retry load\namplification <= 1.5\n\naffected_success_rate >= 0.95 on 95% of seeds\r\nnot metastable\n")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"amplification <= 1.5", "affected_success_rate >= 0.95 on 95% of seeds", "not metastable"}
	lines := []int{2, 4, 5}
	if len(rs) != len(want) {
		t.Fatalf("got %v", rs)
	}
	for i, r := range rs {
		if r.String() != want[i] || r.Line != lines[i] {
			t.Errorf("requirement %d = %q on line %d; want %q on line %d", i, r, r.Line, want[i], lines[i])
		}
	}
	if _, err := ParseRequirements(DefaultRequirements); err != nil {
		t.Errorf("the defaults: %v", err)
	}
}

func TestParseRequirementsErrors(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{"amplificaton <= 1.5", `line 1: "amplificaton" is not a metric; did you mean amplification?`},
		{"\namplification < 1.5", `line 2: "<" is not a comparison; allowed "<=" or ">="`},
		{"amplification <= x", `line 1: "x" is not a number`},
		{"amplification <= Inf", `line 1: "Inf" is not a number`},
		{"amplification", `line 1: "amplification" lacks a bound`},
		{"amplification <= 1 on 0% of seeds", `line 1: "0%" is not a share of the seeds; allowed a percentage above 0% and at most 100%`},
		{"amplification <= 1 on 101% of seeds", `"101%" is not a share`},
		{"amplification <= 1 on most seeds", `line 1: "on most seeds" is not how a requirement ends`},
		{"not stable", `line 1: "not stable" is not a requirement; allowed "not metastable"`},
	} {
		_, err := ParseRequirements(tc.text)
		var re *RequirementError
		if err == nil || !errors.As(err, &re) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseRequirements(%q) = %v; want an error containing %q", tc.text, err, tc.want)
		}
	}
	// Every line's error, not only the first.
	_, err := ParseRequirements("x <= 1\ny >= 2")
	if err == nil || !strings.Contains(err.Error(), "line 1") || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("two bad lines: %v", err)
	}
}

// FuzzParseRequirements round-trips what parses: each requirement
// written back (String) parses to the same requirement.
func FuzzParseRequirements(f *testing.F) {
	for _, s := range []string{DefaultRequirements, "not metastable", "success_rate >= 0.99 on 99.5% of seeds", "peak_per_100ms <= 1e3", "# c\n\nx"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		rs, err := ParseRequirements(text)
		if err != nil {
			return
		}
		for _, r := range rs {
			again, err := ParseRequirements(r.String())
			if err != nil || len(again) != 1 {
				t.Fatalf("%q parsed from %q does not parse again: %v", r, text, err)
			}
			a := again[0]
			a.Line = r.Line
			if a != r {
				t.Fatalf("%q parsed from %q parses again as %+v, not %+v", r, text, a, r)
			}
		}
	})
}

func TestJudgeThreshold(t *testing.T) {
	r := Requirement{Metric: "amplification", Op: engine.OpAtMost, Value: 1.1, Share: 0.95}
	st := &engine.StrategyResult{WorstSeeds: map[string]engine.SeedValue{"amplification": {Seed: 7, Value: 1.33}}}
	c := JudgeThreshold(r, st, engine.ThresholdResult{Crossed: 2, Seeds: 20})
	if c.Holds || c.Held != 18 || c.Needed != 19 {
		t.Errorf("18 of 20 seeds against 95%%: %+v", c)
	}
	if want := "Amplification at most 1.1 calls per operation on only 18 of the 20 seeds; 19 (95% of the seeds) required. Its worst seed, 7, has 1.33 calls per operation."; c.Text != want {
		t.Errorf("text\n%s\nwant\n%s", c.Text, want)
	}
	c = JudgeThreshold(r, st, engine.ThresholdResult{Crossed: 1, Seeds: 20})
	if !c.Holds || !strings.Contains(c.Text, "on 19 of the 20 seeds; 19") {
		t.Errorf("19 of 20 seeds against 95%%: %+v", c)
	}
	if Needed(0.95, 10) != 10 || Needed(1, 20) != 20 || Needed(0.5, 3) != 2 {
		t.Error("Needed rounds up")
	}
}

func TestCheckRemedy(t *testing.T) {
	for _, tc := range []struct {
		st   engine.Strategy
		want string
	}{
		{engine.Strategy{Policy: engine.Policy{MaxAttempts: 11}}, "It has no retry budget"},
		{engine.Strategy{Policy: engine.Policy{MaxAttempts: 11, Budget: &engine.Budget{Kind: engine.BudgetConcurrency, MinConcurrency: 100}}}, "a limit of 100 retries at once"},
		{engine.Strategy{Policy: engine.Policy{MaxAttempts: 4, Budget: &engine.Budget{Kind: engine.BudgetRatio}}}, "fewer than its 4 attempts"},
	} {
		if got := CheckRemedy(tc.st, nil, nil); !strings.Contains(got, tc.want) {
			t.Errorf("CheckRemedy(%+v) = %q; want it to contain %q", tc.st.Policy, got, tc.want)
		}
	}
	probe := &probe.Result{Remedies: []probe.RemedyResult{{Kind: probe.RemedyBudget, Outcome: probe.Found, Text: "a 12% budget ends it."}}}
	if got := CheckRemedy(engine.Strategy{}, probe, nil); got != "The probe finds a retry budget that ends the storm: a 12% budget ends it." {
		t.Errorf("with the probe's budget: %q", got)
	}
	tried := &TriedRemedy{Change: "2 attempts in place of its 4 attempts", Claims: []CheckClaim{
		{Requirement: "amplification <= 1.1", Holds: true, Held: 20, Seeds: 20},
		{Requirement: "not metastable", Holds: false},
	}}
	got := CheckRemedy(engine.Strategy{Policy: engine.Policy{MaxAttempts: 4, Budget: &engine.Budget{Kind: engine.BudgetRatio}}}, nil, tried)
	if want := " With 2 attempts in place of its 4 attempts, on the same seeds, it meets amplification <= 1.1 (20 of the 20 seeds) but still fails not metastable."; !strings.HasSuffix(got, want) {
		t.Errorf("with a tried change: %q; want it to end %q", got, want)
	}
}

func TestRemedyChange(t *testing.T) {
	for _, tc := range []struct {
		st     engine.Policy
		change string
		check  func(engine.Policy) bool
	}{
		{engine.Policy{MaxAttempts: 11}, "a ratio retry budget of 10% of requests over 1s in place of its own",
			func(p engine.Policy) bool {
				return p.Budget.Kind == engine.BudgetRatio && p.Budget.Ratio == 0.1 && p.MaxAttempts == 11
			}},
		{engine.Policy{MaxAttempts: 11, Budget: &engine.Budget{Kind: engine.BudgetConcurrency, MinConcurrency: 3}}, "a ratio retry budget",
			func(p engine.Policy) bool { return p.Budget.Kind == engine.BudgetRatio }},
		{engine.Policy{MaxAttempts: 5, Budget: &engine.Budget{Kind: engine.BudgetTokenBucket}}, "2 attempts in place of its 5 attempts",
			func(p engine.Policy) bool { return p.MaxAttempts == 2 && p.Budget.Kind == engine.BudgetTokenBucket }},
	} {
		change, st, ok := RemedyChange(engine.Strategy{Policy: tc.st})
		if !ok || !strings.HasPrefix(change, tc.change) || !tc.check(st.Policy) {
			t.Errorf("RemedyChange(%+v) = %q, %+v", tc.st, change, st.Policy)
		}
	}
	if _, _, ok := RemedyChange(engine.Strategy{Policy: engine.Policy{MaxAttempts: 2, Budget: &engine.Budget{Kind: engine.BudgetRatio}}}); ok {
		t.Error("two attempts under a budget: nothing left to try")
	}
}

func TestJudgeMetastable(t *testing.T) {
	res := &probe.Result{Finding: probe.FindingMetastable, Seeds: 5, Persistence: "metastable: the bad state outlives its trigger."}
	c := JudgeMetastable(res)
	if c.Holds || c.Text != "The probe finds it metastable on 5 seeds: metastable: the bad state outlives its trigger." {
		t.Errorf("%+v", c)
	}
	res.Finding = probe.FindingUnstable
	if !JudgeMetastable(res).Holds {
		t.Error("unstable is not metastable")
	}
}
