package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	iofs "io/fs"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/retrylab/retrylab/server"
	"github.com/retrylab/retrylab/shared/engine"
)

// noStore is a server.Store with nothing in it: the built-ins need none.
type noStore struct{}

func (noStore) PutScenario(context.Context, string, []byte) error { return nil }
func (noStore) GetScenario(context.Context, string) ([]byte, error) {
	return nil, iofs.ErrNotExist
}

// TestShowPrintsWhatTheAPIAnswers: retrylab show SLUG prints the scenario
// GET /api/scenarios/SLUG answers (indented), and it runs as a file.
func TestShowPrintsWhatTheAPIAnswers(t *testing.T) {
	const slug = "e03b-synchronized-recovery"
	code, out, errs := run(t, "", "show", slug)
	if code != 0 {
		t.Fatalf("show: exit %d: %s", code, errs)
	}
	srv, err := server.New(server.Config{Store: noStore{}, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	rec := httptest.NewRecorder()
	srv.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/api/scenarios/"+slug, nil))
	if rec.Code != http.StatusOK {
		t.Fatalf("GET /api/scenarios/%s: %d %s", slug, rec.Code, rec.Body)
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, []byte(out)); err != nil {
		t.Fatalf("show's output is not JSON: %v\n%s", err, out)
	}
	if compact.String() != strings.TrimSpace(rec.Body.String()) {
		t.Errorf("show prints\n%s\nthe API answers\n%s", compact.String(), rec.Body)
	}
	if !strings.HasPrefix(out, "{\n  \"version\": 1,") || !strings.HasSuffix(out, "}\n") {
		t.Errorf("want the scenario indented, one field a line, ending in a newline:\n%.200s", out)
	}
	file := filepath.Join(t.TempDir(), "e03b.json")
	if err := os.WriteFile(file, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := run(t, "", "run", file, "--runs", "1"); code != 0 {
		t.Errorf("run of show's output: exit %d: %s", code, errs)
	}
}

func TestShowErrors(t *testing.T) {
	for _, tc := range []struct {
		desc   string
		args   []string
		code   int
		stderr string
	}{
		{"no slug", []string{"show"}, 2, "retrylab show: name a built-in's slug (retrylab list shows them)"},
		{"two slugs", []string{"show", "a", "b"}, 2, "one built-in at a time"},
		{"a typo", []string{"show", "metadata-strom"}, 1, "retrylab show: no built-in metadata-strom; did you mean metadata-storm?"},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			code, _, errs := run(t, "", tc.args...)
			if code != tc.code || !strings.Contains(errs, tc.stderr) {
				t.Errorf("exit %d, stderr %q; want %d and %q", code, errs, tc.code, tc.stderr)
			}
		})
	}
}

// TestRunCatalogueEntry: a file of the catalogue is a wrapper around a
// scenario; run says how to run it instead of listing its fields.
func TestRunCatalogueEntry(t *testing.T) {
	file := "../../shared/scenarios/catalog/e03b-synchronized-recovery.json"
	for _, cmd := range []string{"run", "chart", "search", "probe", "export"} {
		if cmd == "search" && !engine.Searches() {
			continue // TestSearchInABuildWithoutIt
		}
		args := []string{cmd, file}
		if cmd == "export" {
			args = append(args, "--to", "grpc")
		}
		code, _, errs := run(t, "", args...)
		want := file + ": this is a catalogue entry; run it by its slug e03b-synchronized-recovery, or `retrylab show e03b-synchronized-recovery` prints its scenario\n"
		if code != 1 || errs != want {
			t.Errorf("%s: exit %d, stderr\n%s\nwant 1 and\n%s", cmd, code, errs, want)
		}
	}
}
