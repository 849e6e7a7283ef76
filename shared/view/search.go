package view

import "encoding/json"

// A SearchView is what a policy search found, as pages and the playground
// show it: a summary of how it went, its frontier as a table (one row per
// point: the knobs' values, then the objectives' and constraints' metrics
// with their spread over the seeds), the recommendation or the note that
// says none meets the constraints, and the frontier figure.
type SearchView struct {
	// Summary says where the search started, how many candidates ran by
	// which method in which rounds, how many simulations that took, and
	// its objectives and constraints.
	Summary string `json:"summary"`
	// Settings are the knobs' paths (the table's first columns) and
	// Metrics the objectives' and then the constraints' metrics (its other
	// columns), each once.
	Settings []string `json:"settings"`
	Metrics  []Metric `json:"metrics"`
	// Points are the frontier's points, best first objective first, every
	// one of them; Groups say which the table lists.
	Points []SearchPoint `json:"points"`
	// Groups are the table's rows in order: each run of consecutive points
	// with the same figures (every cell, mean and range, as the table shows
	// it) is a group that lists its first SearchShown points and counts the
	// others, so that a frontier of many equal points stays readable.
	Groups []SearchGroup `json:"groups"`
	// Recommendation says, in words, which point the search recommends
	// and why (settings as "backoff exponential 1 s → 10 s", metrics by
	// their labels, what the points that tie with it share, whether it
	// rests on one seed and whether the next distinct point's range on
	// the first objective overlaps its own); Note says why there is none:
	// which candidate came closest when none meets the constraints (the
	// engine's), or that no objective separates the frontier's points,
	// with objectives the knobs could change. The command line, pages,
	// embeds and the playground all show these.
	Recommendation string `json:"recommendation,omitempty"`
	Note           string `json:"note,omitempty"`
	// Lead is the recommendation in one short sentence (the settings and
	// the objectives' values), for a caption under the frontier picture
	// and ahead of Recommendation, the detail, which pages fold. Both
	// start "Keep what you have" when the recommended point is the
	// search's strategy as it is.
	Lead string `json:"lead,omitempty"`
	// Figure is the frontier picture, when there are points to draw.
	Figure *Figure `json:"figure,omitempty"`
	// Limits says, for a search kept within a library's limits
	// (engine.Search.Within), which library and which limits: "searched
	// within gRPC's limits: 2..5 attempts, ...", a sentence.
	Limits string `json:"limits,omitempty"`
}

// A SearchPoint is a row of the frontier table.
type SearchPoint struct {
	// Settings are the knobs' values, in the order of SearchView.Settings,
	// in the words the recommendation uses, without the knob's path that
	// heads the column: "3", "full", "exponential 200 ms → 2 s", "no
	// budget", "ratio 10% over 1 s", "every level"; never JSON or null.
	Settings []string `json:"settings"`
	// Words are the settings as the recommendation says them, in one
	// line ("3 attempts, jitter full, no budget"), for a point listed
	// folded rather than in the table's columns.
	Words string `json:"words"`
	// Cells are the metrics' means, in the order of SearchView.Metrics,
	// with their range over the seeds.
	Cells       []Cell `json:"cells"`
	Recommended bool   `json:"recommended,omitempty"`
	// Name is the candidate's name as a strategy, such as "C (search 3)",
	// and Strategy the candidate itself: the search's strategy with the
	// point's settings, so that the playground can add it to the scenario.
	Name     string          `json:"name"`
	Strategy json.RawMessage `json:"strategy,omitempty"`
}

// SearchShown is how many points of a run with the same figures the
// frontier table lists.
const SearchShown = 3

// A SearchGroup is a run of consecutive frontier points with the same
// figures. Shown are the indexes in SearchView.Points of the points the
// table lists (at most SearchShown), Hidden those of the others, in order:
// they stay reachable where a reader needs them (the playground adds any
// point as a strategy, a page links any point's export), and More counts
// them: "and 149 more with the same figures".
type SearchGroup struct {
	Shown  []int  `json:"shown"`
	Hidden []int  `json:"hidden,omitempty"`
	More   string `json:"more,omitempty"`
}
