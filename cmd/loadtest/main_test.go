package main

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/retrylab/retrylab/server"
)

func TestLoopbackBase(t *testing.T) {
	for _, base := range []string{
		"http://127.0.0.1:8080",
		"http://localhost:1",
		"http://LocalHost:8080/",
		"http://[::1]:80",
		"https://127.0.0.2",
	} {
		if _, err := loopbackBase(base); err != nil {
			t.Errorf("loopbackBase(%q) = %v, want allowed", base, err)
		}
	}
	for _, base := range []string{
		"http://10.0.0.1",
		"http://example.com",
		"http://192.168.1.1",
		"http://0.0.0.0:8080",
		"http://[::]:8080",
		"http://localhost.example.com",
		"http://127.0.0.1.nip.io",
		"http://user@127.0.0.1",
		"ftp://127.0.0.1",
		"127.0.0.1:8080",
		"",
	} {
		if _, err := loopbackBase(base); err == nil {
			t.Errorf("loopbackBase(%q) allowed, want refused", base)
		}
	}
}

func TestRefusedBaseExits2(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run(context.Background(), []string{"-base", "http://example.com"}, &out, &errb); code != 2 {
		t.Errorf("exit %d, want 2", code)
	}
	if !strings.Contains(errb.String(), "not loopback") {
		t.Errorf("stderr %q", errb.String())
	}
	if code := run(context.Background(), []string{"-duration", "61s"}, &out, &errb); code != 2 {
		t.Errorf("-duration 61s: exit %d, want 2", code)
	}
}

func TestPercentile(t *testing.T) {
	var d []time.Duration
	for i := 1; i <= 100; i++ {
		d = append(d, time.Duration(i))
	}
	for _, c := range []struct {
		p    float64
		want time.Duration
	}{{50, 50}, {90, 90}, {99, 99}, {100, 100}, {0.1, 1}} {
		if got := percentile(d, c.p); got != c.want {
			t.Errorf("percentile(1..100, %v) = %v, want %v", c.p, got, c.want)
		}
	}
	if got := percentile([]time.Duration{7}, 99); got != 7 {
		t.Errorf("one sample: %v", got)
	}
	if got := percentile(nil, 50); got != 0 {
		t.Errorf("no samples: %v", got)
	}
}

// TestRunAgainstFake runs both phases briefly against a stand-in server.
func TestRunAgainstFake(t *testing.T) {
	var posts atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.Method == http.MethodPost && r.URL.Path == "/api/scenarios":
			io.Copy(io.Discard, r.Body)
			if posts.Add(1)%3 == 0 {
				w.WriteHeader(http.StatusTooManyRequests)
				return
			}
			w.WriteHeader(http.StatusCreated)
			io.WriteString(w, `{"id":"abc","url":"x"}`)
		case r.Method == http.MethodGet && r.URL.Path == "/s/abc":
			io.WriteString(w, "<html>page</html>")
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	var out, errb bytes.Buffer
	code := run(context.Background(), []string{"-base", srv.URL, "-duration", "150ms", "-concurrency", "4", "-post-concurrency", "1"}, &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	for _, want := range []string{"| GET /s/{id} (cached) | 4 |", "| POST /api/scenarios | 1 |", "(rate-limited, expected)", "p99"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}

// TestWidePhaseAgainstTheServer runs phase 3 briefly against the real
// server in-process: the campaign's costly requests get their 4xx, wide
// results are served, and the server's memory is read from /metrics.
func TestWidePhaseAgainstTheServer(t *testing.T) {
	if testing.Short() {
		t.Skip("runs wide scenarios")
	}
	s, err := server.New(server.Config{Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), PostRate: 1000, PostBurst: 1000})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s)
	defer srv.Close()
	var out bytes.Buffer
	lt := &loadTest{base: srv.URL, client: newClient(2), stamp: "test"}
	if !lt.widePhase(context.Background(), 2, 2, &out) {
		t.Errorf("phase 3 failed:\n%s", out.String())
	}
	for _, want := range []string{"1,200 overlapping phases (was a 422 of 88 MB): 422", "2 wide scenarios shared and fetched", "map[200:8]", "server memory (RSS):"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}
