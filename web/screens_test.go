package web_test

import (
	"bytes"
	"context"
	"fmt"
	"image/png"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/retrylab/retrylab/server"
	"github.com/retrylab/retrylab/web"
)

// keep saves a screenshot of the tab when $SCREENSHOTS names a folder, so
// that a person can look at what the test saw.
func keep(t *testing.T, ctx context.Context, name string) {
	dir := os.Getenv("SCREENSHOTS")
	if dir == "" {
		return
	}
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Logf("no screenshot: %v", err)
		return
	}
	_ = os.MkdirAll(dir, 0o755)
	_ = os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644)
}

// smallestChartText is JavaScript giving the smallest text, in CSS pixels
// as shown, of the charts matched by sel: each chart's smallest font size
// scaled by the width it is shown at (its box, less borders) over its
// viewBox width, or by the height over the viewBox height where the box
// contains the chart (object-fit, as an embed's) and that is less.
func smallestChartText(sel string) string {
	return `(async () => {
		let least = 1e9;
		// The playground's charts are blob URLs that the page's CSP keeps
		// fetch from reading: take their SVG from the view instead.
		const figs = Object.fromEntries(((window.retrylabView || {}).figures || []).map(f => [f.name, f.svg]));
		for (const img of document.querySelectorAll(` + strconv.Quote(sel) + `)) {
			const svg = img.dataset.chart ? figs[img.dataset.chart] : await (await fetch(img.currentSrc || img.src)).text();
			const [, vw, vh] = svg.match(/viewBox="0 0 ([\d.]+) ([\d.]+)/).map(Number);
			const sizes = [...svg.matchAll(/font-size:([\d.]+)px/g)].map(m => Number(m[1]));
			let scale = img.clientWidth / vw;
			if (getComputedStyle(img).objectFit === "contain") scale = Math.min(scale, img.clientHeight / vh);
			least = Math.min(least, Math.min(...sizes) * scale);
		}
		return String(least);
	})()`
}

func TestPhoneChartsAreReadable(t *testing.T) {
	ctx, base := setup(t)
	do(t, ctx, chromedp.EmulateViewport(390, 844), chromedp.Navigate(base+"/"), ran(1),
		until(`[...document.querySelectorAll("[data-testid=charts] img")].every(i => i.complete)`))
	keep(t, ctx, "playground-390")
	px, _ := strconv.ParseFloat(text(ctx, t, smallestChartText("[data-testid=charts] img")), 64)
	if px < 10 {
		t.Errorf("the playground's smallest chart text is %.1f px at a 390 px screen, want at least 10", px)
	}
	do(t, ctx, chromedp.Navigate(base+"/s/e03b-synchronized-recovery"),
		// The page's charts load lazily, when scrolled near: load them all.
		until(`(document.querySelectorAll("figure.chart img").forEach(i => i.loading = "eager"), true)`),
		until(`[...document.querySelectorAll("figure.chart img")].every(i => i.complete && i.naturalWidth > 0)`))
	keep(t, ctx, "page-390")
	px, _ = strconv.ParseFloat(text(ctx, t, smallestChartText("figure.chart img")), 64)
	if px < 10 {
		t.Errorf("the page's smallest chart text is %.1f px at a 390 px screen, want at least 10", px)
	}
	wide := text(ctx, t, `String(document.documentElement.scrollWidth - document.documentElement.clientWidth)`)
	if wide != "0" {
		t.Errorf("the page scrolls sideways at 390 px by %s px", wide)
	}
}

func TestDesktopResultsUseTheWidth(t *testing.T) {
	ctx, base := setup(t)
	do(t, ctx, chromedp.Navigate(base+"/"), ran(1))
	keep(t, ctx, "playground-1280")
	// The table fits its box at 1280 px: nothing to scroll sideways.
	over := text(ctx, t, `(() => { const w = document.querySelector(".results .tablewrap"); return String(w.scrollWidth - w.clientWidth); })()`)
	if over != "0" {
		t.Errorf("at 1280 px the playground's table overflows its box by %s px", over)
	}
}

