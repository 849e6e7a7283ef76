package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/retrylab/retrylab/shared/convert"
	"github.com/retrylab/retrylab/shared/engine"
	"github.com/retrylab/retrylab/shared/scenarios"
	"github.com/retrylab/retrylab/shared/view"
)

// commentLine is how a format writes a comment line, for the formats whose
// exports of several strategies can be printed one after the other; the
// others (JSON) need --strategy. The formats of convert.Joined are written
// whole by convert.ExportAll (Kubernetes documents joined with "---", one
// resilience4j tree), which their tools and RetryLab's import read as
// one; in the others each part is a document of its own, since they name
// the same cluster or policy, which one document would merge or override.
var commentLine = map[string]string{
	convert.AWS:              "#",
	convert.Envoy:            "#",
	convert.Istio:            "#",
	convert.Linkerd:          "#",
	convert.Resilience4j:     "#",
	convert.FailsafeGo:       "//",
	convert.Cenkalti:         "//",
	convert.PollyCSharp:      "//",
	convert.Resilience4jJava: "//",
}

// cmdImport reads a configuration (--from FORMAT, or the format it looks
// like) into a scenario: its strategies on scenarios.ImportWorkload's
// workload, or in place of the strategies of the built-in --into SLUG
// (scenarios.ImportedInto), printed as JSON; the notes on what was not
// carried over exactly go to stderr.
func cmdImport(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("import", flag.ContinueOnError)
	fs.SetOutput(stderr)
	from := fs.String("from", "", "format of the configuration: "+strings.Join(convert.ImportFormats, ", ")+" (default: the one it looks like)")
	into := fs.String("into", scenarios.ImportWorkload, "the built-in whose strategies the configuration's policies replace, on its workload and dependency")
	file, code := parseWithFile(fs, args, stderr, "import", "configuration")
	if code != 0 {
		return exit(code)
	}
	if _, ok := scenarios.Get(*into); !ok {
		msg := fmt.Sprintf("--into %q is not a built-in's slug", *into)
		if near := closeSlugs(*into); len(near) > 0 {
			msg += "; did you mean " + strings.Join(near, " or ") + "?"
		}
		fmt.Fprintf(stderr, "retrylab import: %s (retrylab list shows every built-in)\n", msg)
		return 2
	}
	if *from != "" {
		if err := convert.CheckFormat(*from, false); err != nil {
			fmt.Fprintf(stderr, "retrylab import: --from %v\n", err)
			return 2
		}
	}
	data, err := readInput(file, stdin)
	if err != nil {
		fmt.Fprintf(stderr, "retrylab import: %v\n", err)
		return 1
	}
	// Without --from, the format the document looks like (convert.Detect),
	// said; with one, a document that fails and looks like another format
	// is told which.
	detected := convert.Detect(data)
	if *from == "" {
		if detected == "" {
			fmt.Fprintf(stderr, "retrylab import: %s looks like none of the formats import reads; name its format with --from: %s\n", file, strings.Join(convert.ImportFormats, ", "))
			return 2
		}
		*from = detected
		fmt.Fprintf(stderr, "%s: read as %s (--from %s), which it looks like\n", file, convert.Described(detected), detected)
	}
	im, err := convert.Import(*from, data)
	if err != nil {
		printErrors(stderr, file, err)
		if detected != "" && detected != *from {
			fmt.Fprintf(stderr, "retrylab import: %s looks like %s, not %s: try --from %s\n", file, convert.Described(detected), *from, detected)
		}
		return 1
	}
	sc, err := im.Scenario(*into, *from, file)
	if err != nil {
		printErrors(stderr, file, err)
		return 1
	}
	for _, n := range im.Notes {
		printNote(stderr, file, n.Path, n)
	}
	var b bytes.Buffer
	json.Indent(&b, sc.Canonical(), "", "  ")
	b.WriteByte('\n')
	stdout.Write(b.Bytes())
	return 0
}

