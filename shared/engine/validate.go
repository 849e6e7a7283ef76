package engine

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Bounds on what a scenario may ask for. They keep a scenario meaningful and
// its run bounded; the cost limit passed to Run bounds the work as a whole.
const (
	MaxStrategies  = 20
	MaxLayers      = 8
	MaxPhases      = 100
	MaxRuns        = 1000
	MaxSweepValues = 50
	MaxSweepBytes  = 256 << 10 // sweep values × the scenario's canonical size
	MaxAttempts    = 100       // a policy's max_attempts is 0 (unlimited) or 1..MaxAttempts
	MaxClients     = 1_000_000
	MaxOperations  = 10_000_000
	MaxWorkers     = 100_000
	MaxQueue       = 10_000_000
	MaxLimitBurst  = 1_000_000 // a dependency's rate_limit.burst
	MaxInstances   = 100_000
	// MaxConnectionLimit bounds each field of a level's
	// connection_limits; importers read a larger limit as none.
	MaxConnectionLimit = 1_000_000
	MaxSpan            = Duration(24 * time.Hour)
	MaxDependencies    = 16        // dependencies a scenario lists
	MaxPlanCalls       = 16        // calls of a plan, all its steps together
	MaxScript          = 100_000   // answers of a dependency's script, and operations it lists
	MaxStrategyName    = 100       // characters of a strategy's name
	maxSeed            = 1<<53 - 1 // seeds survive a round trip through JavaScript
	maxNameLen         = 200
	maxTextLen         = 10_000
)

// The bounds of a dependency's rate_limit.rate, tokens per second: its
// token interval, 1/rate, is kept in whole nanoseconds.
const (
	MinLimitRate = 0.001
	MaxLimitRate = 1e6
)

// MaxErrors is how many problems Validate lists. Past it, one last entry
// says how many more were found, so that a hostile document cannot buy an
// answer as large as the list of everything wrong with it.
const MaxErrors = 50

// Limit returns the first n problems of es and, when there were more, an
// entry without a path saying how many were left out.
func (es Errors) Limit(n int) Errors {
	if len(es) <= n {
		return es
	}
	return append(es[:n:n], moreErrors(len(es)-n, n))
}

func moreErrors(more, listed int) FieldError {
	return FieldError{Message: fmt.Sprintf("and %d more problems; only the first %d are listed", more, listed)}
}

// Validate checks every field of the scenario against its allowed range and
// the rules that tie fields together. It reports all problems at once, as an
// Errors naming each field's JSON path.
//
// It lists at most MaxErrors problems, then how many more there are. Its
// work is linear in the size of the scenario: checks that compare pairs
// (overlapping phases) run only when the list is within its limit, and
// references to dependencies (from the plan and bulkheads) only when the
// list of dependencies is.
func (sc *Scenario) Validate() error {
	v := sc.validate()
	if len(v.errs) == 0 {
		return nil
	}
	if v.more > 0 {
		return append(v.errs, moreErrors(v.more, len(v.errs)))
	}
	return v.errs
}

func (sc *Scenario) validate() *validator {
	v := &validator{}
	v.scenario(sc)
	return v
}

// A validator collects the first MaxErrors problems and counts the others
// without formatting them.
type validator struct {
	errs Errors
	more int
}

func (v *validator) add(path string, value any, format string, args ...any) {
	if len(v.errs) >= MaxErrors {
		v.more++
		return
	}
	v.errs = append(v.errs, FieldError{Path: path, Value: show(value), Message: fmt.Sprintf(format, args...)})
}

func (v *validator) addError(e FieldError) {
	if len(v.errs) >= MaxErrors {
		v.more++
		return
	}
	v.errs = append(v.errs, e)
}

func (v *validator) failed() bool { return len(v.errs) > 0 }

func show(value any) string {
	if rv := reflect.ValueOf(value); rv.Kind() == reflect.String {
		// A string or a kind.
		x := rv.String()
		if r := []rune(x); len(r) > 60 {
			x = string(r[:57]) + "..."
		}
		return strconv.Quote(x)
	}
	switch x := value.(type) {
	case nil:
		return ""
	case Duration:
		return strconv.Quote(x.String())
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1e15 {
			// A whole number as the user wrote it: 10000001, not 1.0000001e+07.
			return strconv.FormatFloat(x, 'f', -1, 64)
		}
		return strconv.FormatFloat(x, 'g', -1, 64)
	default:
		return fmt.Sprint(x)
	}
}

func (v *validator) intRange(path string, x, lo, hi int) {
	if x < lo || x > hi {
		v.add(path, x, "is out of range %d..%d", lo, hi)
	}
}

func (v *validator) floatRange(path string, x, lo, hi float64) {
	if !(x >= lo && x <= hi) {
		v.add(path, x, "is out of range %g..%g", lo, hi)
	}
}

func (v *validator) span(path string, d Duration, allowZero bool) {
	switch {
	case d < 0:
		v.add(path, d, "is negative; a duration is at least 0s")
	case d == 0 && !allowZero:
		v.add(path, d, "must be more than 0s")
	case d > MaxSpan:
		v.add(path, d, "is longer than the maximum %s", MaxSpan)
	}
}

// orDefault is how an error about a field whose 0, or absence, means
// def ends the allowed range: "or 0 (or absent): the default, 5". A def
// that is not a value (a string such as "no limit") says what 0 does.
func orDefault(def any) string {
	if s, ok := def.(string); ok {
		return ", or 0 (or absent): " + s
	}
	return fmt.Sprintf(", or 0 (or absent): the default, %v", def)
}

// intOr checks a count whose 0 (or absence) means def: lo..hi, or 0.
func (v *validator) intOr(path string, x, lo, hi int, def any) {
	if x != 0 && (x < lo || x > hi) {
		v.add(path, x, "is out of range %d..%d%s", lo, hi, orDefault(def))
	}
}

// spanOr checks a duration whose 0 (or absence) means def: more than 0s
// up to MaxSpan, or 0.
func (v *validator) spanOr(path string, d Duration, def any) {
	switch {
	case d < 0:
		v.add(path, d, "is negative; allowed more than 0s up to %s%s", MaxSpan, orDefault(def))
	case d > MaxSpan:
		v.add(path, d, "is longer than the maximum %s%s", MaxSpan, orDefault(def))
	}
}

// percent checks a percentage that, unlike the fields of intOr and
// spanOr, is a pointer: 0 is its own value, and only absence means def.
func (v *validator) percent(path string, x, def float64) {
	if !(x >= 0 && x <= 100) {
		v.add(path, x, "is out of range 0..100 (absent: the default, %g)", def)
	}
}

func oneOf[K ~string](v *validator, path string, x K, allowed ...K) bool {
	if !slices.Contains(allowed, x) {
		v.add(path, x, "is not one of %s", quoteList(allowed))
		return false
	}
	return true
}

// kindsWith returns the kinds, in order, whose fields include field.
func kindsWith[K comparable](kinds []K, fields map[K][]string, field string) []K {
	var with []K
	for _, k := range kinds {
		if slices.Contains(fields[k], field) {
			with = append(with, k)
		}
	}
	return with
}

func (v *validator) text(path, s string, max int) {
	if !utf8.ValidString(s) {
		v.add(path, nil, "is not valid UTF-8")
	}
	if n := utf8.RuneCountInString(s); n > max {
		v.add(path, nil, "is %d characters long; at most %d are allowed", n, max)
	}
}

func (v *validator) status(path string, s int) {
	if s < 100 || s > 599 {
		v.add(path, s, "is not an HTTP status; allowed 100..599")
	}
}

func quoteList[K ~string](xs []K) string {
	s := ""
	for i, x := range xs {
		if i > 0 {
			s += ", "
		}
		s += strconv.Quote(string(x))
	}
	return s
}

func (v *validator) scenario(sc *Scenario) {
	if sc.Version != Version {
		v.add("version", sc.Version, "is not supported; this engine reads version %d", Version)
	}
	v.text("name", sc.Name, maxNameLen)
	v.text("description", sc.Description, maxTextLen)
	if sc.Seed < 0 || sc.Seed > maxSeed {
		v.add("seed", sc.Seed, "is out of range 0..%d", int64(maxSeed))
	}
	v.intRange("runs", sc.Runs, 0, MaxRuns)
	if len(sc.Seeds) > MaxRuns {
		v.add("seeds", nil, "lists %d seeds; at most %d are allowed", len(sc.Seeds), MaxRuns)
	}
	if len(sc.Seeds) > 0 && sc.Runs != 0 && sc.Runs != len(sc.Seeds) {
		v.add("runs", sc.Runs, "disagrees with the %d listed seeds; give one or the other", len(sc.Seeds))
	}
	for i, s := range sc.Seeds {
		if s < 0 || s > maxSeed {
			v.add(fmt.Sprintf("seeds[%d]", i), s, "is out of range 0..%d", int64(maxSeed))
		}
	}
	v.workload(&sc.Workload)
	deps := v.dependencies(sc)
	calls := v.plan(sc, deps)
	switch n := len(sc.Strategies); {
	case n == 0:
		v.add("strategies", nil, "is empty; a scenario compares at least one strategy")
	case n > MaxStrategies:
		v.add("strategies", nil, "lists %d strategies; at most %d are allowed", n, MaxStrategies)
	}
	seen := map[string]int{}
	for i := range sc.Strategies {
		st := &sc.Strategies[i]
		p := fmt.Sprintf("strategies[%d]", i)
		if st.Name == "" {
			v.add(p+".name", nil, "is empty; every strategy needs a short name")
		} else if j, dup := seen[st.Name]; dup {
			v.add(p+".name", st.Name, "is also the name of strategies[%d]; names must be unique", j)
		} else {
			seen[st.Name] = i
		}
		v.strategy(p, st, deps, calls)
	}
	v.report(sc)
	switch {
	case sc.Sweep != nil && sc.Search != nil:
		v.add("search", nil, "is given together with sweep; a scenario has one or the other")
	case sc.Sweep != nil && !v.failed():
		v.sweep(sc)
	case sc.Search != nil && !v.failed():
		v.search(sc, deps, calls)
	}
}

