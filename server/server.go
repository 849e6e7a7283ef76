// Package server is RetryLab's web backend: share links for scenarios,
// comparison pages rendered on the server (they work without JavaScript),
// SVG charts and oEmbed for embedding, and a JSON API. It is one Echo app,
// served natively (cmd/retrylab serve) and on Cloudflare Workers.
//
// The server practises what RetryLab preaches: request bodies are bounded,
// scenarios too costly to run are refused before they run, runs have a
// timeout and a concurrency limit past which the server sheds load with 503
// and Retry-After, writes are idempotent (an ID is the hash of the content),
// and POSTs are rate-limited per client.
package server

import (
	"context"
	"fmt"
	"io/fs"
	"log/slog"
	"net/http"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"
	"golang.org/x/time/rate"

	"github.com/retrylab/retrylab/shared/engine"
	"github.com/retrylab/retrylab/shared/engine/probe"
	"github.com/retrylab/retrylab/shared/scenarios"
	"github.com/retrylab/retrylab/shared/view"
)

// DefaultMaxEvents is Config.MaxEvents when it is zero: view.ServerMaxEvents.
const DefaultMaxEvents = view.ServerMaxEvents

// Config holds a server's dependencies and limits. Zero values get defaults.
type Config struct {
	Store  Store
	Logger *slog.Logger
	// Probe runs the metastability probe (probe.Run): retrylab serve
	// sets it. Without it (the Worker, which leaves the probe's code
	// out) the probe's routes answer 501 naming what runs a probe, and
	// pages link to none.
	Probe func(context.Context, *engine.Scenario, probe.Options) (*probe.Result, error)
	// MaxEvents is the cost budget of a run on the server; scenarios
	// estimated above it are refused with 422 and a pointer to the playground.
	MaxEvents int64
	// RunTimeout bounds one run; MaxRuns (default max(2, GOMAXPROCS)) bounds
	// the runs at once, each on one core (engine.Options.Parallelism 1), and
	// MaxWaiting the requests waiting for one, past which requests that need
	// a run get 503 with Retry-After. A negative MaxWaiting means no waiting.
	RunTimeout time.Duration
	MaxRuns    int
	MaxWaiting int
	// RequestTimeout bounds every request.
	RequestTimeout time.Duration
	// PostRate and PostBurst limit POSTs per client IP.
	PostRate  float64
	PostBurst int
	// SpendRate and SpendBurst bound the computing time each client IP
	// may buy (spend.go): it earns SpendRate core-seconds a second
	// (default 0.25, a quarter of a core; negative for no limit) up to
	// SpendBurst (default 4 × RunTimeout). A run reserves RunTimeout of
	// it and a probe its own timeout, and get back what they do not use.
	SpendRate  float64
	SpendBurst time.Duration
	// NoFirstResult leaves out of the playground page the result it shows
	// before its engine has loaded (the Worker: a run per isolate on the
	// home page costs more CPU time than its plan gives).
	NoFirstResult bool
	// TrustProxy takes the client IP from X-Forwarded-For (behind a proxy
	// that sets it); otherwise the connection's address is used, so that a
	// forged header cannot dodge the rate limit.
	TrustProxy bool
	// BaseURL is the public origin for absolute links (share URLs, embed
	// snippets, oEmbed), e.g. "https://retrylab.example". Empty means the
	// request's own scheme and Host; X-Forwarded-Proto counts only with
	// TrustProxy.
	BaseURL string
	// MaxResultBytes bounds the size of one result, estimated before the
	// run (engine.EstimateSize, 8 bytes a number) and counted after it;
	// larger ones are refused with 422.
	MaxResultBytes int64
	// CacheSize is the number of results kept in memory, and CacheBytes
	// their size in all. The final answers (pages, charts, JSON) are kept
	// up to four times as many and as many bytes; parsed shared scenarios
	// up to four times as many and a quarter of the bytes.
	CacheSize  int
	CacheBytes int64
	// Static holds the front end's files (static/...); nil means the ones
	// built into the binary (web.Static).
	Static fs.FS
	// StaticManifest maps static files to their content-hashed paths when
	// the platform serves them (Workers Static Assets, written by
	// ExportStatic); the server then serves none itself.
	StaticManifest map[string]string
}

