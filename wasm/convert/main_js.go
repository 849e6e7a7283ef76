//go:build js && wasm

// All syscall/js use is in this file and in package jsapi: package convert
// is imported unchanged. Every function checks its arguments and answers
// through jsapi.Promise: a Promise, rejected with an Error on failure or
// panic, so that nothing can kill the module.

package main

import (
	"encoding/json"
	"fmt"
	"syscall/js"

	"github.com/retrylab/retrylab/shared/convert"
	"github.com/retrylab/retrylab/shared/engine"
	_ "github.com/retrylab/retrylab/shared/engine/search" // an exported scenario's search block is checked
	"github.com/retrylab/retrylab/wasm/jsapi"
)

func main() {
	api := js.Global().Get("Object").New()
	api.Set("formats", jsapi.Promise("converter", formats))
	api.Set("import", jsapi.Promise("converter", importConfig))
	api.Set("export", jsapi.Promise("converter", exportStrategy))
	api.Set("detect", jsapi.Promise("converter", detect))
	api.Set("engineVersion", engine.EngineVersion) // what worker.js's init answers
	js.Global().Set("retrylab", api)
	select {} // keep the module alive for later calls
}

type formatList struct {
	Import []string          `json:"import"`
	Export []string          `json:"export"`
	Labels map[string]string `json:"labels"`
}

// formats() → {import, export, labels}: the formats each direction
// takes, and how the pages label each.
func formats(args []js.Value) (any, error) {
	labels := map[string]string{}
	for _, f := range convert.ExportFormats {
		labels[f] = convert.Label(f)
	}
	return formatList{convert.ImportFormats, convert.ExportFormats, labels}, nil
}

type detection struct {
	Format string `json:"format"`
	Hint   string `json:"hint"`
}

// detect(document) → {format, hint}: the import format the document looks
// like (convert.Detect; "" for none) and what to tell a reader who gave it
// as a scenario (convert.ImportHint).
func detect(args []js.Value) (any, error) {
	doc, err := jsapi.String(args, 0, "the document")
	if err != nil {
		return nil, err
	}
	return detection{Format: convert.Detect([]byte(doc)), Hint: convert.ImportHint([]byte(doc))}, nil
}

type importOutput struct {
	Errors     engine.Errors      `json:"errors,omitempty"`
	Strategies []engine.Strategy  `json:"strategies,omitempty"`
	Backends   *engine.Backends   `json:"backends,omitempty"`
	Dependency *engine.Dependency `json:"dependency,omitempty"`
	Notes      []convert.Note     `json:"notes"`
}

// import(format, document[, dependencyJSON]) → {errors} or {strategies,
// backends, dependency, notes} (backends: the dependency's, when the
// document gives it some; dependency: the dependency given with those
// backends and its capacity shared among them, convert.ShareCapacity,
// whose notes follow the import's): errors name their path in the
// document, as the engine's validation errors do.
func importConfig(args []js.Value) (any, error) {
	format, err := jsapi.String(args, 0, "the format")
	if err != nil {
		return nil, err
	}
	doc, err := jsapi.String(args, 1, "the configuration")
	if err != nil {
		return nil, err
	}
	if err := convert.CheckFormat(format, false); err != nil {
		return importOutput{Errors: engine.Errors{{Path: "format", Message: err.Error()}}, Notes: []convert.Note{}}, nil
	}
	im, err := convert.Import(format, []byte(doc))
	if err != nil {
		if es := engine.AsErrors(err); es != nil {
			return importOutput{Errors: es.Limit(engine.MaxErrors), Notes: []convert.Note{}}, nil
		}
		return nil, err
	}
	out := importOutput{Strategies: im.Strategies, Backends: im.Backends}
	if im.Backends != nil && len(args) > 2 && args[2].Type() == js.TypeString {
		var d engine.Dependency
		if err := json.Unmarshal([]byte(args[2].String()), &d); err != nil {
			return nil, fmt.Errorf("the dependency: %w", err)
		}
		im.Notes = append(im.Notes, convert.ShareCapacity(&d, *im.Backends)...)
		out.Dependency = &d
	}
	out.Notes = orEmpty(im.Notes)
	return out, nil
}

type exportOutput struct {
	Errors engine.Errors  `json:"errors,omitempty"`
	Config string         `json:"config"`
	Notes  []convert.Note `json:"notes"`
}

// export(format, scenarioJSON, presetsJSON, index) → {errors} or {config,
// notes}: the scenario's strategy at index in the format. presetsJSON maps
// each policy preset's name to its policy (the engine module's presets),
// for the strategies that start from one.
func exportStrategy(args []js.Value) (any, error) {
	format, err := jsapi.String(args, 0, "the format")
	if err != nil {
		return nil, err
	}
	doc, err := jsapi.String(args, 1, "the scenario")
	if err != nil {
		return nil, err
	}
	rawPresets, err := jsapi.String(args, 2, "the presets")
	if err != nil {
		return nil, err
	}
	if len(args) < 4 || args[3].Type() != js.TypeNumber {
		return nil, fmt.Errorf("the strategy's index must be a number")
	}
	i := args[3].Int()
	if err := convert.CheckFormat(format, true); err != nil {
		return exportOutput{Errors: engine.Errors{{Path: "format", Message: err.Error()}}, Notes: []convert.Note{}}, nil
	}
	var presets map[string]json.RawMessage
	if err := json.Unmarshal([]byte(rawPresets), &presets); err != nil {
		return nil, fmt.Errorf("the presets: %w", err)
	}
	sc, err := engine.ParseWith([]byte(doc), presets)
	if err != nil {
		if es := engine.AsErrors(err); es != nil {
			return exportOutput{Errors: es.Limit(engine.MaxErrors), Notes: []convert.Note{}}, nil
		}
		return nil, err
	}
	if i < 0 || i >= len(sc.Strategies) {
		return nil, fmt.Errorf("the scenario has no strategy %d", i)
	}
	out, notes, err := convert.ExportFrom(format, sc.Strategies[i], convert.Backends(sc))
	if err != nil {
		return nil, err
	}
	return exportOutput{Config: string(out), Notes: orEmpty(notes)}, nil
}

func orEmpty(ns []convert.Note) []convert.Note {
	if ns == nil {
		return []convert.Note{}
	}
	return ns
}
