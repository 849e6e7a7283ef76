package web_test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestEmbedFrontierAtNarrowWidth opens the embed of a search's frontier
// in a frame 600 px wide, the shape of the page's iframe snippet (760 by
// 490): the whole caption, the search's recommendation, is shown, the
// chart beside it, and the picture's axis labels are whole.
func TestEmbedFrontierAtNarrowWidth(t *testing.T) {
	ctx, base := setup(t)
	do(t, ctx, chromedp.EmulateViewport(600, 387), chromedp.Navigate(base+"/embed/e03b-policy-search?picture=frontier"),
		until(`document.querySelector("figure.chart img")?.complete === true`))
	keep(t, ctx, "embed-frontier-600")
	caption := text(ctx, t, `(() => {
		const c = document.querySelector("[data-testid=verdict]"), r = c.getBoundingClientRect();
		return [c.scrollHeight <= c.clientHeight + 1 ? "whole" : "cut", r.bottom <= innerHeight ? "inside" : "below"].join(" ");
	})()`)
	if caption != "whole inside" {
		t.Errorf("the caption is %s", caption)
	}
	if h := text(ctx, t, `String(Math.round(document.querySelector("figure.chart img").getBoundingClientRect().height))`); mustAtoi(t, h) < 200 {
		t.Errorf("the chart is %s px high in a 387 px frame", h)
	}
	// The embed's policy allows no fetch: the chart is fetched from here.
	res, err := http.Get(base + text(ctx, t, `document.querySelector("figure.chart img").getAttribute("src")`))
	if err != nil {
		t.Fatal(err)
	}
	svg, err := io.ReadAll(res.Body)
	res.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	// The labels: every text after the title.
	labels := string(svg)
	labels = labels[strings.Index(labels, `class="t"`):]
	labels = labels[strings.Index(labels, "</text>"):]
	for _, want := range []string{"Success rate in the affected window", "higher is better", "Peak calls in 100 ms, lower is better"} {
		if !strings.Contains(labels, want) {
			t.Errorf("the frontier's labels lack %q:\n%s", want, labels)
		}
	}
	if strings.Contains(labels, "…") {
		t.Errorf("a label of the frontier is cut:\n%s", labels)
	}
}
