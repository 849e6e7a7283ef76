package scenarios

import (
	"fmt"
	"slices"
	"time"

	"github.com/retrylab/retrylab/shared/engine"
)

// An Incident is one entry of the suite retrylab check runs a policy
// through: a built-in scenario whose strategies the policy replaces. Why
// says what the incident tests in a policy and where the built-in comes
// from; the docs list it (docs/check.md).
type Incident struct {
	Name string `json:"name"`
	Slug string `json:"slug"`
	Why  string `json:"why"`
	// Settle is how long after the trigger the metastability probe's
	// judged window starts, for "not metastable" (0: the probe's
	// default, probe.DefaultSettle); shorter where the built-in
	// ends sooner than that after its trigger.
	Settle engine.Duration `json:"settle,omitempty"`
	// Extended puts the incident in the extended suite only (retrylab
	// check --suite extended): one that costs too much for every pull
	// request.
	Extended bool `json:"extended,omitempty"`
}

// Suites are the suites of Incidents retrylab check --suite names: the
// default one, and the extended one, which adds the Extended incidents.
var Suites = []string{"default", "extended"}

// Suite returns the incidents of the named suite, one of Suites, in the
// order of Incidents.
func Suite(name string) []Incident {
	var out []Incident
	for _, in := range Incidents {
		if !in.Extended || name == "extended" {
			out = append(out, in)
		}
	}
	return out
}

// Incidents is the default suite of retrylab check, in the order it
// reports them. A new incident is one entry here, and the tests require
// of each a built-in that exists and a reason.
var Incidents = []Incident{
	{Name: "freeze", Slug: ImportWorkload,
		Why: "a 1.5 s freeze whose backlog is answered 503 at once, then 5 s at half capacity: retries that are not spread out arrive together and keep the halved dependency overloaded (Brooker, \"Exponential Backoff And Jitter\", AWS Architecture Blog, 2015)"},
	{Name: "outage", Slug: "breaker-timeline",
		Why:    "6 s of 503 from every call (the built-in's source: \"The Retry Policy That Took Down the Entire Cluster\"): every attempt fails, so all a policy adds to the load is retries, the load a retry budget exists to cap (Google SRE book, \"Handling Overload\")",
		Settle: engine.Duration(2 * time.Second)}, // the run ends 6 s after the outage
	{Name: "failover", Slug: "failover-incident",
		Why: "20 s of connection errors while a database fails over (the built-in's source: \"Resilience in .NET (2/6): smart retry policies with Polly v8\"): retries that outlive the failover fill its queue when it returns, and a short failover becomes a long incident"},
	{Name: "load-sensitive", Slug: "runaway-cascade",
		Why:      "a downstream whose errors rise with its load: each retry makes the next attempt likelier to fail, the feedback loop of a metastable failure (Bronson et al., HotOS 2021); extended only, as its storms make the most events of the suite (about 2 s a policy on 20 seeds, measured in docs/check.md)",
		Extended: true},
	{Name: "load-spike", Slug: "load-spike-storm",
		Why:      "10 s of twice the traffic at unchanged capacity: requests queue past the timeout, and retries that are not limited keep the dependency overloaded after the spike, at normal load (Bronson et al., HotOS 2021; load increases are one of the two trigger classes Huang et al. found, OSDI 2022); extended only, as its 2 minutes at 800 operations a second cost about 2 s a policy on 20 seeds",
		Settle:   engine.Duration(10 * time.Second),
		Extended: true},
}

// Run returns the incident's scenario with strategies in place of its
// own: the built-in's workload, dependency, phases and report, each
// strategy's name kept.
func (in Incident) Run(strategies []engine.Strategy) (*engine.Scenario, error) {
	b, ok := Get(in.Slug)
	if !ok {
		return nil, fmt.Errorf("incident %s: the built-in %s is missing", in.Name, in.Slug)
	}
	sc, err := b.Parse()
	if err != nil {
		return nil, err
	}
	sc.Strategies = slices.Clone(strategies)
	return sc, nil
}
