package server

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"mime"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

	"github.com/retrylab/retrylab/shared/chart"
	"github.com/retrylab/retrylab/shared/engine"
	"github.com/retrylab/retrylab/shared/scenarios"
	"github.com/retrylab/retrylab/shared/view"
)

// maxBody is the largest scenario accepted, in bytes.
const maxBody = 64 << 10

// MaxScenarioBytes is the largest scenario POST /api/scenarios stores
// (maxBody), for tools that write scenarios to share.
const MaxScenarioBytes = maxBody

var idPattern = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

func renderBytes(c echo.Context, t templ.Component) ([]byte, error) {
	var b bytes.Buffer
	err := t.Render(c.Request().Context(), &b)
	return b.Bytes(), err
}

func render(c echo.Context, status int, t templ.Component) error {
	var b bytes.Buffer
	if err := t.Render(c.Request().Context(), &b); err != nil {
		return err
	}
	return c.HTMLBlob(status, b.Bytes())
}

// baseURL is the origin for absolute links in share URLs, embed snippets and
// oEmbed: Config.BaseURL, else the scheme and Host of the request. Pages
// hold it, so it is part of their cache key and ETag.
func (s *Server) baseURL(c echo.Context) string {
	if s.cfg.BaseURL != "" {
		return s.cfg.BaseURL
	}
	r := c.Request()
	scheme := "http"
	switch {
	case r.URL.Scheme != "": // Workers see absolute URLs
		scheme = r.URL.Scheme
	case r.TLS != nil:
		scheme = "https"
	case s.cfg.TrustProxy: // X-Forwarded-Proto and kin
		scheme = c.Scheme()
	}
	return scheme + "://" + r.Host
}

// sameHost reports whether the URL u (an Origin, an oEmbed url) names this
// site: the host of baseURL.
func (s *Server) sameHost(c echo.Context, u string) bool {
	a, err := url.Parse(u)
	if err != nil || a.Host == "" || (a.Scheme != "http" && a.Scheme != "https") {
		return false
	}
	b, err := url.Parse(s.baseURL(c))
	return err == nil && strings.EqualFold(a.Host, b.Host)
}

// fromThisSite refuses, with 403, a request a page of another site made a
// browser send: its Origin is another site's, or, without one, the
// browser says it is cross-site. A request from no browser (curl) has
// neither, and passes.
func (s *Server) fromThisSite(c echo.Context) error {
	h := c.Request().Header
	if o := h.Get("Origin"); (o != "" && !s.sameHost(c, o)) || (o == "" && h.Get("Sec-Fetch-Site") == "cross-site") {
		return echo.NewHTTPError(http.StatusForbidden, fmt.Sprintf("this request is sent from %q; it can only be sent from this site's own pages (%s)", cmp.Or(o, "another site"), s.baseURL(c)))
	}
	return nil
}

// errTooLarge refuses a scenario over maxBody bytes.
var errTooLarge = tooLarge("scenario")

// tooLarge refuses a body over maxBody bytes; what says what the body is.
func tooLarge(what string) *echo.HTTPError {
	return echo.NewHTTPError(http.StatusRequestEntityTooLarge, fmt.Sprintf("the %s is larger than %d KiB", what, maxBody>>10))
}

// readBody reads a request body of at most maxBody bytes: a scenario, a
// configuration, as what says in the error of a larger one.
func readBody(r io.Reader, what string) ([]byte, error) {
	body, err := io.ReadAll(io.LimitReader(r, maxBody+1))
	if err != nil {
		return nil, echo.NewHTTPError(http.StatusBadRequest, "could not read the request body")
	}
	if len(body) > maxBody {
		return nil, tooLarge(what)
	}
	return body, nil
}

