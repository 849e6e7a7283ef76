package server

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// TestSeveralDependencies: a scenario whose plan calls two dependencies
// gets its per-call groups and the calls figure on its page and embed,
// through the view, with hostile dependency and call names escaped; a
// scenario of one call is refused the calls picture before it runs.
func TestSeveralDependencies(t *testing.T) {
	s, _ := testServer(t)
	dep := func(name string) map[string]any {
		return map[string]any{"name": name, "workers": 4, "service_time": map[string]any{"kind": "constant", "mean": "5ms"}, "queue_capacity": 20,
			"phases": []any{map[string]any{"kind": "errors", "from": "500ms", "to": "1s", "rate": 0.5}}}
	}
	sc := map[string]any{
		"version": 1, "name": "two dependencies",
		"workload": map[string]any{"clients": 4, "rate": 40, "duration": "2s",
			"plan": []any{map[string]any{"calls": []any{map[string]any{"dependency": hostile[0]}, map[string]any{"dependency": "pay", "name": hostile[5]}}}}},
		"dependencies": []any{dep(hostile[0]), dep("pay")},
		"strategies": []any{
			map[string]any{"name": "retry", "max_attempts": 3, "pool": map[string]any{"slots": 4, "max_waiting": 4}},
			map[string]any{"name": "once", "max_attempts": 1},
		},
	}
	body, _ := json.Marshal(sc)
	r := do(t, s, "POST", "/api/scenarios", string(body))
	if r.code != http.StatusCreated {
		t.Fatalf("POST: %d %s", r.code, r.body)
	}
	var got struct{ ID string }
	json.Unmarshal([]byte(r.body), &got)
	page := do(t, s, "GET", "/s/"+got.ID, "")
	checkHTML(t, "page", page.body)
	for _, want := range []string{"Call &#39; onmouseover=&#39;alert(1) to pay</th>", "Calls to &#34;&gt;&lt;script&gt;", `/s/` + got.ID + `/chart.svg?picture=calls`, "Attempts reaching each plan call&#39;s dependency"} {
		if !strings.Contains(page.body, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	checkHTML(t, "embed", do(t, s, "GET", "/embed/"+got.ID+"?picture=calls", "").body)
	for _, q := range []string{"?picture=calls", "?picture=calls&width=400", "?picture=outcomes", "?picture=queue", ""} {
		r := do(t, s, "GET", "/s/"+got.ID+"/chart.svg"+q, "")
		if r.code != 200 {
			t.Fatalf("chart%s: %d %s", q, r.code, r.body)
		}
		checkSVG(t, r.body)
		if strings.Contains(r.body, "<script") {
			t.Errorf("chart%s: a hostile name came through", q)
		}
	}
	if r := do(t, s, "GET", "/s/"+got.ID+"/chart.png?picture=calls", ""); r.code != 200 || !strings.HasPrefix(r.body, "\x89PNG") {
		t.Errorf("PNG of the calls picture: %d %.100q", r.code, r.body)
	}
	if r := do(t, s, "GET", "/s/e03b-synchronized-recovery/chart.svg?picture=calls", ""); r.code != 400 || !strings.Contains(r.body, "plan has one call") {
		t.Errorf("calls picture of a one-call scenario: %d %.300s", r.code, r.body)
	}
}
