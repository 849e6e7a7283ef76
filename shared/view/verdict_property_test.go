package view

import (
	"context"
	"math/rand/v2"
	"os"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/retrylab/retrylab/shared/engine"
	"github.com/retrylab/retrylab/shared/scenarios"
)

// parseNum reads a number as Number matches it, rates as fractions and
// times in milliseconds.
func parseNum(s string) float64 {
	scale := 1.0
	switch {
	case strings.HasSuffix(s, " ms"):
		s = strings.TrimSuffix(s, " ms")
	case strings.HasSuffix(s, " s"):
		s, scale = strings.TrimSuffix(s, " s"), 1000
	case strings.HasSuffix(s, "%"):
		s, scale = strings.TrimSuffix(s, "%"), 0.01
	case strings.HasSuffix(s, "k"):
		s, scale = strings.TrimSuffix(s, "k"), 1e3
	case strings.HasSuffix(s, "M"):
		s, scale = strings.TrimSuffix(s, "M"), 1e6
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		panic(s)
	}
	return v * scale
}

var (
	numbers = regexp.MustCompile(`\d+(?:\.\d+)?`)
	// listed is one "name value" of a list in a sentence ("A 19.6 calls").
	listed = regexp.MustCompile(Number + `(?: calls(?: per operation)?)?$`)
	// comparative are the words that compare; each must be inside a
	// sentence a Judgement checks.
	comparative = regexp.MustCompile(`\b(?:lowest|highest|fewest|fewer|more often|less often|as often as|slower|faster|as few|as many|more calls)\b`)
)

// holds reports whether a stands in order o to b.
func holds(o Order, a, b float64) bool {
	switch o {
	case Below:
		return a < b
	case Above:
		return a > b
	case AtLeast:
		return a >= b
	}
	return true
}

