package docs

import (
	"bytes"
	"flag"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/retrylab/retrylab/shared/engine"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/text"
)

// page is a Markdown file as CommonMark (with GitHub's tables) reads it.
type page struct {
	path    string
	src     []byte
	anchors map[string]bool
	links   []string // destinations of links and images
	// fenceInCode lists the lines, within a fenced code block, that begin
	// with a fence: a fence meant to close its block that does not (prose
	// after it), so that the block runs on and swallows what follows.
	fenceInCode []int
	// strayRows lists the lines that begin a paragraph with "|": table
	// rows cut off from their table (by a blank line) or without a
	// header, which a reader sees as text full of pipes.
	strayRows []int
	// twiceInTable lists the first cells that name a second row of the
	// same table: one field, told twice, the two sure to drift apart.
	twiceInTable []string
	headings     []string
}

// read parses the Markdown file at path.
func read(t *testing.T, path string) *page {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	md := goldmark.New(goldmark.WithExtensions(extension.Table))
	doc := md.Parser().Parse(text.NewReader(src))
	p := &page{path: path, src: src, anchors: map[string]bool{}}
	seen := map[string]int{}
	ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.Heading:
			title := string(n.Text(src))
			p.headings = append(p.headings, title)
			p.anchors[uniqueAnchor(seen, title)] = true
		case *ast.Link:
			p.links = append(p.links, string(n.Destination))
		case *ast.Image:
			p.links = append(p.links, string(n.Destination))
		case *ast.Paragraph:
			if lines := n.Lines(); lines.Len() > 0 {
				if seg := lines.At(0); bytes.HasPrefix(seg.Value(src), []byte("|")) {
					p.strayRows = append(p.strayRows, 1+bytes.Count(src[:seg.Start], []byte("\n")))
				}
			}
		case *east.Table:
			first := map[string]bool{}
			for row := n.FirstChild(); row != nil; row = row.NextSibling() {
				if _, ok := row.(*east.TableRow); !ok || row.FirstChild() == nil {
					continue
				}
				cell := string(row.FirstChild().Text(src))
				if first[cell] {
					p.twiceInTable = append(p.twiceInTable, cell)
				}
				first[cell] = true
			}
		case *ast.FencedCodeBlock:
			lines := n.Lines()
			for i := 0; i < lines.Len(); i++ {
				seg := lines.At(i)
				if bytes.HasPrefix(bytes.TrimLeft(seg.Value(src), " "), []byte("```")) {
					p.fenceInCode = append(p.fenceInCode, 1+bytes.Count(src[:seg.Start], []byte("\n")))
				}
			}
		}
		return ast.WalkContinue, nil
	})
	return p
}

// TestDocs reads the README and every page of the manual as CommonMark:
// every page has one title, no fenced block swallows what follows it, and
// every relative link and image names a file that is there and, with a
// fragment, a heading of that page. Links to other sites are not fetched.
func TestDocs(t *testing.T) {
	files, err := filepath.Glob("*.md")
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, filepath.Join("..", "README.md"))
	pages := map[string]*page{}
	for _, f := range files {
		abs, _ := filepath.Abs(f)
		pages[abs] = read(t, f)
	}
	if len(pages) < 15 {
		t.Fatalf("%d pages; the manual has a page per subject", len(pages))
	}
	mdLink := regexp.MustCompile(`^[a-z][a-z0-9+.-]*:`)
	for _, p := range pages {
		for _, l := range p.fenceInCode {
			t.Errorf("%s:%d: a fence inside a code block: a closing fence with text after it does not close its block", p.path, l)
		}
		for _, l := range p.strayRows {
			t.Errorf("%s:%d: a table row outside a table: a blank line ends a table, and a table needs its header and delimiter rows", p.path, l)
		}
		for _, c := range p.twiceInTable {
			t.Errorf("%s: a table has two rows for %s: say it in one", p.path, c)
		}
		if len(p.headings) == 0 || !bytes.HasPrefix(p.src, []byte("# ")) {
			t.Errorf("%s: does not begin with its title (# …)", p.path)
		}
		for _, dest := range p.links {
			if dest == "" || mdLink.MatchString(dest) {
				continue // another site, mailto:
			}
			u, err := url.Parse(dest)
			if err != nil {
				t.Errorf("%s: link %q: %v", p.path, dest, err)
				continue
			}
			target := p
			if u.Path != "" {
				abs, _ := filepath.Abs(filepath.Join(filepath.Dir(p.path), u.Path))
				if _, err := os.Stat(abs); err != nil {
					t.Errorf("%s: link %q: no such file", p.path, dest)
					continue
				}
				target = pages[abs]
			}
			if u.Fragment == "" {
				continue
			}
			if target == nil {
				t.Errorf("%s: link %q: a fragment of a file that is not a page of the manual", p.path, dest)
			} else if !target.anchors[u.Fragment] {
				t.Errorf("%s: link %q: %s has no heading #%s", p.path, dest, target.path, u.Fragment)
			}
		}
	}
}