// readForm reads the no-JavaScript form's scenario. Form encoding can make
// a scenario up to three times longer; a longer form is refused before it is
// parsed, not after.
func readForm(c echo.Context) ([]byte, error) {
	r := c.Request()
	r.Body = http.MaxBytesReader(c.Response(), r.Body, 3*maxBody)
	err := r.ParseForm() // ParseMultipartForm alone hides its errors behind ErrNotMultipart
	if err == nil {
		if err = r.ParseMultipartForm(maxBody); errors.Is(err, http.ErrNotMultipart) {
			err = nil
		}
	}
	if err != nil {
		if tooLarge := (*http.MaxBytesError)(nil); errors.As(err, &tooLarge) {
			return nil, errTooLarge
		}
		return nil, echo.NewHTTPError(http.StatusBadRequest, "could not read the form")
	}
	// Browsers send a textarea's line breaks as CRLF; as LF, the positions
	// in error messages match what the reader sees.
	body := []byte(strings.ReplaceAll(r.FormValue("scenario"), "\r\n", "\n"))
	if len(body) > maxBody {
		return nil, errTooLarge
	}
	return body, nil
}

// share validates, canonicalises and stores a scenario and returns its ID
// and the scenario. A bad scenario comes back as its engine.Errors;
// nothing is stored then.
func (s *Server) share(ctx context.Context, body []byte) (string, *engine.Scenario, error) {
	sc, err := scenarios.Parse(body)
	if err != nil {
		if es := engine.AsErrors(err); es != nil {
			// A retry configuration sent as a scenario is told where it
			// goes, first (convert.go; none in a build without it).
			if hint := importHint(body); hint != "" {
				es = append(engine.Errors{{Message: hint}}, es...)
			}
			// Validate lists at most MaxErrors problems; decoding lists one
			// per bad field, so a long document could list thousands.
			return "", nil, es.Limit(engine.MaxErrors)
		}
		return "", nil, err
	}
	if err := checkCost(s.cfg, sc); err != nil {
		return "", nil, err
	}
	canon := sc.Canonical()
	id := shareID(canon)
	if err := s.store.PutScenario(ctx, id, canon); err != nil {
		return "", nil, fmt.Errorf("storing scenario %s: %w", id, err)
	}
	return id, sc, nil
}

// created is the answer to POST /api/scenarios.
type created struct {
	ID    string       `json:"id"`
	URL   string       `json:"url"` // the shared page
	Embed createdEmbed `json:"embed"`
}

// createdEmbed is the shared page's embed snippets for its first picture.
type createdEmbed struct {
	Markdown string `json:"markdown"` // an image of the chart's SVG
	IFrame   string `json:"iframe"`   // the /embed page, chart and verdict
	OEmbed   string `json:"oembed"`   // the oEmbed URL of the page
}

func (s *Server) handleCreate(c echo.Context) error {
	// JSON only: a cross-site page can send text/plain or a form without
	// asking, but not application/json.
	ct := c.Request().Header.Get("Content-Type")
	if mt, _, err := mime.ParseMediaType(ct); err != nil || mt != echo.MIMEApplicationJSON {
		return echo.NewHTTPError(http.StatusUnsupportedMediaType, fmt.Sprintf("Content-Type %q is not %s; send the scenario as JSON", ct, echo.MIMEApplicationJSON))
	}
	body, err := readBody(c.Request().Body, "scenario")
	if err != nil {
		return err
	}
	id, sc, err := s.share(c.Request().Context(), body)
	if err != nil {
		return err
	}
	base := s.baseURL(c)
	u := base + "/s/" + id
	c.Response().Header().Set("Location", u)
	// The embed snippets of the page's first picture, as its share box
	// gives them, for those who share from a script.
	e := embedSnippets(base, id, title(sc, nil), "")
	return c.JSON(http.StatusCreated, created{ID: id, URL: u, Embed: createdEmbed(e)})
}

func (s *Server) handleShareForm(c echo.Context) error {
	// The form is this site's: another site's page may not share
	// scenarios through its visitors. The host decides (a proxy may end
	// TLS in front of a server that was not told its public scheme).
	if err := s.fromThisSite(c); err != nil {
		return err
	}
	body, err := readForm(c)
	if err != nil {
		return err
	}
	id, _, err := s.share(c.Request().Context(), body)
	// A scenario the server cannot take comes back in the form, with why.
	var msgs []string
	switch problems := engine.AsErrors(err); {
	case problems != nil:
		for _, p := range problems {
			msgs = append(msgs, p.Error())
		}
	case costly(err):
		msgs = []string{s.errorAnswer(err).msg}
	case err != nil:
		return err
	default:
		return c.Redirect(http.StatusSeeOther, "/s/"+id)
	}
	return render(c, http.StatusUnprocessableEntity, sharePage(s.assets, string(body), msgs))
}

