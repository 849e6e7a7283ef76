//go:build !nosearch

package chart

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/retrylab/retrylab/shared/engine"
	"github.com/retrylab/retrylab/shared/internal/golden"
)

// searched runs testdata/search-scenario.json (E03-B with a search from C
// of 18 candidates, two objectives and a constraint), after edit changes
// its search.
func searched(t testing.TB, edit func(*engine.Search)) (*engine.Scenario, *engine.Result) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "search-scenario.json"))
	if err != nil {
		t.Fatal(err)
	}
	sc, err := engine.Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	if edit != nil {
		edit(sc.Search)
	}
	res, err := engine.Run(context.Background(), sc, engine.Options{NoSeries: true})
	if err != nil {
		t.Fatal(err)
	}
	return sc, res
}

func TestFrontier(t *testing.T) {
	sc, res := searched(t, nil)
	if len(res.Search.Frontier) < 2 || res.Search.Recommendation == nil {
		t.Fatalf("the search has %d frontier points and recommendation %v: the test wants a frontier to draw", len(res.Search.Frontier), res.Search.Recommendation)
	}
	got := render(t, res, Options{Picture: Frontier, Search: sc.Search})
	golden.Check(t, filepath.Join("testdata", "search-frontier.svg"), got)
	out := string(got)
	for _, want := range []string{"Success rate in the affected window, higher is better", "Peak calls in 100 ms, lower is better", ">recommended<", "search frontier"} {
		if !strings.Contains(out, want) {
			t.Errorf("the frontier picture lacks %q", want)
		}
	}
	// Every point is numbered, as the table numbers them.
	for i := range res.Search.Frontier {
		if n := itoa(i + 1); !strings.Contains(out, ">"+n+"<") && !strings.Contains(out, ">"+n+", ") && !strings.Contains(out, ", "+n+"<") && !strings.Contains(out, ", "+n+",") && !strings.Contains(out, "–"+n+"<") && !strings.Contains(out, ">"+n+"–") {
			t.Errorf("point %d is not labelled", i+1)
		}
	}
	narrow := render(t, res, Options{Picture: Frontier, Search: sc.Search, Width: 400, Theme: "dark"})
	golden.Check(t, filepath.Join("testdata", "search-frontier-narrow.svg"), narrow)
}

func TestFrontierOneObjective(t *testing.T) {
	sc, res := searched(t, func(s *engine.Search) {
		s.Objectives = s.Objectives[1:] // the lowest peak only
		s.Constraints = nil
	})
	got := render(t, res, Options{Picture: Frontier, Search: sc.Search, Theme: "light"})
	golden.Check(t, filepath.Join("testdata", "search-frontier-one.svg"), got)
	if out := string(got); !strings.Contains(out, "frontier point, best first") || !strings.Contains(out, "Peak calls in 100 ms, lower is better") {
		t.Error("a one-objective frontier is not drawn against the points' rank")
	}
}

func TestFrontierErrors(t *testing.T) {
	sc, res := searched(t, func(s *engine.Search) {
		s.Constraints = []engine.Constraint{{Metric: "peak_per_100ms", Op: engine.OpAtMost, Value: 1}}
	})
	for _, tc := range []struct {
		desc string
		res  *engine.Result
		opt  Options
		want string
	}{
		{"no search in the options", res, Options{Picture: Frontier}, "needs the scenario's search"},
		{"an empty frontier", res, Options{Picture: Frontier, Search: sc.Search}, "frontier is empty"},
		{"a result without a search", result(t, "e03b-synchronized-recovery"), Options{Picture: Frontier, Search: sc.Search}, "has no search"},
	} {
		err := Render(io.Discard, tc.res, tc.opt)
		var oe *OptionError
		if !errors.As(err, &oe) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an OptionError containing %q", tc.desc, err, tc.want)
		}
	}
}

func itoa(i int) string { return strings.TrimSpace(label(float64(i))) }

func TestFrontierHostileNames(t *testing.T) {
	sc, base := searched(t, nil)
	res := *base
	found := *base.Search
	res.Scenario = `"><script>alert(1)</script>`
	found.Strategy = `]]><x onload="alert(1)">`
	found.Recommendation = &engine.Recommendation{SearchPoint: found.Frontier[0], Reason: "<script>alert(2)</script>"}
	res.Search = &found
	for _, w := range []float64{0, 400} {
		out := string(render(t, &res, Options{Picture: Frontier, Search: sc.Search, Width: w}))
		if strings.Contains(out, "<script") || strings.Contains(out, "<x ") {
			t.Errorf("width %v: hostile text came through unescaped", w)
		}
	}
}

// TestFrontierLabelsWhole: the frontier's subtitle and axis labels take a
// second line rather than be cut, at the default width, at 600 (an
// embed's) and at a phone's 400, with the success rate on the y-axis as
// the built-in e03b-policy-search has it.
func TestFrontierLabelsWhole(t *testing.T) {
	sc, res := searched(t, func(s *engine.Search) {
		s.Objectives[0], s.Objectives[1] = s.Objectives[1], s.Objectives[0]
	})
	for _, w := range []float64{0, 600, 400} {
		out := string(render(t, res, Options{Picture: Frontier, Search: sc.Search, Width: w}))
		body := out[strings.Index(out, "</desc>"):]
		body = body[strings.Index(body, `class="t"`):] // the title may be cut, the chart's name being the scenario's
		body = body[strings.Index(body, "</text>"):]
		if strings.Contains(body, "…") {
			t.Errorf("width %v: a label is cut:\n%s", w, body)
		}
		for _, want := range []string{"Success rate in the affected window", "higher is better", "Peak calls in 100 ms", "lower is better", "numbered as in the table"} {
			if !strings.Contains(body, want) {
				t.Errorf("width %v: the labels lack %q", w, want)
			}
		}
	}
}