// strategy checks strategy st, at path p, but for its name's uniqueness.
func (v *validator) strategy(p string, st *Strategy, deps depNames, calls map[string]bool) {
	v.text(p+".name", st.Name, MaxStrategyName)
	v.text(p+".description", st.Description, maxTextLen)
	v.policy(p, &st.Policy)
	v.pools(p, st, deps)
	v.fallbacks(p, st, calls)
	if len(st.Layers) > MaxLayers {
		v.add(p+".layers", nil, "lists %d layers; at most %d are allowed", len(st.Layers), MaxLayers)
	}
	for j := range st.Layers {
		lp := fmt.Sprintf("%s.layers[%d]", p, j)
		v.policy(lp, &st.Layers[j])
		if st.Layers[j].IdempotencyKey {
			v.add(lp+".idempotency_key", true, "is for the strategy itself: the client makes one key per operation and every layer passes it on")
		}
		if st.Layers[j].DeadLetter {
			v.add(lp+".dead_letter", true, "is for the strategy itself: the consumer at the top owns the dead-letter queue")
		}
	}
}

func (v *validator) workload(w *Workload) {
	const p = "workload."
	v.intRange(p+"clients", w.Clients, 1, MaxClients)
	arrival := cmp.Or(w.Arrival, ArrivalPoisson)
	oneOf(v, p+"arrival", arrival, ArrivalKinds...)
	v.span(p+"duration", w.Duration, true)
	v.span(p+"think_time", w.ThinkTime, true)
	v.span(p+"burst_at", w.BurstAt, true)
	v.intRange(p+"operations", w.Operations, 0, MaxOperations)
	switch arrival {
	case ArrivalPoisson, ArrivalUniform:
		switch {
		case w.Rate != 0 && w.RatePerClient != 0:
			v.add(p+"rate", w.Rate, "is given together with rate_per_client; give one of them")
		case w.Rate == 0 && w.RatePerClient == 0:
			v.add(p+"rate", nil, "is missing; %q arrivals need rate (operations per second in total) or rate_per_client", arrival)
		case w.Rate != 0:
			v.floatRange(p+"rate", w.Rate, 1e-6, 1e6)
		default:
			v.floatRange(p+"rate_per_client", w.RatePerClient, 1e-9, 1e6)
			if total := w.RatePerClient * float64(w.Clients); total > 1e6 {
				v.add(p+"rate_per_client", w.RatePerClient, "gives %g operations per second in total; at most 1e+06 are allowed", total)
			}
		}
		if w.Duration == 0 && w.Operations == 0 {
			v.add(p+"duration", w.Duration, "must be more than 0s for %q arrivals (or set operations)", arrival)
		}
	case ArrivalClosed:
		if w.Duration == 0 {
			v.add(p+"duration", w.Duration, "must be more than 0s for closed-loop clients")
		}
		if w.ThinkTime < Duration(time.Millisecond) {
			v.add(p+"think_time", w.ThinkTime, "is below 1ms; closed-loop clients need a think time, or a failing client would loop without time passing")
		}
	}
	if arrival != ArrivalPoisson && arrival != ArrivalUniform && (w.Rate != 0 || w.RatePerClient != 0) {
		v.add(p+"rate", w.Rate+w.RatePerClient, "has no meaning for %q arrivals", arrival)
	}
	if arrival != ArrivalClosed && w.ThinkTime != 0 {
		v.add(p+"think_time", w.ThinkTime, "has no meaning for %q arrivals; it is for \"closed\"", arrival)
	}
	if arrival != ArrivalBurst && w.BurstAt != 0 {
		v.add(p+"burst_at", w.BurstAt, "has no meaning for %q arrivals; it is for \"burst\"", arrival)
	}
	v.load(w, arrival)
	v.fleets(w, arrival)
	v.floatRange(p+"mix.non_idempotent", w.Mix.NonIdempotent, 0, 1)
	v.floatRange(p+"mix.keyed", w.Mix.Keyed, 0, 1)
	v.floatRange(p+"mix.unreadable", w.Mix.Unreadable, 0, 1)
}

// fleets checks the workload's other fleets.
func (v *validator) fleets(w *Workload, arrival ArrivalKind) {
	const p = "workload.fleets"
	if len(w.Fleets) == 0 {
		if w.Fleet != "" {
			v.add("workload.fleet", w.Fleet, "names the workload's own clients among fleets, and there are none; give workload.fleets, or leave fleet out")
		}
		return
	}
	if arrival != ArrivalPoisson {
		v.add(p, nil, "has no meaning for %q arrivals; fleets send \"poisson\" arrivals", arrival)
		return
	}
	if len(w.Fleets) > MaxFleets {
		v.add(p, len(w.Fleets), "lists too many fleets; at most %d are allowed besides the workload's own clients", MaxFleets)
		return
	}
	own := cmp.Or(w.Fleet, DefaultFleet)
	v.text("workload.fleet", w.Fleet, MaxStrategyName)
	clients := w.Clients
	for i := range w.Fleets {
		f := &w.Fleets[i]
		fp := fmt.Sprintf("%s[%d]", p, i)
		v.text(fp+".name", f.Name, MaxStrategyName)
		switch {
		case f.Name == "":
			v.add(fp+".name", nil, "is missing; every fleet needs a name")
		case f.Name == own:
			v.add(fp+".name", f.Name, "is the name of the workload's own clients (workload.fleet, %q by default); names must be unique", DefaultFleet)
		}
		for j := range i {
			if f.Name != "" && w.Fleets[j].Name == f.Name {
				v.add(fp+".name", f.Name, "is also the name of %s[%d]; names must be unique", p, j)
			}
		}
		v.text(fp+".description", f.Description, maxTextLen)
		v.intRange(fp+".clients", f.Clients, 1, MaxClients)
		clients += f.Clients
		switch {
		case f.Rate != 0 && f.RatePerClient != 0:
			v.add(fp+".rate", f.Rate, "is given together with rate_per_client; give one of them")
		case f.Rate == 0 && f.RatePerClient == 0:
			v.add(fp+".rate", nil, "is missing; a fleet needs rate (its operations per second in total) or rate_per_client")
		case f.Rate != 0:
			v.floatRange(fp+".rate", f.Rate, 1e-6, 1e6)
		default:
			v.floatRange(fp+".rate_per_client", f.RatePerClient, 1e-9, 1e6)
		}
		v.policy(fp, &f.Policy)
		if f.DeadLetter {
			v.add(fp+".dead_letter", true, "is for the compared strategies; a fleet is a population of callers, not a queue consumer")
		}
		if len(f.Layers) > MaxLayers {
			v.add(fp+".layers", nil, "lists %d layers; at most %d are allowed", len(f.Layers), MaxLayers)
		}
		for j := range f.Layers {
			lp := fmt.Sprintf("%s.layers[%d]", fp, j)
			v.policy(lp, &f.Layers[j])
			if f.Layers[j].IdempotencyKey || f.Layers[j].DeadLetter {
				v.add(lp, nil, "sets idempotency_key or dead_letter, which are for a fleet's own policy, not its layers")
			}
		}
	}
	if clients > MaxClients {
		v.add(p, clients, "gives %d clients with the workload's own; at most %d are allowed", clients, MaxClients)
	}
}

// A givenField is a field of an object with a kind, and whether it is set.
type givenField struct {
	name string
	set  bool
}

// onlyKindFields refuses each field given at p that the object's kind
// (what, in words) does not take, naming the kinds that do: fields says
// which fields each of kinds takes.
func onlyKindFields[K ~string](v *validator, p string, kind K, what string, kinds []K, fields map[K][]string, given []givenField) {
	for _, f := range given {
		if !f.set || slices.Contains(fields[kind], f.name) {
			continue
		}
		v.add(p+"."+f.name, nil, "has no meaning for %s; it is for %s", what, quoteList(kindsWith(kinds, fields, f.name)))
	}
}

// load checks the workload's load phases.
func (v *validator) load(w *Workload, arrival ArrivalKind) {
	if len(w.Load) == 0 {
		return
	}
	const p = "workload.load"
	if arrival != ArrivalPoisson {
		v.add(p, nil, "has no meaning for %q arrivals; load phases change the rate of \"poisson\" arrivals", arrival)
		return
	}
	if w.Duration == 0 {
		v.add("workload.duration", w.Duration, "must be more than 0s for a workload with load phases: they are placed in its duration")
	}
	if len(w.Load) > MaxLoadPhases {
		v.add(p, len(w.Load), "has too many phases; at most %d are allowed", MaxLoadPhases)
		return
	}
	for i := range w.Load {
		v.loadPhase(fmt.Sprintf("%s[%d]", p, i), &w.Load[i], w.Duration)
	}
}

