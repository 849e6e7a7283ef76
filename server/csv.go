// The metrics as CSV (GET /s/:id/metrics.csv), for spreadsheets: one row
// per strategy and metric (and sweep value), then, with several calls in
// the plan, one per strategy, call and metric, the metric named
// "call: metric"; guarded against formulas.

package server

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/retrylab/retrylab/shared/engine"
)

func (s *Server) handleCSV(c echo.Context) error {
	id := c.Param("id")
	sub, err := s.begin(c, id)
	if sub == nil {
		return err
	}
	res, err := s.runs.result(c.Request().Context(), id, sub.sc)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	num := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	row := func(prefix []string, strategy, metric string, v float64, mm engine.MinMax, spread bool) {
		rec := append(append([]string(nil), prefix...), csvSafe(strategy), csvSafe(metric), num(v), "", "")
		if spread {
			rec[len(rec)-2], rec[len(rec)-1] = num(mm.Min), num(mm.Max)
		}
		w.Write(rec)
	}
	write := func(prefix []string, strats []engine.StrategyResult) {
		for _, st := range strats {
			for _, name := range engine.MetricNames() {
				if engine.MayNotApply(name) && !st.Metrics.Applies(name) {
					// Not applicable (no fault to recover from, no
					// span to judge it in), or no recovery time (not
					// recovered under load): an empty value, not 0.
					w.Write(append(append([]string(nil), prefix...), csvSafe(st.Name), csvSafe(name), "", "", ""))
					continue
				}
				v, _ := st.Metrics.Metric(name)
				mm, ok := st.Spread[name]
				row(prefix, st.Name, name, v, mm, ok)
			}
		}
		for _, st := range strats {
			for _, cr := range st.Calls {
				for _, name := range engine.CallMetricNames() {
					v, _ := cr.Metrics.Metric(name)
					mm, ok := cr.Spread[name]
					row(prefix, st.Name, cr.Name+": "+name, v, mm, ok)
				}
			}
		}
	}
	if len(res.Sweep) > 0 {
		w.Write([]string{"sweep_value", "strategy", "metric", "value", "min", "max"})
		for _, pt := range res.Sweep {
			v, _ := json.Marshal(pt.Value)
			write([]string{csvSafe(string(v))}, pt.Strategies)
		}
	} else {
		w.Write([]string{"strategy", "metric", "value", "min", "max"})
		write(nil, res.Strategies)
	}
	w.Flush()
	c.Response().Header().Set("Content-Disposition", `attachment; filename="retrylab-`+id+`.csv"`)
	return c.Blob(http.StatusOK, "text/csv; charset=utf-8", buf.Bytes())
}

// csvSafe keeps a spreadsheet from reading a user's text as a formula,
// including one after leading spaces, which spreadsheets skip.
func csvSafe(s string) string {
	t := strings.TrimLeft(s, " \t\r\n")
	if (t != "" && strings.ContainsRune("=+-@", rune(t[0]))) || (s != "" && strings.ContainsRune("\t\r", rune(s[0]))) {
		return "'" + s
	}
	return s
}