// playgroundDefault is the built-in the playground opens with, as
// app.js opens the first of the engine's built-ins.
const playgroundDefault = "e03b-synchronized-recovery"

func (s *Server) handleHome(c echo.Context) error {
	// The no-JavaScript form starts from the scenario the link names.
	sub := s.builtins[playgroundDefault]
	if id := c.QueryParam("s"); id != "" {
		sub = nil
		if found, err := s.lookup(c.Request().Context(), id); err == nil {
			sub = found
		}
	}
	example := pretty(s.builtins[playgroundDefault].canonical)
	var first *firstResult
	if sub != nil {
		example = pretty(sub.canonical)
		if sub.builtin != nil && s.assets.hasEngine() && !s.cfg.NoFirstResult {
			first = s.firstResult(c, sub)
		}
	}
	c.Response().Header().Set("Cache-Control", "no-cache")
	return render(c, http.StatusOK, playgroundPage(s.assets, example, s.assets.hasEngine(), first))
}

// A firstResult is what the playground shows of a built-in before its
// engine has loaded: the view the engine in the page would draw (view.Of
// and view.Draw, in the "auto" theme at the charts' own width), from the
// same deterministic result. app.js shows it at once and replaces it with
// its own run's, the same, when the engine is ready.
type firstResult struct {
	Slug    string     `json:"slug"`
	Title   string     `json:"title"`
	Summary string     `json:"summary"`
	View    *view.View `json:"view"`
}

// firstResult returns a built-in's first result, drawn once; nil when it
// cannot be run now (the page then waits for the engine).
func (s *Server) firstResult(c echo.Context, sub *subject) *firstResult {
	s.firstMu.Lock()
	f, ok := s.first[sub.id]
	s.firstMu.Unlock()
	if ok {
		return f
	}
	res, err := s.runs.result(c.Request().Context(), sub.id, sub.sc)
	if err != nil {
		s.log.Debug("no first result on the playground", "slug", sub.id, "err", err)
		return nil
	}
	v := view.Of(sub.sc, res, view.Options{})
	view.Draw(v, res, "auto", 0)
	f = &firstResult{Slug: sub.id, Title: sub.builtin.Title, Summary: sub.builtin.Summary, View: v}
	s.firstMu.Lock()
	if s.first == nil {
		s.first = map[string]*firstResult{}
	}
	s.first[sub.id] = f
	s.firstMu.Unlock()
	return f
}

func pretty(js []byte) string {
	var b bytes.Buffer
	if err := json.Indent(&b, js, "", "  "); err != nil {
		return string(js)
	}
	return b.String()
}

func (s *Server) handleGallery(c echo.Context) error {
	var items []galleryItem
	for _, b := range scenarios.All() {
		thumb := "/s/" + b.Slug + "/chart.svg?picture=attempts&res=1s&width=480&height=300"
		if s.builtins[b.Slug].sc.Sweep != nil {
			thumb = "/s/" + b.Slug + "/chart.svg?picture=sweep&metric=attempts&width=480&height=300"
		}
		items = append(items, galleryItem{Slug: b.Slug, Title: b.Title, Summary: b.Summary,
			Source: sourceText(b.Source), LookAt: b.LookAt, Thumb: thumb})
	}
	c.Response().Header().Set("Cache-Control", "public, max-age=300")
	return render(c, http.StatusOK, galleryPage(s.assets, items))
}

// errNotFound is an unknown ID or slug.
var errNotFound = echo.NewHTTPError(http.StatusNotFound, "no scenario with that ID")

// A subject is the scenario an answer is about, as lookup finds it.
type subject struct {
	id        string
	sc        *engine.Scenario
	canonical []byte
	builtin   *scenarios.Builtin // nil for a shared scenario
}

