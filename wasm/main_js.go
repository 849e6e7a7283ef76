//go:build js && wasm

// All syscall/js use is in this file and in package jsapi: the engine, the
// charts and the built-ins are imported unchanged. Every function checks its
// arguments and answers through jsapi.Promise: a Promise, rejected with an
// Error on failure or panic, so that nothing can kill the module.

package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"syscall/js"
	"time"

	"github.com/retrylab/retrylab/shared/engine"
	"github.com/retrylab/retrylab/shared/engine/probe"
	_ "github.com/retrylab/retrylab/shared/engine/search" // the playground runs searches
	"github.com/retrylab/retrylab/shared/scenarios"
	"github.com/retrylab/retrylab/shared/view"
	"github.com/retrylab/retrylab/wasm/jsapi"
)

func main() {
	api := js.Global().Get("Object").New()
	api.Set("validate", jsapi.Promise("engine", validate))
	api.Set("run", jsapi.Async("engine", run))
	api.Set("runPart", jsapi.Promise("engine", runPart))
	api.Set("runBatch", jsapi.Promise("engine", runBatch))
	api.Set("batchAnswer", jsapi.Promise("engine", batchAnswer))
	api.Set("merge", jsapi.Promise("engine", merge))
	api.Set("builtins", jsapi.Promise("engine", builtins))
	api.Set("presets", jsapi.Promise("engine", presets))
	api.Set("vocabulary", jsapi.Promise("engine", func([]js.Value) (any, error) { return engine.Kinds(), nil }))
	api.Set("probe", jsapi.Async("engine", runProbe))
	api.Set("limits", jsapi.Promise("engine", limits))
	api.Set("searchForm", jsapi.Promise("engine", searchForm))
	api.Set("form", jsapi.Promise("engine", func([]js.Value) (any, error) { return view.FormOf(), nil }))
	api.Set("edit", jsapi.Promise("engine", edit))
	api.Set("requirementsForm", jsapi.Promise("engine", func([]js.Value) (any, error) { return view.RequirementsFormOf(), nil }))
	api.Set("engineVersion", engine.EngineVersion)
	js.Global().Set("retrylab", api)
	select {} // keep the module alive for later calls
}

// edit(scenarioJSON, editJSON) → the scenario with the form's edit made
// (view.Edit). The page calls it on a worker that runs no simulations.
func edit(args []js.Value) (any, error) {
	doc, err := jsapi.String(args, 0, "the scenario")
	if err != nil {
		return nil, err
	}
	e, err := jsapi.String(args, 1, "the edit")
	if err != nil {
		return nil, err
	}
	out, err := view.Edit([]byte(doc), []byte(e))
	if err != nil {
		return nil, err
	}
	return json.RawMessage(out), nil
}

func numberArg(args []js.Value, i int) float64 {
	if len(args) > i && args[i].Type() == js.TypeNumber {
		return args[i].Float()
	}
	return 0
}

// parsed is the last scenario parsed, by its JSON: a run split into parts
// parses it once per worker, not once per part.
var parsed struct {
	doc string
	sc  *engine.Scenario
	// batches runs its batches here (runBatch), its search's
	// candidates compiled once for all of them.
	batches *engine.Batches
}

// parse parses a scenario, or returns the last one when doc is the same.
// The engine never changes a scenario it runs.
func parse(doc string) (*engine.Scenario, error) {
	if parsed.sc != nil && doc == parsed.doc {
		return parsed.sc, nil
	}
	sc, err := scenarios.Parse([]byte(doc))
	if err != nil {
		return nil, err
	}
	parsed.doc, parsed.sc, parsed.batches = doc, sc, nil
	return sc, nil
}

