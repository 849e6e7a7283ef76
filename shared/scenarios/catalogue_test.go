package scenarios

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/retrylab/retrylab/shared/internal/golden"
)

// TestCatalogueDoc keeps docs/CATALOGUE.md, the human-readable catalogue of
// built-ins and presets, in step with the data (-update rewrites it).
func TestCatalogueDoc(t *testing.T) {
	var b bytes.Buffer
	b.WriteString("# Built-in scenarios and policy presets\n\n")
	b.WriteString("Generated from `shared/scenarios` by `go test ./shared/scenarios -run TestCatalogueDoc -update`; do not edit by hand.\n\n")
	b.WriteString("Run one with `retrylab run SLUG`. Every scenario models an experiment from the published source it cites (an article, a post-incident summary, a simulator, a library's documentation); its notes list each parameter the source did not publish and the value chosen.\n\n")
	b.WriteString("| # | slug | what it shows |\n| --- | --- | --- |\n")
	for _, s := range All() {
		fmt.Fprintf(&b, "| %d | [`%s`](#%s) | %s |\n", s.Number, s.Slug, s.Slug, s.Title)
	}
	for _, s := range All() {
		fmt.Fprintf(&b, "\n## %s\n\n", s.Slug)
		fmt.Fprintf(&b, "**%s.** %s\n\n", s.Title, s.Summary)
		src := s.Source.Title
		for _, p := range []string{s.Source.Author, s.Source.Date} {
			if p != "" {
				src += ", " + p
			}
		}
		if s.Source.URL != "" {
			src += " (" + s.Source.URL + ")"
		}
		fmt.Fprintf(&b, "- Source: %s.\n- Look at: %s\n- Notes:\n", src, s.LookAt)
		for _, n := range s.Notes {
			fmt.Fprintf(&b, "  - %s\n", n)
		}
	}
	b.WriteString("\n# Presets\n\nUse one as `\"preset\": \"NAME\"` in a strategy or layer; the policy's own fields override it (nested objects field by field), and the expanded policy records `based_on`.\n")
	for _, p := range Presets() {
		fmt.Fprintf(&b, "\n## %s\n\n%s — %s.\n\n```json\n%s\n```\n\n- Sources:\n", p.Name, p.Title, p.Library, compact(p.Policy))
		for _, s := range p.Sources {
			fmt.Fprintf(&b, "  - %s\n", s)
		}
		if len(p.Differs) > 0 {
			b.WriteString("- Where the engine differs:\n")
			for _, d := range p.Differs {
				fmt.Fprintf(&b, "  - %s\n", d)
			}
		}
	}
	golden.Check(t, "../../docs/CATALOGUE.md", b.Bytes())
}

func compact(raw []byte) string {
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return string(raw)
	}
	return b.String()
}