func (c *Config) defaults() {
	if c.Store == nil {
		c.Store = newMemStore()
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	if c.MaxEvents == 0 {
		c.MaxEvents = DefaultMaxEvents
	}
	if c.RunTimeout == 0 {
		c.RunTimeout = 10 * time.Second
	}
	if c.MaxRuns == 0 {
		c.MaxRuns = max(2, runtime.GOMAXPROCS(0))
	}
	switch {
	case c.MaxWaiting == 0:
		c.MaxWaiting = 32
	case c.MaxWaiting < 0:
		c.MaxWaiting = 0 // shed as soon as every slot is taken
	}
	if c.RequestTimeout == 0 {
		c.RequestTimeout = 20 * time.Second
	}
	switch {
	case c.SpendRate == 0:
		c.SpendRate = 0.25
	case c.SpendRate < 0:
		c.SpendRate = 0 // no limit
	}
	if c.SpendBurst == 0 {
		c.SpendBurst = 4 * max(c.RunTimeout, time.Second)
	}
	if c.PostRate == 0 {
		c.PostRate = 2
	}
	if c.PostBurst == 0 {
		c.PostBurst = 20
	}
	if c.CacheSize == 0 {
		c.CacheSize = 256
	}
	if c.CacheBytes == 0 {
		c.CacheBytes = 32 << 20
	}
	if c.MaxResultBytes == 0 {
		c.MaxResultBytes = 8 << 20
	}
}

// A Server is the RetryLab web app.
type Server struct {
	cfg      Config
	log      *slog.Logger
	store    Store
	echo     *echo.Echo
	assets   *assets
	runs     *runner
	spend    *spending         // spend.go
	probes   *probeRuns        // probe.go
	pages    *lru[*cachedPage] // final answers, by cacheKey
	stored   *lru[*subject]    // shared scenarios, by ID
	metrics  *metrics
	builtins map[string]*subject // by slug
	build    string              // buildID, in every ETag of an answer about a scenario

	firstMu sync.Mutex
	first   map[string]*firstResult // by built-in slug, once drawn
}

// New builds a server and registers its routes.
func New(cfg Config) (*Server, error) {
	cfg.defaults()
	cfg.BaseURL = strings.TrimSuffix(cfg.BaseURL, "/")
	a := &assets{byName: cfg.StaticManifest, byPath: map[string]*asset{}}
	if cfg.StaticManifest == nil {
		var err error
		if cfg.Static != nil {
			a, err = loadAssets(cfg.Static)
		} else {
			a, err = staticAssets()
		}
		if err != nil {
			return nil, fmt.Errorf("server: static files: %w", err)
		}
	}
	if !a.hasEngine() {
		cfg.Logger.Warn("the playground's engine is not in this build (web/static/engine.wasm): the playground page offers the server-side form instead; build with make build (or make wasm before go build) for the in-browser playground")
	}
	s := &Server{
		cfg:     cfg,
		log:     cfg.Logger,
		store:   cfg.Store,
		echo:    echo.New(),
		assets:  a,
		metrics: newMetrics(),
		build:   buildID(a),
	}
	s.builtins = map[string]*subject{} // parsed once
	for _, b := range scenarios.All() {
		sc, err := b.Parse()
		if err != nil {
			return nil, fmt.Errorf("server: built-in %s: %w", b.Slug, err)
		}
		s.builtins[b.Slug] = &subject{id: b.Slug, sc: sc, canonical: sc.Canonical(), builtin: b}
	}
	s.runs = newRunner(cfg, s.metrics)
	s.spend = newSpending(cfg.SpendRate, cfg.SpendBurst, time.Now)
	s.runs.spend = s.spend
	s.probes = newProbeRuns(cfg)
	s.pages = newLRU(4*cfg.CacheSize, cfg.CacheBytes, cfg.MaxResultBytes, (*cachedPage).bytes)
	s.stored = newLRU(4*cfg.CacheSize, cfg.CacheBytes/4, cfg.CacheBytes/4, (*subject).bytes)
	s.echo.HideBanner, s.echo.HidePort = true, true
	s.echo.HTTPErrorHandler = s.handleError
	if cfg.TrustProxy {
		s.echo.IPExtractor = echo.ExtractIPFromXFFHeader()
	} else {
		s.echo.IPExtractor = echo.ExtractIPDirect()
	}
	s.routes()
	return s, nil
}

// ServeHTTP serves a request.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.echo.ServeHTTP(w, r) }

// routes registers every route in one place.
func (s *Server) routes() {
	e := s.echo
	e.Use(headOnly) // outermost: whatever answers, HEAD's body is dropped
	e.Use(middleware.Recover())
	e.Use(middleware.RequestID())
	e.Use(middleware.RequestLoggerWithConfig(middleware.RequestLoggerConfig{
		LogStatus: true, LogURI: true, LogMethod: true, LogLatency: true, LogRequestID: true, LogRemoteIP: true, LogError: true,
		HandleError: true,
		LogValuesFunc: func(c echo.Context, v middleware.RequestLoggerValues) error {
			level := slog.LevelInfo
			if serverFault(v.Status) {
				level = slog.LevelError
			}
			if l, ok := c.Get(logLevelKey).(slog.Level); ok { // the error's, when it said
				level = l
			}
			s.log.LogAttrs(context.Background(), level, "request",
				slog.String("id", v.RequestID), slog.String("method", v.Method), slog.String("uri", v.URI),
				slog.Int("status", v.Status), slog.Duration("latency", v.Latency), slog.String("ip", v.RemoteIP))
			return nil
		},
	}))
	e.Use(s.metrics.middleware)
	e.Use(middleware.ContextTimeout(s.cfg.RequestTimeout))
	e.Use(func(next echo.HandlerFunc) echo.HandlerFunc { // whom the work a request starts is charged to
		return func(c echo.Context) error {
			r := c.Request()
			c.SetRequest(r.WithContext(withClient(r.Context(), c.RealIP())))
			return next(c)
		}
	})
	e.Use(securityHeaders)
	// gz compresses a route's answers as it writes them, its errors too;
	// routes whose handlers compress their own answers (static files, the
	// answer cache) go without it. The router's own answers, which no
	// route's middleware sees (404 where no route matches, 405 with an Allow
	// header where none has the method), are compressed here.
	compress := middleware.Gzip()
	gz := func(next echo.HandlerFunc) echo.HandlerFunc { return compress(s.answerErrors(next)) }
	e.Use(middleware.GzipWithConfig(middleware.GzipConfig{Skipper: func(c echo.Context) bool {
		return c.Path() != "" && c.Get(echo.ContextKeyHeaderAllow) == nil // a route's
	}}))
	// Errors become answers in answerErrors, inside the compression where
	// there is one, so that an error page is written (and compressed) like
	// any other; the middlewares outside see its status.
	e.Use(s.answerErrors)

	limit := middleware.RateLimiterWithConfig(middleware.RateLimiterConfig{
		Store: middleware.NewRateLimiterMemoryStoreWithConfig(middleware.RateLimiterMemoryStoreConfig{
			Rate: rate.Limit(s.cfg.PostRate), Burst: s.cfg.PostBurst, ExpiresIn: 3 * time.Minute,
		}),
		IdentifierExtractor: func(c echo.Context) (string, error) { return c.RealIP(), nil },
		DenyHandler:         func(echo.Context, string, error) error { return errRateLimited },
	})

	// The routes. Adding one takes a line here (get for a GET, which
	// answers HEAD too) and its handler, in the file
	// of its concern (handlers.go; the answer cache in cache.go, csv.go,
	// docs.go, oembed.go, chartpng.go, convert.go, probe.go, progress.go): give it
	// gz unless its handler compresses its own answers (serveCached), and
	// limit if it writes. Its errors are answered by errorAnswer
	// (errors.go): in JSON under /api/ (and for /oembed, or when asked), as
	// pages elsewhere.
	//
	// get registers a GET route and its HEAD, answered by the same handler
	// (headOnly drops the body).
	get := func(path string, h echo.HandlerFunc, m ...echo.MiddlewareFunc) {
		e.GET(path, h, m...)
		e.HEAD(path, h, m...)
	}
	get("/", s.handleHome, gz)
	e.POST("/share", s.handleShareForm, gz, limit)
	get("/scenarios", s.handleGallery, gz)
	get("/s/:id", s.handlePage)
	get("/s/:id/chart.svg", s.handleChart)
	get("/s/:id/chart.png", s.handleChartPNG)
	get("/s/:id/metrics.csv", s.handleCSV, gz)
	get("/s/:id/export", s.handleExport)
	get("/s/:id/probe", s.handleProbePage)
	get("/embed/:id", s.handleEmbed)
	get("/oembed", s.handleOEmbed, gz)
	e.POST("/api/scenarios", s.handleCreate, gz, limit)
	e.POST("/api/import", s.handleImport, gz, limit)
	get("/api/scenarios/:id", s.handleGetScenario)
	get("/api/scenarios/:id/result", s.handleResultOrStream) // progress.go: Server-Sent Events when asked
	get("/api/scenarios/:id/probe", s.handleProbeAPI)
	get("/docs", s.handleDocs, gz)
	get("/docs/:page", s.handleDocsPage, gz)
	get("/docs/images/:file", s.handleDocsImage, gz)
	get("/healthz", s.handleHealth, gz)
	get("/metrics", echo.WrapHandler(s.metrics.handler()))
	get("/static/*", s.assets.serve)
	// Pages name their icon; a client that asks the conventional place
	// gets sent to it.
	get("/favicon.ico", func(c echo.Context) error {
		return c.Redirect(http.StatusMovedPermanently, s.assets.path("favicon.svg"))
	})
}

// securityHeaders sets the headers every answer carries; handlers that serve
// embeddable content (embeds, SVG) replace the framing rules.
func securityHeaders(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		h := c.Response().Header()
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "strict-origin-when-cross-origin")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data: blob:; style-src 'self'; script-src 'self' 'wasm-unsafe-eval'; worker-src 'self'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'")
		return next(c)
	}
}