// cmdExport writes a scenario's strategies (--strategy NAME: one) as
// configurations of a format (--to FORMAT); the notes on what the format
// cannot express go to stderr.
func cmdExport(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("export", flag.ContinueOnError)
	fs.SetOutput(stderr)
	to := fs.String("to", "", "format to write: "+strings.Join(convert.ExportFormats, ", "))
	name := fs.String("strategy", "", "the strategy to export (default: every one, where the format can hold several)")
	file, code := parseWithFile(fs, args, stderr, "export", "scenario")
	if code != 0 {
		return exit(code)
	}
	if err := convert.CheckFormat(*to, true); err != nil {
		fmt.Fprintf(stderr, "retrylab export: --to %v\n", err)
		return 2
	}
	sc, code := loadScenario(file, stdin, stderr, "export")
	if code != 0 {
		return code
	}
	if err := sc.Validate(); err != nil {
		printErrors(stderr, file, err)
		return 1
	}
	var names []string
	picked := -1
	for i, st := range sc.Strategies {
		names = append(names, strconv.Quote(st.Name))
		if st.Name == *name {
			picked = i
		}
	}
	if *name != "" && picked < 0 && sc.Search != nil {
		// A point of the search's frontier, by the name its Search section
		// gives it ("C (search 1)", the recommendation): the search runs to
		// find it, as the server's export does.
		st, points, err := frontierPoint(sc, *name)
		if err != nil {
			printErrors(stderr, file, err)
			costHint(stderr, "export", err, true)
			return 1
		}
		if st == nil {
			fmt.Fprintf(stderr, "retrylab export: --strategy %q is not a strategy of %s nor a point of its search's frontier; it has %s, and the points %s\n", *name, file, strings.Join(names, ", "), strings.Join(points, ", "))
			return 2
		}
		sc.Strategies = append(sc.Strategies, *st)
		picked = len(sc.Strategies) - 1
	}
	comment, several := commentLine[*to]
	switch {
	case *name != "" && picked < 0:
		fmt.Fprintf(stderr, "retrylab export: --strategy %q is not a strategy of %s; it has %s\n", *name, file, strings.Join(names, ", "))
		return 2
	case *name == "" && len(sc.Strategies) == 1:
		picked = 0
	case *name == "" && !several:
		fmt.Fprintf(stderr, "retrylab export: a %s document holds one strategy's policy; name one with --strategy: %s\n", *to, strings.Join(names, ", "))
		return 2
	}
	if picked < 0 && slices.Contains(convert.Joined, *to) {
		out, notes, err := convert.ExportAllFrom(*to, sc.Strategies, convert.Backends(sc))
		if err != nil {
			fmt.Fprintf(stderr, "retrylab export: %v\n", err)
			return 1
		}
		stdout.Write(out)
		for i := range notes {
			for _, n := range notes[i] {
				path := fmt.Sprintf("strategies[%d]", i)
				if n.Path != "" {
					path += "." + n.Path
				}
				printNote(stderr, file, path, n)
			}
		}
		return 0
	}
	for i := range sc.Strategies {
		if picked >= 0 && i != picked {
			continue
		}
		out, notes, err := convert.ExportFrom(*to, sc.Strategies[i], convert.Backends(sc))
		if err != nil {
			fmt.Fprintf(stderr, "retrylab export: %v\n", err)
			return 1
		}
		if picked < 0 {
			if i > 0 {
				fmt.Fprintln(stdout)
			}
			fmt.Fprintf(stdout, "%s ---- strategy %q (%d of %d); each strategy's part is a document of its own ----\n", comment, sc.Strategies[i].Name, i+1, len(sc.Strategies))
		}
		stdout.Write(out)
		for _, n := range notes {
			path := fmt.Sprintf("strategies[%d]", i)
			if n.Path != "" {
				path += "." + n.Path
			}
			printNote(stderr, file, path, n)
		}
	}
	return 0
}

// printNote prints a conversion's note as "file: path: level: message",
// the way printErrors prints problems.
func printNote(w io.Writer, file, path string, n convert.Note) {
	if path == "" {
		fmt.Fprintf(w, "%s: %s: %s\n", file, n.Level, n.Message)
		return
	}
	fmt.Fprintf(w, "%s: %s: %s: %s\n", file, path, n.Level, n.Message)
}

// frontierPoint runs sc's search and returns the strategy to ship of the
// frontier point named name (view.FrontierStrategy), or nil and the
// points' names when none is.
func frontierPoint(sc *engine.Scenario, name string) (*engine.Strategy, []string, error) {
	res, err := engine.Run(context.Background(), sc, engine.Options{MaxEvents: view.LocalMaxEvents, NoSeries: true})
	if err != nil {
		return nil, nil, err
	}
	st, points := view.FrontierStrategy(sc, res, name)
	return st, points, nil
}