func (v *validator) loadPhase(p string, lp *LoadPhase, duration Duration) {
	kind := lp.Kind
	if !oneOf(v, p+".kind", kind, LoadKinds...) {
		return
	}
	v.timeSpan(p, lp.From, lp.To, lp.Label)
	if duration > 0 && lp.From >= duration {
		v.add(p+".from", lp.From, "is not before the workload's end at %s: no operation would arrive in the phase", duration)
	}
	onlyKindFields(v, p, kind, fmt.Sprintf("a %q load phase", kind), LoadKinds, LoadFields, []givenField{{"factor", lp.Factor != 0}, {"rate", lp.Rate != 0},
		{"operations", lp.Operations != 0}, {"amplitude", lp.Amplitude != 0}, {"period", lp.Period != 0}})
	switch kind {
	case LoadStep:
		if !(lp.Factor >= 0 && lp.Factor <= 100) || lp.Factor == 1 {
			v.add(p+".factor", lp.Factor, "is out of range; a step multiplies the rate by a factor in 0..100 other than 1 (0 stops arrivals, 0.8 sheds 20%%, 3 triples the load)")
		}
	case LoadRamp:
		if !(lp.Factor >= 0 && lp.Factor <= 100) || lp.Factor == 1 {
			v.add(p+".factor", lp.Factor, "is out of range; a ramp goes from the rate to the rate times a factor in 0..100 other than 1")
		}
	case LoadDaily:
		if !(lp.Amplitude > 0 && lp.Amplitude <= 1) {
			v.add(p+".amplitude", lp.Amplitude, "is out of range; a daily curve's amplitude is in (0, 1]: the rate swings by that share of itself above and below")
		}
		if lp.Period < Duration(time.Second) || lp.Period > MaxSpan {
			v.add(p+".period", lp.Period, "is out of range; a daily curve's period is 1s to %s (24h for a day)", MaxSpan)
		}
	case LoadSpike:
		v.floatRange(p+".rate", lp.Rate, 1e-6, 1e6)
	case LoadFlash:
		v.intRange(p+".operations", lp.Operations, 1, MaxOperations)
	}
}

// loadLatency checks a dependency's load-dependent latency.
func (v *validator) loadLatency(p string, l *LoadLatency) {
	if !oneOf(v, p+".law", l.Law, LatencyLaws...) {
		return
	}
	if l.Of != "" {
		oneOf(v, p+".of", l.Of, LoadMeasures...)
	}
	onlyKindFields(v, p, l.Law, fmt.Sprintf("the %q law", l.Law), LatencyLaws, LatencyLawFields, []givenField{{"slope", l.Slope != 0}, {"knee", l.Knee != 0},
		{"power", l.Power != 0}, {"sigma", l.Sigma != 0}, {"kappa", l.Kappa != 0}})
	switch l.Law {
	case LawLinear, LawPolynomial, LawExponential:
		if !(l.Slope > 0 && l.Slope <= 1000) {
			v.add(p+".slope", l.Slope, "is out of range; the %q law needs a slope in (0, 1000]", l.Law)
		}
		v.floatRange(p+".knee", l.Knee, 0, 1000)
		if l.Law == LawPolynomial && !(l.Power > 0 && l.Power <= 10) {
			v.add(p+".power", l.Power, "is out of range; the polynomial law needs a power in (0, 10]")
		}
	case LawUSL:
		v.floatRange(p+".sigma", l.Sigma, 0, 1)
		v.floatRange(p+".kappa", l.Kappa, 0, 1)
		if l.Sigma == 0 && l.Kappa == 0 {
			v.add(p+".sigma", nil, "is missing; the usl law needs sigma (contention) or kappa (coherency) above 0")
		}
	}
	if l.MaxFactor != 0 && !(l.MaxFactor >= 1 && l.MaxFactor <= 1000) {
		v.add(p+".max_factor", l.MaxFactor, "is out of range; the largest factor is in 1..1000 (%d when not given)", DefaultLoadLatencyMax)
	}
}

// depNames names a scenario's dependencies, in order, for the references
// of its plan and bulkheads.
type depNames struct {
	names []string
	// ok tells the names that may be referred to from those already
	// refused (empty, repeated, too long, not printable): a reference to
	// one of these is not a second problem.
	ok []bool
	// one is set when the scenario has the singular dependency, whose
	// name may be left out.
	one bool
	// tooMany is set when the list is over MaxDependencies: references
	// to it are not checked (so that the work stays linear).
	tooMany bool
	// index maps a name that may be referred to to its dependency, and
	// refused holds the others.
	index   map[string]int
	refused map[string]bool
	// valid lists the names that may be referred to, for a message.
	valid string
}

// done indexes the names once they are all known.
func (dn *depNames) done() {
	dn.index, dn.refused = map[string]int{}, map[string]bool{}
	var valid []string
	for k, n := range dn.names {
		switch _, dup := dn.index[n]; {
		case !dn.ok[k]:
			dn.refused[n] = true
		case !dup:
			dn.index[n] = k
			valid = append(valid, n)
		}
	}
	dn.valid = strings.Join(valid, ", ")
}

// singularName is the name of a dependency given as "dependency" without one.
const singularName = "dependency"

// dependencies checks the dependency, or the list of dependencies, and
// returns their names.
func (v *validator) dependencies(sc *Scenario) depNames {
	one := !reflect.ValueOf(sc.Dependency).IsZero()
	many := len(sc.Dependencies) > 0
	switch {
	case sc.Dependencies != nil && !many:
		v.add("dependencies", nil, "is empty; list the dependencies (at least one), or give the one dependency as dependency")
	case one && many:
		v.add("dependencies", nil, "is given together with dependency; give dependency for one dependency or dependencies for several, not both")
	case !one && !many:
		v.add("dependency", nil, "is missing; give dependency (the one dependency) or dependencies (a list of named dependencies)")
	}
	var dn depNames
	if one {
		v.dependency("dependency.", &sc.Dependency)
		ok := sc.Dependency.Name == "" || v.name("dependency.name", sc.Dependency.Name)
		dn.names = append(dn.names, cmp.Or(sc.Dependency.Name, singularName))
		dn.ok = append(dn.ok, ok && !many) // with both, the list counts
		dn.one = !many
	}
	if n := len(sc.Dependencies); n > MaxDependencies {
		v.add("dependencies", nil, "lists %d dependencies; at most %d are allowed", n, MaxDependencies)
	}
	seen := map[string]int{}
	for i := range sc.Dependencies {
		d := &sc.Dependencies[i]
		p := fmt.Sprintf("dependencies[%d].", i)
		v.dependency(p, d)
		ok := false
		switch j, dup := seen[d.Name]; {
		case d.Name == "":
			v.add(p+"name", nil, "is empty; every dependency of a list needs a name, by which the plan's calls and the bulkheads refer to it")
		case dup:
			v.add(p+"name", d.Name, "is also the name of dependencies[%d]; names must be unique", j)
		default:
			seen[d.Name] = i
			ok = v.name(p+"name", d.Name)
		}
		dn.names = append(dn.names, d.Name)
		dn.ok = append(dn.ok, ok)
	}
	dn.tooMany = len(sc.Dependencies) > MaxDependencies
	v.servers(sc)
	dn.done()
	return dn
}

// name checks the name of a dependency or of a plan's call, 1..maxNameLen
// printable characters, and reports whether it is one.
func (v *validator) name(path, s string) bool {
	n := len(v.errs) + v.more
	v.text(path, s, maxNameLen)
	if strings.ContainsFunc(s, func(r rune) bool { return !unicode.IsPrint(r) }) {
		v.add(path, s, "holds a character that is not printable (a control, format or line-break character); a name is printable text")
	}
	return len(v.errs)+v.more == n
}

// ref checks a reference to a dependency by name and returns its index, or
// -1.
func (v *validator) ref(path, name string, dn depNames) int {
	if len(dn.names) == 0 || dn.tooMany {
		return -1 // no dependency at all, or too many: already said
	}
	if k, ok := dn.index[name]; ok && name != "" {
		return k
	}
	switch {
	case dn.refused[name] && name != "":
		// A name already refused.
	case name == "":
		v.add(path, nil, "is empty; name the dependency, one of: %s", dn.valid)
	case dn.one:
		v.add(path, name, "is not a dependency; the only dependency is named %s (dependency.name, %q when left out)", dn.names[0], singularName)
	default:
		v.add(path, name, "is not a dependency; the dependencies are %s", dn.valid)
	}
	return -1
}

