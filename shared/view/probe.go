package view

import (
	"fmt"
	"strconv"

	"github.com/retrylab/retrylab/shared/engine"
	"github.com/retrylab/retrylab/shared/engine/probe"
)

// ProbeView is what a metastability probe found (probe.Run), as the
// comparison page, the playground and the command line show it: a
// sentence, the criterion, the success rate and amplification without a
// remedy and healthy, and a row a remedy.
type ProbeView struct {
	// Heading names the strategy probed, as a question its finding
	// answers: "What ends the storm of eager?" (metastable), "What keeps
	// textbook out of overload?" (unstable), "Is once in a storm?"
	// (healthy or recovering: it is not).
	Heading string `json:"heading"`
	// Finding is the probe's finding (probe.Finding); the summary
	// says it in words, with what it rests on.
	Finding   string `json:"finding"`
	Summary   string `json:"summary"`
	Criterion string `json:"criterion"`
	// Baseline says how the judged window goes without a remedy, and
	// in the strategy's healthy counterfactual.
	Baseline string     `json:"baseline"`
	Rows     []ProbeRow `json:"rows"`
	// Cost says how many simulations and events the probe took.
	Cost string `json:"cost"`
}

// A ProbeRow is one remedy: its label ("Less load"), what the probe
// found, the change to the scenario that does it, and how many
// simulations it took.
type ProbeRow struct {
	Kind        string `json:"kind"`
	Remedy      string `json:"remedy"`
	Found       bool   `json:"found"`
	Finding     string `json:"finding"`
	Change      string `json:"change,omitempty"`
	Simulations string `json:"simulations"`
}

// probeLabels name the remedies for people.
var probeLabels = map[probe.RemedyKind]string{
	probe.RemedyLoad:     "Less load",
	probe.RemedyCapacity: "More workers",
	probe.RemedyBudget:   "A retry budget",
	probe.RemedyOneLevel: "Retry at one level",
}

// A ProbeAnswer is a probe's result with what people read of it: what
// GET /api/scenarios/{id}/probe answers and the playground's probe shows.
type ProbeAnswer struct {
	Probe *probe.Result `json:"probe"`
	View  *ProbeView    `json:"view"`
}

// AnswerOf returns the answer of a probe whose result is res.
func AnswerOf(res *probe.Result) ProbeAnswer {
	return ProbeAnswer{Probe: res, View: Probe(res)}
}

// Probe turns a probe's result into what people read.
func Probe(res *probe.Result) *ProbeView {
	rate, _ := MetricOf("success_rate")
	amp, _ := MetricOf("amplification")
	spread := func(m Metric, mm engine.MinMax) string {
		s := format(m, mm.Min, m.Unit == "%")
		if mm.Max != mm.Min {
			s += " to " + format(m, mm.Max, m.Unit == "%")
		}
		return s
	}
	fast := ""
	if res.BaselineFastFailed.Max > 0 || res.Healthy.FastFailed.Max > 0 {
		fast = fmt.Sprintf(" (%s of them failed fast by a breaker, a budget, the pool, a bulkhead or a client-side throttle; healthy, %s)",
			spread(rate, res.BaselineFastFailed), spread(rate, res.Healthy.FastFailed))
	}
	v := &ProbeView{
		Heading:   probeHeading(res),
		Finding:   string(res.Finding),
		Summary:   res.Summary,
		Criterion: upperFirst(res.Criterion) + ".",
		Baseline: fmt.Sprintf("Without a remedy, %s of those operations succeed, with %s calls per operation%s; healthy (without the trigger), %s, with %s.",
			spread(rate, res.Baseline), spread(amp, res.BaselineAmplification), fast, spread(rate, res.Healthy.Success), spread(amp, res.Healthy.Amplification)),
		Cost: fmt.Sprintf("%s simulations, %s events.", strconv.Itoa(res.Simulations), thousands(res.Events)),
	}
	for _, r := range res.Remedies {
		label := probeLabels[r.Kind]
		if label == "" {
			label = string(r.Kind)
		}
		row := ProbeRow{Kind: string(r.Kind), Remedy: label, Found: r.Outcome == probe.Found,
			Finding: upperFirst(r.Text), Simulations: strconv.Itoa(r.Simulations)}
		if row.Found {
			row.Change = upperFirst(r.Change)
		}
		v.Rows = append(v.Rows, row)
	}
	return v
}

// probeHeading asks the question the probe's finding answers: what ends
// a storm that outlives its trigger, what keeps an overloaded operating
// point out of overload, and, of a strategy that is not in a storm or
// recovers by itself, whether it is in one.
func probeHeading(res *probe.Result) string {
	switch {
	case res.Finding == probe.FindingMetastable, res.Finding == "" && res.Metastable: // "": a result from before findings
		return "What ends the storm of " + res.Strategy + "?"
	case res.Finding == probe.FindingUnstable:
		return "What keeps " + res.Strategy + " out of overload?"
	}
	return "Is " + res.Strategy + " in a storm?"
}

// upperFirst returns s with its first letter in upper case (ASCII).
func upperFirst(s string) string {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return s
	}
	return string(s[0]-'a'+'A') + s[1:]
}

// thousands writes n with commas between groups of three digits.
func thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := ""
	if n < 0 {
		neg, s = "-", s[1:]
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return neg + s
}