// bytes is what a shared scenario is counted for in Server.stored: its
// canonical JSON, and about three times as much parsed.
func (sub *subject) bytes() int64 { return 512 + 4*int64(len(sub.canonical)) }

// lookup finds a scenario by share ID or built-in slug, parsed and with its
// canonical JSON.
func (s *Server) lookup(ctx context.Context, id string) (*subject, error) {
	if !idPattern.MatchString(id) {
		return nil, errNotFound
	}
	if sub, ok := s.builtins[id]; ok {
		return sub, nil
	}
	// Shared IDs name their content, so what was read and parsed once holds:
	// a page and its charts, CSV and JSON do not each go to the store.
	if sub, ok := s.stored.get(id); ok {
		return sub, nil
	}
	body, err := s.store.GetScenario(ctx, id)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, errNotFound
	}
	if err != nil {
		return nil, err
	}
	sc, err := engine.Parse(body)
	if err != nil {
		return nil, echo.NewHTTPError(http.StatusUnprocessableEntity, "this stored scenario is no longer valid: "+err.Error())
	}
	sub := &subject{id: id, sc: sc, canonical: body}
	s.stored.put(id, sub)
	return sub, nil
}

// begin starts an answer about the scenario id: from the page cache if it
// can, else it looks the scenario up and sets the caching headers. It
// returns nil when the answer is given (from the cache, or 304 Not
// Modified) or failed (err); the caller then returns err.
//
// check, when given, checks the request against the scenario before
// anything else is answered about it.
func (s *Server) begin(c echo.Context, id string, check ...func(*engine.Scenario) error) (*subject, error) {
	if handled, err := s.fromCache(c); handled {
		return nil, err
	}
	sub, err := s.lookup(c.Request().Context(), id)
	if err != nil {
		return nil, err
	}
	for _, f := range check {
		if err := f(sub.sc); err != nil {
			return nil, err
		}
	}
	if s.cacheable(c, sub.builtin != nil) {
		return nil, c.NoContent(http.StatusNotModified)
	}
	return sub, nil
}

func (s *Server) handleGetScenario(c echo.Context) error {
	sub, err := s.begin(c, c.Param("id"))
	if sub == nil {
		return err
	}
	c.Response().Header().Set("Access-Control-Allow-Origin", "*")
	return s.serveCached(c, sub.builtin != nil, echo.MIMEApplicationJSON, func() ([]byte, error) { return sub.canonical, nil })
}

func (s *Server) handleResult(c echo.Context) error {
	id := c.Param("id")
	sub, err := s.begin(c, id)
	if sub == nil {
		return err
	}
	c.Response().Header().Set("Access-Control-Allow-Origin", "*")
	return s.serveCached(c, sub.builtin != nil, echo.MIMEApplicationJSON, func() ([]byte, error) {
		res, err := s.runs.result(c.Request().Context(), id, sub.sc)
		if err != nil {
			return nil, err
		}
		return json.Marshal(res)
	})
}

// chartOptions reads a chart's query parameters and checks every one that
// can be checked without the scenario: a bad one is a 400 naming the
// parameter, its value and what is allowed.
func chartOptions(c echo.Context) (chart.Options, error) {
	opt := chart.Options{
		Picture:     c.QueryParam("picture"),
		Metric:      c.QueryParam("metric"),
		Theme:       c.QueryParam("theme"),
		SuccessOnly: c.QueryParam("success") == "1",
	}
	bad := func(format string, args ...any) (chart.Options, error) {
		return opt, echo.NewHTTPError(http.StatusBadRequest, fmt.Sprintf(format, args...))
	}
	if opt.Picture != "" && !slices.Contains(chart.Pictures, opt.Picture) {
		return bad("picture %q is not one of %s", opt.Picture, strings.Join(chart.Pictures, ", "))
	}
	if opt.Theme != "" && !slices.Contains(themes, opt.Theme) {
		return bad("theme %q is not one of %s", opt.Theme, strings.Join(themes, ", "))
	}
	if opt.Metric != "" && !slices.Contains(engine.MetricNames(), opt.Metric) {
		return bad("metric %q is not one of %s", opt.Metric, strings.Join(engine.MetricNames(), ", "))
	}
	if v := c.QueryParam("success"); v != "" && v != "1" && v != "0" {
		return bad("success %q is not 1 (successful operations only) or 0", v)
	}
	if r := c.QueryParam("res"); r != "" {
		d, err := time.ParseDuration(r)
		if err != nil || d <= 0 {
			return bad("res %q is not a duration such as 10ms, 100ms or 1s", r)
		}
		opt.Resolution = d
	}
	for _, dim := range []struct {
		name string
		to   *float64
	}{{"width", &opt.Width}, {"height", &opt.Height}} {
		if w := c.QueryParam(dim.name); w != "" {
			n, err := strconv.Atoi(w)
			if err != nil || n < 200 || n > 2000 {
				return bad("%s %q is not a number of pixels in 200..2000", dim.name, w)
			}
			*dim.to = float64(n)
		}
	}
	return opt, nil
}