type validation struct {
	Errors      engine.Errors `json:"errors"`
	Estimate    int64         `json:"estimate"`
	Warnings    []string      `json:"warnings"`
	Simulations int           `json:"simulations"`
	PerSeed     int           `json:"per_seed"`
	Search      bool          `json:"search,omitempty"`
	Window      *window       `json:"window,omitempty"`
	// Refused says why Run would refuse the scenario, when validate is
	// given the limit Run keeps to and the estimate is over it.
	Refused string `json:"refused,omitempty"`
}

// window is the affected window the scenario's runs judge, as the form
// shows it: the engine's AffectedWindow and the view's words for it.
type window struct {
	engine.AffectedWindow
	Says string `json:"says"`
	// Varies is true when the sweep moves the window (view.WindowVaries):
	// Says then says so, and no one window is offered.
	Varies bool `json:"varies,omitempty"`
}

func windowOf(sc *engine.Scenario) *window {
	if view.WindowVaries(sc) {
		return &window{sc.AffectedWindow(), view.WindowVariesText(sc), true}
	}
	return &window{sc.AffectedWindow(), view.Window(sc), false}
}

// validate(scenarioJSON, maxEvents) → {errors, estimate, warnings,
// simulations, per_seed, search, window, refused}: simulations numbered as
// runPart takes them, per_seed of them on each seed; window is the
// affected window its runs judge ({from, to, pinned, whole, phases, says};
// absent with errors); a scenario with a search has search true and no
// simulations, and runs whole (run), not in parts. refused, with a
// maxEvents above 0, is why a run with that limit refuses it
// (engine.CheckCost: the estimate, the limit, what makes the cost).
func validate(args []js.Value) (any, error) {
	doc, err := jsapi.String(args, 0, "the scenario")
	if err != nil {
		return nil, err
	}
	sc, err := parse(doc)
	if err != nil {
		es := engine.AsErrors(err)
		if es == nil {
			return nil, err
		}
		return validation{Errors: es}, nil
	}
	refused := ""
	if err := engine.CheckCost(sc, int64(numberArg(args, 1))); err != nil {
		refused = err.Error()
	}
	if sc.Search != nil {
		// Its rounds depend on each other's results: it is not split over
		// workers (engine.Simulations refuses it) but runs whole (run).
		return validation{Errors: engine.Errors{}, Estimate: engine.Estimate(sc), Warnings: engine.Warnings(sc), Search: true, Window: windowOf(sc), Refused: refused}, nil
	}
	n, perSeed, err := engine.Simulations(sc)
	if err != nil {
		return nil, err
	}
	return validation{Errors: engine.Errors{}, Estimate: engine.Estimate(sc), Warnings: engine.Warnings(sc), Simulations: n, PerSeed: perSeed, Window: windowOf(sc), Refused: refused}, nil
}

type runOutput struct {
	Errors engine.Errors  `json:"errors,omitempty"`
	Result *engine.Result `json:"result,omitempty"`
	View   *view.View     `json:"view,omitempty"`
	Millis float64        `json:"millis"`
}

// run(scenarioJSON, maxEvents, theme, width, pooled) → {errors} or
// {result, view, millis}: the view is what the server's page shows, with
// every figure's SVG drawn (width 0: the charts' own width). With pooled
// true, a search hands each round's simulations to the page (handOff),
// which runs them over its workers. It runs on a goroutine of its own
// (jsapi.Async), so that this worker answers runBatch and batchAnswer
// while it waits.
func run(args []js.Value) (any, error) {
	doc, err := jsapi.String(args, 0, "the scenario")
	if err != nil {
		return nil, err
	}
	maxEvents := int64(numberArg(args, 1))
	start := time.Now()
	sc, err := parse(doc)
	if err != nil {
		if es := engine.AsErrors(err); es != nil {
			return runOutput{Errors: es}, nil
		}
		return nil, err
	}
	opt := engine.Options{MaxEvents: maxEvents, Progress: postProgress()}
	if len(args) > 4 && args[4].Truthy() {
		opt.RunBatch = handOff
	}
	res, err := engine.Run(context.Background(), sc, opt)
	if err != nil {
		return nil, err
	}
	return present(sc, res, args, 2, start), nil
}

