package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"runtime/debug"
	"time"

	"github.com/retrylab/retrylab/server"
	"github.com/retrylab/retrylab/server/sqlite"
	"github.com/retrylab/retrylab/shared/engine/probe"
)

// cmdServe runs the web app until ctx ends, then shuts down gracefully:
// the work requests wait for (runs, probes) stops, and requests in flight
// get up to 10 s to finish before their connections are closed.
func cmdServe(ctx context.Context, args []string, stderr io.Writer) int {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", envOr("RETRYLAB_ADDR", ":8080"), "address to listen on (env RETRYLAB_ADDR)")
	dbPath := fs.String("db", envOr("RETRYLAB_DB", "./data/retrylab.db"), "SQLite database file, created on first run (env RETRYLAB_DB)")
	trustProxy := fs.Bool("trust-proxy", os.Getenv("RETRYLAB_TRUST_PROXY") == "1", "take client IPs and the scheme from X-Forwarded-For and X-Forwarded-Proto; only behind a proxy that sets them (env RETRYLAB_TRUST_PROXY=1)")
	baseURL := fs.String("base-url", os.Getenv("RETRYLAB_BASE_URL"), "public origin of absolute links in share URLs, embed snippets and oEmbed, e.g. https://retrylab.example (env RETRYLAB_BASE_URL; default: the request's scheme and Host)")
	memLimit := fs.Int64("memory-limit", 512, "soft limit of the Go heap in MiB (the garbage collector works harder near it); 0 for none; GOMEMLIMIT, when set, wins")
	if code := parseFlags(fs, args); code != 0 {
		return exit(code)
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "retrylab serve: takes no arguments, only flags; got %q\n", fs.Arg(0))
		return 2
	}
	log := slog.New(slog.NewJSONHandler(stderr, nil))
	// The caches are bounded by bytes and each run by its estimated cost;
	// what two wide runs at once leave behind is garbage the collector
	// would otherwise let grow to several times the live heap.
	if os.Getenv("GOMEMLIMIT") == "" && *memLimit > 0 {
		debug.SetMemoryLimit(*memLimit << 20)
	}
	db, err := sqlite.Open(ctx, *dbPath)
	if err != nil {
		fmt.Fprintf(stderr, "retrylab serve: %v\n", err)
		return 1
	}
	defer db.Close()
	if db.ReadOnly() {
		log.Warn("the database cannot be written: shared scenarios are served, sharing answers 503", "db", *dbPath)
	}
	srv, err := server.New(server.Config{Store: db, Logger: log, TrustProxy: *trustProxy, BaseURL: *baseURL, Probe: probe.Run})
	if err != nil {
		fmt.Fprintf(stderr, "retrylab serve: %v\n", err)
		return 1
	}
	// Every request's context ends when shutdown begins, so that the
	// runs and probes requests wait for stop instead of holding shutdown
	// until their timeouts.
	base, cancelRequests := context.WithCancel(context.Background())
	defer cancelRequests()
	hs := &http.Server{
		BaseContext:       func(net.Listener) context.Context { return base },
		Handler:           srv,
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       15 * time.Second,
		WriteTimeout:      30 * time.Second,
		IdleTimeout:       120 * time.Second,
		MaxHeaderBytes:    32 << 10,
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintf(stderr, "retrylab serve: %v\n", err)
		return 1
	}
	log.Info("serving", "addr", ln.Addr().String(), "db", *dbPath)
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		if !errors.Is(err, http.ErrServerClosed) {
			fmt.Fprintf(stderr, "retrylab serve: %v\n", err)
			return 1
		}
	case <-ctx.Done():
		log.Info("shutting down")
		cancelRequests()
		sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := hs.Shutdown(sctx); err != nil {
			log.Error("shutdown: closing the connections still open", "err", err)
			hs.Close()
			return 1
		}
	}
	return 0
}

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}
