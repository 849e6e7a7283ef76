package scenarios

import (
	"slices"
	"strings"
	"testing"

	"github.com/retrylab/retrylab/shared/engine"
)

// A story holds a built-in's text to its run: each claim that its summary,
// look_at and notes make is a check of the run they describe, so that the
// text and its test change together. sc is the built-in's scenario, freshly
// parsed; a story may change it to run a variant its text speaks of (another
// seed, another phase), never to make a claim true.
type story func(t *testing.T, sc *engine.Scenario)

// stories is the registry of stories, by slug: a built-in whose text has
// been checked against its run has its entry here.
var stories = map[string]story{}

// TestStories walks every built-in and runs its story. A built-in without
// one is skipped by name, so that the list of texts nobody has held to
// their run is in the test's output (go test -v -run TestStories).
func TestStories(t *testing.T) {
	var missing []string
	for _, b := range All() {
		if _, ok := stories[b.Slug]; !ok {
			missing = append(missing, b.Slug)
		}
	}
	if len(missing) > 0 {
		t.Logf("%d of %d built-ins have no story yet: %s", len(missing), len(All()), strings.Join(missing, ", "))
	}
	for _, b := range All() {
		t.Run(b.Slug, func(t *testing.T) {
			check, ok := stories[b.Slug]
			if !ok {
				t.Skipf("no story: the text of %s is not checked against its run", b.Slug)
			}
			check(t, builtin(t, b.Slug))
		})
	}
}

// TestStoriesNameBuiltins: a story whose slug is no built-in's (renamed,
// or misspelt) would never run.
func TestStoriesNameBuiltins(t *testing.T) {
	known := append(slices.Clip(slugs), searchSlugs...)
	for slug := range stories {
		if !slices.Contains(known, slug) {
			t.Errorf("story %q: no built-in has that slug", slug)
		}
	}
}