// checkVerdict fails t when verdict contradicts res: a comparison that
// does not hold for the numbers it quotes (see Judgements), a comparative
// word no Judgement checks, a number the result does not have (res nil:
// not checked), or a named winner that fails most of its operations where
// another strategy clearly succeeds more often. It returns how many
// claims it checked.
func checkVerdict(t *testing.T, desc, verdict string, res *engine.Result) (claims int) {
	t.Helper()
	covered := make([]bool, len(verdict))
	for _, j := range Judgements {
		for _, m := range regexp.MustCompile(j.Says).FindAllStringSubmatchIndex(verdict, -1) {
			for i := m[0]; i < m[1]; i++ {
				covered[i] = true
			}
			claims++
			if j.Holds == Unordered {
				continue
			}
			first, second := verdict[m[2]:m[3]], parseNum(verdict[m[4]:m[5]])
			items := []string{first}
			if j.List {
				items = strings.Split(first, ", ")
			}
			for _, item := range items {
				n := listed.FindStringSubmatch(item)
				if n == nil {
					t.Errorf("%s: %s: no number in %q of %q", desc, j.Kind, item, verdict[m[0]:m[1]])
					continue
				}
				if a := parseNum(n[1]); !holds(j.Holds, a, second) {
					t.Errorf("%s: %s %q does not hold (%v against %v) in\n%s", desc, j.Kind, verdict[m[0]:m[1]], a, second, verdict)
				}
			}
		}
	}
	for _, m := range comparative.FindAllStringIndex(verdict, -1) {
		if !covered[m[0]] {
			t.Errorf("%s: %q compares, and no Judgement checks it, in\n%s", desc, verdict[m[0]:m[1]], verdict)
		}
	}
	if res == nil {
		return claims
	}
	strats := res.Strategies
	tails := len(res.Seeds) >= TailSeeds
	// Every number quoted is the result's: a value, a range or a worst
	// seed of a metric of a strategy or of one of its calls, or a number
	// in a name, a label or the count of seeds.
	known := map[string]bool{strconv.Itoa(len(res.Seeds)): true, "5": true, "95": true, "99": true}
	add := func(s string) {
		for _, n := range numbers.FindAllString(s, -1) {
			known[n] = true
		}
	}
	addValue := func(m Metric, v float64) {
		add(format(m, v, true))
		add(format(m, v, false))
	}
	for _, m := range Metrics {
		add(m.Label)
		for i := range strats {
			st := &strats[i]
			add(st.Name)
			v, lo, hi := value(st, m.Key, tails)
			addValue(m, v)
			addValue(m, lo)
			addValue(m, hi)
			if ws, ok := st.WorstSeeds[m.Key]; ok {
				addValue(m, ws.Value)
				add(strconv.FormatInt(ws.Seed, 10))
			}
		}
	}
	for i := range strats {
		for k := range strats[i].Calls {
			c := &strats[i].Calls[k]
			add(callGroupName(c))
			for _, m := range CallMetrics {
				v, lo, hi := callValue(c, m.Key)
				addValue(m, v)
				addValue(m, lo)
				addValue(m, hi)
			}
		}
	}
	for _, n := range numbers.FindAllString(verdict, -1) {
		claims++
		if !known[n] {
			t.Errorf("%s: the verdict quotes %s, which the result does not have:\n%s", desc, n, verdict)
		}
	}
	// The closing "Means over N seeds; on LABEL … do not overlap" holds:
	// on the metric it names, each strategy the verdict names best has
	// a range over the seeds (5th to 95th percentiles from TailSeeds
	// seeds) apart from the one it is held against.
	if m := apart.FindStringSubmatch(verdict); m != nil {
		claims++
		checkApart(t, desc, verdict, m[1], strats, tails)
	}
	// A named winner does not fail most of its operations (in the
	// affected window when the run has one) where another strategy, beyond
	// the seeds' spread, succeeds more often. Where operations end
	// degraded, those that did not succeed did not all fail: the failed
	// share of the whole run is compared instead.
	s := "success_rate"
	for i := range strats {
		if a := strats[i].Metrics.AffectedOperations; a > 0 && a < strats[i].Metrics.Operations {
			s = "affected_success_rate"
		}
	}
	degraded := slices.ContainsFunc(strats, degrades)
	for _, sentence := range strings.Split(verdict, ". ") {
		if strings.Contains(sentence, "only by failing") || !strings.Contains(sentence, " has the ") && !strings.Contains(sentence, " share the ") {
			continue
		}
		subject, _, _ := strings.Cut(strings.Replace(sentence, " share the ", " has the ", 1), " has the ")
		for w := range strats {
			if !strings.Contains(subject, strats[w].Name) {
				continue
			}
			claims++
			if degraded {
				failed := func(i int) float64 { return strats[i].Metrics.Failed / strats[i].Metrics.Operations }
				for j := range strats {
					if failed(w) > 0.5 && failed(j) < 0.25 {
						t.Errorf("%s: the winner %s fails %.3f of its operations, %s %.3f:\n%s", desc, strats[w].Name, failed(w), strats[j].Name, failed(j), verdict)
					}
				}
				continue
			}
			vw, _, hw := value(&strats[w], s, tails)
			if vw >= 0.5 {
				continue
			}
			for j := range strats {
				if _, lj, _ := value(&strats[j], s, tails); lj > hw {
					t.Errorf("%s: the winner %s succeeds on %.3f (at most %.3f) of its operations, %s on at least %.3f:\n%s", desc, strats[w].Name, vw, hw, strats[j].Name, lj, verdict)
				}
			}
		}
	}
	return claims
}

// apart is the verdict's closing claim; its group is the metric's label.
var apart = regexp.MustCompile(`Means over \d+ seeds; on (.+?) (?:their 5th to 95th percentiles|the ranges) do not overlap\.$`)

// checkApart fails t unless, on the metric labelled label, every
// strategy named before " has the " or " share the " in verdict's first
// such sentence has a range over the seeds apart from that of the
// strategy after its "against".
func checkApart(t *testing.T, desc, verdict, label string, strats []engine.StrategyResult, tails bool) {
	t.Helper()
	var m *Metric
	for i := range Metrics {
		if _, l := superlative(Metrics[i]); l == label {
			m = &Metrics[i]
		}
	}
	if m == nil {
		t.Errorf("%s: the closing sentence names %q, no metric's label:\n%s", desc, label, verdict)
		return
	}
	head := strings.Replace(verdict, " share the ", " has the ", 1)
	subject, rest, ok := strings.Cut(head, " has the ")
	_, against, ok2 := strings.Cut(rest, "against ")
	bottom, _, ok3 := strings.Cut(against, "'s ")
	if !ok || !ok2 || !ok3 {
		t.Errorf("%s: no winner and no strategy held against it:\n%s", desc, verdict)
		return
	}
	index := func(name string) int {
		return slices.IndexFunc(strats, func(st engine.StrategyResult) bool { return st.Name == name })
	}
	b := index(bottom)
	if b < 0 {
		t.Errorf("%s: %q is not a strategy of the run:\n%s", desc, bottom, verdict)
		return
	}
	_, blo, bhi := value(&strats[b], m.Key, tails)
	named := 0
	for w := range strats {
		if w == b || !strings.Contains(subject, strats[w].Name) {
			continue
		}
		named++
		if _, lo, hi := value(&strats[w], m.Key, tails); !(hi < blo || lo > bhi) {
			t.Errorf("%s: on %s %s's range %v..%v overlaps %s's %v..%v, yet the verdict says they do not:\n%s", desc, label, strats[w].Name, lo, hi, bottom, blo, bhi, verdict)
		}
	}
	if named == 0 {
		t.Errorf("%s: the closing sentence's winner is not a strategy of the run:\n%s", desc, verdict)
	}
}

