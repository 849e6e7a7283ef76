package engine

import (
	"fmt"
	"testing"
	"time"
)

// TestSeriesBucketIsTheNarrowestWithin600: a run's series get the
// narrowest bucket, a multiple of the run's bins, that covers its span in
// at most 600 buckets: from the 1-2-5 list while one of those is a
// multiple of the bins, else the smallest multiple of the bins that does.
// The bins of a run longer than about 11.6 hours (65,536 bins of 10 ms
// doubled seven times, 1.28 s) divide none of the list.
func TestSeriesBucketIsTheNarrowestWithin600(t *testing.T) {
	const ms = int64(time.Millisecond)
	long := int64(1280 * time.Millisecond)
	for _, tc := range []struct {
		span, base, want int64
	}{
		{60000 * ms, 10 * ms, 100 * ms},             // exactly 600 buckets of 100 ms
		{60010 * ms, 10 * ms, 200 * ms},             // one bin more: 601 of them
		{33000 * long, long, 55 * long},             // exactly 600 buckets of 55 bins
		{33001 * long, long, 56 * long},             // one bin more: 601 of them
		{33599 * long, long, 56 * long},             // 599.98 buckets of 56 bins
		{65536 * long, long, 110 * long},            // the most bins a run keeps
		{33750 * 2 * long, 2 * long, 57 * 2 * long}, // 24 hours in bins of 2.56 s
	} {
		t.Run(fmt.Sprint(tc.span/ms, "ms/", tc.base/ms, "ms"), func(t *testing.T) {
			got := chooseBucket(&model{}, tc.span, tc.base)
			if got != tc.want {
				t.Errorf("bucket %d ms, want %d ms", got/ms, tc.want/ms)
			}
			if n := (tc.span + got - 1) / got; got%tc.base != 0 || n > 600 {
				t.Errorf("bucket %d ms: %d buckets of %d ms bins, want at most 600 of a multiple of the bins", got/ms, n, tc.base/ms)
			}
		})
	}
}

// TestFineSeriesUpTo20000Windows: a run's fine series at a resolution is
// kept while the run's span holds at most 20,000 of its windows. Arrivals
// once a second from 0 s to 199 s, each answered in 995 ms, end the span
// at 199.995 s: 20,000 windows of 10 ms, kept; answered in 1005 ms they
// end it at 200.005 s, 20,001 windows, and only the coarser resolutions
// are kept.
func TestFineSeriesUpTo20000Windows(t *testing.T) {
	for _, tc := range []struct {
		service string
		windows map[float64]int // resolution (ms) → windows; absent: left out
	}{
		{"995ms", map[float64]int{10: 20000, 100: 2000, 1000: 200}},
		{"1005ms", map[float64]int{100: 2001, 1000: 201}},
	} {
		t.Run(tc.service, func(t *testing.T) {
			res := mustRun(t, `{"version": 1, "name": "fine", "seeds": [1],
				"workload": {"clients": 10, "arrival": "uniform", "rate": 1, "duration": "200s"},
				"dependency": {"workers": 10, "service_time": {"kind": "constant", "mean": "`+tc.service+`"}},
				"strategies": [{"name": "once", "max_attempts": 1}]}`)
			got := map[float64]int{}
			for _, f := range strategy(t, res, "once").Series.Fine {
				got[f.ResolutionMS] = len(f.Attempts)
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.windows) {
				t.Errorf("fine series (resolution ms: windows) %v, want %v", got, tc.windows)
			}
		})
	}
}