// plan checks the workload's plan against the dependencies: every call
// names one, and every dependency is called. It returns the names of the
// plan's calls, for the strategies' fallbacks.
func (v *validator) plan(sc *Scenario, dn depNames) (calls map[string]bool) {
	const p = "workload.plan"
	plan := sc.Workload.Plan
	calls = map[string]bool{}
	if plan == nil && len(dn.names) == 1 {
		calls[dn.names[0]] = true
	}
	if plan == nil {
		if len(dn.names) > 1 {
			v.add(p, nil, "is missing; with several dependencies the plan says which ones an operation calls, in what order")
		}
		return
	}
	if len(plan) == 0 {
		v.add(p, nil, "is empty; give at least one step, or leave plan out for one call to the only dependency")
		return
	}
	total := 0
	for _, st := range plan {
		total += len(st.Calls)
	}
	if total > MaxPlanCalls {
		v.add(p, nil, "makes %d calls in all; at most %d are allowed", total, MaxPlanCalls)
		defer func() { calls = nil }() // too many to list; fallbacks are not checked against them
	}
	called := make([]bool, len(dn.names))
	first := map[string]string{} // a call's name → the first call with it
	for i, st := range plan {
		sp := fmt.Sprintf("%s[%d]", p, i)
		if len(st.Calls) == 0 {
			v.add(sp+".calls", nil, "is empty; a step makes at least one call")
		}
		for j := range st.Calls {
			c := &st.Calls[j]
			cp := fmt.Sprintf("%s.calls[%d]", sp, j)
			if k := v.ref(cp+".dependency", c.Dependency, dn); k >= 0 {
				called[k] = true
			}
			if c.Name != "" {
				v.name(cp+".name", c.Name)
			}
			if name := cmp.Or(c.Name, c.Dependency); name != "" {
				calls[name] = true
				if at, dup := first[name]; !dup {
					first[name] = cp
				} else if c.Name != "" {
					v.add(cp+".name", name, "is also the name of %s; the plan's calls need unique names", at)
				} else {
					v.add(cp+".name", nil, "is missing, and the call's default name, its dependency's %q, is also the name of %s; the plan's calls need unique names: name this call", name, at)
				}
			}
			if c.Class != "" {
				oneOf(v, cp+".class", c.Class, Classes...)
			}
			if c.Share != nil && !(*c.Share > 0 && *c.Share <= 1) {
				v.add(cp+".share", *c.Share, "is out of range (0, 1]: the probability that an operation makes this call; leave it out for every operation")
			}
		}
	}
	for k, ok := range called {
		name := dn.names[k]
		if at, in := dn.index[name]; ok || dn.tooMany || !in || at != k {
			continue // called, or its name is already refused
		}
		path := fmt.Sprintf("dependencies[%d].name", k-len(dn.names)+len(sc.Dependencies))
		if k == 0 && len(dn.names) > len(sc.Dependencies) {
			path = "dependency.name"
		}
		v.add(path, name, "is not called by the plan; every dependency must be called (workload.plan), or left out")
	}
	return calls
}

// fallbacks checks a strategy's fallbacks against the plan's calls.
func (v *validator) fallbacks(p string, st *Strategy, calls map[string]bool) {
	if calls == nil {
		return // the plan is refused already
	}
	first := map[string]int{}
	for i := range st.Fallbacks {
		f := &st.Fallbacks[i]
		q := fmt.Sprintf("%s.fallbacks[%d].", p, i)
		switch j, dup := first[f.Call]; {
		case f.Call == "":
			v.add(q+"call", nil, "is missing; name the call of the plan this fallback answers for")
		case !calls[f.Call]:
			v.add(q+"call", f.Call, "is not a call of the plan; the calls are %s", cmp.Or(quoteList(slices.Sorted(maps.Keys(calls))), "none"))
		case dup:
			v.add(q+"call", f.Call, "already has a fallback, fallbacks[%d]; a call has at most one", j)
		default:
			first[f.Call] = i
		}
		v.span(q+"latency", f.Latency, true)
	}
}

// pools checks a strategy's pool and bulkheads.
func (v *validator) pools(p string, st *Strategy, dn depNames) {
	waits := func(q string, maxWaiting int, maxWait Duration) {
		v.intRange(q+"max_waiting", maxWaiting, 0, MaxQueue)
		v.span(q+"max_wait", maxWait, true)
		if maxWait != 0 && maxWaiting == 0 {
			v.add(q+"max_wait", maxWait, "has no meaning with max_waiting 0: no call waits, a call that finds no room is refused at once")
		}
	}
	if pl := st.Pool; pl != nil {
		q := p + ".pool."
		v.intRange(q+"slots", pl.Slots, 1, MaxWorkers)
		waits(q, pl.MaxWaiting, pl.MaxWait)
	}
	first := map[string]int{}
	for i := range st.Bulkheads {
		b := &st.Bulkheads[i]
		q := fmt.Sprintf("%s.bulkheads[%d].", p, i)
		if v.ref(q+"dependency", b.Dependency, dn) >= 0 {
			if j, dup := first[b.Dependency]; dup {
				v.add(q+"dependency", b.Dependency, "already has a bulkhead, bulkheads[%d]; a dependency has at most one", j)
			} else {
				first[b.Dependency] = i
			}
		}
		v.intRange(q+"max_concurrent", b.MaxConcurrent, 1, MaxWorkers)
		waits(q, b.MaxWaiting, b.MaxWait)
	}
}

func (v *validator) dependency(p string, d *Dependency) {
	v.intRange(p+"workers", d.Workers, 1, MaxWorkers)
	v.intRange(p+"queue_capacity", d.QueueCapacity, 0, MaxQueue)
	if d.QueueFullStatus != 0 {
		v.status(p+"queue_full_status", d.QueueFullStatus)
	}
	st := &d.ServiceTime
	if oneOf(v, p+"service_time.kind", st.Kind, ServiceTimeKinds...) {
		switch st.Kind {
		case ServiceConstant:
			v.span(p+"service_time.mean", st.Mean, true)
		case ServiceExponential:
			v.span(p+"service_time.mean", st.Mean, false)
		case ServiceLognormal:
			v.span(p+"service_time.p50", st.P50, false)
			v.span(p+"service_time.p99", st.P99, false)
			if st.P99 < st.P50 {
				v.add(p+"service_time.p99", st.P99, "is below p50 %s; p99 must be at least p50", st.P50)
			}
		}
		if st.Kind != ServiceLognormal && (st.P50 != 0 || st.P99 != 0) {
			v.add(p+"service_time.p50", st.P50, "has no meaning for %q service times; p50 and p99 are for \"lognormal\"", st.Kind)
		}
		if st.Kind == ServiceLognormal && st.Mean != 0 {
			v.add(p+"service_time.mean", st.Mean, "has no meaning for \"lognormal\" service times; give p50 and p99")
		}
	}
	v.floatRange(p+"error_rate", d.ErrorRate, 0, 1)
	if d.LoadLatency != nil {
		v.loadLatency(p+"load_latency", d.LoadLatency)
	}
	if d.ErrorStatus != 0 {
		v.status(p+"error_status", d.ErrorStatus)
	}
	if le := d.LoadErrors; le != nil {
		q := p + "load_errors."
		v.spanOr(q+"window", le.Window, DefaultLoadWindow)
		if le.Status != 0 {
			v.status(q+"status", le.Status)
		}
		if len(le.Points) == 0 || len(le.Points) > 100 {
			v.add(q+"points", nil, "lists %d points; give 1..100 points {\"load\", \"rate\"}", len(le.Points))
		}
		for i, pt := range le.Points {
			pp := fmt.Sprintf("%spoints[%d]", q, i)
			v.floatRange(pp+".load", pt.Load, 0, 1e9)
			v.floatRange(pp+".rate", pt.Rate, 0, 1)
			if i > 0 && pt.Load <= le.Points[i-1].Load {
				v.add(pp+".load", pt.Load, "is not above the previous point's load %g; points must be sorted by load", le.Points[i-1].Load)
			}
		}
	}
	if ra := d.RetryAfter; ra != nil {
		if len(ra.Statuses) == 0 {
			v.add(p+"retry_after.statuses", nil, "is empty; name the statuses that carry Retry-After")
		}
		for i, s := range ra.Statuses {
			v.status(fmt.Sprintf("%sretry_after.statuses[%d]", p, i), s)
		}
		if ra.After >= 0 { // a negative After is a pushback asking not to retry (gRPC's -1)
			v.span(p+"retry_after.after", ra.After, true)
		}
	}
	if n := d.Network; n != nil {
		v.delay(p+"network.request", &n.Request)
		v.delay(p+"network.answer", &n.Answer)
	}
	if c := d.Contention; c != nil && c.Status != 0 {
		v.status(p+"contention.status", c.Status)
	}
	if sh := d.Shedding; sh != nil {
		q := p + "shedding."
		oneOf(v, q+"measure", sh.Measure, ShedMeasures...)
		if len(sh.Thresholds) == 0 {
			v.add(q+"thresholds", nil, "is empty; give the threshold of each class to shed, such as {\"sheddable\": 20}; classes: %s", quoteList(Classes))
		}
		for _, c := range slices.Sorted(maps.Keys(sh.Thresholds)) {
			tp := join(q+"thresholds", string(c))
			if oneOf(v, tp, c, Classes...) {
				v.intRange(tp, sh.Thresholds[c], 0, MaxQueue)
			}
		}
		if sh.Status != 0 {
			v.status(q+"status", sh.Status)
		}
	}
	if sc := d.Script; sc != nil {
		v.script(p+"script", sc)
	}
	v.overload(p, d)
	v.backends(p, d)
	if d.Autoscale != nil {
		v.autoscale(p+"autoscale.", d)
	}
	v.cache(p, d)
	tooMany := len(d.Phases) > MaxPhases
	if tooMany {
		v.add(p+"phases", nil, "lists %d phases; at most %d are allowed", len(d.Phases), MaxPhases)
	}
	for i := range d.Phases {
		v.phase(fmt.Sprintf("%sphases[%d]", p, i), &d.Phases[i])
		if tooMany {
			continue // comparing pairs of a list already refused would cost its square
		}
		// The first earlier phase of the kind that overlaps, if any: one
		// problem per phase, at most MaxPhases²/2 comparisons.
		for j := range i {
			a, b := &d.Phases[j], &d.Phases[i]
			if a.Kind == b.Kind && a.From < b.To && b.From < a.To && overlapsBackends(d, a, b) {
				v.add(fmt.Sprintf("%sphases[%d]", p, i), nil, "overlaps phases[%d]; phases of the same kind (%q) must not overlap", j, a.Kind)
				break
			}
		}
	}
}

