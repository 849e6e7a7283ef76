package main

import (
	"encoding/json"
	"os"
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

// TestRunOverTheLimitNamesTheFlag: a run refused for its estimate says
// that --max-events overrides the limit; one whose cost has no bound says
// what --max-events 0 would do.
func TestRunOverTheLimitNamesTheFlag(t *testing.T) {
	for _, cmd := range []string{"run", "chart"} {
		code, _, errs := run(t, "", cmd, scenarioFile, "--max-events", "1000")
		want := "retrylab " + cmd + ": --max-events N raises the limit; --max-events 0 runs it anyway (no limit)\n"
		if code != 1 || !strings.Contains(errs, "over the limit of 1000; reduce the workload, attempts, clients, runs or strategies\n") || !strings.HasSuffix(errs, want) {
			t.Errorf("%s: exit %d, stderr %q; want 1 and a last line %q", cmd, code, errs, want)
		}
	}
	// The user's scenario: E03-B, unlimited attempts, a 1 ms time-out, no
	// deadline: refused at once, where an event limit alone would stop it
	// only after 57 s.
	data, err := os.ReadFile(scenarioFile)
	if err != nil {
		t.Fatal(err)
	}
	var sc map[string]any
	if err := json.Unmarshal(data, &sc); err != nil {
		t.Fatal(err)
	}
	sc["strategies"] = []any{map[string]any{"name": "A", "max_attempts": 0, "attempt_timeout": "1ms"}}
	repro, _ := json.Marshal(sc)
	code, _, errs := run(t, string(repro), "run", "-")
	for _, want := range []string{
		`-: the scenario's cost has no bound: strategy "A" retries without limit (max_attempts 0)`,
		"give it max_attempts, or a backoff\n",
		"retrylab run: --max-events 0 would run it without a limit, and nothing but an interrupt would stop it\n",
	} {
		if code != 1 || !strings.Contains(errs, want) {
			t.Errorf("exit %d, stderr %q; want 1 and %q", code, errs, want)
		}
	}
}
