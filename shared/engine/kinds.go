package engine

// The kinds a scenario names, each list in the order forms offer them. The
// validator accepts exactly these; the playground's form, descriptions and
// converters read them from here (through Vocabulary in the browser).
var (
	ArrivalKinds     = []string{"poisson", "uniform", "closed", "burst"}
	ServiceTimeKinds = []string{"constant", "exponential", "lognormal"}
	PhaseKinds       = []string{"freeze", "outage", "capacity", "errors", "latency"}
	BackoffKinds     = []string{"none", "constant", "linear", "exponential"}
	JitterKinds      = []string{"none", "full", "equal", "decorrelated", "proportional", "additive"}
	BudgetKinds      = []string{"token_bucket", "ratio"}
	BreakerKinds     = []string{"consecutive", "ratio"}
	Placements       = []string{"inside", "outside"}
)

// PhaseFields names the fields each kind of phase takes besides kind, from,
// to and label; the validator refuses the others.
var PhaseFields = map[string][]string{
	"freeze":   {"status"},
	"outage":   {"status", "error", "latency"},
	"capacity": {"workers"},
	"errors":   {"rate", "status", "error", "latency"},
	"latency":  {"factor"},
}

// A Vocabulary is every list of kinds, for a form or a converter.
type Vocabulary struct {
	Arrivals     []string            `json:"arrivals"`
	ServiceTimes []string            `json:"service_times"`
	Phases       []string            `json:"phases"`
	PhaseFields  map[string][]string `json:"phase_fields"`
	Backoffs     []string            `json:"backoffs"`
	Jitters      []string            `json:"jitters"`
	Budgets      []string            `json:"budgets"`
	Breakers     []string            `json:"breakers"`
	Placements   []string            `json:"placements"`
}

// Kinds returns the vocabulary of scenarios.
func Kinds() Vocabulary {
	return Vocabulary{ArrivalKinds, ServiceTimeKinds, PhaseKinds, PhaseFields, BackoffKinds, JitterKinds, BudgetKinds, BreakerKinds, Placements}
}