// overload checks a dependency's queue discipline, its CoDel parameters
// and its rate limiter.
func (v *validator) overload(p string, d *Dependency) {
	disc := cmp.Or(d.QueueDiscipline, QueueFIFO)
	if d.QueueDiscipline != "" {
		oneOf(v, p+"queue_discipline", d.QueueDiscipline, QueueDisciplines...)
	}
	if c := d.CoDel; c != nil {
		if !slices.Contains(CoDelDisciplines, disc) {
			v.add(p+"codel", nil, "has no meaning for queue_discipline %q; it sets the target and interval of \"codel\" and \"adaptive-lifo\"", disc)
		}
		v.spanOr(p+"codel.target", c.Target, DefaultCoDelTarget)
		v.spanOr(p+"codel.interval", c.Interval, DefaultCoDelInterval)
		target, interval := cmp.Or(c.Target, DefaultCoDelTarget), cmp.Or(c.Interval, DefaultCoDelInterval)
		if target > 0 && interval > 0 && target >= interval {
			v.add(p+"codel.target", target, "is not below the interval %s; the target is a short queueing delay judged over the longer interval (the sources: 5ms and 100ms)", interval)
		}
	}
	if rl := d.RateLimit; rl != nil {
		q := p + "rate_limit."
		v.floatRange(q+"rate", rl.Rate, MinLimitRate, MaxLimitRate)
		v.intRange(q+"burst", rl.Burst, 1, MaxLimitBurst)
		v.spanOr(q+"retry_after_unit", rl.RetryAfterUnit, DefaultRetryAfterUnit)
	}
	if c := d.ConcurrencyLimit; c != nil {
		v.concurrencyLimit(p+"concurrency_limit.", c)
	}
}

// concurrencyLimit checks a dependency's concurrency limit: bounds of at
// least 1 in order, min ≤ initial ≤ max with the defaults of those left
// out, and Netflix's AIMDLimit's own bound on the backoff ratio.
func (v *validator) concurrencyLimit(q string, c *ConcurrencyLimit) {
	v.intOr(q+"initial", c.Initial, 1, MaxQueue, DefaultConcurrencyInitial)
	v.intOr(q+"min", c.Min, 1, MaxQueue, DefaultConcurrencyMin)
	v.intOr(q+"max", c.Max, 1, MaxQueue, DefaultConcurrencyMax)
	if c.BackoffRatio != 0 && !(c.BackoffRatio >= 0.5 && c.BackoffRatio < 1) {
		v.add(q+"backoff_ratio", c.BackoffRatio, "is out of range; a limit is multiplied by 0.5 or more and less than 1 (Netflix's AIMDLimit)%s", orDefault(DefaultBackoffRatio))
	}
	v.spanOr(q+"timeout", c.Timeout, DefaultConcurrencyTimeout)
	if c.Status != 0 && (c.Status < 400 || c.Status > 599) {
		v.add(q+"status", c.Status, "is not an error status; allowed 400..599%s", orDefault(DefaultConcurrencyStatus))
	}
	e := c.Effective()
	switch {
	case e.Min > e.Max:
		v.add(q+"min", e.Min, "is above max %d; the limit stays between min and max (20 and 200 by default)", e.Max)
	case e.Initial < e.Min || e.Initial > e.Max:
		v.add(q+"initial", e.Initial, "is not between min %d and max %d; the limit starts within its bounds (20 by default)", e.Min, e.Max)
	}
}

// script checks a dependency's script: one list, answers or operations,
// of at most MaxScript answers in all.
func (v *validator) script(p string, sc *Script) {
	if sc.Then != "" {
		oneOf(v, p+".then", sc.Then, ScriptThens...)
	}
	switch {
	case len(sc.Answers) > 0 && len(sc.Operations) > 0:
		v.add(p+".operations", nil, "is given together with answers; give one of them: answers for the calls of the run in order, operations for each operation's calls")
		return
	case len(sc.Answers) == 0 && len(sc.Operations) == 0:
		v.add(p+".answers", nil, "is empty; give answers such as [{\"status\": 503, \"latency\": \"5ms\"}, {\"status\": 200}], or operations, a list of answers per operation")
		return
	}
	total := len(sc.Answers)
	if len(sc.Operations) > MaxScript {
		v.add(p+".operations", nil, "lists %d operations; at most %d are allowed", len(sc.Operations), MaxScript)
		return
	}
	for _, as := range sc.Operations {
		total += len(as)
	}
	if total > MaxScript {
		v.add(p, nil, "lists %d answers; at most %d are allowed", total, MaxScript)
		return
	}
	// Paths are formatted only for answers with a problem: a script may
	// be long.
	for i := range sc.Answers {
		if !sc.Answers[i].valid() {
			v.answer(fmt.Sprintf("%s.answers[%d]", p, i), &sc.Answers[i])
		}
	}
	for n, as := range sc.Operations {
		for i := range as {
			if !as[i].valid() {
				v.answer(fmt.Sprintf("%s.operations[%d][%d]", p, n, i), &as[i])
			}
		}
	}
}

// valid reports whether answer a passes the checks of validator.answer.
func (a *Answer) valid() bool {
	ok := a.Error == "" && a.Status >= 100 && a.Status <= 599 || a.Error == "connection" && a.Status == 0
	return ok && a.Latency >= 0 && a.Latency <= MaxSpan
}

// answer checks one answer of a script: a status or a connection error,
// and a latency.
func (v *validator) answer(p string, a *Answer) {
	switch {
	case a.Error != "":
		oneOf(v, p+".error", a.Error, "connection")
		if a.Status != 0 {
			v.add(p+".status", a.Status, "is given together with error %q; give one of them", a.Error)
		}
	case a.Status == 0:
		v.add(p+".status", nil, "is missing; give a status (200 is a success) or error \"connection\"")
	default:
		v.status(p+".status", a.Status)
	}
	v.span(p+".latency", a.Latency, true)
}

// delay checks one leg of the network; a leg left out takes no time.
func (v *validator) delay(p string, d *Delay) {
	if *d == (Delay{}) || !oneOf(v, p+".kind", d.Kind, DelayKinds...) {
		return
	}
	// Each field belongs to the kinds that DelayFields gives it.
	for _, f := range []struct {
		name string
		val  Duration
	}{{"mean", d.Mean}, {"stddev", d.Stddev}, {"p50", d.P50}, {"p99", d.P99}} {
		if !slices.Contains(DelayFields[d.Kind], f.name) {
			if f.val != 0 {
				v.add(p+"."+f.name, f.val, "has no meaning for a %q delay; it is for %s", d.Kind, quoteList(kindsWith(DelayKinds, DelayFields, f.name)))
			}
			continue
		}
		v.span(p+"."+f.name, f.val, d.Kind != DelayLognormal)
	}
	if d.Kind == DelayLognormal && d.P99 < d.P50 {
		v.add(p+".p99", d.P99, "is below p50 %s; p99 must be at least p50", d.P50)
	}
}

// timeSpan checks the from, to and label of a phase or a load phase at p.
func (v *validator) timeSpan(p string, from, to Duration, label string) {
	v.span(p+".from", from, true)
	v.span(p+".to", to, false)
	if to <= from {
		v.add(p+".to", to, "is not after from %s", from)
	}
	v.text(p+".label", label, 100)
}

func (v *validator) phase(p string, ph *Phase) {
	kind := ph.Kind
	if !oneOf(v, p+".kind", kind, PhaseKinds...) {
		return
	}
	v.timeSpan(p, ph.From, ph.To, ph.Label)
	// Each field belongs to the kinds that PhaseFields gives it.
	onlyKindFields(v, p, kind, fmt.Sprintf("a %q phase", kind), PhaseKinds, PhaseFields, []givenField{{"workers", ph.Workers != 0}, {"rate", ph.Rate != 0}, {"factor", ph.Factor != 0},
		{"latency", ph.Latency != 0}, {"error", ph.Error != ""}, {"status", ph.Status != 0}})
	if ph.Status != 0 {
		v.status(p+".status", ph.Status)
	}
	if ph.Error != "" {
		oneOf(v, p+".error", ph.Error, "connection")
		if ph.Status != 0 {
			v.add(p+".status", ph.Status, "is given together with error %q; give one of them", ph.Error)
		}
	}
	switch kind {
	case PhaseCapacity:
		v.intRange(p+".workers", ph.Workers, 0, MaxWorkers)
	case PhaseErrors:
		if !(ph.Rate > 0 && ph.Rate <= 1) {
			v.add(p+".rate", ph.Rate, "is out of range; an errors phase needs a rate in (0, 1]")
		}
		v.span(p+".latency", ph.Latency, true)
	case PhaseOutage:
		v.span(p+".latency", ph.Latency, true)
	case PhaseLatency:
		if !(ph.Factor > 0 && ph.Factor <= 1000) {
			v.add(p+".factor", ph.Factor, "is out of range; a latency phase needs a factor in (0, 1000]")
		}
	}
}

// fromPreset returns, for a policy based on a preset, what to add to a
// message about a field that has no meaning beside another: that the
// preset gives the fields the policy does not set, and how to drop this
// one (its zero); "" for a policy based on none.
func fromPreset(pol *Policy, field string) string {
	if pol.BasedOn == "" {
		return ""
	}
	return fmt.Sprintf(" (the policy is based on preset %q, whose fields it keeps where it does not set them: write \"%s\": 0 beside the kind to drop it)", pol.BasedOn, field)
}

