package server

import (
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/retrylab/retrylab/shared/chart"
	"github.com/retrylab/retrylab/shared/engine"
	"github.com/retrylab/retrylab/shared/scenarios"
)

// A scenarioView is what the scenario page and the embed show.
type scenarioView struct {
	ID, Title, Description, Source string
	LookAt                         string
	Builtin                        bool
	Notes                          []string
	Workload, Dependency, Timeline []string
	Strategies                     []strategyView
	Warnings                       []string
	RunError                       string

	Runs        int
	Columns     []string
	Rows        []chart.Row
	SweepPath   string
	SweepRows   []chart.Row
	Charts      []chartView
	Resolutions []resolutionLink

	PageURL, PlaygroundURL, ScenarioURL, ResultURL, CSVURL string
	Markdown, IFrame, OEmbed                               string
}

type strategyView struct {
	Name, Description string
	Policy            []string
	Layers            [][]string
}

type chartView struct{ URL, Alt string }

type resolutionLink struct {
	Label, URL string
	Current    bool
}

var resolutions = []string{"10ms", "100ms", "1s"}

func (s *Server) view(c echo.Context, id string, sc *engine.Scenario, b *scenarios.Builtin, res *engine.Result) *scenarioView {
	base := s.baseURL(c)
	v := &scenarioView{
		ID: id, Title: title(sc, b), Description: sc.Description, Builtin: b != nil,
		Workload:      describeWorkload(&sc.Workload),
		Dependency:    describeDependency(&sc.Dependency),
		PageURL:       base + "/s/" + id,
		PlaygroundURL: "/?s=" + url.QueryEscape(id),
		ScenarioURL:   "/api/scenarios/" + id,
		ResultURL:     "/api/scenarios/" + id + "/result",
		CSVURL:        "/s/" + id + "/metrics.csv",
	}
	if b != nil {
		v.Description = b.Summary
		v.Source = sourceText(b.Source)
		v.LookAt = b.LookAt
		v.Notes = b.Notes
	}
	chartURL := "/s/" + id + "/chart.svg"
	resolution := c.QueryParam("res")
	if !slices.Contains(resolutions, resolution) {
		resolution = "100ms"
	}
	// The snippets show the chart the reader is looking at: its resolution,
	// in the light theme that suits most documents.
	picture := "?picture=attempts&res=" + resolution
	if sc.Sweep != nil {
		picture = "?picture=sweep&metric=success_rate"
	}
	v.Markdown = fmt.Sprintf("![%s](%s%s%s&theme=light)", markdownText(v.Title), base, chartURL, picture)
	v.IFrame = fmt.Sprintf(`<iframe src="%s/embed/%s%s&theme=light" width="760" height="490" title="RetryLab: %s" loading="lazy" style="border:0;max-width:100%%"></iframe>`, base, id, picture, attrText(v.Title))
	v.OEmbed = base + "/oembed?url=" + url.QueryEscape(v.PageURL+picture)
	for i := range sc.Dependency.Phases {
		v.Timeline = append(v.Timeline, describePhase(&sc.Dependency.Phases[i]))
	}
	for _, st := range sc.Strategies {
		sv := strategyView{Name: st.Name, Description: st.Description, Policy: describePolicy(&st.Policy)}
		for i := range st.Layers {
			sv.Layers = append(sv.Layers, describePolicy(&st.Layers[i]))
		}
		v.Strategies = append(v.Strategies, sv)
		v.Columns = append(v.Columns, st.Name)
	}
	v.Warnings = engine.Warnings(sc)
	if sc.Sweep != nil {
		v.SweepPath = sc.Sweep.Path
		for _, m := range []string{"success_rate", "attempts", "amplification"} {
			v.Charts = append(v.Charts, chartView{URL: chartURL + "?picture=sweep&metric=" + m, Alt: m + " against " + sc.Sweep.Path})
		}
	} else {
		for _, r := range resolutions {
			v.Resolutions = append(v.Resolutions, resolutionLink{Label: r, URL: "/s/" + id + "?res=" + r, Current: r == resolution})
		}
		q := "&res=" + url.QueryEscape(resolution)
		v.Charts = []chartView{
			{URL: chartURL + "?picture=attempts" + q, Alt: "Calls reaching the dependency per " + resolution + ", one line per strategy"},
			{URL: chartURL + "?picture=outcomes", Alt: "Operations succeeded and failed, retries and refused calls over time, per strategy"},
			{URL: chartURL + "?picture=queue", Alt: "Queue length and operations in flight over time"},
			{URL: chartURL + "?picture=compare&metric=success_rate", Alt: "Success rate by strategy"},
			{URL: chartURL + "?picture=latency", Alt: "Latency percentiles by strategy"},
		}
	}
	if res == nil {
		return v
	}
	if len(res.Sweep) > 0 {
		v.SweepRows = chart.SweepRows(res)
		return v
	}
	v.Rows = chart.Rows(res.Strategies)
	v.Runs = len(res.Seeds)
	return v
}

// title is what pages, embeds and oEmbed call a scenario.
func title(sc *engine.Scenario, b *scenarios.Builtin) string {
	switch {
	case b != nil:
		return b.Title
	case sc.Name != "":
		return sc.Name
	}
	return "Untitled scenario"
}

// sourceText names a built-in's source: title, author and date as known.
func sourceText(s scenarios.Source) string {
	parts := []string{s.Title}
	for _, p := range []string{s.Author, s.Date} {
		if p != "" {
			parts = append(parts, p)
		}
	}
	return strings.Join(parts, ", ")
}

// markdownText keeps a title from breaking out of Markdown link text.
func markdownText(s string) string {
	out := make([]rune, 0, len(s))
	for _, r := range s {
		switch r {
		case '[', ']', '(', ')', '\\', '\n', '\r', '!':
			continue
		}
		out = append(out, r)
	}
	return string(out)
}

// attrText keeps a title from breaking out of an HTML attribute in a
// snippet that people paste into their own pages.
func attrText(s string) string {
	out := make([]rune, 0, len(s))
	for _, r := range s {
		switch r {
		case '"', '<', '>', '&', '\'', '\n', '\r':
			continue
		}
		out = append(out, r)
	}
	return string(out)
}
