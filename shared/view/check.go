package view

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/retrylab/retrylab/shared/engine"
	"github.com/retrylab/retrylab/shared/engine/probe"
)

// A Requirement is one condition retrylab check holds a policy to in each
// incident: a metric's bound met on a share of the seeds
// ("amplification <= 1.1 on 95% of seeds"), or not being metastable.
type Requirement struct {
	// Metric, Op and Value bound a metric on each seed; Share is the
	// fraction of the seeds that must meet it, in (0, 1] (1 when the
	// requirement says no share: every seed).
	Metric string    `json:"metric,omitempty"`
	Op     engine.Op `json:"op,omitempty"`
	Value  float64   `json:"value,omitempty"`
	Share  float64   `json:"share,omitempty"`
	// NotMetastable requires the metastability probe (probe.Run) not
	// to find the policy metastable: a storm outliving its trigger.
	NotMetastable bool `json:"not_metastable,omitempty"`
	// Line is the requirement's line in its file (1 for a flag's).
	Line int `json:"line,omitempty"`
}

// DefaultRequirements are what retrylab check requires without
// requirements of the user's, in its grammar. The retry budget of the
// Google SRE book ("Handling Overload": retries at most 10% of a
// client's requests) bounds the calls per operation at 1.1, and one
// seed in twenty may cross it, as a 95th percentile allows (a choice,
// not a source's). docs/check.md justifies them.
const DefaultRequirements = "amplification <= 1.1 on 95% of seeds\n"

// String writes the requirement in the grammar ParseRequirements reads:
// "amplification <= 1.1 on 95% of seeds", "not metastable".
func (r Requirement) String() string {
	if r.NotMetastable {
		return "not metastable"
	}
	s := r.Metric + " " + string(r.Op) + " " + strconv.FormatFloat(r.Value, 'g', -1, 64)
	if r.Share != 1 {
		s += " on " + strconv.FormatFloat(r.Share*100, 'g', -1, 64) + "% of seeds"
	}
	return s
}

// A RequirementError is a line of requirements that does not parse: its
// line, the value at fault and what is allowed.
type RequirementError struct {
	Line    int
	Value   string
	Message string
}

func (e *RequirementError) Error() string {
	return fmt.Sprintf("line %d: %s %s", e.Line, strconv.Quote(e.Value), e.Message)
}

// ParseRequirements reads requirements, one a line; blank lines and
// those beginning with # are skipped:
//
//	METRIC <= NUMBER [on PERCENT% of seeds]
//	METRIC >= NUMBER [on PERCENT% of seeds]
//	not metastable
//
// METRIC is one of engine.MetricNames, NUMBER finite, PERCENT in (0, 100].
// It returns every line's error, each a *RequirementError, joined.
func ParseRequirements(text string) ([]Requirement, error) {
	var out []Requirement
	var errs []error
	for i, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(strings.TrimSuffix(line, "\r"))
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		r, err := parseRequirement(line, i+1)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		out = append(out, r)
	}
	return out, errors.Join(errs...)
}

func parseRequirement(line string, n int) (Requirement, error) {
	fail := func(value, msg string) (Requirement, error) {
		return Requirement{}, &RequirementError{Line: n, Value: value, Message: msg}
	}
	f := strings.Fields(line)
	if f[0] == "not" {
		if len(f) != 2 || f[1] != "metastable" {
			return fail(line, `is not a requirement; allowed "not metastable"`)
		}
		return Requirement{NotMetastable: true, Line: n}, nil
	}
	names := engine.MetricNames()
	if !slices.Contains(names, f[0]) {
		msg := "is not a metric"
		if near := engine.NearNames(f[0], names); len(near) > 0 {
			msg += "; did you mean " + strings.Join(near, " or ") + "?"
		}
		return fail(f[0], msg+` (allowed "METRIC <= NUMBER", "METRIC >= NUMBER", each optionally followed by "on PERCENT% of seeds", or "not metastable"; retrylab help lists the metrics as run's table does)`)
	}
	r := Requirement{Metric: f[0], Share: 1, Line: n}
	if len(f) < 3 {
		return fail(line, "lacks a bound; allowed METRIC <= NUMBER or METRIC >= NUMBER")
	}
	switch op := engine.Op(f[1]); op {
	case engine.OpAtMost, engine.OpAtLeast:
		r.Op = op
	default:
		return fail(f[1], `is not a comparison; allowed "<=" or ">="`)
	}
	v, err := strconv.ParseFloat(f[2], 64)
	if err != nil || math.IsInf(v, 0) || math.IsNaN(v) {
		return fail(f[2], "is not a number; allowed a finite number such as 0.95 or 1.1")
	}
	r.Value = v
	switch rest := f[3:]; {
	case len(rest) == 0:
	case len(rest) == 4 && rest[0] == "on" && rest[2] == "of" && rest[3] == "seeds" && strings.HasSuffix(rest[1], "%"):
		p, err := strconv.ParseFloat(strings.TrimSuffix(rest[1], "%"), 64)
		if err != nil || !(p > 0 && p <= 100) {
			return fail(rest[1], "is not a share of the seeds; allowed a percentage above 0% and at most 100%, such as 95%")
		}
		r.Share = p / 100
	default:
		return fail(strings.Join(rest, " "), `is not how a requirement ends; allowed nothing (every seed) or "on PERCENT% of seeds", such as "on 95% of seeds"`)
	}
	return r, nil
}

