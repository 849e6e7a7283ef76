package engine

import "fmt"

// A SearchCheck is the validator as the search's check of a search
// block sees it (package search, through EnableSearch): where the check
// adds its errors, and the checks it shares with the rest of a
// scenario's, of the strategies and scenarios it derives included. Its
// errors are the scenario's, in the order added.
type SearchCheck struct {
	v     *validator
	deps  depNames
	calls map[string]bool
}

// Add adds an error at path: value, shown as the engine's errors show
// values (nil: none), and a message.
func (c *SearchCheck) Add(path string, value any, format string, args ...any) {
	c.v.add(path, value, format, args...)
}

// AddError adds an error as it is.
func (c *SearchCheck) AddError(e FieldError) { c.v.addError(e) }

// Failed reports whether the scenario has an error so far, the search
// block's or another part's.
func (c *SearchCheck) Failed() bool { return c.v.failed() }

// IntRange refuses x at path unless lo <= x <= hi.
func (c *SearchCheck) IntRange(path string, x, lo, hi int) { c.v.intRange(path, x, lo, hi) }

// Text refuses s at path unless it is valid UTF-8 of at most max
// characters.
func (c *SearchCheck) Text(path, s string, max int) { c.v.text(path, s, max) }

// Goal refuses an objective's goal at path unless it is one of Goals.
func (c *SearchCheck) Goal(path string, g Goal) { oneOf(c.v, path, g, Goals...) }

// Constraint checks a constraint at path: its metric, value and op.
func (c *SearchCheck) Constraint(path string, ct *Constraint) { c.v.constraint(path, ct) }

// Strategy returns the errors of st as strategy si of the scenario: a
// candidate in the place of the strategy it varies, checked against the
// scenario's dependencies and calls. It adds none.
func (c *SearchCheck) Strategy(si int, st *Strategy) Errors {
	v := &validator{}
	v.strategy(fmt.Sprintf("strategies[%d]", si), st, c.deps, c.calls)
	return v.errs
}

// Variant adds the errors of sub, a scenario derived from the one
// checked, at path, each message saying where in sub it is ("at
// dependency.workers is out of range ...").
func (c *SearchCheck) Variant(path string, sub *Scenario) {
	sv := sub.validate()
	for _, e := range sv.errs {
		c.v.addError(FieldError{Path: path, Value: e.Value, Message: "at " + e.Path + " " + e.Message})
	}
	c.v.more += sv.more
}

// QuoteList writes names as the engine's errors list them: each quoted,
// separated by commas.
func QuoteList[K ~string](xs []K) string { return quoteList(xs) }
