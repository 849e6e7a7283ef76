//go:build !nosearch

package server

import (
	"encoding/json"
	"html"
	"net/url"
	"strings"
	"testing"

	"github.com/retrylab/retrylab/shared/scenarios"
)

// searchScenario is E03-B on two seeds with a search from C of 6
// candidates: attempts and jitter, for the highest affected success and
// then the lowest peak, with the peak at most limit.
func searchScenario(t *testing.T, limit float64) string {
	t.Helper()
	b, ok := scenarios.Get("e03b-synchronized-recovery")
	if !ok {
		t.Fatal("no E03-B")
	}
	var sc map[string]any
	if err := json.Unmarshal(b.Scenario, &sc); err != nil {
		t.Fatal(err)
	}
	sc["name"] = "E03-B searched"
	sc["runs"] = 2
	sc["search"] = map[string]any{
		"strategy": "C",
		"knobs": []any{
			map[string]any{"path": "max_attempts", "values": []any{2, 4}},
			map[string]any{"path": "jitter.kind", "values": []any{"full", "equal", "decorrelated"}},
		},
		"objectives":  []any{map[string]any{"metric": "affected_success_rate", "goal": "max"}, map[string]any{"metric": "peak_per_100ms", "goal": "min"}},
		"constraints": []any{map[string]any{"metric": "peak_per_100ms", "op": "<=", "value": limit}},
	}
	out, _ := json.Marshal(sc)
	return string(out)
}

