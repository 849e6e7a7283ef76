// Package scenarios holds RetryLab's built-in scenarios and policy presets as
// data: one JSON file per experiment, each citing the published work it
// reproduces and saying which parameters that work left open, and the retry
// defaults of real libraries, each citing where its numbers come from.
// docs/CATALOGUE.md lists them all.
//
// A program that does not run searches (engine.Searches false: one that
// does not import package search, as the Cloudflare Worker, where a
// scenario with a search block is invalid) leaves out the built-ins whose
// scenario has one: All, Get and everything that lists the built-ins do
// not know them there.
package scenarios

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/retrylab/retrylab/shared/engine"
)

//go:embed catalog/*.json presets.json
var files embed.FS

// A Builtin is one experiment of the catalogue.
type Builtin struct {
	// Number is the experiment's place in the catalogue (docs/CATALOGUE.md).
	Number int `json:"number"`
	// Slug is stable: it appears in URLs and on the command line.
	Slug    string `json:"slug"`
	Title   string `json:"title"`
	Summary string `json:"summary"`
	Source  Source `json:"source"`
	// LookAt says which metric or chart tells the story.
	LookAt string `json:"look_at"`
	// Notes give every parameter the source did not publish, with the value
	// chosen, and anything the model cannot show.
	Notes    []string        `json:"notes"`
	Scenario json.RawMessage `json:"scenario"`
}

// A Source is the published work an experiment comes from. Author, Date and
// URL are empty where the work does not give them or we have not verified them.
type Source struct {
	Title  string `json:"title"`
	Author string `json:"author"`
	Date   string `json:"date"`
	URL    string `json:"url,omitempty"`
}

// A Preset is a library's retry defaults, usable in a scenario as
// "preset": Name with the policy's own fields overriding it.
type Preset struct {
	Name    string   `json:"name"`
	Title   string   `json:"title"`
	Library string   `json:"library"`
	Sources []string `json:"sources"`
	// Differs says where the engine cannot express the library exactly.
	Differs []string        `json:"differs"`
	Policy  json.RawMessage `json:"policy"`
}

var (
	builtins []*Builtin
	// searchless is builtins without those that search: All's in a
	// program without searches.
	searchless []*Builtin
	presets    []*Preset
	presetMap  = map[string]json.RawMessage{}
)

func init() {
	if err := load(); err != nil {
		// The files are compiled in; a bad one is a bug that the tests catch.
		panic("scenarios: " + err.Error())
	}
}

func load() error {
	data, err := files.ReadFile("presets.json")
	if err != nil {
		return err
	}
	if err := decodeStrict(data, &presets); err != nil {
		return fmt.Errorf("presets.json: %w", err)
	}
	for _, p := range presets {
		if _, dup := presetMap[p.Name]; dup {
			return fmt.Errorf("presets.json: preset %q is defined twice", p.Name)
		}
		presetMap[p.Name] = p.Policy
	}
	// embed.FS's own ReadDir, not fs.Glob: the glob matcher and io/fs's
	// sort would be linked into engine.wasm for these few names.
	entries, err := files.ReadDir("catalog")
	if err != nil {
		return err
	}
	for _, e := range entries {
		name := "catalog/" + e.Name()
		if !strings.HasSuffix(name, ".json") {
			continue
		}
		data, err := files.ReadFile(name)
		if err != nil {
			return err
		}
		b := new(Builtin)
		if err := decodeStrict(data, b); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		if want := strings.TrimSuffix(strings.TrimPrefix(name, "catalog/"), ".json"); b.Slug != want {
			return fmt.Errorf("%s: slug %q does not match the file name", name, b.Slug)
		}
		builtins = append(builtins, b)
	}
	slices.SortFunc(builtins, func(a, b *Builtin) int { return a.Number - b.Number })
	searchless = slices.DeleteFunc(slices.Clone(builtins), (*Builtin).hasSearch)
	return nil
}

func decodeStrict(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}

// hasSearch reports whether the built-in's scenario has a search block.
func (b *Builtin) hasSearch() bool {
	var sc struct {
		Search json.RawMessage `json:"search"`
	}
	return json.Unmarshal(b.Scenario, &sc) == nil && len(sc.Search) > 0 && string(sc.Search) != "null"
}

// All returns the built-in scenarios in catalogue order (without those
// that search in a build that does not run searches; see the package
// comment).
func All() []*Builtin {
	if !engine.Searches() {
		return searchless // invalid in this program
	}
	return builtins
}

// Get returns the built-in with the given slug, one of All's.
func Get(slug string) (*Builtin, bool) {
	for _, b := range All() {
		if b.Slug == slug {
			return b, true
		}
	}
	return nil, false
}

// Parse parses the built-in's scenario, presets expanded.
func (b *Builtin) Parse() (*engine.Scenario, error) {
	return Parse(b.Scenario)
}

// Presets returns the policy presets in the order of presets.json.
func Presets() []*Preset { return presets }

// Parse decodes and validates a scenario, expanding presets: what every entry
// point that takes a user's scenario calls.
func Parse(data []byte) (*engine.Scenario, error) {
	return engine.ParseWith(data, presetMap)
}

// Decode decodes a scenario strictly, expanding presets, without validating it.
func Decode(data []byte) (*engine.Scenario, error) {
	return engine.DecodeWith(data, presetMap)
}