// TestVerdictIsTheSameEverywhere shares an edited scenario and compares the
// playground's verdict with the shared page's and the embed's.
func TestVerdictIsTheSameEverywhere(t *testing.T) {
	ctx, base := setup(t)
	do(t, ctx, chromedp.Navigate(base+"/?s=e03b-synchronized-recovery"), ran(1),
		setField(`strategies[0].max_attempts`, "2"), ran(2))
	verdict := `document.querySelector("[data-testid=verdict]").textContent.trim()`
	mine := text(ctx, t, verdict)
	if !strings.HasPrefix(mine, "Verdict: ") || !strings.Contains(mine, "peak calls in 100 ms") {
		t.Fatalf("playground verdict %q, want one on the scenario's focus", mine)
	}
	do(t, ctx, chromedp.Click(`[data-testid=share]`), until(`document.getElementById("share-url").value.includes("/s/")`))
	url := text(ctx, t, `document.getElementById("share-url").value`)
	do(t, ctx, chromedp.Navigate(url))
	if page := text(ctx, t, verdict); page != mine {
		t.Errorf("shared page verdict\n%q\nplayground\n%q", page, mine)
	}
	og := text(ctx, t, `document.querySelector('meta[property="og:description"]').content`)
	if "Verdict: "+og != mine {
		t.Errorf("og:description %q", og)
	}
	id := url[strings.LastIndex(url, "/")+1:]
	do(t, ctx, chromedp.Navigate(base+"/embed/"+id))
	if embed := text(ctx, t, verdict); "Verdict: "+embed != mine {
		t.Errorf("embed caption %q", embed)
	}
}

// TestDarkPageEmbedsTheSnippet pastes the page's iframe snippet into a dark
// page, for a reader whose system is dark, and checks that the embed is dark
// too (the snippet follows the reader, not a fixed light theme).
func TestDarkPageEmbedsTheSnippet(t *testing.T) {
	ctx, base := setup(t)
	do(t, ctx, chromedp.Navigate(base+"/s/e03b-synchronized-recovery"))
	snippet := text(ctx, t, `document.getElementById("snip-iframe").value`)
	if strings.Contains(snippet, "theme=light") {
		t.Errorf("the snippet fixes the light theme: %s", snippet)
	}
	// The design doc notes when the frame has loaded, and its chart with it
	// (a frame's load waits for its images); the listener is there before
	// the frame is.
	host := `<!doctype html><html style="background:#111;color:#eee"><head><script>
		document.addEventListener("load", (e) => { if (e.target.tagName === "IFRAME") document.documentElement.dataset.framed = "loaded"; }, true);
	</script></head><body><h1>Design doc</h1>` + snippet + `</body></html>`
	// The design doc is another site: another origin on loopback.
	docs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, host)
	}))
	defer docs.Close()
	do(t, ctx, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
			Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: "dark"}}})
		return err
	}), chromedp.Navigate(docs.URL), until(`document.documentElement.dataset.framed === "loaded"`))
	// The frame is another origin: its page is seen only in a capture. Until
	// the frame has drawn it, the capture is the design doc's even
	// background; the frames drawn are captured until one shows the embed
	// (the test's deadline bounds the wait), and that one must be dark.
	var shot []byte
	for {
		var err error
		if shot, err = chromedp.Run(ctx, capture("iframe")); err != nil {
			t.Fatal(err)
		}
		if _, spread := luminance(t, shot); spread > 0.05 {
			break
		}
		text(ctx, t, nextFrame)
	}
	keep(t, ctx, "dark-embed")
	if lum, spread := luminance(t, shot); lum >= 0.35 {
		t.Errorf("the embed in a dark page is not dark: mean luminance %.2f, spread %.2f", lum, spread)
	}
}

// nextFrame is JavaScript that gives "" once the page has drawn its next
// frame: a wait for the browser, not for a length of time.
const nextFrame = `new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => r(""))))`

// capture is a PNG of the first element sel matches, in one step: its
// place is read in JavaScript and that part of the page captured, with no
// node ID held in between (the ID of a node the page has replaced, as an
// iframe's is when its document arrives, is "No node with given id found").
func capture(sel string) chromedp.Action[[]byte] {
	return func(ctx context.Context, tg *chromedp.Target) ([]byte, error) {
		clip, err := chromedp.Evaluate[page.Viewport](`(() => {
			const r = document.querySelector(`+strconv.Quote(sel)+`).getBoundingClientRect();
			const x = Math.round(r.left + scrollX), y = Math.round(r.top + scrollY);
			return {x, y, width: Math.round(r.right + scrollX) - x, height: Math.round(r.bottom + scrollY) - y, scale: 1};
		})()`)(ctx, tg)
		if err != nil {
			return nil, err
		}
		fromSurface := true
		res, err := cdp.Call(ctx, tg, page.CaptureScreenshot, page.CaptureScreenshotParams{
			Format: page.CaptureScreenshotFormatPng, FromSurface: &fromSurface, Clip: &clip})
		if err != nil {
			return nil, err
		}
		return res.Data, nil
	}
}

