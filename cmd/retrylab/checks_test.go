package main

import (
	"strings"
	"testing"

	"github.com/retrylab/retrylab/shared/chart"
)

// TestChartRefusesAnUnknownMetric: every picture refuses a --metric that
// is not a metric, before it runs, with the near misses and the list.
func TestChartRefusesAnUnknownMetric(t *testing.T) {
	for _, picture := range append([]string{""}, chart.Pictures...) {
		args := []string{"chart", "e03b-synchronized-recovery", "--metric", "peak_per_100"}
		if picture != "" {
			args = append(args, "--picture", picture)
		}
		code, out, errs := run(t, "", args...)
		want := `retrylab chart: --metric "peak_per_100" is not a metric name; did you mean "peak_per_10ms" or "peak_per_100ms" or "peak_per_1s"? (metrics: operations, succeeded,`
		if code != 2 || !strings.HasPrefix(errs, want) || out != "" {
			t.Errorf("--picture %q: exit %d, stderr %.300q, %d bytes out; want 2 and %q", picture, code, errs, len(out), want)
		}
	}
}
