package view

import (
	"context"
	"math/rand/v2"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/retrylab/retrylab/shared/engine"
	"github.com/retrylab/retrylab/shared/scenarios"
)

// num is a number as a verdict writes it: "19.6", "99.4k", "78.4%", "9.5 s",
// "40 ms".
const num = `(\d+(?:\.\d+)?(?:k|M)?%?(?: ms\b| s\b)?)`

// parseNum reads a number as num matches it, rates as fractions and times
// in milliseconds.
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

// comparisons are the comparative phrases a verdict may write, each with
// the relation that must hold between the first number it quotes and the
// second: -1 less, 1 more, 2 at least, -2 at most.
var comparisons = []struct {
	re  *regexp.Regexp
	rel int
}{
	{regexp.MustCompile(`(?:lowest|fewest) [^:(]*: ` + num + `[a-z ]* against [^']+'s ` + num), -1},
	{regexp.MustCompile(`highest [^:(]*: ` + num + `[a-z ]* against [^']+'s ` + num), 1},
	{regexp.MustCompile(`succeeds less often(?: in the affected window)?, ` + num + ` against [^']+'s ` + num), -1},
	{regexp.MustCompile(`succeed less often, ` + num + ` against [^']+'s ` + num), -1},
	{regexp.MustCompile(`succeeds more often(?: in the affected window)?: ` + num + ` against [^']+'s ` + num), 1},
	{regexp.MustCompile(`as often as any(?: in the affected window)?: ` + num + ` against [^']+'s ` + num), 2},
	{regexp.MustCompile(`fewer calls reaching the dependenc(?:y|ies): ` + num + ` against [^']+'s ` + num), -1},
	{regexp.MustCompile(num + ` calls reach the dependenc(?:y|ies) against [^']+'s ` + num + `, which succeeds as often`), 1},
	{regexp.MustCompile(`slower, ` + num + ` at the 99th percentile against [^']+'s ` + num), 1},
	{regexp.MustCompile(`succeeds? on ` + num + ` of (?:its operations|them|operations)(?: in the affected window)? against [^']+'s ` + num), -1},
	{regexp.MustCompile(`succeeds on ` + num + ` of operations(?: in the affected window)? against ` + num + ` on`), -1},
	{regexp.MustCompile(`as few or fewer[^:]*: ` + num + ` against (?:[^']+'s )?` + num), -2},
	{regexp.MustCompile(`as many or more[^:]*: ` + num + ` against (?:[^']+'s )?` + num), 2},
}

var shared = regexp.MustCompile(`(?:share the (lowest|fewest|highest) [^(]*|succeed (less) often(?: in the affected window)? )\(([^)]*)\)(?: only by failing operations,)? against [^']+'s ` + num)

var numbers = regexp.MustCompile(`\d+(?:\.\d+)?`)

// checkVerdict fails t when verdict contradicts res: a comparison that
// does not hold for the numbers it quotes, a number the result does not
// have (res nil: not checked), or a named winner that fails most of its
// operations where another strategy clearly succeeds more often.
func checkVerdict(t *testing.T, desc, verdict string, res *engine.Result) (claims int) {
	t.Helper()
	holds := func(rel int, a, b float64) bool {
		switch rel {
		case -1:
			return a < b
		case 1:
			return a > b
		case 2:
			return a >= b
		}
		return a <= b
	}
	for _, c := range comparisons {
		for _, m := range c.re.FindAllStringSubmatch(verdict, -1) {
			claims++
			if a, b := parseNum(m[1]), parseNum(m[2]); !holds(c.rel, a, b) {
				t.Errorf("%s: %q does not hold (%v against %v) in\n%s", desc, m[0], a, b, verdict)
			}
		}
	}
	for _, m := range shared.FindAllStringSubmatch(verdict, -1) {
		rel := -1
		if m[1] == "highest" {
			rel = 1
		}
		m = slices.Delete(m, 1, 2) // "less" or ""
		for _, item := range strings.Split(m[2], ", ") {
			f := strings.Fields(item)
			v := f[len(f)-1]
			if len(f) > 1 && (f[len(f)-1] == "s" || f[len(f)-1] == "ms" || f[len(f)-1] == "calls") {
				v = f[len(f)-2]
				if f[len(f)-1] != "calls" {
					v += " " + f[len(f)-1]
				}
			}
			claims++
			if a, b := parseNum(v), parseNum(m[3]); !holds(rel, a, b) {
				t.Errorf("%s: %q does not hold for %q in\n%s", desc, m[0], item, verdict)
			}
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
	// A named winner does not fail most of its operations (in the
	// affected window when the run has one) where another strategy, beyond
	// the seeds' spread, succeeds more often.
	s := "success_rate"
	for i := range strats {
		if a := strats[i].Metrics.AffectedOperations; a > 0 && a < strats[i].Metrics.Operations {
			s = "affected_success_rate"
		}
	}
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

// TestVerdictNeverContradictsTheRun generates variants of a few built-in
// shapes (attempts, backoff, jitter and budget of each strategy, the
// fault's timing, the seeds) and holds each verdict against its result.
func TestVerdictNeverContradictsTheRun(t *testing.T) {
	if testing.Short() {
		t.Skip("runs many scenarios")
	}
	shapes := map[string]*engine.Scenario{}
	slugs := []string{"e03b-synchronized-recovery", "e03a-transient-failures", "bulkheads", "shared-breaker", "dead-letters", "idempotency-keys", "failover-incident"}
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
	start, ran, claims := time.Now(), 0, 0
	for n := range 50 {
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
	if ran < 30 || claims < 5*ran {
		t.Errorf("%d variants ran, %d claims checked", ran, claims)
	}
	t.Logf("%d variants, %d claims checked, in %v", ran, claims, time.Since(start))
}
