package server

import (
	"bytes"
	"io/fs"
	"mime"
	"net/http"
	"path"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"
	"github.com/retrylab/retrylab/docs"
)

// A docsLink names a page of the manual in its contents.
type docsLink struct{ Name, Title string }

// handleDocs serves the manual's contents: every page of docs/ by title.
func (s *Server) handleDocs(c echo.Context) error {
	var pages []docsLink
	for _, n := range docs.Names() {
		pages = append(pages, docsLink{n, docs.Title(n)})
	}
	c.Response().Header().Set("Cache-Control", "public, max-age=300")
	return render(c, http.StatusOK, docsIndexPage(s.assets, pages))
}

// handleDocsPage serves a page of the manual (docs/NAME.md), rendered as
// CommonMark with GitHub's tables; its wide tables and code scroll in a
// region of their own, reachable by keyboard.
func (s *Server) handleDocsPage(c echo.Context) error {
	p, ok := docs.Render(c.Param("page"))
	if !ok {
		return echo.NewHTTPError(http.StatusNotFound, "no page of the manual with that name; /docs lists them")
	}
	body := bytes.ReplaceAll(p.HTML, []byte("<pre>"), []byte(`<pre tabindex="0">`))
	body = bytes.ReplaceAll(body, []byte("<table>"), []byte(`<div class="tablewrap" tabindex="0" role="region" aria-label="Table"><table>`))
	body = bytes.ReplaceAll(body, []byte("</table>"), []byte("</table></div>"))
	c.Response().Header().Set("Cache-Control", "public, max-age=300")
	return render(c, http.StatusOK, docsPage(s.assets, p.Title, templ.Raw(string(body))))
}

// handleDocsImage serves a picture of the manual (docs/images/).
func (s *Server) handleDocsImage(c echo.Context) error {
	name := path.Base(c.Param("file"))
	b, err := fs.ReadFile(docs.Images, "images/"+name)
	if err != nil {
		return echo.NewHTTPError(http.StatusNotFound, "no picture of the manual with that name")
	}
	c.Response().Header().Set("Cache-Control", "public, max-age=300")
	return c.Blob(http.StatusOK, mime.TypeByExtension(path.Ext(name)), b)
}