// TestSearchOnPages: a stored scenario with a search gets a Search
// section on its page (summary, recommendation, frontier table and
// picture) and the frontier picture on its embed, captioned by the
// recommendation; a scenario without a search is refused the frontier
// picture, and one whose frontier is empty says why instead of a table.
func TestSearchOnPages(t *testing.T) {
	s, _ := testServer(t)
	id := postScenario(t, s, searchScenario(t, 1000))
	page := do(t, s, "GET", "/s/"+id, "")
	if page.code != 200 {
		t.Fatalf("page: %d %.300s", page.code, page.body)
	}
	checkHTML(t, "page", page.body)
	for _, want := range []string{`<h2 id="search">Search</h2>`, "Search from C: 6 candidates by successive halving", `data-testid="search-recommendation"`,
		`data-testid="search-frontier"`, `<strong class="recommended">recommended</strong>`, `/s/` + id + `/chart.svg?picture=frontier`, `<code>jitter.kind</code>`} {
		if !strings.Contains(page.body, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if strings.Count(page.body, "<strong class=\"recommended\">") != 1 {
		t.Error("the page marks more or fewer than one point recommended")
	}
	// The recommendation's lead, then its detail folded; the frontier's
	// cells in words, no JSON or null.
	if i, j := strings.Index(page.body, `data-testid="search-recommendation"`), strings.Index(page.body, `<details data-testid="search-detail"><summary>Why, and how sure</summary>`); i < 0 || j < i || !strings.Contains(page.body[i:j], "The search from C recommends ") {
		t.Errorf("the page lacks the lead, then the folded detail:\n%.1500s", page.body[max(i, 0):])
	}
	if i := strings.Index(page.body, `data-testid="search-frontier"`); i >= 0 {
		table := page.body[i : i+strings.Index(page.body[i:], "</table>")]
		for _, raw := range []string{"{", "null", "&#34;"} {
			if strings.Contains(table, raw) {
				t.Errorf("the frontier table has %q:\n%s", raw, table)
			}
		}
	}
	for _, q := range []string{"?picture=frontier", "?picture=frontier&width=400&theme=dark"} {
		r := do(t, s, "GET", "/s/"+id+"/chart.svg"+q, "")
		if r.code != 200 || !strings.Contains(r.body, ">recommended<") {
			t.Fatalf("chart%s: %d %.300s", q, r.code, r.body)
		}
		checkSVG(t, r.body)
	}
	if canDrawPNG {
		if r := do(t, s, "GET", "/s/"+id+"/chart.png?picture=frontier", ""); r.code != 200 || !strings.HasPrefix(r.body, "\x89PNG") {
			t.Errorf("PNG of the frontier: %d %.300q", r.code, r.body)
		}
	}
	// The frontier is offered to embed beside the page's other snippets,
	// and each snippet names the frontier's picture.
	if i := strings.Index(page.body, `data-testid="frontier-snippets"`); i < 0 || i < strings.Index(page.body, `data-testid="snippets"`) {
		t.Error("the page offers no frontier snippets after its own")
	} else {
		block := page.body[i : i+max(strings.Index(page.body[i:], "Download:"), 0)]
		for _, want := range []string{`/s/` + id + `/chart.svg?picture=frontier)`, `/embed/` + id + `?picture=frontier`, `/oembed?url=` + url.QueryEscape("http://example.com/s/"+id+"?picture=frontier")} {
			if !strings.Contains(html.UnescapeString(block), want) {
				t.Errorf("the frontier snippets lack %q:\n%s", want, block)
			}
		}
	}
	embed := do(t, s, "GET", "/embed/"+id+"?picture=frontier", "")
	checkHTML(t, "embed", embed.body)
	if !strings.Contains(embed.body, "chart.svg?picture=frontier") || !strings.Contains(embed.body, `data-testid="verdict" tabindex="0">The search from C recommends `) {
		t.Errorf("the frontier's embed lacks its chart or its recommendation:\n%.2000s", embed.body)
	}
	if r := do(t, s, "GET", "/s/e03b-synchronized-recovery/chart.svg?picture=frontier", ""); r.code != 400 || !strings.Contains(r.body, "has no search") {
		t.Errorf("frontier of a scenario without a search: %d %.300s", r.code, r.body)
	}
	if r := do(t, s, "GET", "/s/e03b-synchronized-recovery", ""); strings.Contains(r.body, `id="search"`) || strings.Contains(r.body, "frontier-snippets") {
		t.Error("a page without a search has a Search section or frontier snippets")
	}

	none := postScenario(t, s, searchScenario(t, 1))
	page = do(t, s, "GET", "/s/"+none, "")
	checkHTML(t, "page", page.body)
	if !strings.Contains(page.body, `data-testid="search-note"`) || strings.Contains(page.body, `data-testid="search-frontier"`) || strings.Contains(page.body, "picture=frontier") {
		t.Error("a search none of whose candidates meets its constraints does not say so, or shows a frontier")
	}
	if r := do(t, s, "GET", "/embed/"+none+"?picture=frontier", ""); r.code != 400 || !strings.Contains(r.body, "frontier is empty") {
		t.Errorf("embed of an empty frontier: %d %.300s", r.code, r.body)
	}
}

// TestPageLinksToTheSearchForm (#28): a comparison page links each
// strategy to the playground's "What should I ship?" form for it; a
// sweep's page, whose strategies the search cannot vary, does not.
func TestPageLinksToTheSearchForm(t *testing.T) {
	s, _ := testServer(t)
	page := do(t, s, "GET", "/s/e03b-synchronized-recovery", "")
	checkHTML(t, "page", page.body)
	for _, name := range []string{"A", "B", "C", "D"} {
		if want := `href="/?s=e03b-synchronized-recovery&amp;ship=` + name + `"`; !strings.Contains(page.body, want) {
			t.Errorf("the page lacks %s", want)
		}
	}
	for _, b := range scenarios.All() {
		sc, err := b.Parse()
		if err != nil || sc.Sweep == nil {
			continue
		}
		if r := do(t, s, "GET", "/s/"+b.Slug, ""); strings.Contains(r.body, `data-testid="ships"`) {
			t.Errorf("the sweep %s links to the search form", b.Slug)
		}
		return
	}
	t.Fatal("no built-in sweeps")
}
