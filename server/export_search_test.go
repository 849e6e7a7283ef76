//go:build !noconvert && !nosearch

package server

import (
	"context"
	"encoding/json"
	"errors"
	"net/url"
	"strings"
	"testing"

	"github.com/retrylab/retrylab/shared/engine"
)

// TestExportSearchCandidate: the export takes a point of the search's
// frontier by the name its Search section gives it, and exports that
// candidate: the recommendation's gRPC config has the point's
// max_attempts, not the starting strategy's. The Search section links to
// every point's export.
func TestExportSearchCandidate(t *testing.T) {
	s, _ := testServer(t)
	// C has 4 attempts; the search tries 2 and 3.
	body := strings.Replace(searchScenario(t, 1000), `"values":[2,4]`, `"values":[2,3]`, 1)
	if !strings.Contains(body, `"values":[2,3]`) {
		t.Fatal("the search's max_attempts knob is not [2, 4]")
	}
	id := postScenario(t, s, body)
	r := do(t, s, "GET", "/api/scenarios/"+id+"/result", "")
	var res struct {
		Search struct {
			Frontier []struct {
				Settings map[string]json.RawMessage `json:"settings"`
			} `json:"frontier"`
		} `json:"search"`
	}
	if err := json.Unmarshal([]byte(r.body), &res); err != nil || len(res.Search.Frontier) == 0 {
		t.Fatalf("result: %v, %d points", err, len(res.Search.Frontier))
	}
	maxAttempts := func(grpc string) float64 {
		t.Helper()
		var cfg struct {
			MethodConfig []struct {
				RetryPolicy struct{ MaxAttempts float64 } `json:"retryPolicy"`
			} `json:"methodConfig"`
		}
		if err := json.Unmarshal([]byte(grpc), &cfg); err != nil || len(cfg.MethodConfig) == 0 {
			t.Fatalf("gRPC config %v: %s", err, grpc)
		}
		return cfg.MethodConfig[0].RetryPolicy.MaxAttempts
	}
	var want float64
	json.Unmarshal(res.Search.Frontier[0].Settings["max_attempts"], &want)
	c := do(t, s, "GET", "/s/"+id+"/export?format=grpc&strategy=C", "")
	if maxAttempts(c.body) == want {
		t.Fatalf("C already has max_attempts %g: the test cannot tell the candidate from it", want)
	}
	q := "format=grpc&strategy=" + url.QueryEscape("C (search 1)")
	got := do(t, s, "GET", "/s/"+id+"/export?"+q, "")
	if got.code != 200 || maxAttempts(got.body) != want {
		t.Errorf("the recommendation's export: %d, max_attempts %g, want %g:\n%s", got.code, maxAttempts(got.body), want, got.body)
	}
	if j := do(t, s, "GET", "/s/"+id+"/export?"+q+"&as=json", ""); !strings.Contains(j.body, `"strategy":"C (search 1)"`) {
		t.Errorf("as=json: %.300s", j.body)
	}
	if r := do(t, s, "GET", "/s/"+id+"/export?format=grpc&strategy="+url.QueryEscape("C (search 99)"), "", "Accept", "application/json"); r.code != 404 || !strings.Contains(r.body, `\"C (search 1)\"`) || !strings.Contains(r.body, `\"A\"`) {
		t.Errorf("an unknown point: %d %s", r.code, r.body)
	}
	page := do(t, s, "GET", "/s/"+id, "")
	checkHTML(t, "page", page.body)
	for i := range res.Search.Frontier {
		name := "C (search " + string(rune('1'+i)) + ")"
		if !strings.Contains(page.body, `href="/s/`+id+`/export?format=grpc&amp;strategy=`+url.QueryEscape(name)+`"`) {
			t.Errorf("the Search section has no export of %s", name)
		}
	}
	if !strings.Contains(page.body, `id="export-search-1"`) || strings.Contains(page.body, `id="export-search-2"`) {
		t.Error("the recommendation's gRPC config is not shown, or another point's is")
	}
}

// TestExportUnknownNameRunsNothing: on a scenario with a search, a name
// that is neither a strategy nor could be a frontier point's is a 404 at
// once, naming it and listing the names, without running the scenario
// (running it to list the points would cost a run per mistyped name, and
// answer 503 under load).
func TestExportUnknownNameRunsNothing(t *testing.T) {
	s, _ := testServer(t, func(c *Config) { c.MaxRuns, c.MaxWaiting = 1, -1 })
	id := postScenario(t, s, searchScenario(t, 1000))
	s.runs.engineRun = func(context.Context, *engine.Scenario, engine.Options) (*engine.Result, error) {
		t.Error("the export ran the scenario")
		return nil, errors.New("not run")
	}
	s.runs.slots <- struct{}{} // under load: a run would be shed
	for _, name := range []string{"Cc", "c", "C (search one)", "D (search 1)", "C (search 01)", "C (search 0)"} {
		r := do(t, s, "GET", "/s/"+id+"/export?format=grpc&strategy="+url.QueryEscape(name), "", "Accept", "application/json")
		if r.code != 404 || !strings.Contains(r.body, `\"`+name+`\"`) ||
			!strings.Contains(r.body, `\"A\", \"B\", \"C\", \"D\"`) || !strings.Contains(r.body, `\"C (search 1)\"`) {
			t.Errorf("%q: %d %s", name, r.code, r.body)
		}
	}
	page := do(t, s, "GET", "/s/"+id+"/export?format=grpc&strategy=Cc", "")
	if page.code != 404 || !strings.Contains(page.body, "no strategy or search frontier point &#34;Cc&#34;") {
		t.Errorf("page: %d %.500s", page.code, page.body)
	}
}