// TestVerdictNeverContradictsTheRun generates variants of a few built-in
// shapes (attempts, backoff, jitter and budget of each strategy, the
// fault's timing, the seeds) and holds each verdict against its result.
func TestVerdictNeverContradictsTheRun(t *testing.T) {
	if testing.Short() {
		t.Skip("runs many scenarios")
	}
	shapes := map[string]*engine.Scenario{}
	slugs := []string{"e03b-synchronized-recovery", "e03a-transient-failures", "bulkheads", "shared-breaker", "dead-letters", "idempotency-keys", "failover-incident",
		"brooker-contention", "thundering-herd-jitter", "sre-retry-budget", "resilience-pipeline-60"}
	for _, slug := range slugs {
		b, _ := scenarios.Get(slug)
		sc, err := b.Parse()
		if err != nil {
			t.Fatal(err)
		}
		shapes[slug] = sc
	}
	r := rand.New(rand.NewPCG(27, 5))
	backoffs := []engine.BackoffKind{engine.BackoffNone, engine.BackoffConstant, engine.BackoffExponential}
	jitters := []engine.JitterKind{engine.JitterNone, engine.JitterFull, engine.JitterEqual, engine.JitterDecorrelated}
	variants := 50
	if runtime.GOOS == "js" {
		// Under WebAssembly (make test-wasm) a run takes four to five
		// times as long: fewer variants keep the test's time alike.
		variants = 12
	}
	start, ran, claims := time.Now(), 0, 0
	for n := range variants {
		slug := slugs[r.IntN(len(slugs))]
		b, _ := scenarios.Get(slug)
		sc, _ := b.Parse()
		sc.Seed = r.Int64N(1000)
		sc.Runs = []int{1, 2, 3, 5, TailSeeds}[r.IntN(5)]
		if sc.Workload.Duration.D() > 40*time.Second {
			sc.Runs = min(sc.Runs, 2)
		}
		for i := range sc.Strategies {
			p := &sc.Strategies[i].Policy
			if r.IntN(3) == 0 {
				continue // as the built-in has it
			}
			p.MaxAttempts = 1 + r.IntN(6)
			p.Backoff = engine.Backoff{Kind: backoffs[r.IntN(len(backoffs))], Base: engine.Duration(time.Duration(50+r.IntN(500)) * time.Millisecond), Max: engine.Duration(2 * time.Second)}
			if p.Backoff.Kind == engine.BackoffNone {
				p.Backoff = engine.Backoff{Kind: engine.BackoffNone}
			}
			p.Jitter = engine.Jitter{Kind: jitters[r.IntN(len(jitters))]}
			if p.Backoff.Kind == engine.BackoffNone {
				p.Jitter = engine.Jitter{}
			}
			switch r.IntN(3) {
			case 0:
				p.Budget = &engine.Budget{Kind: engine.BudgetRatio, Ratio: 0.05 + r.Float64()/5, Window: engine.Duration(time.Second)}
			case 1:
				p.Budget = nil
			}
		}
		deps := []*engine.Dependency{&sc.Dependency}
		for i := range sc.Dependencies {
			deps = append(deps, &sc.Dependencies[i])
		}
		shift := time.Duration(r.IntN(4000)-2000) * time.Millisecond
		for _, d := range deps {
			for k := range d.Phases {
				ph := &d.Phases[k]
				if ph.From.D()+shift >= 0 {
					ph.From, ph.To = engine.Duration(ph.From.D()+shift), engine.Duration(ph.To.D()+shift)
				}
			}
		}
		res, err := engine.Run(context.Background(), sc, engine.Options{})
		if err != nil {
			continue // a variant the validator refuses: not a run to judge
		}
		ran++
		v := Of(sc, res, Options{})
		claims += checkVerdict(t, slug+" variant "+strconv.Itoa(n), v.Verdict, res)
		if os.Getenv("VERDICTS") != "" {
			t.Logf("%s variant %d: %s", slug, n, v.Verdict)
		}
	}
	if ran < variants/2 || claims < 5*ran {
		t.Errorf("%d variants ran, %d claims checked", ran, claims)
	}
	t.Logf("%d variants, %d claims checked, in %v", ran, claims, time.Since(start))
}

