package server

import (
	"fmt"
	"html"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/retrylab/retrylab/shared/chart"
	"github.com/retrylab/retrylab/shared/engine"
	"github.com/retrylab/retrylab/shared/scenarios"
	"github.com/retrylab/retrylab/shared/view"
)

// A scenarioView is what the scenario page and the embed show.
type scenarioView struct {
	ID, Title, Description, Source string
	LookAt                         string
	Builtin                        bool
	Notes                          []string
	Workload, Dependency, Timeline []string
	Strategies                     []strategyView
	Warnings                       []string // when Result is nil (the result has its own)
	RunError                       string

	// Result is what the comparison shows (nil when the scenario could not
	// run here); Charts are its figures' URLs, in order.
	Result      *view.View
	Charts      []chartView
	Resolutions []resolutionLink
	Image       string // the key chart as PNG, for link previews
	// SearchChart is the frontier figure of the scenario's search, when it
	// has points to draw (the rest of the search is Result.Search).
	SearchChart *chartView
	// Caption replaces the verdict under an embed's chart: the search's
	// recommendation under its frontier.
	Caption string
	// Probes link to the metastability probe of each strategy the server
	// would probe (probe.go; none in a build without it).
	Probes []strategyLink
	// Ships link to the playground's "What should I ship?" form of each
	// strategy (the search runs in the browser): none for a sweep.
	Ships []strategyLink

	PageURL, PlaygroundURL, ScenarioURL, ResultURL, CSVURL string
	// The snippets embed the chart the reader is looking at; Frontier
	// holds the same three for the search's frontier, when the scenario
	// has a search whose frontier has points to draw.
	snippets
	Frontier *snippets
	// Embeds are the pictures a reader can embed, each a link to this
	// page with its snippets (?embed=NAME), the one shown Current;
	// Preview is the chart the snippets embed, drawn narrow.
	Embeds  []embedChoice
	Preview string
}

// An embedChoice is a picture the page offers to embed.
type embedChoice struct {
	Title, URL string
	Current    bool
}

// snippets are the ways to embed one chart: Markdown, an HTML iframe and
// an oEmbed URL.
type snippets struct{ Markdown, IFrame, OEmbed string }

// A strategyLink is a link about one strategy: its probe, its search form.
type strategyLink struct{ Strategy, URL string }

// A probePageView is what a probe's page shows (probe.go).
type probePageView struct {
	Title   string // the scenario's
	Builtin bool
	Probe   *view.ProbeView
	// PageURL is the comparison page's, APIURL this probe's as JSON.
	PageURL, APIURL string
	// Others are the probes of the scenario's other strategies.
	Others []strategyLink
}

type strategyView struct {
	view.StrategyWords
	Export *exportView // nil in a build without convert
}

// An exportView is a strategy's Export panel: links to its policy in each
// format, and one format's text (ID names its field) with the notes on
// what that format could not express.
type exportView struct {
	ID, Label, Text string
	Notes           []string
	Links           []exportLink
}

// An exportLink is the export endpoint's URL for one format: the
// configuration, and it with its notes as JSON.
type exportLink struct{ Label, URL, Notes string }

// A chartView is a figure as the page links it: the chart's URL (drawn
// chart.Wide) and the same chart drawn for narrower screens and frames,
// as the <source>s of its <picture>.
type chartView struct {
	URL, Alt string
	Sources  []chartSource
}

// A chartSource is the chart drawn for viewports up to a width: a <source>
// of its <picture>, whose media query is Media.
type chartSource struct{ Media, URL string }

// chartDrawings are the drawings a chart's <picture> offers, narrowest
// first (the first whose media matches is shown), by the widest viewport,
// in CSS px, each is for; wider ones get the chart drawn chart.Wide. The
// server cannot know the width a chart is shown at, so the media queries
// choose: a page's chart is its viewport less about 21 px (40 px over
// 600 px; 15 px more where a scrollbar takes room), an embed's its frame
// less 10 px. chart.Wide needs 760 px shown, so it starts over 840 px;
// chart.Mid needs 462 px and chart.Narrow 308 px (see shared/chart).
var chartDrawings = []struct{ upTo, width int }{{560, chart.Narrow}, {840, chart.Mid}}

// newChartView is the figure of the chart at url (which has a query),
// with the narrower drawings chartDrawings offers.
func newChartView(url, alt string) chartView {
	v := chartView{URL: url, Alt: alt}
	for _, d := range chartDrawings {
		v.Sources = append(v.Sources, chartSource{Media: fmt.Sprintf("(max-width: %dpx)", d.upTo), URL: fmt.Sprintf("%s&width=%d", url, d.width)})
	}
	return v
}

type resolutionLink struct {
	Label, URL string
	Current    bool
}

// isResolution reports whether r names one of the resolutions a page
// switches between (view.Resolutions).
func isResolution(r string) bool {
	return slices.ContainsFunc(view.Resolutions, func(d time.Duration) bool { return d.String() == r })
}