// postProgress returns a progress hook that posts {progress, total} to the
// page: postMessage works while the worker is busy in a call.
func postProgress() func(done, total int) {
	post := js.Global().Get("postMessage")
	return func(done, total int) {
		if total > 1 && post.Type() == js.TypeFunction {
			msg := js.Global().Get("Object").New()
			msg.Set("progress", done)
			msg.Set("total", total)
			post.Invoke(msg)
		}
	}
}

// present returns the result with its view, every figure drawn in the
// theme and width that args[at] and args[at+1] give, and the time since
// start.
func present(sc *engine.Scenario, res *engine.Result, args []js.Value, at int, start time.Time) runOutput {
	theme := "auto"
	if len(args) > at && args[at].Type() == js.TypeString {
		theme = args[at].String()
	}
	width := numberArg(args, at+1)
	v := view.Of(sc, res, view.Options{})
	view.Draw(v, res, theme, width)
	return runOutput{Result: res, View: v, Millis: float64(time.Since(start).Microseconds()) / 1000}
}

// runPart(scenarioJSON, simulations, maxEvents) → a part of the run:
// simulations is an array of their numbers (see validate).
func runPart(args []js.Value) (any, error) {
	doc, err := jsapi.String(args, 0, "the scenario")
	if err != nil {
		return nil, err
	}
	if len(args) < 2 || !js.Global().Get("Array").Call("isArray", args[1]).Bool() {
		return nil, fmt.Errorf("the simulations must be an array of numbers")
	}
	ks := make([]int, args[1].Length())
	for i := range ks {
		if v := args[1].Index(i); v.Type() != js.TypeNumber {
			return nil, fmt.Errorf("the simulations must be an array of numbers")
		} else {
			ks[i] = v.Int()
		}
	}
	sc, err := parse(doc)
	if err != nil {
		return nil, err
	}
	return engine.RunPart(context.Background(), sc, engine.Options{MaxEvents: int64(numberArg(args, 2))}, ks)
}

// merge(scenarioJSON, partsJSON, theme, width, seeds) → {errors} or
// {result, view, millis}, as run gives: partsJSON is an array of parts
// holding every simulation of the run, or, when seeds > 0, every one of
// its first seeds (numbered below seeds × per_seed), for the result of
// those seeds alone.
func merge(args []js.Value) (any, error) {
	doc, err := jsapi.String(args, 0, "the scenario")
	if err != nil {
		return nil, err
	}
	raw, err := jsapi.String(args, 1, "the parts")
	if err != nil {
		return nil, err
	}
	start := time.Now()
	sc, err := parse(doc)
	if err != nil {
		if es := engine.AsErrors(err); es != nil {
			return runOutput{Errors: es}, nil
		}
		return nil, err
	}
	var parts []*engine.Part
	if err := json.Unmarshal([]byte(raw), &parts); err != nil {
		return nil, fmt.Errorf("the parts: %w", err)
	}
	if seeds := int(numberArg(args, 4)); seeds > 0 {
		sc = engine.FirstSeeds(sc, seeds)
	}
	res, err := engine.Merge(sc, parts...)
	if err != nil {
		return nil, err
	}
	return present(sc, res, args, 2, start), nil
}

// batches are the batches handed off to the page and not yet answered,
// by number: each hears its parts, then its end, on its channel.
var batches = struct {
	sync.Mutex
	next int
	open map[int]*openBatch
}{open: map[int]*openBatch{}}

// An openBatch is a batch handed off from here, waiting for its answers.
type openBatch struct {
	b  *engine.Batch
	ch chan batchMsg
}

// A batchMsg is what the page answers a batch: a part, or its end (with
// the error that ended it, if any).
type batchMsg struct {
	part string
	err  string
	end  bool
}

