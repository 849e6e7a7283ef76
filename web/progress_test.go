package web_test

import (
	"fmt"
	"strconv"
	"testing"

	"github.com/chromedp/chromedp"
)

// pressed is JavaScript that scrolls the button sel to the bottom edge of
// the screen (the worst place to press it from: what it says below it is
// off screen), presses it, and says, in the same step, what the progress
// element prog says and whether it is on screen: "in view: TEXT" or "out
// of view: TEXT".
func pressed(sel, prog string) string {
	return fmt.Sprintf(`(() => {
		const b = document.querySelector(%s);
		b.scrollIntoView({block: "end"});
		b.click();
		const p = document.querySelector(%s), r = p.getBoundingClientRect();
		const seen = r.height > 0 && r.top >= -1 && r.bottom <= innerHeight + 1; // rounding
		return (seen ? "in view: " : "out of view: ") + p.textContent + (seen ? "" : " " + JSON.stringify([r.top, r.bottom, innerHeight]));
	})()`, strconv.Quote(sel), strconv.Quote(prog))
}

// TestProgressShowsWhereTheUserLooks (#29): at 1280 and 390 px, Run, "What
// should I ship?" (opening its form, then running the search) and a
// probe each show their progress on screen beside the button pressed,
// at once, even pressed from the bottom edge of the screen.
func TestProgressShowsWhereTheUserLooks(t *testing.T) {
	for _, w := range []int64{1280, 390} {
		t.Run(strconv.Itoa(int(w)), func(t *testing.T) {
			ctx, base := setup(t)
			check := func(what, got, want string) {
				t.Helper()
				if got[:min(len(got), len(want))] != want {
					t.Errorf("%s: %q; want %q…", what, got, want)
				}
			}
			do(t, ctx, chromedp.EmulateViewport(w, 800), chromedp.Navigate(base+"/"), ran(1))
			check("Run", text(ctx, t, pressed("#run", "[data-testid=status]")), "in view: Running")
			do(t, ctx, ran(2))
			check("What should I ship?", text(ctx, t, pressed(`#form button[data-action="ship"][data-index="2"]`, "[data-testid=ship-status]")),
				"in view: Asking the engine for the default search from C")
			do(t, ctx, until(`document.querySelector("#ship-form [data-testid=ship-run]") !== null`))
			check("Run the search", text(ctx, t, pressed("[data-testid=ship-run]", "[data-testid=ship-status]")), "in view: Searching from C")
			do(t, ctx, eval(`document.querySelector("[data-testid=ship-cancel]").click(), true`),
				until(`document.querySelector("[data-testid=ship-cancel]").hidden`))

			do(t, ctx, chromedp.Navigate(base+"/?s=runaway-cascade"), ran(1), until(`document.querySelector("[data-probe=textbook]") !== null`))
			check("a probe", text(ctx, t, pressed("[data-probe=textbook]", "[data-testid=probe-status]")), "in view: Probing textbook")
			do(t, ctx, eval(`document.querySelector("[data-testid=probe-cancel]").click(), true`))
		})
	}
}