// themes are the chart themes a query may name.
var themes = []string{"auto", "light", "dark"}

// chartFits checks the chart options against the scenario, before it runs:
// a sweep draws only the sweep picture, and only a sweep draws it; only a
// search draws the frontier.
func chartFits(opt chart.Options) func(sc *engine.Scenario) error {
	return func(sc *engine.Scenario) error {
		switch {
		case sc.Sweep != nil && opt.Picture != "" && opt.Picture != chart.Sweep:
			return echo.NewHTTPError(http.StatusBadRequest, fmt.Sprintf("picture %q does not apply: this scenario is a sweep, whose only picture is %q", opt.Picture, chart.Sweep))
		case opt.Picture == chart.Calls && planCalls(sc) < 2:
			return echo.NewHTTPError(http.StatusBadRequest, fmt.Sprintf("picture %q does not apply: this scenario's plan has one call; it draws the attempts of each call of a plan of several", opt.Picture))
		case opt.Picture == chart.Fleets && len(sc.Workload.Fleets) == 0:
			return echo.NewHTTPError(http.StatusBadRequest, fmt.Sprintf("picture %q does not apply: this scenario's workload has no fleets; it draws the calls of each fleet", opt.Picture))
		case sc.Sweep == nil && opt.Picture == chart.Sweep:
			return echo.NewHTTPError(http.StatusBadRequest, fmt.Sprintf("picture %q does not apply: this scenario has no sweep; use one of %s", opt.Picture, strings.Join(picturesOf(sc), ", ")))
		case sc.Search == nil && opt.Picture == chart.Frontier:
			return echo.NewHTTPError(http.StatusBadRequest, fmt.Sprintf("picture %q does not apply: this scenario has no search; use one of %s", opt.Picture, strings.Join(picturesOf(sc), ", ")))
		}
		return nil
	}
}

// picturesOf lists the pictures of a scenario without a sweep: the
// frontier only when it has a search.
func picturesOf(sc *engine.Scenario) []string {
	return slices.DeleteFunc(slices.Clone(chart.Pictures), func(p string) bool {
		return p == chart.Sweep || (p == chart.Frontier && sc.Search == nil) || (p == chart.Fleets && len(sc.Workload.Fleets) == 0)
	})
}

// planCalls counts the calls of a scenario's plan (one without a plan).
func planCalls(sc *engine.Scenario) int {
	n := 0
	for _, st := range sc.Workload.Plan {
		n += len(st.Calls)
	}
	return max(n, 1)
}

func (s *Server) handleChart(c echo.Context) error {
	id := c.Param("id")
	opt, err := chartOptions(c)
	if err != nil {
		return err
	}
	sub, err := s.begin(c, id, chartFits(opt))
	if sub == nil {
		return err
	}
	h := c.Response().Header()
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; sandbox")
	h.Del("X-Frame-Options")
	h.Set("Access-Control-Allow-Origin", "*")
	return s.serveCached(c, sub.builtin != nil, "image/svg+xml", func() ([]byte, error) {
		res, err := s.runs.result(c.Request().Context(), id, sub.sc)
		if err != nil {
			return nil, err
		}
		var buf bytes.Buffer
		if err := chart.Render(&buf, res, withScenario(opt, sub.sc)); err != nil {
			return nil, err // a *chart.OptionError is a 400
		}
		return buf.Bytes(), nil
	})
}