func (v *validator) policy(p string, pol *Policy) {
	if pol.Preset != "" {
		v.add(p+".preset", pol.Preset, "was not expanded; presets are resolved when the scenario is decoded with them")
	}
	v.text(p+".based_on", pol.BasedOn, 100)
	v.intRange(p+".max_attempts", pol.MaxAttempts, 0, MaxAttempts) // 0: unlimited
	v.span(p+".attempt_timeout", pol.AttemptTimeout, true)
	v.span(p+".deadline", pol.Deadline, true)
	v.span(p+".min_attempt_time", pol.MinAttemptTime, true)
	if pol.Deadline > 0 && pol.MinAttemptTime > pol.Deadline {
		v.add(p+".min_attempt_time", pol.MinAttemptTime, "is longer than the deadline %s", pol.Deadline)
	}
	v.intRange(p+".instances", pol.Instances, 0, MaxInstances)

	b := &pol.Backoff
	kind := cmp.Or(b.Kind, BackoffNone)
	if oneOf(v, p+".backoff.kind", kind, BackoffKinds...) {
		if kind == BackoffNone {
			if b.Base != 0 || b.Max != 0 || b.Multiplier != 0 || b.ThrottleBase != 0 {
				v.add(p+".backoff.kind", kind, "retries at once; base, multiplier, max and throttle_base have no meaning with it")
			}
		} else {
			v.span(p+".backoff.base", b.Base, false)
			if b.ThrottleBase != 0 { // 0, the default, is valid: no path to build
				v.span(p+".backoff.throttle_base", b.ThrottleBase, true)
			}
		}
		if b.Multiplier != 0 {
			if kind != BackoffExponential {
				v.add(p+".backoff.multiplier", b.Multiplier, "has no meaning for %q backoff; it is for \"exponential\"%s", kind, fromPreset(pol, "multiplier"))
			} else {
				v.floatRange(p+".backoff.multiplier", b.Multiplier, 1, 100)
			}
		}
		v.span(p+".backoff.max", b.Max, true)
		if b.Max != 0 && b.Max < b.Base {
			v.add(p+".backoff.max", b.Max, "is below base %s", b.Base)
		}
	}
	j := &pol.Jitter
	jk := cmp.Or(j.Kind, JitterNone)
	if oneOf(v, p+".jitter.kind", jk, JitterKinds...) {
		if jk != JitterNone && kind == BackoffNone && pol.Hedging == nil {
			v.add(p+".jitter.kind", jk, "needs a backoff to randomise; set backoff.kind")
		}
		// Each field belongs to the kinds that JitterFields gives it.
		takes := func(field string) bool { return slices.Contains(JitterFields[jk], field) }
		if takes("fraction") {
			if j.Fraction != 0 {
				v.floatRange(p+".jitter.fraction", j.Fraction, 1e-9, 1)
			}
		} else if j.Fraction != 0 {
			v.add(p+".jitter.fraction", j.Fraction, "has no meaning for %q jitter; it is for %s%s", jk, quoteList(kindsWith(JitterKinds, JitterFields, "fraction")), fromPreset(pol, "fraction"))
		}
		if takes("amount") {
			v.span(p+".jitter.amount", j.Amount, false)
		} else if j.Amount != 0 {
			v.add(p+".jitter.amount", j.Amount, "has no meaning for %q jitter; it is for %s%s", jk, quoteList(kindsWith(JitterKinds, JitterFields, "amount")), fromPreset(pol, "amount"))
		}
	}
	if ro := pol.RetryOn; ro != nil {
		for i, s := range ro.Statuses {
			v.status(fmt.Sprintf("%s.retry_on.statuses[%d]", p, i), s)
		}
		for i, r := range ro.StatusRanges {
			if _, _, ok := parseStatusRange(r); !ok {
				v.add(fmt.Sprintf("%s.retry_on.status_ranges[%d]", p, i), r, "is not a status range; allowed \"from-to\" with 100 <= from <= to <= 599, such as \"500-599\"")
			}
		}
		for i, s := range ro.Except {
			v.status(fmt.Sprintf("%s.retry_on.except[%d]", p, i), s)
		}
	}
	v.span(p+".max_elapsed", pol.MaxElapsed, true)
	if ra := pol.RetryAfter; ra != nil {
		if !pol.HonorRetryAfter {
			v.add(p+".retry_after", nil, "needs honor_retry_after: true; it says how an honoured Retry-After sets the wait")
		}
		if ra.Mode != "" {
			oneOf(v, p+".retry_after.mode", ra.Mode, RetryAfterModes...)
		}
		for i, s := range ra.Statuses {
			v.status(fmt.Sprintf("%s.retry_after.statuses[%d]", p, i), s)
		}
	}
	if bu := pol.Budget; bu != nil {
		q := p + ".budget."
		if bu.Scope != "" {
			oneOf(v, q+"scope", bu.Scope, Scopes...)
		}
		if oneOf(v, q+"kind", bu.Kind, BudgetKinds...) {
			tb, ra, cc := bu.Kind == BudgetTokenBucket, bu.Kind == BudgetRatio, bu.Kind == BudgetConcurrency
			for _, f := range []struct {
				name string
				set  bool
				ok   bool
			}{
				{"max_tokens", bu.MaxTokens != 0, tb}, {"token_ratio", bu.TokenRatio != 0, tb},
				{"threshold", bu.Threshold != 0, tb}, {"failure_cost", bu.FailureCost != 0, tb},
				{"charge", bu.Charge != "", tb}, {"throttle_cost", bu.ThrottleCost != 0, tb},
				{"timeout_cost", bu.TimeoutCost != 0, tb}, {"refund", bu.Refund, tb},
				{"ratio", bu.Ratio != 0, !tb}, {"window", bu.Window != 0, ra}, {"min_per_second", bu.MinPerSecond != 0, ra},
				{"min_concurrency", bu.MinConcurrency != 0, cc}, {"slices", bu.Slices != 0, ra}, {"share_of", bu.ShareOf != "", cc},
			} {
				if f.set && !f.ok {
					v.add(q+f.name, nil, "has no meaning for a %q budget", bu.Kind)
				}
			}
			switch {
			case tb:
				v.floatRange(q+"max_tokens", bu.MaxTokens, 1e-9, 1e9)
				v.floatRange(q+"token_ratio", bu.TokenRatio, 0, 1e9)
				if bu.Threshold != 0 {
					v.floatRange(q+"threshold", bu.Threshold, 0, bu.MaxTokens)
				}
				v.floatRange(q+"failure_cost", bu.FailureCost, 0, 1e9)
				v.floatRange(q+"throttle_cost", bu.ThrottleCost, 0, 1e9)
				v.floatRange(q+"timeout_cost", bu.TimeoutCost, 0, 1e9)
				if bu.Charge != "" {
					oneOf(v, q+"charge", bu.Charge, BudgetCharges...)
				}
			case ra:
				v.floatRange(q+"ratio", bu.Ratio, 1e-9, 100)
				v.span(q+"window", bu.Window, true)
				v.floatRange(q+"min_per_second", bu.MinPerSecond, 0, 1e9)
				if bu.MinPerSecond != 0 && bu.Window == 0 {
					v.add(q+"min_per_second", bu.MinPerSecond, "needs a window; a since-start budget has no reserve")
				}
				if bu.Slices != 0 {
					v.intRange(q+"slices", bu.Slices, 2, 1000)
					if bu.Window == 0 {
						v.add(q+"slices", bu.Slices, "needs a window to slice")
					} else if bu.Window < Duration(bu.Slices) {
						v.add(q+"slices", bu.Slices, "are more than the window's nanoseconds")
					}
				}
			case cc:
				v.floatRange(q+"ratio", bu.Ratio, 0, 1)
				v.intRange(q+"min_concurrency", bu.MinConcurrency, 0, 1_000_000)
				if bu.ShareOf != "" {
					oneOf(v, q+"share_of", bu.ShareOf, BudgetShares...)
				}
				if pol.Hedging != nil {
					v.add(q+"kind", bu.Kind, "is not supported on a hedged level; use a token_bucket or ratio budget")
				}
			}
		}
	}
	if br := pol.Breaker; br != nil {
		q := p + ".breaker."
		if oneOf(v, q+"kind", br.Kind, BreakerKinds...) {
			if br.Kind == BreakerConsecutive {
				v.intRange(q+"failures", br.Failures, 1, 1_000_000)
				if br.Ratio != 0 || br.MinThroughput != 0 || br.Window != 0 || br.WindowCalls != 0 {
					v.add(q+"kind", br.Kind, "counts failures in a row; ratio, min_throughput, window and window_calls are for \"ratio\"")
				}
				if br.SlowCall != 0 || br.SlowRatio != 0 {
					v.add(q+"kind", br.Kind, "counts failures in a row; slow_call and slow_ratio are for \"ratio\"")
				}
			} else {
				switch {
				case br.Failures != 0 && br.Ratio != 0:
					v.add(q+"failures", br.Failures, "is given together with ratio; a ratio breaker opens on a share of failures (ratio) or on a number of them in the last window_calls (failures): give one")
				case br.Failures != 0:
					if br.WindowCalls == 0 {
						v.add(q+"failures", br.Failures, "needs window_calls; it is k of the last n calls, n being window_calls")
					} else {
						v.intRange(q+"failures", br.Failures, 1, br.WindowCalls)
					}
				default:
					v.floatRange(q+"ratio", br.Ratio, 1e-9, 1)
				}
				v.intRange(q+"min_throughput", br.MinThroughput, 1, 1_000_000)
				v.span(q+"slow_call", br.SlowCall, true)
				if br.SlowRatio != 0 {
					v.floatRange(q+"slow_ratio", br.SlowRatio, 1e-9, 1)
					if br.SlowCall == 0 {
						v.add(q+"slow_ratio", br.SlowRatio, "has no meaning without slow_call; it is the share of calls slower than slow_call that opens the breaker")
					}
				}
				switch {
				case br.Window != 0 && br.WindowCalls != 0:
					v.add(q+"window_calls", br.WindowCalls, "is given together with window; a window is a time or a number of calls")
				case br.WindowCalls != 0:
					v.intRange(q+"window_calls", br.WindowCalls, 1, 100_000)
					if br.MinThroughput > br.WindowCalls {
						v.add(q+"min_throughput", br.MinThroughput, "is more than window_calls %d; the breaker could never open", br.WindowCalls)
					}
				default:
					v.span(q+"window", br.Window, false)
				}
			}
		}
		if br.Scope != "" {
			oneOf(v, q+"scope", br.Scope, Scopes...)
		}
		if br.Placement != "" {
			oneOf(v, q+"placement", br.Placement, Placements...)
		}
		v.span(q+"break", br.Break, false)
		v.intOr(q+"half_open_calls", br.HalfOpenCalls, 1, 1000, DefaultHalfOpenCalls)
		v.intOr(q+"half_open_failures", br.HalfOpenFailures, 1, max(br.HalfOpenCalls, DefaultHalfOpenCalls), 1)
		if br.BreakEnd != "" {
			oneOf(v, q+"break_end", br.BreakEnd, BreakEnds...)
		}
		if br.HalfOpenDecision != "" {
			oneOf(v, q+"half_open_decision", br.HalfOpenDecision, HalfOpenDecisions...)
		}
		if br.OpenMultiplier != 0 {
			v.floatRange(q+"open_multiplier", br.OpenMultiplier, 1, 100)
		}
		if br.MaxOpen != 0 {
			switch {
			case br.OpenMultiplier == 0:
				v.add(q+"max_open", br.MaxOpen, "has no meaning without open_multiplier; it caps the open state that open_multiplier lengthens")
			case br.MaxOpen < br.Break:
				v.add(q+"max_open", br.MaxOpen, "is shorter than break %s; allowed break or longer", br.Break)
			default:
				v.span(q+"max_open", br.MaxOpen, false)
			}
		}
		if br.WindowBuckets != "" {
			oneOf(v, q+"window_buckets", br.WindowBuckets, WindowBucketings...)
			if br.WindowBuckets == WindowEpochSeconds && br.Window > 0 && br.Window%Duration(time.Second) != 0 {
				v.add(q+"window", br.Window, "is not a whole number of seconds; window_buckets epoch_seconds counts whole seconds (resilience4j's slidingWindowSize): allowed 1s, 2s, ...")
			}
		}
	}
	if ad := pol.Adaptive; ad != nil {
		q := p + ".adaptive."
		v.span(q+"window", ad.Window, false)
		v.floatRange(q+"above", ad.Above, 0, 0.999999)
		v.floatRange(q+"factor", ad.Factor, 1, 1000)
	}
	if th := pol.Throttle; th != nil {
		q := p + ".throttle."
		if th.K != 0 && !(th.K >= 1 && th.K <= 100) {
			v.add(q+"k", th.K, "is out of range 1..100 (or 0 for the default %g); the Google SRE book uses 2, and 1.1 for a more aggressive throttle", DefaultThrottleK)
		}
		v.spanOr(q+"window", th.Window, DefaultThrottleWindow)
	}
	if rl := pol.RateLimit; rl != nil {
		q := p + ".client_rate_limit."
		known := oneOf(v, q+"kind", rl.Kind, RateLimitKinds...)
		switch {
		case known && rl.Kind == RateLimitFixedWindow:
			v.intRange(q+"limit_for_period", rl.LimitForPeriod, 1, 1_000_000)
			v.span(q+"refresh_period", rl.RefreshPeriod, false)
			v.span(q+"timeout", rl.Timeout, true)
		case known && (rl.LimitForPeriod != 0 || rl.RefreshPeriod != 0 || rl.Timeout != 0):
			v.add(q+"kind", rl.Kind, "has no limit_for_period, refresh_period or timeout; they are for \"fixed-window\"")
		}
	}
	if cl := pol.ConnectionLimits; cl != nil {
		v.connectionLimits(p, pol)
	}
	if pol.Hedging != nil {
		v.hedging(p, pol)
	}
}

