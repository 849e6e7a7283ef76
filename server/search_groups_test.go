//go:build !nosearch

package server

import (
	"encoding/json"
	"net/url"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/retrylab/retrylab/shared/engine"
	"github.com/retrylab/retrylab/shared/scenarios"
)

// TestSearchPageGroupsTies: the Search section's frontier table lists the
// rows of the view's groups (the default search on layered-retries finds
// 152 points with the same figures: three rows, then "and 149 more with
// the same figures"), and the points it counts stay reachable: each is
// listed, folded, with its settings and its export links, which answer.
func TestSearchPageGroupsTies(t *testing.T) {
	b, ok := scenarios.Get("layered-retries")
	if !ok {
		t.Fatal("no layered-retries")
	}
	var sc map[string]any
	if err := json.Unmarshal(b.Scenario, &sc); err != nil {
		t.Fatal(err)
	}
	sc["name"] = "Layered retries searched"
	sc["search"] = engine.DefaultSearch("3x3")
	body, _ := json.Marshal(sc)
	s, _ := testServer(t)
	id := postScenario(t, s, string(body))
	page := do(t, s, "GET", "/s/"+id, "")
	if page.code != 200 {
		t.Fatalf("page: %d %.300s", page.code, page.body)
	}
	checkHTML(t, "page", page.body)
	doc, err := html.Parse(strings.NewReader(page.body))
	if err != nil {
		t.Fatal(err)
	}
	table := htmlFind(doc, "data-testid", "search-frontier")
	if len(table) != 1 {
		t.Fatalf("%d frontier tables", len(table))
	}
	var rows []string
	for _, tr := range htmlFind(table[0], "data-point", "") {
		if tr.Data == "tr" {
			rows = append(rows, htmlAttr(tr, "data-point"))
		}
	}
	if strings.Join(rows, ",") != "1,2,3" {
		t.Errorf("the table's rows are points %v, want 1, 2 and 3", rows)
	}
	more := htmlFind(table[0], "data-testid", "search-more")
	if len(more) != 1 {
		t.Fatalf("%d rows counting more points, want 1", len(more))
	}
	if got := htmlText(htmlFind(more[0], "", "summary")[0]); got != "and 149 more with the same figures" {
		t.Errorf("the row says %q", got)
	}
	var hidden []*html.Node
	for _, li := range htmlFind(more[0], "data-point", "") {
		if li.Data == "li" {
			hidden = append(hidden, li)
		}
	}
	if len(hidden) != 149 || htmlAttr(hidden[0], "data-point") != "4" || htmlAttr(hidden[148], "data-point") != "152" {
		t.Fatalf("%d points listed under the row, want 4 to 152", len(hidden))
	}
	if got := htmlText(htmlFind(hidden[148], "", "code")[0]); !strings.Contains(got, " attempts, backoff exponential ") || strings.ContainsAny(got, "{}") {
		t.Errorf("point 152's settings read %q", got)
	}
	if !canConvert {
		return
	}
	// Every point, listed or counted, has its Export panel once.
	if got := strings.Count(page.body, `data-testid="export"`); got != 4+152 {
		t.Errorf("%d Export panels, want 156: the 4 strategies' and the 152 points'", got)
	}
	want := "/s/" + id + "/export?format=grpc&strategy=" + url.QueryEscape("3x3 (search 152)")
	var link string
	for _, a := range htmlFind(hidden[148], "href", "") {
		if strings.HasPrefix(htmlAttr(a, "href"), "/s/"+id+"/export?format=grpc&") {
			link = htmlAttr(a, "href")
			break
		}
	}
	if link != want {
		t.Fatalf("point 152's gRPC export link is %q, want %q", link, want)
	}
	if r := do(t, s, "GET", link, ""); r.code != 200 || !strings.Contains(r.body, "retryPolicy") {
		t.Errorf("point 152's export: %d %.300s", r.code, r.body)
	}
}

// htmlFind returns the elements under n with attribute key (of any value when
// val is "", else of value val), or, with key "", the elements named val.
func htmlFind(n *html.Node, key, val string) []*html.Node {
	var out []*html.Node
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode {
			if key == "" && n.Data == val {
				out = append(out, n)
			} else if key != "" {
				for _, a := range n.Attr {
					if a.Key == key && (val == "" || a.Val == val) {
						out = append(out, n)
					}
				}
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return out
}

func htmlAttr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

func htmlText(n *html.Node) string {
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return strings.TrimSpace(b.String())
}