// luminance is a PNG's mean luminance (0 black, 1 white) and the spread
// between its darkest and lightest pixels.
func luminance(t *testing.T, b []byte) (mean, spread float64) {
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	var sum float64
	lo, hi := 1.0, 0.0
	r := img.Bounds()
	n := 0
	for y := r.Min.Y; y < r.Max.Y; y += 2 {
		for x := r.Min.X; x < r.Max.X; x += 2 {
			cr, cg, cb, _ := img.At(x, y).RGBA()
			l := (0.2126*float64(cr) + 0.7152*float64(cg) + 0.0722*float64(cb)) / 65535
			sum += l
			lo, hi = min(lo, l), max(hi, l)
			n++
		}
	}
	return sum / float64(n), hi - lo
}

// TestPlaygroundWithoutTheEngine serves a build without engine.wasm (a plain
// go build): the start-up log says so, and the playground page offers the
// server-side form, which runs and shares the scenario.
func TestPlaygroundWithoutTheEngine(t *testing.T) {
	files := fstest.MapFS{}
	err := fs.WalkDir(web.Static, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasSuffix(p, "engine.wasm") {
			return err
		}
		b, err := fs.ReadFile(web.Static, p)
		files[p] = &fstest.MapFile{Data: b}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	ctx, base := setupWith(t, server.Config{Static: files, Logger: slog.New(slog.NewTextHandler(&log, nil))})
	if !strings.Contains(log.String(), "engine is not in this build") {
		t.Errorf("the start-up log does not say the engine is missing:\n%s", log.String())
	}
	do(t, ctx, chromedp.Navigate(base+"/"), chromedp.WaitVisible(`[data-testid=no-engine]`),
		chromedp.Click(`form[action="/share"] button[type=submit]`), chromedp.WaitVisible(`[data-testid=verdict]`))
	keep(t, ctx, "no-engine-shared")
	if v := text(ctx, t, `document.querySelector("[data-testid=verdict]").textContent`); !strings.Contains(v, "Verdict:") {
		t.Errorf("the server-side run shows no verdict: %q", v)
	}
}

// TestLongTitlesFitInTheChart shares a scenario with a long name of wide
// letters and measures, with the browser's own fonts, that every chart's
// title ends inside the chart, at full and at phone width.
func TestLongTitlesFitInTheChart(t *testing.T) {
	ctx, base := setup(t)
	do(t, ctx, chromedp.Navigate(base+"/"))
	name := strings.Repeat("WMW ", 40)
	id := text(ctx, t, `(async () => {
		const sc = {version: 1, name: `+strconv.Quote(name)+`, workload: {clients: 2, rate: 10, duration: "2s"},
			dependency: {workers: 2, service_time: {kind: "constant", mean: "5ms"}},
			strategies: [{name: "a", max_attempts: 2}, {name: "b", max_attempts: 3}]};
		const r = await fetch("/api/scenarios", {method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify(sc)});
		return (await r.json()).id;
	})()`)
	for _, q := range []string{"picture=attempts", "picture=outcomes", "picture=compare&metric=success_rate", "picture=latency", "picture=queue",
		"picture=attempts&width=400", "picture=compare&metric=attempts&width=400", "picture=attempts&width=600"} {
		do(t, ctx, chromedp.Navigate(base+"/s/"+id+"/chart.svg?"+q))
		over := text(ctx, t, `(() => {
			const svg = document.documentElement, t = document.querySelector("text.t");
			const right = t.getBBox().x + t.getComputedTextLength();
			return String(Math.round(right - svg.viewBox.baseVal.width));
		})()`)
		if n, _ := strconv.Atoi(over); n > 0 {
			t.Errorf("%s: the title runs %d px past the chart's right edge", q, n)
		}
	}
}

// TestPhoneChartsOfSeveralDependencies: the charts of a scenario of several
// dependencies, the calls picture included, stay readable at a phone's
// width, in the playground and on the server's page.
func TestPhoneChartsOfSeveralDependencies(t *testing.T) {
	ctx, base := setup(t)
	do(t, ctx, chromedp.EmulateViewport(390, 844), chromedp.Navigate(base+"/?s=bulkheads"), ran(1),
		until(`[...document.querySelectorAll("[data-testid=charts] img")].every(i => i.complete)`))
	keep(t, ctx, "playground-bulkheads-390")
	px, _ := strconv.ParseFloat(text(ctx, t, smallestChartText("[data-testid=charts] img")), 64)
	if px < 10 {
		t.Errorf("the playground's smallest chart text is %.1f px at a 390 px screen, want at least 10", px)
	}
	do(t, ctx, chromedp.Navigate(base+"/s/bulkheads"),
		until(`(document.querySelectorAll("figure.chart img").forEach(i => i.loading = "eager"), true)`),
		until(`[...document.querySelectorAll("figure.chart img")].every(i => i.complete && i.naturalWidth > 0)`))
	keep(t, ctx, "page-bulkheads-390")
	if n := text(ctx, t, `String([...document.querySelectorAll("figure.chart img")].filter(i => (i.currentSrc || i.src).includes("picture=calls")).length)`); n != "1" {
		t.Errorf("%s calls figures on the page, want 1", n)
	}
	px, _ = strconv.ParseFloat(text(ctx, t, smallestChartText("figure.chart img")), 64)
	if px < 10 {
		t.Errorf("the page's smallest chart text is %.1f px at a 390 px screen, want at least 10", px)
	}
	if wide := text(ctx, t, `String(document.documentElement.scrollWidth - document.documentElement.clientWidth)`); wide != "0" {
		t.Errorf("the page scrolls sideways at 390 px by %s px", wide)
	}
}

// TestEveryWidthFits (#29): at phone (360, 390), tablet (768) and
// desktop (1280) widths the playground and a shared page scroll only
// downwards, nothing sticks out of the page (tables scroll in their own
// box), and chart text is shown at 10 px or more, each getting the
// drawing made for its width (Narrow, Mid or Wide); so is an embed's in
// frames 360, 600 and 768 px wide, as high as the iframe snippet makes
// them there (its 760:490 shape, but never lower than 440 px: in the
// shape alone a 360 px frame is 232 px high, and the verdict leaves the
// chart 155 px, too little for any drawing's 10 px text).
func TestEveryWidthFits(t *testing.T) {
	ctx, base := setup(t)
	const outside = `(() => { const w = document.documentElement.clientWidth;
		return [...document.querySelectorAll("body *")].filter(e => !e.closest(".tablewrap") && e.getBoundingClientRect().right > w + 0.5)
			.slice(0, 3).map(e => e.tagName.toLowerCase() + (e.className ? "." + e.className : "")).join(", ") })()`
	type place struct {
		name, path, charts string
		width, height      int64
	}
	var places []place
	for _, width := range []int64{360, 390, 768, 1280} {
		places = append(places,
			place{"playground", "/", "[data-testid=charts] img", width, 900},
			place{"shared page", "/s/e03b-synchronized-recovery", "figure.chart img", width, 900})
	}
	for _, f := range [][2]int64{{360, 440}, {600, 440}, {768, 495}} {
		places = append(places, place{"embed", "/embed/e03b-synchronized-recovery", "figure.chart img", f[0], f[1]})
	}
	for _, p := range places {
		// The embed's policy allows no fetch; smallestChartText fetches
		// its chart.
		do(t, ctx, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
			_, err := cdp.Call(ctx, tg, page.SetBypassCSP, page.SetBypassCSPParams{Enabled: p.name == "embed"})
			return err
		}), chromedp.EmulateViewport(p.width, p.height), chromedp.Navigate(base+p.path))
		if p.path == "/" {
			do(t, ctx, ran(1))
		}
		do(t, ctx, until(`(document.querySelectorAll(`+strconv.Quote(p.charts)+`).forEach(i => i.loading = "eager"), true)`),
			until(`[...document.querySelectorAll(`+strconv.Quote(p.charts)+`)].every(i => i.complete && i.naturalWidth > 0)`))
		keep(t, ctx, fmt.Sprintf("%s-%d", strings.ReplaceAll(p.name, " ", "-"), p.width))
		if wide := text(ctx, t, `String(document.documentElement.scrollWidth - document.documentElement.clientWidth)`); wide != "0" {
			t.Errorf("%s at %d px scrolls sideways by %s px", p.name, p.width, wide)
		}
		if out := text(ctx, t, outside); out != "" {
			t.Errorf("%s at %d px: past the right edge: %s", p.name, p.width, out)
		}
		px, _ := strconv.ParseFloat(text(ctx, t, smallestChartText(p.charts)), 64)
		if px < 10 {
			t.Errorf("%s at %d px: the smallest chart text is %.1f px, want at least 10", p.name, p.width, px)
		}
	}
}
