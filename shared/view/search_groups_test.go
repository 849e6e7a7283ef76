//go:build !nosearch

package view

import (
	"context"
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/retrylab/retrylab/shared/engine"
	"github.com/retrylab/retrylab/shared/scenarios"
)

// checkGroups checks that groups list or hide every one of n points once,
// in order, each group's points having the same cells, at most SearchShown
// listed and the count of the others said; it returns how many the table
// lists.
func checkGroups(t *testing.T, points []SearchPoint, groups []SearchGroup) int {
	t.Helper()
	next, shown := 0, 0
	for gi, g := range groups {
		if len(g.Shown) == 0 || len(g.Shown) > SearchShown || (len(g.Hidden) > 0 && len(g.Shown) != SearchShown) {
			t.Errorf("group %d lists %d points and hides %d", gi+1, len(g.Shown), len(g.Hidden))
		}
		for _, i := range append(append([]int{}, g.Shown...), g.Hidden...) {
			if i != next {
				t.Fatalf("group %d has point %d where point %d comes next", gi+1, i, next)
			}
			if !reflect.DeepEqual(points[i].Cells, points[g.Shown[0]].Cells) {
				t.Errorf("group %d: point %d's figures %v differ from its first's %v", gi+1, i, points[i].Cells, points[g.Shown[0]].Cells)
			}
			next++
		}
		if gi > 0 && reflect.DeepEqual(points[g.Shown[0]].Cells, points[groups[gi-1].Shown[0]].Cells) {
			t.Errorf("groups %d and %d have the same figures: one run split in two", gi, gi+1)
		}
		want := ""
		if len(g.Hidden) > 0 {
			want = "and " + strconv.Itoa(len(g.Hidden)) + " more with the same figures"
		}
		if g.More != want {
			t.Errorf("group %d says %q, want %q", gi+1, g.More, want)
		}
		shown += len(g.Shown)
	}
	if next != len(points) {
		t.Errorf("the groups have %d of the %d points", next, len(points))
	}
	return shown
}

// TestSearchGroups: runs of points with the same figures are grouped, the
// first three of each listed and the others counted; runs are only
// consecutive points, and no point is lost or moved.
func TestSearchGroups(t *testing.T) {
	pt := func(v string) SearchPoint {
		return SearchPoint{Cells: []Cell{{Value: v, Spread: "1–2"}, {Value: "9"}}}
	}
	var points []SearchPoint
	for _, run := range []struct {
		v string
		n int
	}{{"a", 1}, {"b", 3}, {"c", 4}, {"a", 2}, {"d", 10}} {
		for range run.n {
			points = append(points, pt(run.v))
		}
	}
	points[7].Cells[0].Spread = "1–3" // the same mean, another range: a run of its own
	groups := groupPoints(points)
	var got []string
	for _, g := range groups {
		got = append(got, strconv.Itoa(len(g.Shown))+"+"+strconv.Itoa(len(g.Hidden)))
	}
	if strings.Join(got, " ") != "1+0 3+0 3+0 1+0 2+0 3+7" {
		t.Errorf("groups listed+hidden: %v", got)
	}
	if shown := checkGroups(t, points, groups); shown != 13 {
		t.Errorf("the table lists %d points, want 13", shown)
	}
	if again := groupPoints(points); !reflect.DeepEqual(again, groups) {
		t.Error("grouping the same points twice gives other groups")
	}
	if g := groupPoints(nil); g == nil || len(g) != 0 {
		t.Errorf("no points: groups %v, want an empty list", g)
	}
}

// TestSearchGroupsLayeredRetries: the default search on the built-in
// layered-retries (always failing) finds 152 frontier points with the same
// figures; the view lists three and counts 149, keeps all 152 points with
// their candidates, and groups them the same on every run.
func TestSearchGroupsLayeredRetries(t *testing.T) {
	b, ok := scenarios.Get("layered-retries")
	if !ok {
		t.Fatal("no layered-retries")
	}
	run := func() (*engine.Scenario, *SearchView) {
		sc, err := engine.Parse(b.Scenario)
		if err != nil {
			t.Fatal(err)
		}
		sc.Search = engine.DefaultSearch(sc.Strategies[0].Name)
		res, err := engine.Run(context.Background(), sc, engine.Options{NoSeries: true})
		if err != nil {
			t.Fatal(err)
		}
		return sc, Of(sc, res, Options{}).Search
	}
	_, sv := run()
	if len(sv.Points) != 152 {
		t.Fatalf("%d frontier points, want 152", len(sv.Points))
	}
	if shown := checkGroups(t, sv.Points, sv.Groups); shown != 3 || len(sv.Groups) != 1 || sv.Groups[0].More != "and 149 more with the same figures" {
		t.Errorf("%d groups listing %d points: %+v", len(sv.Groups), shown, sv.Groups)
	}
	last := sv.Points[151]
	if last.Name != "3x3 (search 152)" || len(last.Strategy) == 0 {
		t.Errorf("the last hidden point is %q with strategy %s", last.Name, last.Strategy)
	}
	if _, again := run(); !reflect.DeepEqual(again.Groups, sv.Groups) {
		t.Error("the same search grouped differently on a second run")
	}
	// The JSON the playground reads lists every point and the groups.
	j, _ := json.Marshal(sv)
	var back struct {
		Points []json.RawMessage `json:"points"`
		Groups []SearchGroup     `json:"groups"`
	}
	if err := json.Unmarshal(j, &back); err != nil || len(back.Points) != 152 || !reflect.DeepEqual(back.Groups, sv.Groups) {
		t.Errorf("the view's JSON: %d points, groups %+v (%v)", len(back.Points), back.Groups, err)
	}
}