func (s *Server) handlePage(c echo.Context) error {
	id := c.Param("id")
	sub, err := s.begin(c, id)
	if sub == nil {
		return err
	}
	return s.serveCachedIf(c, sub.builtin != nil, echo.MIMETextHTMLCharsetUTF8, func() ([]byte, bool, error) {
		res, err := s.runs.result(c.Request().Context(), id, sub.sc)
		switch {
		case costly(err):
			// Too costly to run here: the page still describes the scenario
			// and points to the playground.
			c.Response().Header().Set("Cache-Control", "public, max-age=300")
			v := s.view(c, id, sub.sc, sub.builtin, nil)
			v.RunError = s.errorAnswer(err).msg
			body, err := renderBytes(c, scenarioPage(s.assets, v))
			return body, false, err
		case err != nil:
			return nil, false, err
		}
		body, err := renderBytes(c, scenarioPage(s.assets, s.view(c, id, sub.sc, sub.builtin, res)))
		return body, true, err
	})
}

func (s *Server) handleEmbed(c echo.Context) error {
	id := c.Param("id")
	h := c.Response().Header()
	h.Del("X-Frame-Options")
	h.Set("Content-Security-Policy", "default-src 'none'; img-src 'self'; style-src 'self'; frame-ancestors *; base-uri 'none'")
	// The embed shows the chart its query names (picture, res, metric,
	// theme), as the page's snippets ask for it; a query the chart would
	// refuse is refused here, not shown as a broken image.
	opt, err := chartOptions(c)
	if err != nil {
		return err
	}
	sub, err := s.begin(c, id, chartFits(opt))
	if sub == nil {
		return err
	}
	return s.serveCached(c, sub.builtin != nil, echo.MIMETextHTMLCharsetUTF8, func() ([]byte, error) {
		res, err := s.runs.result(c.Request().Context(), id, sub.sc)
		if err != nil {
			return nil, err
		}
		v := s.view(c, id, sub.sc, sub.builtin, res) // its verdict is the caption
		if q := canonicalQuery(c); len(q) > 0 {      // checked above
			// Whether the result has what the query asks for (a resolution
			// it has a series for: the one option checked only after the
			// run) is known once it has run.
			// So is whether a search's frontier has points to draw.
			var oe *chart.OptionError
			if opt.Resolution > 0 || opt.Picture == chart.Frontier {
				if err := chart.Render(io.Discard, res, withScenario(opt, sub.sc)); errors.As(err, &oe) {
					return nil, oe
				}
			}
			// A narrower frame gets the chart drawn narrower, as pages
			// do, so that its text keeps its size; unless the query
			// fixes the width.
			v.Charts = []chartView{newChartView("/s/"+id+"/chart.svg?"+q.Encode(), "A RetryLab chart of "+v.Title)}
			if q.Has("width") {
				v.Charts[0].Sources = nil
			}
			if sv := v.Result.Search; opt.Picture == chart.Frontier && sv != nil {
				// The frontier's caption is the search's recommendation in
				// short (the page, a click away, says why), or why there is
				// none.
				v.Caption = cmp.Or(sv.Lead, sv.Note)
				v.Charts[0].Alt = sv.Figure.Alt
			}
		}
		return renderBytes(c, embedPage(s.assets, v))
	})
}

func (s *Server) handleHealth(c echo.Context) error {
	c.Response().Header().Set("Cache-Control", "no-store")
	return c.JSON(http.StatusOK, map[string]string{"status": "ok", "engine_version": engine.EngineVersion})
}

// withScenario gives a chart what it needs of the scenario, as the page's
// own figures have it: the strategies' descriptions for its legends, and
// the search for the frontier's axes.
func withScenario(opt chart.Options, sc *engine.Scenario) chart.Options {
	opt.Descriptions = view.Descriptions(sc)
	opt.Search = sc.Search
	return opt
}