// A CheckClaim is what retrylab check says of one requirement of one
// policy in one incident: whether it holds and, in Text, the figures it
// rests on, from the run.
type CheckClaim struct {
	Requirement string `json:"requirement"`
	Holds       bool   `json:"holds"`
	// Held is how many of the Seeds met the bound, and Needed how many
	// must (the requirement's share of them, rounded up); for not
	// metastable, Finding is the probe's.
	Held    int           `json:"held,omitempty"`
	Seeds   int           `json:"seeds,omitempty"`
	Needed  int           `json:"needed,omitempty"`
	Finding probe.Finding `json:"finding,omitempty"`
	// Worst is the seed worst for the metric and its value, when the
	// result has it, and Figure that value in words.
	Worst  *engine.SeedValue `json:"worst,omitempty"`
	Figure string            `json:"figure,omitempty"`
	Text   string            `json:"text"`
}

// Needed returns how many of seeds a share of them is, rounded up: 95%
// of 20 seeds is 19, of 10 seeds 10.
func Needed(share float64, seeds int) int {
	return int(math.Ceil(share*float64(seeds) - 1e-9))
}

// JudgeThreshold judges a metric requirement on a strategy's result,
// whose report.thresholds held the requirement's bound (th): it holds
// when at least Needed of the seeds meet it.
func JudgeThreshold(r Requirement, st *engine.StrategyResult, th engine.ThresholdResult) CheckClaim {
	m, _ := MetricOf(r.Metric)
	c := CheckClaim{Requirement: r.String(), Seeds: th.Seeds, Held: th.Seeds - th.Crossed, Needed: Needed(r.Share, th.Seeds)}
	c.Holds = c.Held >= c.Needed
	bound := fmt.Sprintf("%s %s %s", lower(m.Label), map[engine.Op]string{engine.OpAtMost: "at most", engine.OpAtLeast: "at least"}[r.Op], format(m, r.Value, true))
	seeds := fmt.Sprintf("%d of the %d seeds", c.Held, c.Seeds)
	if c.Seeds == 1 {
		seeds = fmt.Sprintf("%d of its one seed", c.Held)
	}
	need := "every seed"
	if c.Needed < c.Seeds {
		need = fmt.Sprintf("%d (%s of the seeds)", c.Needed, strconv.FormatFloat(r.Share*100, 'g', -1, 64)+"%")
	}
	if c.Holds {
		c.Text = fmt.Sprintf("%s on %s; %s required.", upperFirst(bound), seeds, need)
	} else {
		c.Text = fmt.Sprintf("%s on only %s; %s required.", upperFirst(bound), seeds, need)
	}
	if sv, ok := st.WorstSeeds[r.Metric]; ok {
		c.Worst = &sv
		c.Figure = format(m, sv.Value, true)
		c.Text += fmt.Sprintf(" Its worst seed, %d, has %s.", sv.Seed, c.Figure)
	}
	return c
}

