package probe

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/retrylab/retrylab/shared/engine"
)

// viaBatches returns an Options.RunBatch that runs each batch as a page
// of Web Workers does: its simulations shuffled and split at random into
// parts, each run either where it was handed off (Batch.Run) or as
// another worker runs it (the batch and the scenario through JSON, the
// scenario parsed again, and one Batches for every batch), and the
// parts, through JSON, put in a shuffled order. batches counts the
// batches it was handed.
func viaBatches(t *testing.T, sc *engine.Scenario, seed uint64, batches *int) func(context.Context, *engine.Batch, func(*engine.Part) error) error {
	t.Helper()
	again, err := engine.Parse(mustJSON(t, sc))
	if err != nil {
		t.Fatal(err)
	}
	rnd := rand.New(rand.NewPCG(seed, 1))
	elsewhere := engine.NewBatches(again)
	return func(ctx context.Context, b *engine.Batch, put func(*engine.Part) error) error {
		*batches++
		var got engine.Batch
		if err := json.Unmarshal(mustJSON(t, b), &got); err != nil {
			return err
		}
		ks := slices.Clone(got.Simulations)
		rnd.Shuffle(len(ks), func(i, j int) { ks[i], ks[j] = ks[j], ks[i] })
		var parts []*engine.Part
		for len(ks) > 0 {
			n := 1 + rnd.IntN(len(ks))
			chunk := got
			chunk.Simulations = ks[:n]
			ks = ks[n:]
			opt := engine.Options{Parallelism: 1 + rnd.IntN(2)}
			var p *engine.Part
			var err error
			if rnd.IntN(2) == 0 {
				p, err = b.Run(ctx, chunk.Simulations, opt)
			} else {
				p, err = elsewhere.Run(ctx, &chunk, opt)
			}
			if err != nil {
				return err
			}
			parts = append(parts, roundTrip(t, p))
		}
		rnd.Shuffle(len(parts), func(i, j int) { parts[i], parts[j] = parts[j], parts[i] })
		for _, p := range parts {
			if err := put(p); err != nil {
				return err
			}
		}
		return nil
	}
}

// roundTrip sends a part through JSON, as the browser's workers do, and
// checks that it comes back the same.
func roundTrip(t *testing.T, p *engine.Part) *engine.Part {
	t.Helper()
	b := mustJSON(t, p)
	var q engine.Part
	if err := json.Unmarshal(b, &q); err != nil {
		t.Fatal(err)
	}
	if c := mustJSON(t, &q); !bytes.Equal(b, c) {
		t.Fatalf("a part changes through JSON:\n%s\n%s", b, c)
	}
	return &q
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// progressLog records what a Progress hook hears.
type progressLog []string

func (l *progressLog) hear(done, total int) { *l = append(*l, fmt.Sprint(done, "/", total)) }

// TestProbeThroughBatches: a probe whose steps run through RunBatch,
// split and shuffled, gives the in-process probe's result, byte for
// byte, and its progress.
func TestProbeThroughBatches(t *testing.T) {
	sc := stormScenario(t)
	var inLog, viaLog progressLog
	in := mustProbe(t, sc, Options{MaxWorkers: 40, Progress: inLog.hear})
	batches := 0
	via := mustProbe(t, sc, Options{MaxWorkers: 40, Progress: viaLog.hear, RunBatch: viaBatches(t, sc, 7, &batches)})
	if a, b := mustJSON(t, in), mustJSON(t, via); !bytes.Equal(a, b) {
		t.Errorf("the probe through batches differs:\n%s\n%s", a, b)
	}
	if !slices.Equal(inLog, viaLog) {
		t.Errorf("progress through batches %v, in-process %v", viaLog, inLog)
	}
	if steps := in.Simulations / in.Seeds; batches != steps || steps < 3 {
		t.Errorf("%d batches for %d steps; want one a step", batches, steps)
	}
}
