package server

import (
	"bytes"
	"cmp"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"html"
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

var idPattern = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// serveCached answers with the cached bytes for the request's URL, built and
// compressed once, in gzip when the client accepts it.
func (s *Server) serveCached(c echo.Context, builtin bool, ctype string, build func() ([]byte, error)) error {
	return s.serveCachedIf(c, builtin, ctype, func() ([]byte, bool, error) {
		body, err := build()
		return body, true, err
	})
}

// serveCachedIf is serveCached for answers that build may find not worth
// keeping (keep false). The headers the handler set so far are kept with the
// bytes.
func (s *Server) serveCachedIf(c echo.Context, builtin bool, ctype string, build func() (body []byte, keep bool, err error)) error {
	key := s.cacheKey(c)
	p, ok := s.pages.get(key)
	if !ok {
		body, keep, err := build()
		if err != nil {
			return err
		}
		var gz bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&gz, gzip.BestSpeed)
		zw.Write(body)
		zw.Close()
		p = &cachedPage{ctype: ctype, body: body, gz: gz.Bytes(), builtin: builtin, headers: c.Response().Header().Clone()}
		if keep {
			s.pages.put(key, p)
		}
	}
	return s.writeCached(c, p)
}

// fromCache answers from the page cache when it can, before any lookup or
// run; handled reports whether it did.
func (s *Server) fromCache(c echo.Context) (handled bool, err error) {
	p, ok := s.pages.get(s.cacheKey(c))
	if !ok {
		return false, nil
	}
	if s.cacheable(c, p.builtin) {
		return true, c.NoContent(http.StatusNotModified)
	}
	return true, s.writeCached(c, p)
}

func (s *Server) writeCached(c echo.Context, p *cachedPage) error {
	h := c.Response().Header()
	// The answer's own headers: its caching and, for embeds and charts, the
	// framing and content rules that replace the defaults.
	for _, k := range []string{"Cache-Control", "ETag", "Content-Security-Policy", "Access-Control-Allow-Origin", "X-Frame-Options"} {
		if v := p.headers.Get(k); v != "" {
			h.Set(k, v)
		} else {
			h.Del(k)
		}
	}
	h.Set("Vary", "Accept-Encoding")
	if acceptsEncoding(c.Request().Header.Get("Accept-Encoding"), "gzip") {
		h.Set("Content-Encoding", "gzip")
		return c.Blob(http.StatusOK, p.ctype, p.gz)
	}
	return c.Blob(http.StatusOK, p.ctype, p.body)
}

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

// cacheKey names an answer in the page cache: the origin its links use, the
// route with its ID, and the query parameters the route reads, as it reads
// them (canonicalQuery). Parameters a route does not read, or values it
// reads the same, are not told apart, so that /result?v=1, ?v=2, … are one
// entry, not one each.
func (s *Server) cacheKey(c echo.Context) string {
	path := strings.Replace(c.Path(), ":id", c.Param("id"), 1)
	if q := canonicalQuery(c); len(q) > 0 {
		return s.baseURL(c) + path + "?" + q.Encode()
	}
	return s.baseURL(c) + path
}

// canonicalQuery is the query as the route reads it: for a page, the
// resolution it shows; for a chart or an embed, the chart's options (which
// the handlers check before any cache lookup).
func canonicalQuery(c echo.Context) url.Values {
	q := url.Values{}
	switch c.Path() {
	case "/s/:id":
		if r := c.QueryParam("res"); slices.Contains(resolutions, r) {
			q.Set("res", r)
		}
	case "/s/:id/chart.svg", "/s/:id/chart.png", "/embed/:id":
		opt, err := chartOptions(c)
		if err != nil {
			return url.Values{"invalid": {c.QueryString()}}
		}
		for k, v := range map[string]string{"picture": opt.Picture, "metric": opt.Metric, "theme": opt.Theme} {
			if v != "" {
				q.Set(k, v)
			}
		}
		if opt.SuccessOnly {
			q.Set("success", "1")
		}
		if opt.Resolution > 0 {
			q.Set("res", opt.Resolution.String())
		}
		if opt.Width > 0 {
			q.Set("width", strconv.Itoa(int(opt.Width)))
		}
		if opt.Height > 0 {
			q.Set("height", strconv.Itoa(int(opt.Height)))
		}
		if c.Path() == "/s/:id/chart.png" {
			q.Del("width") // a PNG is always 1200 × 630
			q.Del("height")
		}
	}
	return q
}