// handOff is engine.Options.RunBatch in the browser: it posts {batch,
// batchId} to the page, batch the JSON of an engine.Batch, and waits
// for the page's answers (batchAnswer), putting each part as it comes.
// The page runs the batch with runBatch, over its workers, this one
// too: this goroutine waits on a channel meanwhile, and the worker's
// event loop goes on.
func handOff(ctx context.Context, b *engine.Batch, put func(*engine.Part) error) error {
	doc, err := json.Marshal(b)
	if err != nil {
		return err
	}
	ch := make(chan batchMsg, len(b.Simulations)+1) // a part holds one simulation at least
	batches.Lock()
	batches.next++
	id := batches.next
	batches.open[id] = &openBatch{b, ch}
	batches.Unlock()
	defer func() {
		batches.Lock()
		delete(batches.open, id)
		batches.Unlock()
	}()
	msg := js.Global().Get("Object").New()
	msg.Set("batch", string(doc))
	msg.Set("batchId", id)
	js.Global().Call("postMessage", msg)
	for {
		select {
		case <-ctx.Done():
			return fmt.Errorf("%w: %w", engine.ErrStopped, ctx.Err())
		case m := <-ch:
			switch {
			case m.err != "":
				return errors.New(m.err)
			case m.end:
				return nil
			}
			var part engine.Part
			if err := json.Unmarshal([]byte(m.part), &part); err != nil {
				return fmt.Errorf("a part of a batch: %w", err)
			}
			if err := put(&part); err != nil {
				return err
			}
		}
	}
}

// batchAnswer(batchId, partJSON, error) → {}: the page's answer to the
// batch handOff posted: a part of it (partJSON), its end ("" and ""), or
// the error that ended it.
func batchAnswer(args []js.Value) (any, error) {
	if len(args) < 1 || args[0].Type() != js.TypeNumber {
		return nil, fmt.Errorf("the batch must be a number")
	}
	part, err := jsapi.String(args, 1, "the part")
	if err != nil {
		return nil, err
	}
	failure, err := jsapi.String(args, 2, "the error")
	if err != nil {
		return nil, err
	}
	ob := openHere(args[0].Int())
	if ob == nil {
		return nil, fmt.Errorf("no batch %d is waiting", args[0].Int())
	}
	m := batchMsg{part: part, err: failure, end: part == "" && failure == ""}
	select {
	case ob.ch <- m:
	default:
		return nil, fmt.Errorf("batch %d has more answers than simulations", args[0].Int())
	}
	return struct{}{}, nil
}

// openHere returns batch id, handed off from this worker and waiting, or
// nil.
func openHere(id int) *openBatch {
	batches.Lock()
	defer batches.Unlock()
	return batches.open[id]
}

// runBatch(scenarioJSON, batchJSON, batchId) → a part: what the
// simulations of a batch that handOff posted measured, the scenario being
// the one the search or the probe runs (a probe step's batch carries the
// scenario it tunes). On the worker that handed it off (batchId waiting
// here), on the simulations its search or probe compiled
// (engine.Batch.Run); on any other, as engine.Batches runs them, the
// search's candidates compiled once per scenario.
func runBatch(args []js.Value) (any, error) {
	doc, err := jsapi.String(args, 0, "the scenario")
	if err != nil {
		return nil, err
	}
	raw, err := jsapi.String(args, 1, "the batch")
	if err != nil {
		return nil, err
	}
	var b engine.Batch
	if err := json.Unmarshal([]byte(raw), &b); err != nil {
		return nil, fmt.Errorf("the batch: %w", err)
	}
	opt := engine.Options{Parallelism: 1}
	if ob := openHere(int(numberArg(args, 2))); ob != nil {
		return ob.b.Run(context.Background(), b.Simulations, opt)
	}
	sc, err := parse(doc)
	if err != nil {
		return nil, err
	}
	if parsed.batches == nil {
		parsed.batches = engine.NewBatches(sc)
	}
	return parsed.batches.Run(context.Background(), &b, opt)
}