// JudgeMetastable judges "not metastable" on a probe of the strategy: it
// holds unless the probe finds it metastable; Text is the probe's own
// account of what it found.
func JudgeMetastable(res *probe.Result) CheckClaim {
	c := CheckClaim{Requirement: Requirement{NotMetastable: true}.String(), Finding: res.Finding, Seeds: res.Seeds}
	c.Holds = res.Finding != probe.FindingMetastable
	c.Text = fmt.Sprintf("The probe finds it %s on %d seeds: %s.", res.Finding, res.Seeds, strings.TrimSuffix(res.Persistence, "."))
	return c
}

// A TriedRemedy is a change to a failing policy that check ran in the
// same incident, on the same seeds: what it changed, in words, and the
// requirements judged again on its run.
type TriedRemedy struct {
	Change string       `json:"change"`
	Claims []CheckClaim `json:"claims"`
}

// RemedyChange returns the change check tries on a failing policy, the
// policy changed, and whether there is one: a ratio retry budget of 10%
// of requests (the Google SRE book's) over probe.DefaultBudgetWindow
// in place of no budget or of a concurrency limit, which bounds retries
// in progress and not their share; two attempts in place of more under
// a budget of its own.
func RemedyChange(st engine.Strategy) (string, engine.Strategy, bool) {
	switch b := st.Budget; {
	case b == nil || b.Kind == engine.BudgetConcurrency:
		st.Budget = &engine.Budget{Kind: engine.BudgetRatio, Ratio: 0.1, Window: probe.DefaultBudgetWindow}
		return fmt.Sprintf("a ratio retry budget of 10%% of requests over %s in place of its own", time.Duration(probe.DefaultBudgetWindow)), st, true
	case st.MaxAttempts > 2 || st.MaxAttempts == 0:
		was := attemptsWords(st.MaxAttempts)
		st.MaxAttempts = 2
		return "2 attempts in place of its " + was, st, true
	}
	return "", st, false
}

// CheckRemedy says what to change in a policy that fails a requirement:
// the retry budget the probe found enough, when it found one (pr may
// be nil); else, from the policy itself, a budget it lacks or the
// attempts its budget still allows. Then, when check tried a change
// (tried, else nil), how the failing requirements fare with it.
func CheckRemedy(st engine.Strategy, pr *probe.Result, tried *TriedRemedy) string {
	var s string
	if pr != nil {
		for _, r := range pr.Remedies {
			if r.Kind == probe.RemedyBudget && r.Outcome == probe.Found {
				s = "The probe finds a retry budget that ends the storm: " + strings.TrimSuffix(r.Text, ".") + "."
			}
		}
	}
	if s == "" {
		switch b := st.Budget; {
		case b == nil:
			s = "It has no retry budget: a ratio budget of 10% of requests (Google SRE book, \"Handling Overload\") caps what its retries add."
		case b.Kind == engine.BudgetConcurrency:
			s = fmt.Sprintf("Its only retry budget is a limit of %d retries at once, which does not bound retries to a share of requests: a ratio budget of 10%% of requests (Google SRE book, \"Handling Overload\") does.", b.MinConcurrency)
		case st.MaxAttempts > 2 || st.MaxAttempts == 0:
			s = fmt.Sprintf("Its %s budget still lets its retries through: fewer than its %s, or a smaller budget.", b.Kind, attemptsWords(st.MaxAttempts))
		default:
			s = fmt.Sprintf("Its %s budget still lets its retries through: a smaller budget.", b.Kind)
		}
	}
	if tried == nil {
		return s
	}
	var held, failed []string
	for _, c := range tried.Claims {
		what := fmt.Sprintf("%s (%d of the %d seeds)", c.Requirement, c.Held, c.Seeds)
		if c.Seeds == 0 {
			what = c.Requirement
		}
		if c.Holds {
			held = append(held, what)
		} else {
			failed = append(failed, what)
		}
	}
	s += " With " + tried.Change + ", on the same seeds, it "
	switch {
	case len(failed) == 0:
		s += "meets " + strings.Join(held, " and ") + "."
	case len(held) == 0:
		s += "still fails " + strings.Join(failed, " and ") + "."
	default:
		s += "meets " + strings.Join(held, " and ") + " but still fails " + strings.Join(failed, " and ") + "."
	}
	return s
}

func attemptsWords(n int) string {
	if n == 0 {
		return "unlimited attempts"
	}
	return fmt.Sprintf("%d attempts", n)
}
