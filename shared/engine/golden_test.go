package engine

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/retrylab/retrylab/shared/internal/golden"
)

// numberLists matches a JSON list of numbers that MarshalIndent spread over
// many lines; compactList puts it back on one, so golden files stay small and
// their diffs readable.
var numberLists = regexp.MustCompile(`\[\s*-?[0-9][-0-9.e+,\s]*\]`)

func compactList(b []byte) []byte {
	return regexp.MustCompile(`\s+`).ReplaceAll(b, nil)
}

// TestGolden runs every scenario in testdata and compares the result JSON byte
// for byte with testdata/golden. The Makefile runs it natively and under
// GOOS=js GOARCH=wasm against the same files: that is the proof that a
// scenario and seed give the same bytes on both.
func TestGolden(t *testing.T) {
	files, err := filepath.Glob("testdata/*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no scenarios in testdata: %v", err)
	}
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".json")
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			sc, err := Parse(data)
			if err != nil {
				t.Fatal(err)
			}
			res, err := Run(context.Background(), sc, Options{})
			if err != nil {
				t.Fatal(err)
			}
			got, err := json.MarshalIndent(res, "", " ")
			if err != nil {
				t.Fatal(err)
			}
			got = append(numberLists.ReplaceAllFunc(got, compactList), '\n')
			golden.Check(t, filepath.Join("testdata", "golden", name+".json"), got)
		})
	}
}