func (s *Server) view(c echo.Context, id string, sc *engine.Scenario, b *scenarios.Builtin, res *engine.Result) *scenarioView {
	base := s.baseURL(c)
	v := &scenarioView{
		ID: id, Title: title(sc, b), Description: sc.Description, Builtin: b != nil,
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
	if !isResolution(resolution) {
		resolution = "100ms"
	}
	// The snippets show the chart the reader is looking at, in the reader's
	// own light or dark theme (auto).
	picture := "?picture=attempts&res=" + resolution
	if sc.Sweep != nil {
		picture = "?picture=sweep&metric=success_rate"
	}
	v.snippets = embedSnippets(base, id, v.Title, picture)
	words := view.Describe(sc)
	v.Workload, v.Dependency, v.Timeline = words.Workload, words.Dependency, words.Timeline
	for i, sw := range words.Strategies {
		v.Strategies = append(v.Strategies, strategyView{StrategyWords: sw, Export: exportPanel(id, i, &sc.Strategies[i])})
	}
	if res == nil {
		// Not run here: the warnings still say what the policies risk.
		v.Warnings = engine.Warnings(sc)
		return v
	}
	d, _ := time.ParseDuration(resolution)
	v.Result = view.Of(sc, res, view.Options{Resolution: d})
	v.Probes = s.probeLinks(id, sc)
	if sc.Sweep == nil {
		for _, st := range sc.Strategies {
			v.Ships = append(v.Ships, strategyLink{Strategy: st.Name, URL: "/?s=" + url.QueryEscape(id) + "&ship=" + url.QueryEscape(st.Name)})
		}
	}
	for _, f := range v.Result.Figures {
		v.Charts = append(v.Charts, newChartView(chartURL+"?"+f.Query, f.Alt))
		for _, vr := range f.Variants {
			v.Resolutions = append(v.Resolutions, resolutionLink{Label: vr.Label, URL: "/s/" + id + "?res=" + vr.Label, Current: vr.Current})
		}
	}
	figs := v.Result.Figures
	if sv := v.Result.Search; sv != nil && sv.Figure != nil {
		q := chartURL + "?" + sv.Figure.Query
		sc := newChartView(q, sv.Figure.Alt)
		v.SearchChart = &sc
		f := embedSnippets(base, id, v.Title+": the search's frontier", "?picture=frontier")
		v.Frontier = &f
		figs = append(slices.Clip(figs), *sv.Figure)
	}
	// The snippets embed the picture the reader chose, else the first.
	chosen := c.QueryParam("embed")
	if !slices.ContainsFunc(figs, func(f view.Figure) bool { return f.Name == chosen }) {
		chosen = ""
	}
	for i, f := range figs {
		current := f.Name == chosen || (chosen == "" && i == 0)
		v.Embeds = append(v.Embeds, embedChoice{Title: f.Title, URL: "/s/" + id + "?embed=" + f.Name + "#share", Current: current})
		if current {
			q, t := "?"+f.Query, v.Title
			if f.Name == "attempts" {
				q = picture // at the resolution the page shows
			}
			if i > 0 {
				t += ": " + strings.ToLower(f.Title[:1]) + f.Title[1:]
			}
			v.snippets = embedSnippets(base, id, t, q)
			v.Preview = chartURL + q + "&width=400"
		}
	}
	if canDrawPNG {
		v.Image = base + "/s/" + id + "/chart.png"
	}
	return v
}

// embedSnippets returns the snippets that embed the chart of scenario id
// that query picks ("?picture=…"), titled title, with base the site's
// origin.
func embedSnippets(base, id, title, query string) snippets {
	return snippets{
		Markdown: fmt.Sprintf("![%s](%s/s/%s/chart.svg%s)", markdownText(title), base, id, query),
		IFrame:   iframe(base+"/embed/"+id+query, title),
		OEmbed:   base + "/oembed?url=" + url.QueryEscape(base+"/s/"+id+query),
	}
}

// iframe is the embed snippet: 760 × 490, with the page's title.
func iframe(src, title string) string { return iframeSized(src, title, 760, 490) }

// embedMinHeight is the least height, in CSS px, the iframe snippet keeps
// in a column narrower than its shape allows: in the 760:490 shape a
// 360 px column would get 232 px, and an embed's chart is fitted to the
// frame's height, so its text would be shown under 10 px (TestEveryWidthFits
// measures it in frames of the snippet's shape at 360, 600 and 768 px).
const embedMinHeight = 440

// iframeSized is an iframe snippet of src, width × height where the column
// allows and narrower at the same aspect ratio, but never lower than
// embedMinHeight (or height, when that is lower), titled title: the one
// snippet the share box, the API and oEmbed answer.
func iframeSized(src, title string, width, height int) string {
	return fmt.Sprintf(`<iframe src="%s" width="%d" height="%d" title="RetryLab: %s" loading="lazy" style="border:0;width:100%%;max-width:%dpx;height:auto;aspect-ratio:%d/%d;min-height:%dpx"></iframe>`,
		attrText(src), width, height, attrText(title), width, width, height, min(height, embedMinHeight))
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
// snippet that people paste into their own pages: escaped as HTML, on one
// line.
func attrText(s string) string {
	return html.EscapeString(strings.NewReplacer("\n", " ", "\r", " ").Replace(s))
}

// preview describes the page to link previews: the verdict when there is
// one, the key chart as a PNG when the server can draw one.
func (v *scenarioView) preview() *preview {
	p := &preview{Title: v.Title + " — RetryLab", Description: v.Description, URL: v.PageURL, OEmbed: v.OEmbed}
	if v.Result != nil && v.Result.Verdict != "" {
		p.Description = v.Result.Verdict
		p.Image = v.Image
	}
	if p.Description == "" {
		p.Description = "A retry policy comparison in RetryLab."
	}
	return p
}

// exportAt is the Export panel of the search's frontier point i, or nil
// (a build without convert has none).
func exportAt(exports []*exportView, i int) *exportView {
	if i < len(exports) {
		return exports[i]
	}
	return nil
}
