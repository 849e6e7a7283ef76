package engine

import (
	"encoding/json"
	"slices"
)

// The default search of a single-level strategy: DefaultSearch's knobs,
// and the knobs on the settings the strategy has that decide incidents
// (its timeouts, breaker, budget and hedging), traded down to
// DefaultSearch's cost. See DefaultSearchFor.

// defaultSearchCap is the most candidates a default search gives:
// DefaultSearch's 192, whatever the strategy.
const defaultSearchCap = 192

// latencyObjective is the objective a hedged strategy's default search
// adds: hedging is judged on its tail latency.
var latencyObjective = Objective{"latency_p99_ms", GoalMin}

// A tieredKnob is a knob of a default search with its value lists from
// the richest to the leanest: trading it down takes the next list, and an
// empty list leaves the knob out (the strategy keeps its own setting).
type tieredKnob struct {
	path  string
	tiers [][]json.RawMessage
	at    int
}

func (k *tieredKnob) values() []json.RawMessage { return k.tiers[k.at] }

// defaultTrades is the order in which a default search's knobs are
// traded down, one tier a step, until the candidates are at most
// defaultSearchCap (see DefaultSearchFor for why).
var defaultTrades = []string{"jitter", "backoff", "budget", "max_attempts", "breaker.placement", "budget", "budget", "backoff", "jitter"}

// singleLevelKnobs returns the knobs of the default search of st, a
// strategy of one level not kept to a library, and whether it varies
// the hedging delay.
func singleLevelKnobs(st *Strategy) ([]Knob, bool) {
	d := DefaultSearch("").Knobs
	hedged := st.Hedging != nil
	var ks []*tieredKnob
	add := func(path string, tiers ...[]json.RawMessage) {
		ks = append(ks, &tieredKnob{path: path, tiers: tiers})
	}
	add("max_attempts", d[0].Values, d[0].Values[:3])
	if !hedged {
		add("backoff", d[1].Values, []json.RawMessage{d[1].Values[0], d[1].Values[3]}, nil)
		add("jitter", d[2].Values, d[2].Values[:2], nil)
	}
	if b := st.Budget; b != nil {
		add("budget", budgetTiers(b)...)
	} else {
		add("budget", d[3].Values, d[3].Values[:2], nil)
	}
	if st.AttemptTimeout > 0 {
		add("attempt_timeout", aroundSpan(st.AttemptTimeout, 0))
	}
	if st.Deadline > 0 {
		add("deadline", aroundSpan(st.Deadline, st.MinAttemptTime))
	}
	if br := st.Breaker; br != nil {
		switch {
		case br.Kind == BreakerConsecutive:
			add("breaker.failures", aroundCount(br.Failures, 1, 1_000_000))
		case br.Failures != 0:
			add("breaker.failures", aroundCount(br.Failures, 1, br.WindowCalls))
		case br.Ratio > 0:
			add("breaker.ratio", aroundShare(br.Ratio))
		}
		add("breaker.placement", rawValues(`"inside"`, `"outside"`), nil)
	}
	if h := st.Hedging; h != nil {
		if h.DelayPercentile > 0 {
			add("hedging.delay_percentile", aroundPercentile(h.DelayPercentile))
		} else {
			add("hedging.delay", aroundSpan(h.Delay, 0))
		}
	}
	count := func() int {
		n := 1
		for _, k := range ks {
			n *= max(1, len(k.values()))
		}
		return n
	}
	for _, path := range defaultTrades {
		if count() <= defaultSearchCap {
			break
		}
		i := slices.IndexFunc(ks, func(k *tieredKnob) bool { return k.path == path })
		if i < 0 || ks[i].at+1 == len(ks[i].tiers) {
			continue
		}
		if path == "backoff" && ks[i].tiers[ks[i].at+1] == nil && (st.Backoff.Kind == "" || st.Backoff.Kind == BackoffNone) {
			continue // no backoff of its own to keep: the jitter knob needs one
		}
		ks[i].at++
	}
	var out []Knob
	for _, k := range ks {
		if vs := k.values(); len(vs) > 0 {
			out = append(out, Knob{Path: k.path, Values: slices.Clone(vs)})
		}
	}
	return out, hedged
}

// rawJSON marshals v, which cannot fail for the values here.
func rawJSON(v any) json.RawMessage {
	b, _ := json.Marshal(v)
	return b
}

// distinct drops the values equal (as JSON) to an earlier one.
func distinct(vs []json.RawMessage) []json.RawMessage {
	var out []json.RawMessage
	for _, v := range vs {
		if !slices.ContainsFunc(out, func(o json.RawMessage) bool { return string(o) == string(v) }) {
			out = append(out, v)
		}
	}
	return out
}

