package engine

import (
	"cmp"
	"math"
	"reflect"
	"slices"
	"strings"
)

// Quantiles are a metric's 5th, 50th and 95th percentiles over the seeds,
// by nearest rank: the value at index ⌈p·n⌉-1 of the n seeds' values
// sorted (as the latency percentiles are), so each is one seed's value,
// exactly, whatever the platform.
type Quantiles struct {
	P5  float64 `json:"p5"`
	P50 float64 `json:"p50"`
	P95 float64 `json:"p95"`
}

// A SeedValue is a metric's value on one seed, the seed as Result.Seeds
// gives it.
type SeedValue struct {
	Seed  int64   `json:"seed"`
	Value float64 `json:"value"`
}

// A ThresholdResult says on how many of the seeds a strategy crosses one
// of the scenario's report.thresholds: its metric does not meet the
// condition (op and value). Share is Crossed over the seeds.
type ThresholdResult struct {
	Constraint
	Crossed int     `json:"crossed"`
	Seeds   int     `json:"seeds"`
	Share   float64 `json:"share"`
}

// Headline are the metrics a comparison may be about when the scenario
// names no focus (report.focus), in order of preference on ties: the view
// chooses its focus among them, and a result gives each one's worst seed.
var Headline = []string{
	"success_rate", "affected_success_rate", "peak_per_100ms", "peak_per_10ms", "peak_per_1s",
	"dependency_calls", "amplification", "recovery_s", "duplicates", "wasted_work",
	"goodput_per_s", "success_latency_p99_ms", "settle_s",
}

// worstSeedMetrics are the metrics whose worst seed a result of sc gives:
// its report.focus, then the headline metrics, each once.
func worstSeedMetrics(sc *Scenario) []string {
	out := slices.Clone(sc.Report.Focus)
	for _, k := range Headline {
		if !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	return out
}

// WorseDirection returns which way a metric gets worse over seeds: -1 when
// lower is worse, 1 when higher is worse, 0 when it has no direction.
// Failed operations, which have no direction between strategies (one may
// make fewer operations), are worse the more there are on one strategy's
// seeds.
func WorseDirection(key string) int {
	if key == "failed" {
		return 1
	}
	info, _ := DescribeMetric(key)
	return -info.Better
}

// tail returns, for a strategy's runs on the seeds, each metric's
// quantiles (left out, as in meanSpread, for an omitted metric that is 0 on
// every seed), the worst seed of each metric worstSeedMetrics names that
// has a direction (the first such seed on ties), and how often each of
// the thresholds is crossed.
func tail(runs []runOutput, seeds []uint64, sc *Scenario) (map[string]Quantiles, map[string]SeedValue, []ThresholdResult) {
	// Every metric on every seed, metric after metric, read by reflection
	// once per seed: a field at a time would allocate per seed and field
	// under wasm.
	t := reflect.TypeFor[Metrics]()
	n, nf := len(runs), t.NumField()
	vals := make([]float64, nf*n)
	for j := range runs {
		v := reflect.ValueOf(&runs[j].metrics).Elem()
		for i := range nf {
			vals[i*n+j] = v.Field(i).Float()
		}
	}
	field := make(map[string]int, nf)
	qs := map[string]Quantiles{}
	for i := range nf {
		name, opts, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		field[name] = i
		xs := vals[i*n : (i+1)*n]
		if strings.Contains(opts, "omitempty") && !slices.ContainsFunc(xs, func(x float64) bool { return x != 0 }) {
			continue
		}
		if slices.ContainsFunc(xs, math.IsNaN) {
			continue // does not apply on some seed: see meanSpread
		}
		qs[name] = QuantilesOf(xs)
	}
	worst := map[string]SeedValue{}
	for _, key := range worstSeedMetrics(sc) {
		dir := WorseDirection(key)
		if dir == 0 {
			continue
		}
		xs := vals[field[key]*n : (field[key]+1)*n]
		if slices.ContainsFunc(xs, math.IsNaN) {
			continue // does not apply on some seed: see meanSpread
		}
		w := 0
		for j, x := range xs {
			if (dir > 0 && x > xs[w]) || (dir < 0 && x < xs[w]) {
				w = j
			}
		}
		worst[key] = SeedValue{Seed: int64(seeds[w]), Value: xs[w]}
	}
	var ths []ThresholdResult
	for _, c := range sc.Report.Thresholds {
		tr := ThresholdResult{Constraint: c, Seeds: n}
		for _, x := range vals[field[c.Metric]*n : (field[c.Metric]+1)*n] {
			if !c.Meets(x) {
				tr.Crossed++
			}
		}
		tr.Share = round6(float64(tr.Crossed) / float64(n))
		ths = append(ths, tr)
	}
	return qs, worst, ths
}

// QuantilesOf returns the nearest-rank quantiles of xs (see Quantiles),
// which it leaves as they are: those a result and a search's frontier
// points carry.
func QuantilesOf(xs []float64) Quantiles {
	s := slices.Clone(xs)
	slices.SortFunc(s, cmp.Compare[float64])
	// ⌈pct·n/100⌉-1 in integers, so no rounding can move a rank.
	at := func(pct int) float64 { return s[max((pct*len(s)+99)/100-1, 0)] }
	return Quantiles{P5: at(5), P50: at(50), P95: at(95)}
}
