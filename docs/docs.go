// Package docs holds the manual (Markdown pages, one per subject), renders
// a page to HTML for the server's /docs, and tests it as a CommonMark
// renderer reads it.
package docs

import (
	"bytes"
	"embed"
	"io/fs"
	"net/url"
	"path"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"unicode"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
)

//go:embed *.md images
var files embed.FS

// Images holds the pictures the pages show, under images/.
var Images fs.FS = files

// A Page is a page of the manual, rendered.
type Page struct {
	// Name is the page's name in links: its file name without ".md".
	Name string
	// Title is its first heading.
	Title string
	// HTML is its body, with links to other pages of the manual made
	// links to /docs/NAME and every heading given the id Anchor makes.
	HTML []byte
}

// Names lists the manual's pages by name, in file order.
func Names() []string {
	ents, _ := fs.ReadDir(files, ".")
	var out []string
	for _, e := range ents {
		if n, ok := strings.CutSuffix(e.Name(), ".md"); ok {
			out = append(out, n)
		}
	}
	return out
}

// Title returns the first heading of page name, "" when there is none.
func Title(name string) string {
	src, err := files.ReadFile(name + ".md")
	if err != nil {
		return ""
	}
	first, _, _ := bytes.Cut(src, []byte("\n"))
	t, _ := strings.CutPrefix(string(first), "# ")
	return strings.TrimSpace(t)
}

// Render returns the page of the manual called name (as Names lists it);
// ok is false when there is none. The pages are rendered once, on the
// first call.
func Render(name string) (p Page, ok bool) {
	p, ok = rendered()[name]
	return p, ok
}

// rendered holds every page, by name: they are compiled in.
var rendered = sync.OnceValue(func() map[string]Page {
	pages := map[string]Page{}
	for _, name := range Names() {
		src, err := files.ReadFile(name + ".md")
		if err != nil {
			continue
		}
		if html, err := render(src); err == nil {
			pages[name] = Page{Name: name, Title: Title(name), HTML: html}
		}
	}
	return pages
})

// render writes Markdown src as HTML: CommonMark with GitHub's tables,
// raw HTML left out (goldmark's default), links as Link makes them and
// headings with Anchor's ids.
func render(src []byte) ([]byte, error) {
	md := goldmark.New(goldmark.WithExtensions(extension.Table))
	doc := md.Parser().Parse(text.NewReader(src), parser.WithContext(parser.NewContext()))
	seen := map[string]int{}
	ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.Heading:
			n.SetAttributeString("id", []byte(uniqueAnchor(seen, string(n.Text(src)))))
		case *ast.Link:
			n.Destination = []byte(Link(string(n.Destination)))
		case *ast.Image:
			n.Destination = []byte(Link(string(n.Destination)))
		}
		return ast.WalkContinue, nil
	})
	var b bytes.Buffer
	err := md.Renderer().Render(&b, src, doc)
	return b.Bytes(), err
}

var scheme = regexp.MustCompile(`^[a-z][a-z0-9+.-]*:`)

// Link returns where a link of a page of the manual leads on the server:
// another page (x.md#f) to /docs/x#f, the README and the conformance
// module's README to the manual's contents and conformance page, a
// picture to /docs/images/…; another site's link, or a fragment alone,
// as it is.
func Link(dest string) string {
	if dest == "" || scheme.MatchString(dest) || strings.HasPrefix(dest, "#") {
		return dest
	}
	u, err := url.Parse(dest)
	if err != nil {
		return dest
	}
	frag := ""
	if u.Fragment != "" {
		frag = "#" + u.Fragment
	}
	switch p := path.Clean(u.Path); {
	case p == "../README.md":
		return "/docs" + frag
	case p == "../conformance/README.md":
		return "/docs/conformance" + frag
	case strings.HasPrefix(p, "images/"):
		return "/docs/" + p
	case !strings.Contains(p, "/") && strings.HasSuffix(p, ".md"):
		return "/docs/" + strings.TrimSuffix(p, ".md") + frag
	}
	return dest
}

// uniqueAnchor is the id of the heading titled title on a page whose
// earlier headings' anchors seen counts: Anchor, with "-1", "-2"… after
// the first, as GitHub writes them.
func uniqueAnchor(seen map[string]int, title string) string {
	a := Anchor(title)
	k := seen[a]
	seen[a]++
	if k > 0 {
		return a + "-" + strconv.Itoa(k)
	}
	return a
}

// Anchor is the id of a heading titled title, as GitHub writes it: lower
// case, spaces as hyphens, other punctuation left out.
func Anchor(title string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(title) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}