// TestDocsCatchesSwallowedHeadings: the check finds the README's old
// mistake, a closing fence with prose after it.
func TestDocsCatchesSwallowedHeadings(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bad.md")
	os.WriteFile(path, []byte("# Bad\n\n```sh\nretrylab run x\n``` then prose\n\n## Swallowed\n\n```sh\nmore\n```\n"), 0o644)
	p := read(t, path)
	if len(p.fenceInCode) == 0 || len(p.headings) != 1 {
		t.Errorf("fences inside code %v, headings %q: the swallowed heading went unnoticed", p.fenceInCode, p.headings)
	}
}

// TestDocsCatchesBrokenTables: the checks find the field table's old
// mistakes, rows cut off by a blank line and a row told twice.
func TestDocsCatchesBrokenTables(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bad.md")
	os.WriteFile(path, []byte("# Bad\n\n| field | meaning |\n| --- | --- |\n| `a` | one |\n| `a` | again |\n\n| `b` | cut off |\n"), 0o644)
	p := read(t, path)
	if !slices.Equal(p.strayRows, []int{8}) || !slices.Equal(p.twiceInTable, []string{"a"}) {
		t.Errorf("stray rows %v, rows told twice %q: want [8] and [a]", p.strayRows, p.twiceInTable)
	}
}

var update = flag.Bool("update", false, "rewrite the generated parts of the pages instead of comparing them")

const (
	metricsBegin = "<!-- metrics: made from engine.MetricInfos; go test ./docs -run TestDocsListEveryMetric -update rewrites it -->\n"
	metricsEnd   = "<!-- end of metrics -->\n"
)

// metricsTable is the results page's table of every metric the engine
// reports, in the engine's order, made from engine.MetricInfos.
func metricsTable() string {
	var b strings.Builder
	b.WriteString("| metric | what it is | unit | better |\n|---|---|---|---|\n")
	for _, m := range engine.MetricInfos {
		better := map[int]string{1: "higher", -1: "lower", 0: ""}[m.Better]
		b.WriteString("| `" + m.Key + "` | " + m.Label + ": " + strings.ReplaceAll(m.Explain, "|", "\\|") + " | " + m.Unit + " | " + better + " |\n")
	}
	return b.String()
}

// TestDocsListEveryMetric: the results page's table of metrics is the
// engine's (engine.MetricInfos), every metric with its label, meaning,
// unit and direction: a new metric is on the page once -update has run.
func TestDocsListEveryMetric(t *testing.T) {
	data, err := os.ReadFile("results.md")
	if err != nil {
		t.Fatal(err)
	}
	s := string(data)
	i, j := strings.Index(s, metricsBegin), strings.Index(s, metricsEnd)
	if i < 0 || j < i {
		t.Fatalf("results.md has no %q … %q block", strings.TrimSpace(metricsBegin), strings.TrimSpace(metricsEnd))
	}
	got := s[:i+len(metricsBegin)] + metricsTable() + s[j:]
	if *update {
		if err := os.WriteFile("results.md", []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if got != s {
		t.Error("results.md's table of metrics is not engine.MetricInfos: go test ./docs -run TestDocsListEveryMetric -update rewrites it")
	}
}

// TestRenderDropsRawHTML: the server shows rendered pages as they are, so
// HTML written in a page never reaches it, and links and headings are
// the server's.
func TestRenderDropsRawHTML(t *testing.T) {
	got, err := render([]byte("# T\n\n<script>alert(1)</script>\n\n<b onclick=x>b</b> [s](search.md#the-knobs) ![p](images/e03b.svg) [a](#t)\n"))
	if err != nil {
		t.Fatal(err)
	}
	s := string(got)
	for _, bad := range []string{"<script", "onclick", "<b"} {
		if strings.Contains(s, bad) {
			t.Errorf("%q is in the page:\n%s", bad, s)
		}
	}
	for _, want := range []string{`<h1 id="t">T</h1>`, `href="/docs/search#the-knobs"`, `src="/docs/images/e03b.svg"`, `href="#t"`} {
		if !strings.Contains(s, want) {
			t.Errorf("%q is not in the page:\n%s", want, s)
		}
	}
}