// aroundSpan returns half of d, d and twice d (at most MaxSpan), leaving
// out the values below floor (a deadline shorter than min_attempt_time
// is not valid).
func aroundSpan(d, floor Duration) []json.RawMessage {
	var out []json.RawMessage
	for _, x := range []Duration{d / 2, d, min(2*d, MaxSpan)} {
		if x >= floor && x > 0 {
			out = append(out, rawJSON(x))
		}
	}
	return distinct(out)
}

// aroundCount returns half of n (rounded down), n and twice n, within
// lo..hi.
func aroundCount(n, lo, hi int) []json.RawMessage {
	return distinct([]json.RawMessage{rawJSON(max(lo, n/2)), rawJSON(n), rawJSON(min(hi, 2*n))})
}

// aroundShare returns, for a share r in (0, 1], half of it, r and
// halfway from r to 1, to three decimals: 0.25, 0.5, 0.75 for 0.5.
func aroundShare(r float64) []json.RawMessage {
	return distinct([]json.RawMessage{rawJSON(round3(r / 2)), rawJSON(r), rawJSON(round3((1 + r) / 2))})
}

// aroundPercentile returns, for a hedging percentile p, the percentiles
// that hedge twice and half the share of calls p does (100 − p): 90, 95
// and 97.5 for 95 (the lower one p/2 when twice the share is all of them).
func aroundPercentile(p float64) []json.RawMessage {
	lo := 100 - 2*(100-p)
	if lo <= 0 {
		lo = p / 2
	}
	return distinct([]json.RawMessage{rawJSON(round3(lo)), rawJSON(p), rawJSON(round3(100 - (100-p)/2))})
}

// budgetTiers returns the tiers of the budget knob of a strategy with
// budget b: none; b itself; then, richest first, the other kind of
// DefaultSearch's budgets (a token bucket for a ratio, the 10% ratio for
// the others: a hedged level has no concurrency budget), b with the
// share of retries it allows (ratio, or a token bucket's token_ratio)
// halved and doubled, with its window halved and doubled, and with its
// reserve (min_per_second) dropped and doubled. The leaner tiers keep the
// share, then none or b, then b alone (no knob).
func budgetTiers(b *Budget) [][]json.RawMessage {
	d := DefaultSearch("").Knobs[3].Values
	own := rawJSON(b)
	with := func(f func(x *Budget)) json.RawMessage {
		x := *b
		f(&x)
		return rawJSON(&x)
	}
	other := d[1] // the 10% ratio
	if b.Kind == BudgetRatio {
		other = d[2]
	}
	var share []json.RawMessage
	switch b.Kind {
	case BudgetTokenBucket:
		if b.TokenRatio > 0 {
			share = append(share, with(func(x *Budget) { x.TokenRatio = round3(b.TokenRatio / 2) }),
				with(func(x *Budget) { x.TokenRatio = round3(b.TokenRatio * 2) }))
		}
	case BudgetRatio:
		share = append(share, with(func(x *Budget) { x.Ratio = round3(b.Ratio / 2) }),
			with(func(x *Budget) { x.Ratio = min(100, round3(b.Ratio*2)) }))
	case BudgetConcurrency:
		if b.Ratio > 0 {
			share = append(share, with(func(x *Budget) { x.Ratio = round3(b.Ratio / 2) }),
				with(func(x *Budget) { x.Ratio = min(1, round3(b.Ratio*2)) }))
		} else {
			share = append(share, with(func(x *Budget) { x.MinConcurrency = max(1, b.MinConcurrency/2) }),
				with(func(x *Budget) { x.MinConcurrency = 2 * max(1, b.MinConcurrency) }))
		}
	}
	var rest []json.RawMessage
	if b.Kind == BudgetRatio && b.Window > 0 {
		rest = append(rest, with(func(x *Budget) { x.Window = b.Window / 2 }), with(func(x *Budget) { x.Window = min(2*b.Window, MaxSpan) }))
		if b.MinPerSecond > 0 {
			rest = append(rest, with(func(x *Budget) { x.MinPerSecond = 0 }), with(func(x *Budget) { x.MinPerSecond = 2 * b.MinPerSecond }))
		}
	}
	base := []json.RawMessage{json.RawMessage(`null`), own}
	rich := slices.Concat(base, []json.RawMessage{other}, share, rest)
	return [][]json.RawMessage{distinct(rich), distinct(slices.Concat(base, share)), base, nil}
}
