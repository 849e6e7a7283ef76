// The answer cache: the final bytes of answers about an ID (pages, charts,
// JSON), built and compressed once, keyed by the request as its route reads
// it, with the caching headers and ETags that go with them.

package server

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"maps"
	"net/http"
	"net/url"
	"os"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/labstack/echo/v4"
	"github.com/retrylab/retrylab/shared/chart"

	"github.com/retrylab/retrylab/shared/engine"
)

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
		// Building an answer is charged to the client (spend.go): its
		// time, less the time it waited for runs and probes, which are
		// paid for by whoever started them.
		ctx := c.Request().Context()
		client := clientOf(ctx)
		if err := s.spend.ready(client); err != nil {
			return err
		}
		start, waited := s.spend.now(), waitedSoFar(ctx)
		body, keep, err := build()
		s.spend.charge(client, s.spend.now().Sub(start)-(waitedSoFar(ctx)-waited))
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
	if c.Path() == "/api/scenarios/:id/result" {
		h.Set("Vary", "Accept, Accept-Encoding") // or an event stream (progress.go)
	}
	if acceptsEncoding(c.Request().Header.Get("Accept-Encoding"), "gzip") {
		h.Set("Content-Encoding", "gzip")
		return c.Blob(http.StatusOK, p.ctype, p.gz)
	}
	return c.Blob(http.StatusOK, p.ctype, p.body)
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
		if r := c.QueryParam("res"); isResolution(r) {
			q.Set("res", r)
		}
		if e := c.QueryParam("embed"); slices.Contains(chart.Pictures, e) {
			q.Set("embed", e) // the picture the snippets embed (view.go)
		}
	case "/s/:id/export":
		// The handler refuses a bad format or as before any cache lookup.
		for _, k := range []string{"format", "strategy"} {
			if v := c.QueryParam(k); v != "" {
				q.Set(k, v)
			}
		}
		if c.QueryParam("as") == "json" {
			q.Set("as", "json")
		}
	case "/s/:id/probe", "/api/scenarios/:id/probe":
		q = probeValues(c) // probe.go
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

// idCacheControl is how long answers about a shared ID are cached. An ID
// is the hash of its scenario, but what the server makes of it changes
// with a release (the engine, the page around the result, the chart's
// drawing, the hashed names of the static files a page links), so it is
// not immutable: a day, then a revalidation that costs a 304 while the
// build is the same (the ETag carries buildID).
const idCacheControl = "public, max-age=86400"

// binaryID names the binary that renders answers: the commit it was built
// from (its VCS stamp, when the tree had no changes), else its
// executable's hash where it can be read (go test, go run, a build outside
// git), else "" (the Worker without a stamp). Read once per process.
var binaryID = sync.OnceValue(func() string {
	if info, ok := debug.ReadBuildInfo(); ok {
		var rev, modified string
		for _, kv := range info.Settings {
			switch kv.Key {
			case "vcs.revision":
				rev = kv.Value
			case "vcs.modified":
				modified = kv.Value
			}
		}
		if rev != "" && modified != "true" {
			return rev
		}
	}
	if exe, err := os.Executable(); err == nil {
		if f, err := os.Open(exe); err == nil {
			defer f.Close()
			h := sha256.New()
			if _, err := io.Copy(h, f); err == nil {
				return hex.EncodeToString(h.Sum(nil)[:10])
			}
		}
	}
	return ""
})

// buildID names the build that renders answers, for their ETags: the
// engine's version, the binary (binaryID) and the hashed names of the
// static files its pages link, so that a release whose pages link other
// files renews every ETag even where the binary cannot be named (the
// Worker). New computes it once.
func buildID(a *assets) string {
	h := sha256.New()
	io.WriteString(h, binaryID())
	for _, name := range slices.Sorted(maps.Keys(a.byName)) {
		io.WriteString(h, "\x00"+name+"="+a.byName[name])
	}
	return engine.EngineVersion + "+" + hex.EncodeToString(h.Sum(nil)[:10])
}

// etagMatches reports whether an If-None-Match header names etag: one of
// its comma-separated tags, compared weakly (a CDN that compresses an
// answer marks its ETag weak, W/"…"), or "*".
func etagMatches(header, etag string) bool {
	for tag := range strings.SplitSeq(header, ",") {
		tag = strings.TrimSpace(tag)
		if tag == "*" || strings.TrimPrefix(tag, "W/") == strings.TrimPrefix(etag, "W/") {
			return true
		}
	}
	return false
}

// cacheable sets caching headers for an answer about a scenario and reports
// whether the client's copy is current (then the caller answers 304). Shared
// IDs are content hashes: their answers change only with the build
// (idCacheControl). Built-in slugs may change with a release too, and are
// cached briefly.
func (s *Server) cacheable(c echo.Context, builtin bool) bool {
	sum := sha256.Sum256([]byte(s.build + "\x00" + s.cacheKey(c)))
	etag := `"` + hex.EncodeToString(sum[:10]) + `"`
	h := c.Response().Header()
	h.Set("ETag", etag)
	if builtin {
		h.Set("Cache-Control", "public, max-age=300")
	} else {
		h.Set("Cache-Control", idCacheControl)
	}
	return etagMatches(c.Request().Header.Get("If-None-Match"), etag)
}

// cachedPage is the final bytes of an answer about an ID, plain and gzipped:
// they never change for an engine version, so a cached page costs a map
// lookup instead of a render and a compression.
type cachedPage struct {
	ctype    string
	body, gz []byte
	builtin  bool // about a built-in, whose answers may change with a release
	headers  http.Header
}

// bytes is what a cached answer is counted for: its bytes, plain and
// gzipped, and what holds them.
func (p *cachedPage) bytes() int64 { return 512 + int64(len(p.ctype)+len(p.body)+len(p.gz)) }
