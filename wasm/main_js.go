//go:build js && wasm

// All syscall/js use is in this file: the engine, the charts and the
// built-ins are imported unchanged. Every function checks its arguments,
// answers with a Promise, rejects it with an Error on failure and recovers
// from panics, so that nothing can kill the module.

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"syscall/js"
	"time"

	"github.com/retrylab/retrylab/shared/chart"
	"github.com/retrylab/retrylab/shared/engine"
	"github.com/retrylab/retrylab/shared/scenarios"
	"github.com/retrylab/retrylab/shared/view"
)

func main() {
	api := js.Global().Get("Object").New()
	api.Set("validate", promise(validate))
	api.Set("run", promise(run))
	api.Set("builtins", promise(builtins))
	api.Set("presets", promise(presets))
	api.Set("vocabulary", promise(func([]js.Value) (any, error) { return engine.Kinds(), nil }))
	api.Set("engineVersion", engine.EngineVersion)
	js.Global().Set("retrylab", api)
	select {} // keep the module alive for later calls
}

// promise wraps f as a JavaScript function that returns a Promise of f's
// result (a JSON string), rejected with an Error when f fails or panics.
func promise(f func(args []js.Value) (any, error)) js.Func {
	return js.FuncOf(func(this js.Value, args []js.Value) any {
		var result any
		var err error
		func() {
			defer func() {
				if r := recover(); r != nil {
					err = fmt.Errorf("engine panic: %v", r)
				}
			}()
			result, err = f(args)
		}()
		if err != nil {
			return js.Global().Get("Promise").Call("reject", js.Global().Get("Error").New(err.Error()))
		}
		b, merr := json.Marshal(result)
		if merr != nil {
			return js.Global().Get("Promise").Call("reject", js.Global().Get("Error").New(merr.Error()))
		}
		return js.Global().Get("Promise").Call("resolve", string(b))
	})
}

func stringArg(args []js.Value, i int, name string) (string, error) {
	if len(args) <= i || args[i].Type() != js.TypeString {
		return "", fmt.Errorf("%s must be a string", name)
	}
	return args[i].String(), nil
}

type validation struct {
	Errors   engine.Errors `json:"errors"`
	Estimate int64         `json:"estimate"`
	Warnings []string      `json:"warnings"`
}

// validate(scenarioJSON) → {errors, estimate, warnings}
func validate(args []js.Value) (any, error) {
	doc, err := stringArg(args, 0, "the scenario")
	if err != nil {
		return nil, err
	}
	sc, err := scenarios.Parse([]byte(doc))
	if err != nil {
		es := engine.AsErrors(err)
		if es == nil {
			return nil, err
		}
		return validation{Errors: es}, nil
	}
	return validation{Errors: engine.Errors{}, Estimate: engine.Estimate(sc), Warnings: engine.Warnings(sc)}, nil
}

type runOutput struct {
	Errors engine.Errors  `json:"errors,omitempty"`
	Result *engine.Result `json:"result,omitempty"`
	View   *view.View     `json:"view,omitempty"`
	Millis float64        `json:"millis"`
}

// run(scenarioJSON, maxEvents, theme, width) → {errors} or {result, view,
// millis}: the view is what the server's page shows, with every figure's
// SVG drawn (width 0: the charts' own width).
func run(args []js.Value) (any, error) {
	doc, err := stringArg(args, 0, "the scenario")
	if err != nil {
		return nil, err
	}
	var maxEvents int64
	if len(args) > 1 && args[1].Type() == js.TypeNumber {
		maxEvents = int64(args[1].Float())
	}
	theme := "auto"
	if len(args) > 2 && args[2].Type() == js.TypeString {
		theme = args[2].String()
	}
	var width float64
	if len(args) > 3 && args[3].Type() == js.TypeNumber {
		width = args[3].Float()
	}
	start := time.Now()
	sc, err := scenarios.Parse([]byte(doc))
	if err != nil {
		if es := engine.AsErrors(err); es != nil {
			return runOutput{Errors: es}, nil
		}
		return nil, err
	}
	// Progress goes straight to the page: postMessage works while the
	// worker is busy in this call.
	post := js.Global().Get("postMessage")
	res, err := engine.Run(context.Background(), sc, engine.Options{MaxEvents: maxEvents, Progress: func(done, total int) {
		if total > 1 && post.Type() == js.TypeFunction {
			msg := js.Global().Get("Object").New()
			msg.Set("progress", done)
			msg.Set("total", total)
			post.Invoke(msg)
		}
	}})
	if err != nil {
		return nil, err
	}
	v := view.Of(sc, res, view.Options{})
	draw := func(opt chart.Options) string {
		var b strings.Builder
		opt.Theme, opt.Width = theme, width
		if err := chart.Render(&b, res, opt); err != nil {
			return ""
		}
		return b.String()
	}
	for i := range v.Figures {
		f := &v.Figures[i]
		f.SVG = draw(f.Options)
		for j := range f.Variants {
			f.Variants[j].SVG = draw(f.Variants[j].Options)
		}
	}
	return runOutput{Result: res, View: v, Millis: float64(time.Since(start).Microseconds()) / 1000}, nil
}

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