// connectionLimits checks a level's connection limits: counts within
// range, a pending line only with connections to wait for, and no hedging.
func (v *validator) connectionLimits(p string, pol *Policy) {
	cl := pol.ConnectionLimits
	q := p + ".connection_limits."
	for _, f := range []struct {
		name string
		n    int
		zero string // what 0 (or absence) does
	}{{"max_connections", cl.MaxConnections, "no limit"}, {"max_pending", cl.MaxPending, "no attempt waits"}, {"max_requests", cl.MaxRequests, "no limit"}} {
		v.intOr(q+f.name, f.n, 1, MaxConnectionLimit, f.zero)
	}
	switch {
	case cl.MaxConnections == 0 && cl.MaxRequests == 0 && cl.MaxPending == 0:
		v.add(p+".connection_limits", nil, "sets no limit; give max_requests, max_connections (with max_pending), or leave connection_limits out")
	case cl.MaxPending != 0 && cl.MaxConnections == 0:
		v.add(q+"max_pending", cl.MaxPending, "has no meaning without max_connections; attempts wait in the pending line only for a connection (over max_requests they overflow at once)")
	}
	if pol.Hedging != nil {
		v.add(p+".connection_limits", nil, "is given together with hedging; the connection limits are simulated for single attempts, not hedged copies: give one of them")
	}
}

// hedging checks a hedged level: its copies, and the retry settings that
// have no meaning for copies, which do not wait for one another to fail.
func (v *validator) hedging(p string, pol *Policy) {
	h := pol.Hedging
	q := p + ".hedging."
	v.span(q+"delay", h.Delay, true)
	if h.DelayPercentile != 0 && !(h.DelayPercentile > 0 && h.DelayPercentile < 100) {
		v.add(q+"delay_percentile", h.DelayPercentile, "is out of range; a delay percentile is in (0, 100), or left out for the fixed delay")
	}
	if h.Window != 0 {
		if h.DelayPercentile == 0 {
			v.add(q+"window", h.Window, "has no meaning without delay_percentile; it is how many latencies the percentile is taken over")
		} else {
			v.intOr(q+"window", h.Window, 20, 100_000, DefaultHedgeWindow)
		}
	}
	if h.AfterFailure != "" {
		oneOf(v, q+"after_failure", h.AfterFailure, HedgeAfterFailures...)
	}
	if pol.MaxAttempts == 0 || pol.MaxAttempts == 1 {
		v.add(p+".max_attempts", pol.MaxAttempts, "is the number of copies of a hedged call, the first included; hedging needs 2..%d (not 0: copies are not unlimited)", MaxAttempts)
	}
	const none = "has no meaning with hedging: a copy leaves hedging.delay after the previous one, or at once when one fails"
	if b := pol.Backoff; b.Kind != "" && b.Kind != BackoffNone || b.Base != 0 || b.Max != 0 || b.Multiplier != 0 {
		v.add(p+".backoff", nil, "%s, without backoff; leave backoff out", none)
	}
	if jk := pol.Jitter.Kind; jk != "" && jk != JitterNone {
		v.add(p+".jitter.kind", jk, "%s; there is no backoff to randomise: leave jitter out", none)
	}
	if pol.HonorRetryAfter {
		v.add(p+".honor_retry_after", true, "%s; no copy waits for a Retry-After: leave it out", none)
	}
	if pol.MaxElapsed != 0 {
		v.add(p+".max_elapsed", pol.MaxElapsed, "%s; no copy waits: use deadline", none)
	}
	if pol.Adaptive != nil {
		v.add(p+".adaptive", nil, "%s; there is no backoff for it to lengthen: leave it out", none)
	}
	if pol.Throttle != nil {
		v.add(p+".throttle", nil, "is given together with hedging; client-side throttling decides single attempts, not hedged copies: give one of them")
	}
	if pol.RateLimit != nil {
		v.add(p+".client_rate_limit", nil, "is given together with hedging; the rate limiter paces single attempts, not hedged copies: give one of them")
	}
	if pol.DeadLetter {
		v.add(p+".dead_letter", true, "is given together with hedging; a queue consumer redelivers a failed message, it does not send copies: give one of them")
	}
}