// headOnly answers HEAD as GET is answered, without the body: the handler
// writes it as for a GET, and it is counted, for Content-Length, and
// dropped. The status and headers are sent once everything has answered.
func headOnly(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if c.Request().Method != http.MethodHead {
			return next(c)
		}
		res := c.Response()
		w := &headWriter{ResponseWriter: res.Writer}
		res.Writer = w
		defer func() {
			res.Writer = w.ResponseWriter
			w.finish()
		}()
		return next(c)
	}
}

// A headWriter is a HEAD request's http.ResponseWriter: it keeps the
// status, counts the body and drops it.
type headWriter struct {
	http.ResponseWriter
	status int // 0: nothing written yet
	size   int64
}

func (w *headWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
}

func (w *headWriter) Write(p []byte) (int, error) {
	w.WriteHeader(http.StatusOK)
	w.size += int64(len(p))
	return len(p), nil
}

// Flush does nothing: the header goes when the answer is complete.
func (w *headWriter) Flush() {}

// finish sends the status and headers, with the Content-Length a GET's
// body would have had.
func (w *headWriter) finish() {
	if w.status == 0 {
		return // nothing answered (a panic on its way to Recover)
	}
	h := w.ResponseWriter.Header()
	if h.Get("Content-Length") == "" && w.status >= 200 && w.status != http.StatusNoContent && w.status != http.StatusNotModified {
		h.Set("Content-Length", strconv.FormatInt(w.size, 10))
	}
	w.ResponseWriter.WriteHeader(w.status)
}