// TestJudgementsMatchWhatTheVerdictWrites: every Judgement's pattern
// matches a sentence the verdict writes (from the built-ins and the tests
// above), so that none checks nothing.
func TestJudgementsMatchWhatTheVerdictWrites(t *testing.T) {
	written := []string{
		"D has the lowest peak calls in 100 ms: 19.6 calls against A's 244 calls. The price: it succeeds less often in the affected window, 78.4% against C's 99.1%.",
		"fixed has the highest success rate: 89.5% against textbook's 20.7%, with fewer calls reaching the dependency: 99.4k against textbook's 518.4k.",
		"imported and D share the lowest peak calls in 100 ms (imported 19.4 calls, D 19.6 calls) against A's 244 calls. The price: imported and D succeed less often in the affected window (imported 76.9%, D 78.4%) against C's 99.1%.",
		"A, B and C share the highest success rate (A 100%, B 100%, C 100%) against D's 99.8%.",
		"storage-5 has the lowest amplification only by failing operations: 1.952 calls per operation against max-10's 2.05 calls per operation. It succeeds on 0% of its operations in the affected window against max-10's 98.6%.",
		"A and B share the lowest peak calls in 100 ms (A 20 calls, B 21.5 calls) only by failing operations, against C's 90 calls. They succeed on A 62.5%, B 60% of their operations against C's 99%.",
		"one-layer has the lowest recovery time: 0 s against jitter's 90 s, and it succeeds more often in the affected window: 53.3% against jitter's 25.1%. budget ties on recovery time only by failing operations: it succeeds on 33% of them in the affected window against one-layer's 53.3%.",
		"budget has the lowest recovery time: 0 s against jitter's none (not recovered under load), and it succeeds more often in the affected window: 33.2% against jitter's 25.6%. Means over 2 seeds; on recovery time the ranges do not overlap.",
		"bulkhead of 20 for payment has the highest success rate in the affected window: 79.8% against shared pool only's 69.3%. The price: its calls to payment succeed less often, 71.2% against shared pool only's 92.1%.",
		"A has the lowest peak calls in 100 ms: 20 calls against C's 90 calls. The price: on its worst seed it succeeds on 80% of operations against 95% on C's worst.",
		"full and equal share the lowest calls reaching the dependency (full 797, equal 812) against no-backoff's 2426. The price: full's successful operations are slower, 4.433 s at the 99th percentile against no-backoff's 1.994 s, which succeeds as often. Every operation succeeds, whatever the strategy.",
		"A has the highest success rate: 99% against B's 90%. The price: 3004 calls reach the dependency against C's 2900, which succeeds as often.",
		"C has the lowest peak calls in 100 ms: 89 calls against A's 244 calls, while succeeding as often as any: 99.8% against A's 98.4%.",
		"D has the lowest peak calls in 100 ms: 62 calls against A's 244 calls, while succeeding as often as C within the seeds' spread: 98.3% against C's 99.8%.",
		"a breaker per dependency has the fewest failed operations: 0 against one breaker for all calls's 497, and its calls to payment succeed more often: 100% against one breaker for all calls's 74.8%. No operation in the affected window succeeds, whatever the strategy.",
		"A has the lowest latency p99, all operations: 50 ms against C's 900 ms. Its latency p99, all operations is low partly because it gives up sooner.",
		"retry-no-key has the highest success rate: 99.8% against no-retry's 92.1%. Not a clean win: the dependency applied retry-no-key's operations 53 extra times (duplicates, such as double charges), and 1 of its failed operations all the same.",
		"fall back has the fewest failed operations at every value of dependencies[0].shedding.",
		"The lowest attempts by dependency.error_rate: 0.01 → no clear best; 0.2 → token-bucket; 0.5 → token-bucket only by failing operations (token-bucket succeeds on 50.5% against no-budget's 96.9%); 1 → token-bucket.",
	}
	for i, j := range Judgements {
		re := regexp.MustCompile(j.Says)
		if !slices.ContainsFunc(written, re.MatchString) {
			t.Errorf("Judgements[%d] (%s) matches no sentence the verdict writes: %s", i, j.Kind, j.Says)
		}
	}
	for _, w := range written {
		checkVerdict(t, "written", w, nil)
	}
}
