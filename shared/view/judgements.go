package view

// A Judgement is one kind of sentence the verdict writes, as data: Kind
// names it (docs/judgements.md's table of the verdict's sentences has a row for
// each, giving its rule), Sources name the published work its rule comes
// from, and Says and Holds are its check: Says is a regular expression
// (Go's syntax; compiled by the tests only, so that the binaries do not
// carry regexp) matching the sentence wherever a verdict writes it, and
// Holds is how the first number it quotes must compare with the second
// for it to be true (with List, each number of the list its first group
// matches with the number after it). The property test holds every
// verdict it generates to these checks, and fails on a comparative word
// that no Judgement's Says covers.
type Judgement struct {
	Kind    string
	Sources []string
	Says    string
	Holds   Order
	List    bool
}

// An Order is how two numbers a sentence quotes compare.
type Order int

// The orders a sentence may claim.
const (
	Unordered Order = iota // the sentence claims no order (a tie, or no numbers)
	Below                  // the first is below the second
	Above                  // the first is above the second
	AtLeast                // the first is at least the second
)

// Number is a number as a verdict writes it ("19.6", "99.4k", "78.4%",
// "9.5 s", "40 ms"), as a regular expression with one group.
const Number = `(\d+(?:\.\d+)?(?:k|M)?%?(?: ms\b| s\b)?)`

const (
	inWindow = `(?: in the affected window)?`
	whose    = ` against [^']+'s `
)

// Sources of the verdict's rules, as docs/judgements.md cites them.
const (
	srcE03      = "Retry, Timeout, and Backoff: When Should We Stop Retrying?"
	srcAWS      = "Availability and Beyond"
	srcYanacek  = "Using load shedding to avoid overload"
	srcBrooker  = "Exponential Backoff And Jitter"
	srcTail     = "The Tail at Scale"
	srcPatterns = "Reliability Patterns"
	srcIdem     = "Making retries safe with idempotent APIs"
)

// Judgements are the kinds of sentence the verdict writes.
var Judgements = []Judgement{
	{Kind: "winner", Sources: []string{srcE03},
		Says: `(?:lowest|fewest) [^:(]*: ` + Number + `[a-z ]*` + whose + Number, Holds: Below},
	{Kind: "winner", Sources: []string{srcE03},
		Says: `highest [^:(]*: ` + Number + `[a-z ]*` + whose + Number, Holds: Above},
	// A recovery time against a strategy that did not recover under load
	// (engine.Metrics.NotRecovered): no number to compare, and none is
	// claimed; ranked, not recovering is the worst.
	{Kind: "winner", Sources: []string{srcE03},
		Says: `(?:lowest|fewest) [^:(]*: ` + Number + `[a-z ]*` + whose + `none \(not recovered under load\)`, Holds: Unordered},
	{Kind: "winners", Sources: []string{srcE03},
		Says: `share the (?:lowest|fewest) [^(]*\(([^)]*)\)(?: only by failing operations,)?` + whose + Number, Holds: Below, List: true},
	{Kind: "winners", Sources: []string{srcE03},
		Says: `share the highest [^(]*\(([^)]*)\)(?: only by failing operations,)?` + whose + Number, Holds: Above, List: true},
	{Kind: "only-by-failing", Sources: []string{srcYanacek},
		Says: `only by failing operations: .*?\. It succeeds on ` + Number + ` of its operations` + inWindow + whose + Number, Holds: Below},
	{Kind: "only-by-failing", Sources: []string{srcYanacek},
		Says: `only by failing operations, .*?\. They succeed on (.*?) of their operations` + inWindow + whose + Number, Holds: Below, List: true},
	{Kind: "ties-by-failing", Sources: []string{srcYanacek},
		Says: `ties on [^:]+ only by failing operations: it succeeds on ` + Number + ` of them` + inWindow + whose + Number, Holds: Below},
	{Kind: "sweep", Sources: []string{srcE03},
		Says: `The (?:lowest|highest|fewest) [^:]+ by [^:]+: |(?:has|have) the (?:lowest|highest|fewest) .+? at every value of `},
	{Kind: "sweep-by-failing", Sources: []string{srcYanacek},
		Says: `only by failing operations \([^ ]+ succeeds on ` + Number + inWindow + whose + Number + `\)`, Holds: Below},
	{Kind: "price-success", Sources: []string{srcAWS},
		Says: `succeeds less often` + inWindow + `, ` + Number + whose + Number, Holds: Below},
	{Kind: "price-success", Sources: []string{srcAWS},
		Says: `succeed less often` + inWindow + ` \(([^)]*)\)` + whose + Number, Holds: Below, List: true},
	{Kind: "price-call", Sources: []string{srcAWS, srcPatterns},
		Says: `succeed less often, ` + Number + whose + Number, Holds: Below},
	{Kind: "price-worst-seed", Sources: []string{srcTail},
		Says: `on (?:its|[^ ]+'s) worst seed [^ ]+ succeeds on ` + Number + ` of operations` + inWindow + ` against ` + Number + ` on [^']+'s worst`, Holds: Below},
	{Kind: "price-latency", Sources: []string{srcBrooker, srcTail},
		Says: `successful operations are slower, ` + Number + ` at the 99th percentile` + whose + Number + `, which succeeds as often` + inWindow, Holds: Above},
	{Kind: "price-calls", Sources: []string{srcYanacek},
		Says: Number + ` calls reach the dependenc(?:y|ies)` + whose + Number + `, which succeeds as often` + inWindow, Holds: Above},
	{Kind: "gain-success", Sources: []string{srcAWS},
		Says: `succeeds more often` + inWindow + `: ` + Number + whose + Number, Holds: Above},
	{Kind: "gain-success", Sources: []string{srcAWS},
		Says: `while succeeding as often as any` + inWindow + `: ` + Number + whose + Number, Holds: AtLeast},
	{Kind: "gain-success", Sources: []string{srcAWS},
		Says: `while succeeding` + inWindow + ` as often as [^:]+ within the seeds' spread: ` + Number + whose + Number},
	{Kind: "gain-call", Sources: []string{srcAWS, srcPatterns},
		Says: `succeed more often: ` + Number + whose + Number, Holds: Above},
	{Kind: "gain-calls", Sources: []string{srcYanacek},
		Says: `with fewer calls reaching the dependenc(?:y|ies): ` + Number + whose + Number, Holds: Below},
	{Kind: "all-equal",
		Says: `(?:Every operation` + inWindow + ` (?:fails|succeeds)|No operation` + inWindow + ` succeeds), whatever the strategy|Every strategy succeeds on ` + Number + ` of operations` + inWindow},
	// What the dependency did beside what the client saw: no order is
	// claimed, only counts of the winner's.
	{Kind: "not-clean", Sources: []string{srcIdem},
		Says: `Not a clean win: the dependency applied `},
	{Kind: "giving-up", Sources: []string{srcTail},
		Says: `is low partly because it gives up sooner`},
}
