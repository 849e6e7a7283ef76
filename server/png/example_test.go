package png_test

import (
	"log"
	"os"

	"github.com/retrylab/retrylab/server/png"
	"github.com/retrylab/retrylab/shared/chart"
	"github.com/retrylab/retrylab/shared/engine"
)

// An og:image of 1200 × 630: the chart is laid out in those proportions
// (760 × 399 user units), in the light theme since an image cannot follow
// the reader's, then drawn at 1200 × 630.
func ExampleChart() {
	var res *engine.Result // the shared scenario's result
	d, err := chart.Draw(res, chart.Options{Picture: chart.Attempts, Theme: "light", Width: 760, Height: 399})
	if err != nil {
		log.Fatal(err)
	}
	if err := png.Chart(os.Stdout, d, 1200, 630); err != nil {
		log.Fatal(err)
	}
}
