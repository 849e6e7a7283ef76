package engine

import (
	"bytes"
	"encoding/json"
	"slices"
	"testing"
)

// TestSearchThroughBatches: a search whose rounds run through RunBatch,
// split and shuffled, gives the in-process run's Result, byte for byte,
// with and without variants, and the same progress.
func TestSearchThroughBatches(t *testing.T) {
	plain := longE03B(t, 1)
	plain.Runs = 4
	plain.Search = DefaultSearch("C")
	across := longE03B(t, 1)
	across.Runs = 2
	across.Search = DefaultSearch("C")
	if err := json.Unmarshal([]byte(e03bVariants), &across.Search.Across); err != nil {
		t.Fatal(err)
	}
	for name, sc := range map[string]*Scenario{"plain": plain, "across": across} {
		t.Run(name, func(t *testing.T) {
			// As parsed, as every worker has it: Parse orders the keys of
			// a knob's values, and a part is of the scenario as parsed.
			sc, err := Parse(mustJSON(t, sc))
			if err != nil {
				t.Fatal(err)
			}
			var inLog, viaLog progressLog
			in := resultJSON(t, sc, Options{Progress: inLog.hear})
			batches := 0
			via := resultJSON(t, sc, Options{Progress: viaLog.hear, RunBatch: viaBatches(t, sc, 3, &batches)})
			if !bytes.Equal(in, via) {
				t.Errorf("the search through batches differs:\n%s\n%s", in, via)
			}
			if !slices.Equal(inLog, viaLog) {
				t.Errorf("progress through batches differs: %d calls against %d", len(viaLog), len(inLog))
			}
			var res Result
			if err := json.Unmarshal(in, &res); err != nil {
				t.Fatal(err)
			}
			if rounds := len(res.Search.Rounds); batches != rounds || rounds < 2 {
				t.Errorf("%d batches for %d rounds; want one a round", batches, rounds)
			}
		})
	}
}
