package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// viaBatches returns an Options.RunBatch that runs each batch as a page
// of Web Workers does: its simulations shuffled and split at random into
// parts, each run either where it was handed off (Batch.Run) or as
// another worker runs it (the batch and the scenario through JSON, the
// scenario parsed again, and one Batches for every batch), and the
// parts, through JSON, put in a shuffled order. batches counts the
// batches it was handed.
func viaBatches(t *testing.T, sc *Scenario, seed uint64, batches *int) func(context.Context, *Batch, func(*Part) error) error {
	t.Helper()
	again, err := Parse(mustJSON(t, sc))
	if err != nil {
		t.Fatal(err)
	}
	rnd := rand.New(rand.NewPCG(seed, 1))
	elsewhere := NewBatches(again)
	return func(ctx context.Context, b *Batch, put func(*Part) error) error {
		*batches++
		var got Batch
		if err := json.Unmarshal(mustJSON(t, b), &got); err != nil {
			return err
		}
		ks := slices.Clone(got.Simulations)
		rnd.Shuffle(len(ks), func(i, j int) { ks[i], ks[j] = ks[j], ks[i] })
		var parts []*Part
		for len(ks) > 0 {
			n := 1 + rnd.IntN(len(ks))
			chunk := got
			chunk.Simulations = ks[:n]
			ks = ks[n:]
			opt := Options{Parallelism: 1 + rnd.IntN(2)}
			var p *Part
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

// progressLog records what a Progress hook hears.
type progressLog []string

func (l *progressLog) hear(done, total int) { *l = append(*l, fmt.Sprint(done, "/", total)) }

// TestTunedThroughBatches: a tuned run (segments, the first load, a
// cut) whose simulations run through RunBatch, split and shuffled, gives
// the in-process run's part, byte for byte, and its progress.
func TestTunedThroughBatches(t *testing.T) {
	sc := stormScenario(t)
	from, to := Duration(10e9), Duration(20e9)
	sc.Report.AffectedFrom, sc.Report.AffectedTo = &from, &to
	for _, tn := range []*Tuning{nil, {Segment: Duration(1e9)}, {FirstLoad: true, Segment: Duration(1e9)}, {Segment: Duration(1e9), CutPercent: 30, CutAt: Duration(8e9)}} {
		var inLog, viaLog progressLog
		in, err := RunTuned(context.Background(), sc, tn, Options{Progress: inLog.hear})
		if err != nil {
			t.Fatal(err)
		}
		batches := 0
		via, err := RunTuned(context.Background(), sc, tn, Options{Progress: viaLog.hear, RunBatch: viaBatches(t, sc, 7, &batches)})
		if err != nil {
			t.Fatal(err)
		}
		if a, b := mustJSON(t, in), mustJSON(t, via); !bytes.Equal(a, b) {
			t.Errorf("%+v: the run through batches differs:\n%s\n%s", tn, a, b)
		}
		if len(inLog) != len(in.Simulations) || len(viaLog) != len(inLog) {
			t.Errorf("%+v: progress through batches %v, in-process %v", tn, viaLog, inLog)
		}
		if batches != 1 {
			t.Errorf("%+v: %d batches; want one", tn, batches)
		}
		if segs := in.Simulations[0].Segments; (tn != nil && tn.Segment > 0) != (len(segs) == 10) {
			t.Errorf("%+v: %d segments", tn, len(segs))
		}
	}
}

// TestBatchesRefuse: a batch's simulations are of its run, once each,
// and a batch decoded from JSON runs only through Batches.
func TestBatchesRefuse(t *testing.T) {
	sc := stormScenario(t)
	bs := NewBatches(sc)
	for _, ks := range [][]int{{-1}, {0, 0}, {len(SeedsOf(sc))}} {
		if _, err := bs.Run(context.Background(), &Batch{Scenario: sc, Simulations: ks}, Options{}); err == nil {
			t.Errorf("simulations %v: no error", ks)
		}
	}
	if _, err := bs.Run(context.Background(), &Batch{Simulations: []int{0}}, Options{}); err == nil {
		t.Errorf("a search's batch of a scenario without one: no error")
	}
	if _, err := (&Batch{Scenario: sc, Simulations: []int{0}}).Run(context.Background(), []int{0}, Options{}); err == nil {
		t.Errorf("a batch not handed off, run where it was: no error")
	}
}
