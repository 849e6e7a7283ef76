// oEmbed (GET /oembed): what a site that embeds a scenario page asks for,
// the iframe of /embed/ID and a thumbnail, for this site's pages only.

package server

import (
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strconv"

	"github.com/labstack/echo/v4"
)

// oEmbed is the oEmbed 1.0 "rich" response.
type oEmbed struct {
	Version      string `json:"version"`
	Type         string `json:"type"`
	ProviderName string `json:"provider_name"`
	ProviderURL  string `json:"provider_url"`
	Title        string `json:"title"`
	HTML         string `json:"html"`
	Width        int    `json:"width"`
	Height       int    `json:"height"`
	ThumbnailURL string `json:"thumbnail_url"`
	ThumbWidth   int    `json:"thumbnail_width"`
	ThumbHeight  int    `json:"thumbnail_height"`
	CacheAge     int    `json:"cache_age"`
}

var embeddable = regexp.MustCompile(`^/(?:s|embed)/([A-Za-z0-9_-]{1,64})/?$`)

func (s *Server) handleOEmbed(c echo.Context) error {
	if f := c.QueryParam("format"); f != "" && f != "json" {
		return echo.NewHTTPError(http.StatusNotImplemented, "only format=json is supported")
	}
	u, err := url.Parse(c.QueryParam("url"))
	if err != nil || u.Path == "" {
		return echo.NewHTTPError(http.StatusBadRequest, "url must be the address of a RetryLab scenario page, such as /s/ID")
	}
	// Only this site's pages: the answer would otherwise vouch for any
	// host's address.
	if u.Host != "" && !s.sameHost(c, u.String()) {
		return echo.NewHTTPError(http.StatusNotFound, fmt.Sprintf("url %q is not a page of this site (%s)", u.Redacted(), s.baseURL(c)))
	}
	m := embeddable.FindStringSubmatch(u.Path)
	if m == nil {
		return echo.NewHTTPError(http.StatusNotFound, "url is not a RetryLab scenario page")
	}
	sub, err := s.lookup(c.Request().Context(), m[1])
	if err != nil {
		return err
	}
	width := 760
	if mw := c.QueryParam("maxwidth"); mw != "" {
		n, err := strconv.Atoi(mw)
		if err != nil || n < 1 {
			return echo.NewHTTPError(http.StatusBadRequest, fmt.Sprintf("maxwidth %q is not a positive number", mw))
		}
		width = min(width, max(n, 200))
	}
	height := width*400/760 + 90
	if mh := c.QueryParam("maxheight"); mh != "" {
		if n, err := strconv.Atoi(mh); err == nil && n > 0 {
			height = min(height, max(n, 120))
		}
	}
	base := s.baseURL(c)
	name := title(sub.sc, sub.builtin)
	// The chart the URL names (its picture, res, metric, theme), for the
	// iframe and the thumbnail alike.
	q := url.Values{}
	for _, k := range []string{"picture", "res", "metric", "theme", "success"} {
		if v := u.Query().Get(k); v != "" {
			q.Set(k, v)
		}
	}
	query := ""
	if len(q) > 0 {
		query = "?" + q.Encode()
	}
	// Width and height are the oEmbed's.
	iframe := iframeSized(base+"/embed/"+m[1]+query, name, width, height)
	// Consumers want a raster thumbnail: the PNG where this build draws one.
	thumb, tw, th := base+"/s/"+m[1]+"/chart.svg"+thumbQuery(q), 760, 400
	if canDrawPNG {
		thumb, tw, th = base+"/s/"+m[1]+"/chart.png"+thumbQuery(q), 1200, 630
	}
	c.Response().Header().Set("Cache-Control", "public, max-age=86400")
	c.Response().Header().Set("Access-Control-Allow-Origin", "*")
	return c.JSON(http.StatusOK, oEmbed{
		Version: "1.0", Type: "rich", ProviderName: "RetryLab", ProviderURL: base,
		Title: name, HTML: iframe, Width: width, Height: height,
		ThumbnailURL: thumb, ThumbWidth: tw, ThumbHeight: th,
		CacheAge: 86400,
	})
}

// thumbQuery is the chart query of an oEmbed thumbnail: the embed's chart,
// in the light theme unless it names one.
func thumbQuery(q url.Values) string {
	t := url.Values{}
	for k, v := range q {
		t[k] = v
	}
	if t.Get("theme") == "" {
		t.Set("theme", "light")
	}
	return "?" + t.Encode()
}