// errTooLarge refuses a scenario over maxBody bytes.
var errTooLarge = echo.NewHTTPError(http.StatusRequestEntityTooLarge, fmt.Sprintf("the scenario is larger than %d KiB", maxBody>>10))

// readScenario reads a request body of at most maxBody bytes.
func readScenario(r io.Reader) ([]byte, error) {
	body, err := io.ReadAll(io.LimitReader(r, maxBody+1))
	if err != nil {
		return nil, echo.NewHTTPError(http.StatusBadRequest, "could not read the request body")
	}
	if len(body) > maxBody {
		return nil, errTooLarge
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

// share validates, canonicalises and stores a scenario and returns its ID.
// A bad scenario comes back as its engine.Errors; nothing is stored then.
func (s *Server) share(ctx context.Context, body []byte) (string, error) {
	sc, err := scenarios.Parse(body)
	if err != nil {
		if es := engine.AsErrors(err); es != nil {
			// Validate lists at most MaxErrors problems; decoding lists one
			// per bad field, so a long document could list thousands.
			return "", es.Limit(engine.MaxErrors)
		}
		return "", err
	}
	if err := checkCost(s.cfg, sc); err != nil {
		return "", err
	}
	canon := sc.Canonical()
	id := shareID(canon)
	if err := s.store.PutScenario(ctx, id, canon); err != nil {
		return "", fmt.Errorf("storing scenario %s: %w", id, err)
	}
	return id, nil
}

func (s *Server) handleCreate(c echo.Context) error {
	// JSON only: a cross-site page can send text/plain or a form without
	// asking, but not application/json.
	ct := c.Request().Header.Get("Content-Type")
	if mt, _, err := mime.ParseMediaType(ct); err != nil || mt != echo.MIMEApplicationJSON {
		return echo.NewHTTPError(http.StatusUnsupportedMediaType, fmt.Sprintf("Content-Type %q is not %s; send the scenario as JSON", ct, echo.MIMEApplicationJSON))
	}
	body, err := readScenario(c.Request().Body)
	if err != nil {
		return err
	}
	id, err := s.share(c.Request().Context(), body)
	if err != nil {
		return err
	}
	u := s.baseURL(c) + "/s/" + id
	c.Response().Header().Set("Location", u)
	return c.JSON(http.StatusCreated, map[string]string{"id": id, "url": u})
}

func (s *Server) handleShareForm(c echo.Context) error {
	// The form is this site's: another site's page may not share
	// scenarios through its visitors. The host decides (a proxy may end
	// TLS in front of a server that was not told its public scheme).
	h := c.Request().Header
	if o := h.Get("Origin"); (o != "" && !s.sameHost(c, o)) || (o == "" && h.Get("Sec-Fetch-Site") == "cross-site") {
		return echo.NewHTTPError(http.StatusForbidden, fmt.Sprintf("this form is sent from %q; it can only be sent from this site's own pages (%s)", cmp.Or(o, "another site"), s.baseURL(c)))
	}
	body, err := readForm(c)
	if err != nil {
		return err
	}
	id, err := s.share(c.Request().Context(), body)
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

func (s *Server) handleHome(c echo.Context) error {
	// The no-JavaScript form starts from the scenario the link names.
	example := ""
	if id := c.QueryParam("s"); id != "" {
		if _, canon, _, err := s.lookup(c.Request().Context(), id); err == nil {
			example = pretty(canon)
		}
	}
	if example == "" {
		example = pretty(s.builtins["e03b-synchronized-recovery"].canonical)
	}
	c.Response().Header().Set("Cache-Control", "no-cache")
	return render(c, http.StatusOK, playgroundPage(s.assets, example, s.assets.hasEngine()))
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

// lookup finds a scenario by share ID or built-in slug and returns it parsed,
// with its canonical JSON.
func (s *Server) lookup(ctx context.Context, id string) (*engine.Scenario, []byte, *scenarios.Builtin, error) {
	if !idPattern.MatchString(id) {
		return nil, nil, nil, errNotFound
	}
	if bi, ok := s.builtins[id]; ok {
		return bi.sc, bi.canonical, bi.b, nil
	}
	// Shared IDs name their content, so what was read and parsed once holds:
	// a page and its charts, CSV and JSON do not each go to the store.
	if st, ok := s.stored.get(id); ok {
		return st.sc, st.canonical, nil, nil
	}
	body, err := s.store.GetScenario(ctx, id)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil, errNotFound
	}
	if err != nil {
		return nil, nil, nil, err
	}
	sc, err := engine.Parse(body)
	if err != nil {
		return nil, nil, nil, echo.NewHTTPError(http.StatusUnprocessableEntity, "this stored scenario is no longer valid: "+err.Error())
	}
	s.stored.put(id, stored{sc: sc, canonical: body})
	return sc, body, nil, nil
}

// stored is a shared scenario as read from the store, parsed.
type stored struct {
	sc        *engine.Scenario
	canonical []byte
}

// bytes is what a stored scenario is counted for: its canonical JSON, and
// about three times as much parsed.
func (s stored) bytes() int64 { return 512 + 4*int64(len(s.canonical)) }

// cacheable sets caching headers for an answer about a scenario and reports
// whether the client's copy is current (then the caller answers 304). Shared
// IDs are content hashes: their pages never change for an engine version.
// Built-in slugs may change with a release, so they are cached briefly.
func (s *Server) cacheable(c echo.Context, builtin bool) bool {
	sum := sha256.Sum256([]byte(engine.EngineVersion + "\x00" + s.cacheKey(c)))
	etag := `"` + hex.EncodeToString(sum[:10]) + `"`
	h := c.Response().Header()
	h.Set("ETag", etag)
	if builtin {
		h.Set("Cache-Control", "public, max-age=300")
	} else {
		h.Set("Cache-Control", "public, max-age=31536000, immutable")
	}
	return c.Request().Header.Get("If-None-Match") == etag
}

// begin starts an answer about a scenario: from the page cache if it can,
// else it looks the scenario up and sets the caching headers. done reports
// that the answer is given (from the cache, or 304 Not Modified).
//
// check, when given, checks the request against the scenario before
// anything else is answered about it.
func (s *Server) begin(c echo.Context, id string, check ...func(*engine.Scenario) error) (sc *engine.Scenario, canon []byte, b *scenarios.Builtin, done bool, err error) {
	if handled, err := s.fromCache(c); handled {
		return nil, nil, nil, true, err
	}
	sc, canon, b, err = s.lookup(c.Request().Context(), id)
	if err != nil {
		return nil, nil, nil, false, err
	}
	for _, f := range check {
		if err := f(sc); err != nil {
			return nil, nil, nil, false, err
		}
	}
	if s.cacheable(c, b != nil) {
		return nil, nil, nil, true, c.NoContent(http.StatusNotModified)
	}
	return sc, canon, b, false, nil
}

func (s *Server) handleGetScenario(c echo.Context) error {
	_, canon, b, done, err := s.begin(c, c.Param("id"))
	if done || err != nil {
		return err
	}
	c.Response().Header().Set("Access-Control-Allow-Origin", "*")
	return s.serveCached(c, b != nil, echo.MIMEApplicationJSON, func() ([]byte, error) { return canon, nil })
}

func (s *Server) handleResult(c echo.Context) error {
	id := c.Param("id")
	sc, _, b, done, err := s.begin(c, id)
	if done || err != nil {
		return err
	}
	c.Response().Header().Set("Access-Control-Allow-Origin", "*")
	return s.serveCached(c, b != nil, echo.MIMEApplicationJSON, func() ([]byte, error) {
		res, err := s.runs.result(c.Request().Context(), id, sc)
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
// a sweep draws only the sweep picture, and only a sweep draws it.
func chartFits(opt chart.Options) func(sc *engine.Scenario) error {
	return func(sc *engine.Scenario) error {
		switch {
		case sc.Sweep != nil && opt.Picture != "" && opt.Picture != chart.Sweep:
			return echo.NewHTTPError(http.StatusBadRequest, fmt.Sprintf("picture %q does not apply: this scenario is a sweep, whose only picture is %q", opt.Picture, chart.Sweep))
		case sc.Sweep == nil && opt.Picture == chart.Sweep:
			return echo.NewHTTPError(http.StatusBadRequest, fmt.Sprintf("picture %q does not apply: this scenario has no sweep; use one of %s", opt.Picture, strings.Join(slices.DeleteFunc(slices.Clone(chart.Pictures), func(p string) bool { return p == chart.Sweep }), ", ")))
		}
		return nil
	}
}

func (s *Server) handleChart(c echo.Context) error {
	id := c.Param("id")
	opt, err := chartOptions(c)
	if err != nil {
		return err
	}
	sc, _, b, done, err := s.begin(c, id, chartFits(opt))
	if done || err != nil {
		return err
	}
	h := c.Response().Header()
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; sandbox")
	h.Del("X-Frame-Options")
	h.Set("Access-Control-Allow-Origin", "*")
	return s.serveCached(c, b != nil, "image/svg+xml", func() ([]byte, error) {
		res, err := s.runs.result(c.Request().Context(), id, sc)
		if err != nil {
			return nil, err
		}
		var buf bytes.Buffer
		if err := chart.Render(&buf, res, withDescriptions(opt, sc)); err != nil {
			return nil, err // a *chart.OptionError is a 400
		}
		return buf.Bytes(), nil
	})
}

func (s *Server) handleCSV(c echo.Context) error {
	id := c.Param("id")
	sc, _, _, done, err := s.begin(c, id)
	if done || err != nil {
		return err
	}
	res, err := s.runs.result(c.Request().Context(), id, sc)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	write := func(prefix []string, strats []engine.StrategyResult) {
		for _, st := range strats {
			for _, name := range engine.MetricNames() {
				v, _ := st.Metrics.Metric(name)
				rec := append(append([]string(nil), prefix...), csvSafe(st.Name), name, strconv.FormatFloat(v, 'g', -1, 64))
				if mm, ok := st.Spread[name]; ok {
					rec = append(rec, strconv.FormatFloat(mm.Min, 'g', -1, 64), strconv.FormatFloat(mm.Max, 'g', -1, 64))
				} else {
					rec = append(rec, "", "")
				}
				w.Write(rec)
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

func (s *Server) handlePage(c echo.Context) error {
	id := c.Param("id")
	sc, _, b, done, err := s.begin(c, id)
	if done || err != nil {
		return err
	}
	return s.serveCachedIf(c, b != nil, echo.MIMETextHTMLCharsetUTF8, func() ([]byte, bool, error) {
		res, err := s.runs.result(c.Request().Context(), id, sc)
		switch {
		case costly(err):
			// Too costly to run here: the page still describes the scenario
			// and points to the playground.
			c.Response().Header().Set("Cache-Control", "public, max-age=300")
			v := s.view(c, id, sc, b, nil)
			v.RunError = s.errorAnswer(err).msg
			body, err := renderBytes(c, scenarioPage(s.assets, v))
			return body, false, err
		case err != nil:
			return nil, false, err
		}
		body, err := renderBytes(c, scenarioPage(s.assets, s.view(c, id, sc, b, res)))
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
	sc, _, b, done, err := s.begin(c, id, chartFits(opt))
	if done || err != nil {
		return err
	}
	return s.serveCached(c, b != nil, echo.MIMETextHTMLCharsetUTF8, func() ([]byte, error) {
		res, err := s.runs.result(c.Request().Context(), id, sc)
		if err != nil {
			return nil, err
		}
		v := s.view(c, id, sc, b, res)          // its verdict is the caption
		if q := canonicalQuery(c); len(q) > 0 { // checked above
			// Whether the result has what the query asks for (a resolution
			// it has a series for) is known once it has run.
			var oe *chart.OptionError
			if err := chart.Render(io.Discard, res, opt); errors.As(err, &oe) {
				return nil, oe
			}
			v.Charts = []chartView{{URL: "/s/" + id + "/chart.svg?" + q.Encode(), Alt: "A RetryLab chart of " + v.Title}}
		}
		return renderBytes(c, embedPage(s.assets, v))
	})
}

// oEmbed is the oEmbed 1.0 "rich" response.
type oEmbed struct {
	Version      string `json:"version"`
	Type         string `json:"type"`
	ProviderName string `json:"provider_name"`
	ProviderURL  string `json:"provider_url"`
	Title        string `json:"title"`
	HTML         string `json:"html"`
	Width        int    `json:"width"`
	Height       int    `json:"height"`
	ThumbnailURL string `json:"thumbnail_url"`
	ThumbWidth   int    `json:"thumbnail_width"`
	ThumbHeight  int    `json:"thumbnail_height"`
	CacheAge     int    `json:"cache_age"`
}

var embeddable = regexp.MustCompile(`^/(?:s|embed)/([A-Za-z0-9_-]{1,64})/?$`)

func (s *Server) handleOEmbed(c echo.Context) error {
	if f := c.QueryParam("format"); f != "" && f != "json" {
		return echo.NewHTTPError(http.StatusNotImplemented, "only format=json is supported")
	}
	u, err := url.Parse(c.QueryParam("url"))
	if err != nil || u.Path == "" {
		return echo.NewHTTPError(http.StatusBadRequest, "url must be the address of a RetryLab scenario page, such as /s/ID")
	}
	// Only this site's pages: the answer would otherwise vouch for any
	// host's address.
	if u.Host != "" && !s.sameHost(c, u.String()) {
		return echo.NewHTTPError(http.StatusNotFound, fmt.Sprintf("url %q is not a page of this site (%s)", u.Redacted(), s.baseURL(c)))
	}
	m := embeddable.FindStringSubmatch(u.Path)
	if m == nil {
		return echo.NewHTTPError(http.StatusNotFound, "url is not a RetryLab scenario page")
	}
	sc, _, b, err := s.lookup(c.Request().Context(), m[1])
	if err != nil {
		return err
	}
	width := 760
	if mw := c.QueryParam("maxwidth"); mw != "" {
		n, err := strconv.Atoi(mw)
		if err != nil || n < 1 {
			return echo.NewHTTPError(http.StatusBadRequest, fmt.Sprintf("maxwidth %q is not a positive number", mw))
		}
		width = min(width, max(n, 200))
	}
	height := width*400/760 + 90
	if mh := c.QueryParam("maxheight"); mh != "" {
		if n, err := strconv.Atoi(mh); err == nil && n > 0 {
			height = min(height, max(n, 120))
		}
	}
	base := s.baseURL(c)
	name := title(sc, b)
	// The chart the URL names (its picture, res, metric, theme), for the
	// iframe and the thumbnail alike.
	q := url.Values{}
	for _, k := range []string{"picture", "res", "metric", "theme", "success"} {
		if v := u.Query().Get(k); v != "" {
			q.Set(k, v)
		}
	}
	query := ""
	if len(q) > 0 {
		query = "?" + q.Encode()
	}
	// Width and height are the oEmbed's; the style keeps the frame's shape
	// at any narrower width instead of leaving a fixed height blank.
	iframe := fmt.Sprintf(`<iframe src="%s/embed/%s%s" width="%d" height="%d" title="%s" loading="lazy" style="border:0;width:100%%;max-width:%dpx;height:auto;aspect-ratio:%d/%d"></iframe>`,
		base, m[1], html.EscapeString(query), width, height, html.EscapeString(name), width, width, height)
	// Consumers want a raster thumbnail: the PNG where this build draws one.
	thumb, tw, th := base+"/s/"+m[1]+"/chart.svg"+thumbQuery(q), 760, 400
	if canDrawPNG {
		thumb, tw, th = base+"/s/"+m[1]+"/chart.png"+thumbQuery(q), 1200, 630
	}
	c.Response().Header().Set("Cache-Control", "public, max-age=86400")
	c.Response().Header().Set("Access-Control-Allow-Origin", "*")
	return c.JSON(http.StatusOK, oEmbed{
		Version: "1.0", Type: "rich", ProviderName: "RetryLab", ProviderURL: base,
		Title: name, HTML: iframe, Width: width, Height: height,
		ThumbnailURL: thumb, ThumbWidth: tw, ThumbHeight: th,
		CacheAge: 86400,
	})
}

// thumbQuery is the chart query of an oEmbed thumbnail: the embed's chart,
// in the light theme unless it names one.
func thumbQuery(q url.Values) string {
	t := url.Values{}
	for k, v := range q {
		t[k] = v
	}
	if t.Get("theme") == "" {
		t.Set("theme", "light")
	}
	return "?" + t.Encode()
}

func (s *Server) handleHealth(c echo.Context) error {
	c.Response().Header().Set("Cache-Control", "no-store")
	return c.JSON(http.StatusOK, map[string]string{"status": "ok", "engine_version": engine.EngineVersion})
}

// withDescriptions gives a chart's legends the strategies' descriptions, as
// the page's own figures have them.
func withDescriptions(opt chart.Options, sc *engine.Scenario) chart.Options {
	opt.Descriptions = view.Descriptions(sc)
	return opt
}
