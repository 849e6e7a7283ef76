package view

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/retrylab/retrylab/shared/engine"
	"github.com/retrylab/retrylab/shared/scenarios"
)

func TestZZDump(t *testing.T) {
	if os.Getenv("DUMP") == "" {
		t.Skip()
	}
	f, _ := os.Create(os.Getenv("DUMP"))
	defer f.Close()
	for _, b := range scenarios.All() {
		sc, err := scenarios.Parse(b.Scenario)
		if err != nil {
			t.Fatal(err)
		}
		t0 := time.Now()
		res, err := engine.Run(context.Background(), sc, engine.Options{})
		if err != nil {
			t.Fatal(err)
		}
		v := Of(sc, res, Options{})
		fmt.Fprintf(f, "== %s (%v, %d seeds) focus %v\n%s\n", b.Slug, time.Since(t0).Round(time.Millisecond), len(res.Seeds), v.Focus, v.Verdict)
	}
}

func TestZZMetrics(t *testing.T) {
	slug := os.Getenv("SLUG")
	if slug == "" {
		t.Skip()
	}
	b, _ := scenarios.Get(slug)
	sc, _ := scenarios.Parse(b.Scenario)
	res, err := engine.Run(context.Background(), sc, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	fmt.Printf("phases %+v\n", res.Phases)
	for _, st := range res.Strategies {
		m := st.Metrics
		fmt.Printf("%s: ops %.0f sr %.4f %v q%v aff %.0f asr %.4f %v q%v calls %.0f %v fast %.0f p99 %.0f sp99 %.0f rec %v\n", st.Name, m.Operations, m.SuccessRate, st.Spread["success_rate"], st.Quantiles["success_rate"], m.AffectedOperations, m.AffectedSuccessRate, st.Spread["affected_success_rate"], st.Quantiles["affected_success_rate"], m.DependencyCalls, st.Spread["dependency_calls"], m.FastFailed, m.LatencyP99ms, m.SuccessLatencyP99ms, m.Recovered)
		for _, c := range st.Calls {
			fmt.Printf("   call %s dep %s class %s: calls %.0f sr %.4f %v depcalls %.0f\n", c.Name, c.Dependency, c.Class, c.Metrics.Calls, c.Metrics.SuccessRate, c.Spread["success_rate"], c.Metrics.DependencyCalls)
		}
	}
}
