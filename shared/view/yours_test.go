package view

import (
	"regexp"
	"strings"
	"testing"

	"github.com/retrylab/retrylab/shared/engine"
)

// TestYoursSaysWhereEachStands takes every strategy of several built-ins
// in turn as the user's own (report.yours) and checks each claim of its
// sentence against the run: every other strategy is named once, "behind"
// exactly those that do better beyond the seeds' spread on the metric
// the clause is about, "ahead of" those it beats so, the rest "no clear
// difference"; the recovery it reports is the run's, and the sentence
// leads with the user's policy whatever the verdict is about.
func TestYoursSaysWhereEachStands(t *testing.T) {
	clause := regexp.MustCompile(`^(.+?) (-?[0-9.,]+[kM]?%?(?: [a-z]+)?|none \(not recovered under load\))(?:, (.*))?$`)
	checked := 0
	for _, slug := range []string{"e03b-synchronized-recovery", "load-spike-storm", "mixed-fleet", "bulkheads", "e03a-transient-failures", "sre-retry-budget"} {
		res, _ := runBuiltin(t, slug, nil)
		sc := mustBuiltin(t, slug)
		strats := res.Strategies
		tails := len(res.Seeds) >= TailSeeds
		for y, st := range sc.Strategies {
			sc.Report.Yours = []string{st.Name}
			v := Of(sc, res, Options{})
			if len(v.Yours) == 0 {
				t.Fatalf("%s, %s: no sentence about yours", slug, st.Name)
			}
			s := v.Yours[0]
			head := "Your policy " + st.Name + ": "
			if !strings.HasPrefix(s, head) {
				t.Fatalf("%s: %q does not lead with %q", slug, s, head)
			}
			body, _, _ := strings.Cut(s[len(head):], ". ")
			body = strings.TrimSuffix(body, ".")
			for _, part := range strings.Split(body, "; ") {
				m := clause.FindStringSubmatch(part)
				if m == nil {
					t.Fatalf("%s: cannot read %q", slug, part)
				}
				metric := metricLabelled(t, m[1], strats)
				rest := m[3]
				for i, other := range strats {
					if i == y {
						continue
					}
					var where string
					switch {
					case strings.HasPrefix(rest, "ahead of every other"):
						where = "ahead"
					case strings.HasPrefix(rest, "behind every other"):
						where = "behind"
					case strings.HasPrefix(rest, "with no clear difference from the others"):
						where = "level"
					default:
						where = section(rest, other.Name)
					}
					want := "level"
					if better(strats, metric, i, y, tails) {
						want = "behind"
					} else if better(strats, metric, y, i, tails) {
						want = "ahead"
					}
					if where != want {
						t.Errorf("%s: %s against %s on %s: the sentence puts it %q, the run %q:\n%s", slug, st.Name, other.Name, metric.Key, where, want, s)
					}
					checked++
				}
			}
			rec := strats[y].Metrics.Recovered
			switch {
			case !rec.Applies():
				wantOut(t, "a run without a recovery to judge", s, "recover")
			case float64(rec) == 1:
				wantIn(t, slug+" "+st.Name, s, "recovered under load with it")
			default:
				wantIn(t, slug+" "+st.Name, s, "did not recover under load")
			}
		}
	}
	if checked < 40 {
		t.Errorf("%d claims checked", checked)
	}
}

// section says which part of a standing clause names strategy name:
// "behind", "ahead" or "level" (no clear difference), "" when none does.
func section(rest, name string) string {
	word := regexp.MustCompile(`(^|[ ,(])` + regexp.QuoteMeta(name) + `($|[ ,)])`)
	found := ""
	idx := regexp.MustCompile(`(behind|ahead of|no clear difference from) `).FindAllStringSubmatchIndex(rest, -1)
	for k, ix := range idx {
		end := len(rest)
		if k+1 < len(idx) {
			end = idx[k+1][0]
		}
		if word.MatchString(rest[ix[1]:end]) {
			if found != "" {
				return "twice"
			}
			found = map[string]string{"behind": "behind", "ahead of": "ahead", "no clear difference from": "level"}[rest[ix[2]:ix[3]]]
		}
	}
	return found
}

// metricLabelled returns the metric a clause names by its label, directed
// as the sentence judges it.
func metricLabelled(t *testing.T, label string, strats []engine.StrategyResult) Metric {
	t.Helper()
	for _, key := range engine.MetricNames() {
		m, _ := MetricOf(key)
		if lower(m.Label) == label {
			return directed(m, strats)
		}
	}
	t.Fatalf("no metric is labelled %q", label)
	return Metric{}
}

// TestYoursRequirements: with requirements, your policy's sentence says
// whether it meets each on every seed and names what it misses, as the
// result counts the seeds.
func TestYoursRequirements(t *testing.T) {
	st := engine.StrategyResult{Name: "mine", Thresholds: []engine.ThresholdResult{
		{Constraint: engine.Constraint{Metric: "affected_success_rate", Op: engine.OpAtLeast, Value: 0.99}, Seeds: 20, Crossed: 7},
		{Constraint: engine.Constraint{Metric: "peak_per_100ms", Op: engine.OpAtMost, Value: 150}, Seeds: 20, Crossed: 0},
	}}
	got := requirementsMet(st, 20)
	wantIn(t, "a missed requirement", got, "misses 1 of the 2 requirements", "below 99% on 7 of the 20 seeds")
	wantOut(t, "a missed requirement", got, "peak")
	st.Thresholds[0].Crossed = 0
	if got := requirementsMet(st, 20); got != " It meets all 2 requirements on every seed." {
		t.Errorf("all met: %q", got)
	}
	st.Thresholds = st.Thresholds[:1]
	st.Thresholds[0].Seeds = 1
	st.Thresholds[0].Crossed = 1
	if got := requirementsMet(st, 1); got != " It misses the requirement: success rate in the affected window below 99%." {
		t.Errorf("one seed: %q", got)
	}
	if got := requirementsMet(engine.StrategyResult{}, 1); got != "" {
		t.Errorf("no requirements: %q", got)
	}
}

// TestYoursValidation: report.yours names strategies of the scenario,
// each once.
func TestYoursValidation(t *testing.T) {
	sc := mustBuiltin(t, "e03b-synchronized-recovery")
	sc.Report.Yours = []string{"A", "Z", "A"}
	err := sc.Validate()
	if err == nil {
		t.Fatal("accepted")
	}
	wantIn(t, "the error", err.Error(), `report.yours[1]: "Z" is not one of the scenario's strategies`, `report.yours[2]: "A" is named twice`)
}