func (v *validator) report(sc *Scenario) {
	r := &sc.Report
	if r.AffectedFrom != nil {
		v.span("report.affected_from", *r.AffectedFrom, true)
	}
	if r.AffectedTo != nil {
		v.span("report.affected_to", *r.AffectedTo, false)
	}
	if (r.AffectedFrom == nil) != (r.AffectedTo == nil) {
		v.add("report.affected_from", nil, "and affected_to go together; give both or neither")
	} else if r.AffectedFrom != nil && *r.AffectedTo <= *r.AffectedFrom {
		v.add("report.affected_to", *r.AffectedTo, "is not after affected_from %s", *r.AffectedFrom)
	}
	if r.RecoveryFrom != nil {
		v.span("report.recovery_from", *r.RecoveryFrom, true)
	}
	if len(r.PeakResolutions) > 5 {
		v.add("report.peak_resolutions", nil, "lists %d resolutions; at most 5 are allowed", len(r.PeakResolutions))
	}
	for i, d := range r.PeakResolutions {
		p := fmt.Sprintf("report.peak_resolutions[%d]", i)
		if d < Duration(time.Millisecond) || d > Duration(time.Hour) || d%Duration(time.Millisecond) != 0 {
			v.add(p, d, "is not a whole number of milliseconds in 1ms..1h")
		}
	}
	if r.SeriesBucket != 0 && (r.SeriesBucket < Duration(time.Millisecond) || r.SeriesBucket > Duration(time.Hour) || r.SeriesBucket%Duration(time.Millisecond) != 0) {
		v.add("report.series_bucket", r.SeriesBucket, "is not a whole number of milliseconds in 1ms..1h")
	}
	if len(r.Focus) > 3 {
		v.add("report.focus", nil, "lists %d metrics; at most 3 are allowed", len(r.Focus))
	} else {
		for i, m := range r.Focus {
			switch {
			case !slices.Contains(MetricNames(), m):
				v.add(fmt.Sprintf("report.focus[%d]", i), m, "is not a metric name%s (metrics: %s)", didYouMean(m, MetricNames()), strings.Join(MetricNames(), ", "))
			case slices.Contains(r.Focus[:i], m):
				v.add(fmt.Sprintf("report.focus[%d]", i), m, "is named twice; name a metric once")
			}
		}
	}
	if len(r.Thresholds) > MaxThresholds {
		v.add("report.thresholds", nil, "lists %d thresholds; at most %d are allowed", len(r.Thresholds), MaxThresholds)
	}
	for i, c := range r.Thresholds {
		v.constraint(fmt.Sprintf("report.thresholds[%d]", i), &c)
	}
	var strategies []string
	for _, st := range sc.Strategies {
		strategies = append(strategies, st.Name)
	}
	for i, name := range r.Yours {
		p := fmt.Sprintf("report.yours[%d]", i)
		switch {
		case !slices.Contains(strategies, name):
			v.add(p, name, "is not one of the scenario's strategies%s (strategies: %s)", didYouMean(name, strategies), strings.Join(strategies, ", "))
		case slices.Contains(r.Yours[:i], name):
			v.add(p, name, "is named twice; name a strategy once")
		}
	}
}

// constraint checks a condition on a metric at path p: a search's
// constraint or a report's threshold.
func (v *validator) constraint(p string, c *Constraint) {
	names := MetricNames()
	if !slices.Contains(names, c.Metric) {
		v.add(p+".metric", c.Metric, "is not a metric name%s (metrics: %s)", didYouMean(c.Metric, names), strings.Join(names, ", "))
	} else if info, _ := DescribeMetric(c.Metric); info.Unit == "%" && (c.Value < 0 || c.Value > 1) {
		// Tables show rates as percentages; the metric is a fraction.
		v.add(p+".value", c.Value, "is out of range: %s is a rate from 0 to 1 (99.9%% is 0.999)", c.Metric)
	} else if c.Value < 0 {
		// Every other metric counts, times or divides counts: none is
		// below 0, and a condition below it is met by every seed or none.
		v.add(p+".value", c.Value, "is out of range: %s is at least 0", c.Metric)
	}
	oneOf(v, p+".op", c.Op, Ops...)
}

// sweep checks that the path exists and that every value gives a valid scenario.
func (v *validator) sweep(sc *Scenario) {
	sw := sc.Sweep
	if n := len(sw.Values); n == 0 || n > MaxSweepValues {
		v.add("sweep.values", nil, "lists %d values; give 1..%d", n, MaxSweepValues)
		return
	}
	// Checking, estimating and running a sweep read the whole scenario
	// again for every value: that work is bounded before it is done.
	base := *sc
	base.Sweep = nil
	if raw, err := json.Marshal(&base); err == nil && len(raw)*len(sw.Values) > MaxSweepBytes {
		v.add("sweep.values", nil, "lists %d values for a scenario of %d bytes; a sweep reads the scenario again for each value, and values × its size may be at most %d KiB: sweep fewer values, or shorten the scenario",
			len(sw.Values), len(raw), MaxSweepBytes>>10)
		return
	}
	for i := range sw.Values {
		p := fmt.Sprintf("sweep.values[%d]", i)
		sub, err := sc.withValue(i)
		if err != nil {
			for _, e := range AsErrors(err) {
				v.addError(FieldError{Path: p, Value: e.Value, Message: "at " + sw.Path + ": " + e.Message})
			}
			continue
		}
		sv := sub.validate()
		for _, e := range sv.errs {
			v.addError(FieldError{Path: p, Value: e.Value, Message: "at " + e.Path + " " + e.Message})
		}
		v.more += sv.more
	}
}

// withValue returns a copy of the scenario with sweep value i set at the sweep
// path, and without the sweep.
func (sc *Scenario) withValue(i int) (*Scenario, error) {
	return sc.edited(sc.Sweep.Path, sc.Sweep.Values[i], "sweep.path", "the sweep")
}

// edited returns a copy of the scenario, without its sweep and search,
// with value set at path as a sweep sets its values (null leaves the field
// out); a search's variants (search.across) are made the same way. Errors
// about the path name field; who (such as "the sweep") is what may not
// change the version, the sweep or the search.
func (sc *Scenario) edited(path string, value json.RawMessage, field, who string) (*Scenario, error) {
	base := *sc
	base.Sweep, base.Search = nil, nil
	raw, err := json.Marshal(&base)
	if err != nil {
		return nil, err
	}
	// Numbers stay as written (json.Number), so that Decode judges the
	// swept value itself: 1e-400 for a count is an error, not 0.
	var tree, val any
	if err := unmarshalNumbers(raw, &tree); err != nil {
		return nil, err
	}
	// null (which the strict decoder keeps as no bytes) leaves the field
	// out: its default, or no shedding, no budget, no breaker.
	if len(value) > 0 && string(value) != "null" {
		if err := unmarshalNumbers(value, &val); err != nil {
			return nil, Errors{{Message: "is not valid JSON"}}
		}
	}
	steps, err := ParsePath(path, field)
	if err != nil {
		return nil, err
	}
	if k := steps[0].Key; k == "sweep" || k == "version" || k == "search" {
		return nil, badPath(path, field, who+" cannot change "+k)
	}
	if err := SetPath(tree, steps, val, path, field); err != nil {
		return nil, err
	}
	raw, err = json.Marshal(tree)
	if err != nil {
		return nil, err
	}
	return Decode(raw)
}

func unmarshalNumbers(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	return dec.Decode(v)
}

// SetPath sets the value at a path, parsed into steps, in a generic
// JSON tree (numbers as json.Number), as a sweep's value is set: val nil
// leaves the field out; missing object fields are created, list indexes
// must exist. Its errors name field, where the path was written.
func SetPath(tree any, steps []PathStep, val any, path, field string) error {
	cur := tree
	for i, st := range steps {
		last := i == len(steps)-1
		switch {
		case st.Key != "":
			obj, ok := cur.(map[string]any)
			if !ok {
				return Errors{{Path: field, Value: strconv.Quote(path), Message: "does not lead to an object at " + strconv.Quote(st.Key)}}
			}
			if last {
				if val == nil {
					delete(obj, st.Key)
				} else {
					obj[st.Key] = val
				}
				return nil
			}
			next, ok := obj[st.Key]
			if !ok || next == nil {
				next = map[string]any{}
				obj[st.Key] = next
			}
			cur = next
		default:
			arr, ok := cur.([]any)
			if !ok || st.Index >= len(arr) {
				return Errors{{Path: field, Value: strconv.Quote(path), Message: fmt.Sprintf("has index [%d], which does not exist", st.Index)}}
			}
			if last {
				arr[st.Index] = val
				return nil
			}
			cur = arr[st.Index]
		}
	}
	return nil
}

// badPath refuses path, written at field, for the reason why.
func badPath(path, field, why string) error {
	return Errors{{Path: field, Value: strconv.Quote(path), Message: "is not a path such as \"dependency.error_rate\" or \"strategies[1].max_attempts\": " + why}}
}

// ParsePath reads a path such as "strategies[1].backoff.base" into its
// steps, as a sweep's path is read. Its errors name field, where the
// path was written.
func ParsePath(path, field string) ([]PathStep, error) {
	bad := func(why string) error { return badPath(path, field, why) }
	if path == "" {
		return nil, bad("it is empty")
	}
	var steps []PathStep
	i := 0
	for i < len(path) {
		switch c := path[i]; {
		case c == '.':
			if i == 0 || i == len(path)-1 {
				return nil, bad("a dot at an end")
			}
			i++
		case c == '[':
			j := i + 1
			for j < len(path) && path[j] >= '0' && path[j] <= '9' {
				j++
			}
			if j == i+1 || j >= len(path) || path[j] != ']' || j-i > 7 {
				return nil, bad("an index must be a number in brackets")
			}
			n, _ := strconv.Atoi(path[i+1 : j])
			steps = append(steps, PathStep{Index: n})
			i = j + 1
		default:
			j := i
			for j < len(path) && path[j] != '.' && path[j] != '[' {
				j++
			}
			steps = append(steps, PathStep{Key: path[i:j]})
			i = j
		}
	}
	return steps, nil
}
