package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/retrylab/retrylab/shared/engine"
	"github.com/retrylab/retrylab/shared/view"
)

// writeAcross prints, after writeSearch, what a search across variants
// (search.across) found in each variant: for every frontier point, one
// line per variant with the objectives' and constraints' metrics (the
// mean and the seeds' range), the worst case of each marked with "*".
// Each point's settings are the view's words, as the frontier table says
// them ("backoff exponential 1 s → 10 s", "no budget"). It prints nothing
// for a search of the scenario as written.
func writeAcross(w io.Writer, s *engine.Search, r *engine.SearchResult, sv *view.SearchView) {
	if len(s.Across) == 0 || len(r.Frontier) == 0 {
		return
	}
	var variants []string
	for _, v := range s.Across {
		what := "the scenario as written"
		if v.Path != "" {
			what = "sets " + v.Path
		}
		variants = append(variants, fmt.Sprintf("%q (%s)", v.Name, what))
	}
	fmt.Fprintf(w, "\nacross %d variants, every candidate on each (the %d simulations above): %s\n", len(s.Across), r.Simulations, strings.Join(variants, ", "))
	fmt.Fprintln(w, "the frontier's metrics above are each point's worst case over the variants; per variant (* the worst case):")
	metrics := s.JudgedMetrics()
	tw := tabwriter.NewWriter(w, 4, 0, 2, ' ', 0)
	for i, p := range r.Frontier {
		var settings []string
		for k, cell := range sv.Points[i].Settings {
			if !strings.HasPrefix(cell, "no ") { // "no budget" names its knob
				cell = s.Knobs[k].Path + " " + cell
			}
			settings = append(settings, cell)
		}
		fmt.Fprintf(tw, "%d. %s\n", i+1, strings.Join(settings, ", "))
		for _, v := range p.Variants {
			row := []string{"  " + v.Name}
			for _, m := range metrics {
				cell := m + " " + tableCell(m, v.Metrics[m], v.Spread)
				if p.Binding[m] == v.Name {
					cell += " *"
				}
				row = append(row, cell)
			}
			fmt.Fprintln(tw, strings.Join(row, "\t"))
		}
	}
	tw.Flush()
}
