package convert

import (
	"fmt"
	"math"
	"slices"

	"github.com/retrylab/retrylab/shared/engine"
	"github.com/retrylab/retrylab/shared/scenarios"
)

// assumedBackends is the number of backends an import assumes when the
// document says how hosts are ejected or retried on but not how many
// there are (a DNS name, EDS, a Kubernetes service): each such import says
// so in a note.
const assumedBackends = 3

// hostsBackends gives the backends of a document that lists count hosts
// (0: it does not say), at path, with a note when count is assumed or cut.
func hostsBackends(n *notes, path string, count int) *engine.Backends {
	switch {
	case count >= 2 && count <= engine.MaxBackends:
		n.info(path, "lists %d hosts: the dependency is %d backends (dependency.backends), sharing the dependency's workers and queue", count, count)
		return &engine.Backends{Count: count}
	case count > engine.MaxBackends:
		n.warn(path, "lists %d hosts; RetryLab simulates at most %d backends behind a balancer: imported as %d", count, engine.MaxBackends, engine.MaxBackends)
		return &engine.Backends{Count: engine.MaxBackends}
	}
	n.info(path, "does not say how many hosts serve the cluster (a DNS name or service may stand for several): imported as %d backends (dependency.backends.count), sharing the dependency's workers and queue; set your hosts' number, 2..%d", assumedBackends, engine.MaxBackends)
	return &engine.Backends{Count: assumedBackends}
}

// Scenario puts the imported strategies in place of those of the built-in
// slug, as scenarios.ImportedInto does, with the imported backends, if
// any, on its dependency, its capacity shared among them (ShareCapacity,
// whose notes it appends to im.Notes).
func (im *Imported) Scenario(slug, format, source string) (*engine.Scenario, error) {
	if im.Backends == nil {
		return scenarios.ImportedInto(slug, im.Strategies, format, source)
	}
	// ImportedInto validates the scenario before it has the backends a
	// retry host predicate needs: it gets the strategies without their
	// predicates, which come back with the backends.
	bare := slices.Clone(im.Strategies)
	for i := range bare {
		bare[i].RetryHostPredicate, bare[i].HostSelectionRetryMaxAttempts = "", 0
		bare[i].Layers = slices.Clone(bare[i].Layers)
		for j := range bare[i].Layers {
			bare[i].Layers[j].RetryHostPredicate, bare[i].Layers[j].HostSelectionRetryMaxAttempts = "", 0
		}
	}
	sc, err := scenarios.ImportedInto(slug, bare, format, source)
	if err != nil {
		return nil, err
	}
	d := &sc.Dependency
	if n := len(sc.Dependencies); n > 1 {
		return nil, engine.Errors{{Path: "backends", Value: slug, Message: fmt.Sprintf("has %d dependencies; the imported backends are one dependency's: import into a built-in with one dependency", n)}}
	} else if n == 1 {
		d = &sc.Dependencies[0]
	}
	im.Notes = append(im.Notes, ShareCapacity(d, *im.Backends)...)
	sc.Strategies = im.Strategies
	if err := sc.Validate(); err != nil {
		return nil, err
	}
	return sc, nil
}

// ShareCapacity puts b on d, a dependency that describes the whole
// service (a built-in's), with its capacity shared among the backends, so
// that the totals stay d's: each backend is the dependency as described
// (docs/scenario-format.md), so its workers, queue_capacity, capacity
// phases' workers and rate limiter's burst are d's divided by b.Count,
// rounded to the nearest whole number and at least 1, and its rate
// limiter's rate is d's divided by b.Count; an autoscaler, which over
// backends counts backends, gets its min and max in backends
// (autoscaleBackends). It returns a note for each split that is not
// exact, with the totals before and after.
//
// A d that has backends already (the playground's scenario, imported into
// twice) has its totals as its capacity times their count: those are
// shared.
func ShareCapacity(d *engine.Dependency, b engine.Backends) []Note {
	had := 1
	if d.Backends != nil && d.Backends.Count > 1 {
		had = d.Backends.Count
	}
	d.Backends = &b
	n := b.Count
	if n == had {
		return nil
	}
	var list []Note
	share := func(path, what string, v *int) {
		if *v <= 0 {
			return
		}
		total := *v * had
		each := max(int(math.Round(float64(total)/float64(n))), 1)
		if each*n != total {
			list = append(list, Note{Path: path, Level: Info, Message: fmt.Sprintf("%d %s over %d backends: %d each, %d in all", total, what, n, each, each*n)})
		}
		*v = each
	}
	share("dependency.workers", "workers", &d.Workers)
	share("dependency.queue_capacity", "queue places", &d.QueueCapacity)
	d.Phases = slices.Clone(d.Phases)
	for i := range d.Phases {
		share(fmt.Sprintf("dependency.phases[%d].workers", i), "workers", &d.Phases[i].Workers)
	}
	if a := d.Autoscale; a != nil {
		c := *a
		list = append(list, autoscaleBackends(&c, had, d.Workers, n)...)
		d.Autoscale = &c
	}
	if rl := d.RateLimit; rl != nil {
		c := *rl
		c.Rate = c.Rate * float64(had) / float64(n)
		share("dependency.rate_limit.burst", "tokens of burst", &c.Burst)
		d.RateLimit = &c
	}
	return list
}

// Backends are the backends ExportFrom writes for the strategies of sc:
// its dependency's, when it has one dependency (nil when it has several,
// whose exports name none).
func Backends(sc *engine.Scenario) *engine.Backends {
	switch len(sc.Dependencies) {
	case 0:
		return sc.Dependency.Backends
	case 1:
		return sc.Dependencies[0].Backends
	}
	return nil
}

// autoscaleBackends turns a, an autoscaler of a dependency that had had
// servers, into one over n backends of each workers: over backends the
// autoscaler adds and removes whole backends (docs/scenario-format.md),
// so its min and max count backends. An autoscaler of one server counted
// workers: its bounds become the backends that hold as many workers,
// rounded to the nearest, within 1..engine.MaxBackends; one over backends
// keeps its bounds. Either way the bounds widen to hold n, the backends
// the dependency starts with. It returns a note saying the bounds when
// they are not the ones a had.
func autoscaleBackends(a *engine.Autoscale, had, each, n int) []Note {
	lo, hi := a.Min, a.Max
	if had == 1 {
		in := func(workers int) int {
			return min(max(int(math.Round(float64(workers)/float64(each))), 1), engine.MaxBackends)
		}
		a.Min, a.Max = in(a.Min), in(a.Max)
	}
	a.Min, a.Max = min(a.Min, n), max(a.Max, n)
	if a.Min == lo && a.Max == hi {
		return nil
	}
	msg := fmt.Sprintf("the autoscaler's %d..%d backends become %d..%d, to hold the %d it starts with", lo, hi, a.Min, a.Max, n)
	if had == 1 {
		msg = fmt.Sprintf("the autoscaler's %d..%d workers become %d..%d backends of %d workers (%d..%d workers): over backends it adds and removes whole backends",
			lo, hi, a.Min, a.Max, each, a.Min*each, a.Max*each)
		if a.Max == engine.MaxBackends && hi > engine.MaxBackends*each {
			msg += fmt.Sprintf(", %d at most", engine.MaxBackends)
		}
	}
	return []Note{{Path: "dependency.autoscale", Level: Info, Message: msg}}
}
