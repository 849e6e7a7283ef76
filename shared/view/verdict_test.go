package view

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/retrylab/retrylab/shared/engine"
	"github.com/retrylab/retrylab/shared/scenarios"
)

// wantIn fails t for each of wants that text, what the view says as
// what, does not contain.
func wantIn(t *testing.T, what, text string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(text, w) {
			t.Errorf("%s has no %q:\n%s", what, w, text)
		}
	}
}

// mustBuiltin parses the built-in slug.
func mustBuiltin(t *testing.T, slug string) *engine.Scenario {
	t.Helper()
	b, ok := scenarios.Get(slug)
	if !ok {
		t.Fatalf("no built-in %s", slug)
	}
	sc, err := b.Parse()
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// runBuiltin runs a built-in, changed by edit when it is not nil, and
// returns its view.
func runBuiltin(t *testing.T, slug string, edit func(*engine.Scenario)) (*engine.Result, *View) {
	t.Helper()
	sc := mustBuiltin(t, slug)
	if edit != nil {
		edit(sc)
	}
	res, err := engine.Run(context.Background(), sc, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return res, Of(sc, res, Options{})
}

func wantOut(t *testing.T, what, got string, unwanted ...string) {
	t.Helper()
	for _, w := range unwanted {
		if strings.Contains(got, w) {
			t.Errorf("%s %q\nsays %q", what, got, w)
		}
	}
}

// TestVerdictPricesTheAffectedWindow: E03-B is judged in its incident
// window, where D's budget costs it 21.6% of its operations, not on the
// whole run's 4.7% (#27, item 5).
func TestVerdictPricesTheAffectedWindow(t *testing.T) {
	_, v := runBuiltin(t, "e03b-synchronized-recovery", nil)
	wantIn(t, "the verdict", v.Verdict, "D has the lowest peak calls in 100 ms: 19.6 calls against A's 244 calls.",
		"The price: it succeeds less often in the affected window, 78.4% against C's 99.1%.")
	wantOut(t, "the verdict", v.Verdict, "95.3%")
}

// TestVerdictPricesEachCall: with a bulkhead, the page succeeds more often
// but its payment calls less often; that is the price, not the calls the
// healthy catalog now gets through (#27, item 5).
func TestVerdictPricesEachCall(t *testing.T) {
	_, v := runBuiltin(t, "bulkheads", nil)
	wantIn(t, "the verdict", v.Verdict, "bulkhead of 20 for payment has the highest success rate in the affected window: 79.8% against shared pool only's 69.3%.",
		"The price: its calls to payment succeed less often, 71.2% against shared pool only's 92.1%.")
	wantOut(t, "the verdict", v.Verdict, "7112")
}

// TestVerdictFewerCallsFromFailingIsNoGain: in the runaway cascade,
// fleet-50 sends fewer calls than fixed because its breakers fail
// operations fast; that is no price fixed pays (#27, item 5).
func TestVerdictFewerCallsFromFailingIsNoGain(t *testing.T) {
	_, v := runBuiltin(t, "runaway-cascade", func(sc *engine.Scenario) {
		sc.Runs = 1
		sc.Workload.Duration = engine.Duration(60 * time.Second)
	})
	wantIn(t, "the verdict", v.Verdict, "fixed has the highest success rate")
	wantOut(t, "the verdict", v.Verdict, "The price", "calls reach the dependency against")
	checkVerdict(t, "runaway-cascade", v.Verdict, nil)
}

// TestVerdictNoWinnerByFailing: a strategy tied for the lowest peak that
// fails 38% of its operations (an imported policy without retries behind a
// tight timeout, say) is not a co-winner; the verdict says it ties only by
// failing (#27, item 5).
func TestVerdictNoWinnerByFailing(t *testing.T) {
	imported := strat("imported", map[string][3]float64{"peak_per_100ms": {20, 18, 22}, "success_rate": {0.62, 0.60, 0.64}})
	d := strat("D", map[string][3]float64{"peak_per_100ms": {21, 19, 23}, "success_rate": {0.95, 0.94, 0.96}})
	c := strat("C", map[string][3]float64{"peak_per_100ms": {90, 80, 95}, "success_rate": {0.99, 0.985, 0.995}})
	got := verdict([]engine.StrategyResult{imported, d, c}, []string{"peak_per_100ms"}, 10)
	wantIn(t, "the verdict", got, "D has the lowest peak calls in 100 ms: 21 calls against C's 90 calls.",
		"imported ties on peak calls in 100 ms only by failing operations: it succeeds on 62% of them against C's 99%.")
	wantOut(t, "the verdict", got, "share the lowest")
	// Alone at the top, it is not called the winner either.
	d = strat("D", map[string][3]float64{"peak_per_100ms": {60, 55, 65}, "success_rate": {0.95, 0.94, 0.96}})
	got = verdict([]engine.StrategyResult{imported, d, c}, []string{"peak_per_100ms"}, 10)
	wantIn(t, "the verdict", got, "imported has the lowest peak calls in 100 ms only by failing operations: 20 calls against C's 90 calls. It succeeds on 62% of its operations against C's 99%.")
	// The dead-letters built-in: storage-5 sends fewer deliveries by
	// dead-lettering every message of its outage.
	_, v := runBuiltin(t, "dead-letters", nil)
	wantIn(t, "the verdict", v.Verdict, "storage-5 has the lowest amplification only by failing operations")
}

// TestVerdictQuotesWhatItCompares: E03-A's verdict said "as few or fewer
// calls: 3004 against 2997", comparing with one strategy and quoting
// another (#27, item 6). Every comparison it makes holds for the numbers
// beside it.
func TestVerdictQuotesWhatItCompares(t *testing.T) {
	res, v := runBuiltin(t, "e03a-transient-failures", nil)
	wantOut(t, "the verdict", v.Verdict, "as few or fewer calls reaching the dependency: 3004 against 2997")
	checkVerdict(t, "e03a-transient-failures", v.Verdict, res)
}

// TestVerdictPricesTheTail: from TailSeeds seeds, a winner whose success
// rates tie with the best's on their 5th to 95th percentiles pays with its
// worst seed when that is below the best's 5th percentile; without a
// success price, slower successes are its price.
func TestVerdictPricesTheTail(t *testing.T) {
	a := strat("A", map[string][3]float64{"peak_per_100ms": {20, 18, 22}, "success_rate": {0.97, 0.80, 0.99}})
	c := strat("C", map[string][3]float64{"peak_per_100ms": {90, 80, 95}, "success_rate": {0.98, 0.95, 1}})
	a.Quantiles = map[string]engine.Quantiles{"peak_per_100ms": {P5: 18, P95: 22}, "success_rate": {P5: 0.96, P95: 0.98}}
	c.Quantiles = map[string]engine.Quantiles{"peak_per_100ms": {P5: 80, P95: 95}, "success_rate": {P5: 0.97, P95: 0.99}}
	a.WorstSeeds = map[string]engine.SeedValue{"success_rate": {Seed: 7, Value: 0.80}}
	c.WorstSeeds = map[string]engine.SeedValue{"success_rate": {Seed: 3, Value: 0.95}}
	got := verdict([]engine.StrategyResult{a, c}, []string{"peak_per_100ms"}, TailSeeds)
	wantIn(t, "the verdict", got, "A has the lowest peak calls in 100 ms: 20 calls against C's 90 calls. The price: on its worst seed it succeeds on 80% of operations against 95% on C's worst.")
	checkVerdict(t, "tail", got, nil)

	a.WorstSeeds["success_rate"] = engine.SeedValue{Seed: 7, Value: 0.96}
	a.Metrics.SuccessLatencyP99ms, c.Metrics.SuccessLatencyP99ms = 3000, 1000
	got = verdict([]engine.StrategyResult{a, c}, []string{"peak_per_100ms"}, TailSeeds)
	wantIn(t, "the verdict", got, "The price: its successful operations are slower, 3 s at the 99th percentile against C's 1 s, which succeeds as often.")
	checkVerdict(t, "latency", got, nil)
}

// TestVerdictPricesEveryCoWinner: an imported policy without retries put
// on E03-B ties with D on the lowest peak; the price names what each of
// them pays in the incident window, not only D's.
func TestVerdictPricesEveryCoWinner(t *testing.T) {
	res, v := runBuiltin(t, "e03b-synchronized-recovery", func(sc *engine.Scenario) {
		sc.Strategies = append(sc.Strategies, engine.Strategy{Name: "imported", Policy: engine.Policy{MaxAttempts: 1,
			AttemptTimeout: engine.Duration(2 * time.Second), Deadline: engine.Duration(5 * time.Second)}})
	})
	wantIn(t, "the verdict", v.Verdict, "imported and D share the lowest peak calls in 100 ms (imported 19.4 calls, D 19.6 calls) against A's 244 calls.",
		"The price: imported and D succeed less often in the affected window (imported 76.9%, D 78.4%) against C's 99.1%.")
	checkVerdict(t, "e03b with an imported policy", v.Verdict, res)
}

// TestDocsListEveryJudgement: the manual's table of the verdict's
// sentences (docs/judgements.md) has a row for every kind of Judgement,
// citing its sources.
func TestDocsListEveryJudgement(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "docs", "judgements.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, j := range Judgements {
		var row string
		for _, line := range strings.Split(string(data), "\n") {
			if strings.HasPrefix(line, "  | `") && strings.Contains(strings.SplitN(line, " | ", 3)[1], "`"+j.Kind+"`") {
				row = line
			}
		}
		if row == "" {
			t.Errorf("docs/judgements.md has no row for the verdict's %s sentences", j.Kind)
			continue
		}
		for _, src := range j.Sources {
			if !strings.Contains(row, src) {
				t.Errorf("docs/judgements.md's %s row does not cite %q", j.Kind, src)
			}
		}
	}
}

// TestSweepVerdictNoWinnerByFailing: at an error rate of 50% the token
// bucket makes the fewest attempts by giving up on half the calls; the
// sweep's verdict does not name it the winner there without saying so.
func TestSweepVerdictNoWinnerByFailing(t *testing.T) {
	_, v := runBuiltin(t, "token-bucket-sweep", nil)
	wantIn(t, "the verdict", v.Verdict, "0.2 → token-bucket; 0.5 → token-bucket only by failing operations (token-bucket succeeds on 50.5% against no-budget's 96.9%); 1 → token-bucket.")
	checkVerdict(t, "token-bucket-sweep", v.Verdict, nil)
}

// TestVerdictNumbersDifferWhereItCompares: rates that round alike get the
// table's digits, so that "share the highest" never reads 99.8% against
// 99.8%.
func TestVerdictNumbersDifferWhereItCompares(t *testing.T) {
	a := strat("A", map[string][3]float64{"success_rate": {0.9981, 0.998, 0.999}})
	b := strat("B", map[string][3]float64{"success_rate": {0.9983, 0.998, 0.999}})
	c := strat("C", map[string][3]float64{"success_rate": {0.9979, 0.9979, 0.9979}})
	got := verdict([]engine.StrategyResult{a, b, c}, []string{"success_rate"}, 3)
	wantIn(t, "the verdict", got, "B and A share the highest success rate (B 99.83%, A 99.81%) against C's 99.79%.")
	checkVerdict(t, "rounding", got, nil)
}

// TestVerdictSaysAWinnerDuplicates: judged on success, idempotency-keys'
// retry-no-key wins by charging twice; the verdict that names it must say
// so, and what the dependency applied of the operations its clients saw
// fail (#27, item 7). On its own focus, duplicates, the winners with no
// duplicate still applied payments their clients saw fail.
func TestVerdictSaysAWinnerDuplicates(t *testing.T) {
	res, v := runBuiltin(t, "idempotency-keys", func(sc *engine.Scenario) { sc.Report.Focus = []string{"success_rate"} })
	wantIn(t, "the verdict", v.Verdict, "retry-no-key has the highest success rate: 99.8% against no-retry's 92.1%",
		"Not a clean win: the dependency applied retry-no-key's operations 53 extra times (duplicates, such as double charges), and 1 of its failed operations all the same.")
	checkVerdict(t, "idempotency-keys on success", v.Verdict, res)
	res, v = runBuiltin(t, "idempotency-keys", nil)
	wantIn(t, "the verdict", v.Verdict, "no-retry and with-key share the lowest duplicates",
		"Not a clean win: the dependency applied 47 of no-retry's failed operations all the same, and 24 of with-key's failed operations all the same.")
	checkVerdict(t, "idempotency-keys", v.Verdict, res)
}

// TestVerdictPriceAgainstAsSuccessful (#32): in gc-death-spiral every
// strategy fails in the 2-second burst, so they tie in the affected
// window, but no-retries succeeds three times as often over the run: its
// price is not that its successes are slower than those of retry-at-once,
// which fails three times as often. A price compares with a strategy
// that succeeds as often on the verdict's own success rate too.
func TestVerdictPriceAgainstAsSuccessful(t *testing.T) {
	res, v := runBuiltin(t, "gc-death-spiral", nil)
	wantIn(t, "the verdict", v.Verdict, "no-retries has the highest success rate")
	wantOut(t, "the verdict", v.Verdict, "which succeeds as often")
	checkVerdict(t, "gc-death-spiral", v.Verdict, res)
}
