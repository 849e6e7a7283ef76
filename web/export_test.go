package web_test

import (
	"testing"

	"github.com/chromedp/chromedp"
)

// TestExportPanelCopies: a strategy's Export panel opens, and its Copy
// button (copy.js) hands the clipboard the gRPC service config it shows.
// The clipboard is a stand-in that keeps what it is given: headless
// Chromium does not let a page read the real one back.
func TestExportPanelCopies(t *testing.T) {
	ctx, base := setup(t)
	do(t, ctx, chromedp.Navigate(base+"/s/e03b-synchronized-recovery"),
		until(`document.readyState === "complete"`))
	text(ctx, t, `Object.defineProperty(navigator, "clipboard", {value: {writeText: async s => { window.copied = s; }}}), ""`)
	do(t, ctx, chromedp.Click(`details.export summary`),
		chromedp.Click(`button[data-copy="export-0"]`),
		until(`document.querySelector('button[data-copy="export-0"]').textContent === "Copied"`))
	got := text(ctx, t, `window.copied === document.getElementById("export-0").value ? "same" : String(window.copied)`)
	if got != "same" {
		t.Errorf("the Copy button copied %q, not the field's text", got)
	}
	if v := text(ctx, t, `document.getElementById("export-0").value`); len(v) < 20 || v[0] != '{' {
		t.Errorf("export-0 holds %q, want A's gRPC service config", v)
	}
}