// runProbe answers probe(scenarioJSON, strategy, maxEvents, check,
// pooled) → {probe, view}: the metastability probe of the strategy ("" for the first; probe.Run, as
// the server's /api/scenarios/{id}/probe answers it), refused when its
// estimate is above maxEvents (0: no limit). With check true it answers
// {} without simulating anything when the probe would run: probe.Run
// makes every check before its first simulation, which checks the
// context first. Every refusal and failure rejects the Promise with its
// reason. The page runs a probe in a worker of its own, which it ends to
// stop it; with pooled true, each step's simulations are handed to the
// page (handOff), which runs them over that worker and more of the
// probe's own, as run's search does.
func runProbe(args []js.Value) (any, error) {
	doc, err := jsapi.String(args, 0, "the scenario")
	if err != nil {
		return nil, err
	}
	strategy, err := jsapi.String(args, 1, "the strategy")
	if err != nil {
		return nil, err
	}
	if len(args) < 3 || args[2].Type() != js.TypeNumber || args[2].Float() < 0 {
		return nil, fmt.Errorf("the event limit must be a number, 0 or more")
	}
	check := len(args) > 3 && args[3].Truthy()
	sc, err := parse(doc)
	if err != nil {
		return nil, err
	}
	ctx := context.Background()
	opt := probe.Options{Strategy: strategy, MaxEvents: int64(args[2].Float()), Parallelism: 1}
	if check {
		stopped, cancel := context.WithCancel(ctx)
		cancel()
		_, err := probe.Run(stopped, sc, opt)
		if errors.Is(err, engine.ErrStopped) && errors.Is(err, context.Canceled) {
			return struct{}{}, nil
		}
		if err == nil {
			return nil, fmt.Errorf("the probe's check ran it") // probe.Run checks the context before it simulates
		}
		return nil, err
	}
	// Only a probe that runs reports its progress: a check's would reach
	// the page as the progress of whatever that worker runs next.
	opt.Progress = postProgress()
	if len(args) > 4 && args[4].Truthy() {
		opt.RunBatch = handOff
	}
	res, err := probe.Run(ctx, sc, opt)
	if err != nil {
		return nil, err
	}
	return view.AnswerOf(res), nil
}

// searchForm(scenarioJSON, strategy) → the form of the default search
// from that strategy (view.SearchFormOf: engine.DefaultSearchFor's knobs
// and objectives, in words), which the playground's "What should I ship?"
// shows; rejected when the scenario is invalid or has no such strategy.
func searchForm(args []js.Value) (any, error) {
	doc, err := jsapi.String(args, 0, "the scenario")
	if err != nil {
		return nil, err
	}
	name, err := jsapi.String(args, 1, "the strategy")
	if err != nil {
		return nil, err
	}
	sc, err := parse(doc)
	if err != nil {
		return nil, err
	}
	return view.SearchFormOf(sc, name)
}

// limits() → {runs: [1, most], seed: [0, most]}: the seeds a link's runs=
// and seed= may ask for, as the command line's --runs and --seed take
// them.
func limits(args []js.Value) (any, error) {
	return view.Playground(maxSeed), nil
}

// maxSeed is the engine's largest seed (its validator's bound): seeds
// survive a round trip through JavaScript.
const maxSeed = 1<<53 - 1

type builtinInfo struct {
	Slug     string          `json:"slug"`
	Title    string          `json:"title"`
	Summary  string          `json:"summary"`
	Scenario json.RawMessage `json:"scenario"`
}

// builtins() → [{slug, title, summary, scenario}]
func builtins(args []js.Value) (any, error) {
	var out []builtinInfo
	for _, b := range scenarios.All() {
		out = append(out, builtinInfo{b.Slug, b.Title, b.Summary, b.Scenario})
	}
	return out, nil
}

// presets() → [{name, title, library, differs, policy}]
func presets(args []js.Value) (any, error) {
	return scenarios.Presets(), nil
}
