package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/retrylab/retrylab/shared/engine"
)

// recommendationOf returns the lines of a table's output from its
// recommendation on, up to the warnings.
func recommendationOf(t *testing.T, out string) string {
	t.Helper()
	i := strings.Index(out, "\nrecommendation: ")
	if i < 0 {
		t.Fatalf("no recommendation in:\n%s", out)
	}
	rec := out[i:]
	if j := strings.Index(rec, "\nwarnings:"); j >= 0 {
		rec = rec[:j]
	}
	return rec
}

// TestSearchWrite: search --write FILE writes the scenario with the
// search it ran (the default one it added, or the scenario's own) and its
// seeds; the file decodes, validates, and retrylab run FILE gives the same
// recommendation.
func TestSearchWrite(t *testing.T) {
	if !engine.Searches() {
		t.Skip("this build runs no search")
	}
	dir := t.TempDir()
	for _, c := range []struct {
		name string
		args []string
		from string
	}{
		{"default", []string{scenarioFile, "--strategy", "C", "--runs", "1", "--seed", "8"}, "C"},
		{"own", []string{"../../shared/engine/testdata/search.json"}, "C"},
	} {
		file := filepath.Join(dir, c.name+".json")
		code, out, errs := run(t, "", append([]string{"search", "--write", file}, c.args...)...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", c.name, code, errs)
		}
		if !strings.Contains(errs, "retrylab search: wrote "+file+", the scenario with its search from "+c.from) {
			t.Errorf("%s: stderr %q says nothing of the file", c.name, errs)
		}
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		sc, err := engine.Parse(b)
		if err != nil {
			t.Fatalf("%s: the file does not decode: %v", c.name, err)
		}
		if err := sc.Validate(); err != nil {
			t.Fatalf("%s: the file is not valid: %v", c.name, err)
		}
		if sc.Search == nil || sc.Search.Strategy != c.from || len(sc.Search.Knobs) == 0 {
			t.Fatalf("%s: the file's search is %+v", c.name, sc.Search)
		}
		if c.name == "default" && (sc.Runs != 1 || sc.Seed != 8) {
			t.Errorf("%s: the file runs %d seeds from %d, want the 1 from 8 the search ran", c.name, sc.Runs, sc.Seed)
		}
		code, again, errs := run(t, "", "run", file)
		if code != 0 {
			t.Fatalf("%s: run %s: exit %d: %s", c.name, file, code, errs)
		}
		if got, want := recommendationOf(t, again), recommendationOf(t, out); got != want {
			t.Errorf("%s: run FILE recommends\n%s\nwant, as the search did,\n%s", c.name, got, want)
		}
	}
	// One a server would refuse to run says so.
	big := filepath.Join(dir, "big.json")
	code, _, errs := run(t, "", "search", "--write", big, "--runs", "1", "--max-events", "0", "failover-incident", "--strategy", "every-layer")
	if code != 0 || !strings.Contains(errs, "retrylab search: "+big+" is estimated over the 30 million events a server runs by default") {
		t.Errorf("over the server's budget: exit %d, %q", code, errs)
	}
	code, _, errs = run(t, "", "search", "--write", filepath.Join(dir, "no", "such", "dir.json"), "--runs", "1", scenarioFile)
	if code != 1 || !strings.Contains(errs, "retrylab search: --write: ") {
		t.Errorf("unwritable: exit %d, %q", code, errs)
	}
}

// TestExportFrontierPoint: retrylab export --strategy "C (search 1)" of a
// scenario with a search runs it and exports the recommendation under the
// searched strategy's name, with the settings the search printed; a point
// the frontier has not is refused, listing those it has.
func TestExportFrontierPoint(t *testing.T) {
	if !engine.Searches() {
		t.Skip("this build runs no search")
	}
	file := filepath.Join(t.TempDir(), "search.json")
	code, out, errs := run(t, "", "search", "--write", file, scenarioFile, "--strategy", "C", "--runs", "1", "--seed", "8")
	if code != 0 {
		t.Fatalf("search: exit %d: %s", code, errs)
	}
	rec := out[strings.Index(out, "\nrecommendation: "):]
	var attempts int
	if _, err := fmt.Sscanf(rec[strings.Index(rec, "recommends ")+len("recommends "):], "%d attempts", &attempts); err != nil {
		t.Fatalf("no attempts in %q: %v", rec, err)
	}
	code, out, errs = run(t, "", "export", "--to", "envoy", "--strategy", "C (search 1)", file)
	if code != 0 {
		t.Fatalf("export: exit %d: %s", code, errs)
	}
	if !strings.Contains(out, fmt.Sprintf("num_retries: %d", attempts-1)) || !strings.Contains(out, "name: C") {
		t.Errorf("the recommendation (%d attempts) exported as:\n%s", attempts, out)
	}
	code, _, errs = run(t, "", "export", "--to", "envoy", "--strategy", "C (search 99)", file)
	if code != 2 || !strings.Contains(errs, `nor a point of its search's frontier; it has "A", "B", "C", "D", and the points "C (search 1)"`) {
		t.Errorf("an unknown point: exit %d, %q", code, errs)
	}
}
