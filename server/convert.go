//go:build !noconvert

// Import and export of the configurations users already have (package
// shared/convert): POST /api/import, GET /s/:id/export and the pages'
// Export panels. The Worker build leaves this out (noconvert) to fit its
// size limit; convert_none.go is the other side of this pair.

package server

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/retrylab/retrylab/shared/convert"
	"github.com/retrylab/retrylab/shared/engine"
	"github.com/retrylab/retrylab/shared/scenarios"
	"github.com/retrylab/retrylab/shared/view"
)

// canConvert says whether this build imports and exports configurations.
const canConvert = true

// importHint says where a retry configuration sent as a scenario goes:
// the format it looks like (convert.Detect) and how to import it; "" for
// a document that looks like no configuration.
func importHint(body []byte) string {
	return convert.ImportHint(body)
}

// importRequest is POST /api/import's JSON body. Config is the document as
// a string, or, for every format but aws (JSON, or YAML of which JSON is
// a part), the document itself.
type importRequest struct {
	Format string          `json:"format"`
	Config json.RawMessage `json:"config"`
}

// importAnswer is POST /api/import's answer.
type importAnswer struct {
	Scenario json.RawMessage `json:"scenario"`
	Notes    []convert.Note  `json:"notes"`
}

// handleImport answers POST /api/import: the configuration in the body,
// either {"format", "config"} as JSON or, with ?format=, the document
// itself, read into strategies on ImportWorkload's workload. Nothing is
// stored.
func (s *Server) handleImport(c echo.Context) error {
	format, raw := c.QueryParam("format"), c.QueryParams().Has("format")
	ct := c.Request().Header.Get("Content-Type")
	mt, _, err := mime.ParseMediaType(ct)
	switch {
	case !raw && (err != nil || mt != echo.MIMEApplicationJSON):
		return echo.NewHTTPError(http.StatusUnsupportedMediaType, fmt.Sprintf(`Content-Type %q is not %s; send {"format": …, "config": …} as JSON, or the configuration itself with ?format=`, ct, echo.MIMEApplicationJSON))
	case raw && (mt == echo.MIMEApplicationForm || mt == echo.MIMEMultipartForm):
		// A form would arrive encoded, not as the document.
		return echo.NewHTTPError(http.StatusUnsupportedMediaType, fmt.Sprintf("Content-Type %q is a form; send the configuration as it is, as %s (curl: -H 'Content-Type: %s' --data-binary @FILE)", mt, rawTypes, rawType(format)))
	case raw && (err != nil || mt == echo.MIMETextPlain):
		// A page of any site can make its visitors' browsers send text/plain
		// (or no type) without asking: only this site's pages may.
		if err := s.fromThisSite(c); err != nil {
			return echo.NewHTTPError(http.StatusUnsupportedMediaType, fmt.Sprintf("Content-Type %q can be sent by a page of any site; send the configuration as %s (curl: -H 'Content-Type: %s' --data-binary @FILE)", ct, rawTypes, rawType(format)))
		}
	}
	body, err := readBody(c.Request().Body, "configuration")
	if err != nil {
		return err
	}
	if !raw {
		if err := convert.UniqueKeys(body); err != nil {
			return echo.NewHTTPError(http.StatusBadRequest, `the body is not {"format": …, "config": …} as JSON: `+err.Error())
		}
		var req importRequest
		dec := json.NewDecoder(bytes.NewReader(body))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&req); err != nil {
			return echo.NewHTTPError(http.StatusBadRequest, `the body is not {"format": …, "config": …} as JSON: `+err.Error())
		}
		format = req.Format
		switch {
		case len(req.Config) == 0 || string(req.Config) == "null":
			return echo.NewHTTPError(http.StatusUnprocessableEntity, "config: is missing; give the configuration as a string (or, but for aws, the document itself as JSON)")
		case req.Config[0] == '"':
			var text string
			if err := json.Unmarshal(req.Config, &text); err != nil {
				return echo.NewHTTPError(http.StatusBadRequest, "config: "+err.Error())
			}
			body = []byte(text)
		case format == convert.AWS:
			// The one format that is not JSON or YAML: a JSON value is
			// no shared config file.
			return echo.NewHTTPError(http.StatusUnprocessableEntity, fmt.Sprintf("config: is JSON, not a string; the %s format is the INI text of a shared config file: give it as a JSON string", format))
		default:
			body = req.Config
		}
	}
	if err := convert.CheckFormat(format, false); err != nil {
		return echo.NewHTTPError(http.StatusUnprocessableEntity, "format: "+err.Error())
	}
	im, err := convert.Import(format, body)
	if err != nil {
		if es := engine.AsErrors(err); es != nil {
			return &importError{problems: es.Limit(engine.MaxErrors)}
		}
		return err
	}
	sc, err := im.Scenario(scenarios.ImportWorkload, format, "")
	if err != nil {
		if es := engine.AsErrors(err); es != nil {
			return &importError{problems: es.Limit(engine.MaxErrors)}
		}
		return err
	}
	c.Response().Header().Set("Cache-Control", "no-store")
	return c.JSON(http.StatusOK, importAnswer{Scenario: sc.Canonical(), Notes: orEmpty(im.Notes)})
}

// rawTypes are the media types to send a raw configuration with: types a
// cross-site page cannot make a browser send without asking.
const rawTypes = "application/yaml, application/json or, for an AWS config, application/octet-stream"

// rawType is the media type to send a configuration of format with.
func rawType(format string) string {
	switch convert.Syntax(format) {
	case "json":
		return echo.MIMEApplicationJSON
	case "yaml":
		return "application/yaml"
	}
	return echo.MIMEOctetStream
}

// exportAnswer is GET /s/:id/export's answer with as=json: Strategy is the
// strategy or the search frontier's point asked for (a point exports under
// the searched strategy's name: view.FrontierStrategy).
type exportAnswer struct {
	Format      string         `json:"format"`
	Strategy    string         `json:"strategy"`
	ContentType string         `json:"content_type"`
	Config      string         `json:"config"`
	Notes       []convert.Note `json:"notes"`
}

// exportQuery reads GET /s/:id/export's query, checking what can be
// checked without the scenario: format (a 422 when not one Export writes)
// and as ("json" or nothing).
func exportQuery(c echo.Context) (format, strategy string, asJSON bool, err error) {
	format, strategy = c.QueryParam("format"), c.QueryParam("strategy")
	if err := convert.CheckFormat(format, true); err != nil {
		return "", "", false, echo.NewHTTPError(http.StatusUnprocessableEntity, "format: "+err.Error())
	}
	switch as := c.QueryParam("as"); as {
	case "", "text":
	case "json":
		asJSON = true
	default:
		return "", "", false, echo.NewHTTPError(http.StatusUnprocessableEntity, fmt.Sprintf(`as: %q is not "text" (the configuration itself, the default) or "json" (it and its notes)`, as))
	}
	return format, strategy, asJSON, nil
}

// exportStrategy finds the strategy a query names: by name, the only one
// when none is named, or a point of the scenario's search frontier by the
// name its Search section gives it ("C (search 3)": the search's strategy
// with the point's settings, as the playground adds it), which takes the
// scenario's result.
func (s *Server) exportStrategy(ctx context.Context, id string, sc *engine.Scenario, name string) (*engine.Strategy, error) {
	names := make([]string, len(sc.Strategies))
	for i := range sc.Strategies {
		if sc.Strategies[i].Name == name || (name == "" && len(sc.Strategies) == 1) {
			return &sc.Strategies[i], nil
		}
		names[i] = strconv.Quote(sc.Strategies[i].Name)
	}
	if name == "" {
		return nil, echo.NewHTTPError(http.StatusUnprocessableEntity, "strategy: is missing; this scenario has "+strings.Join(names, ", "))
	}
	if sc.Search != nil {
		// Which points the frontier has takes the result: a name that
		// cannot be one ("C (search N)") is refused without it, the
		// points listed when the result is at hand.
		points := []string{strconv.Quote(sc.Search.Strategy+" (search 1)") + " (the recommendation)", strconv.Quote(sc.Search.Strategy + " (search 2)"), "… as the page's Search section names them"}
		if isPointName(sc.Search.Strategy, name) {
			res, err := s.runs.result(ctx, id, sc)
			if err != nil {
				return nil, err
			}
			var st *engine.Strategy
			if st, points = view.FrontierStrategy(sc, res, name); st != nil {
				return st, nil
			}
		} else if res, ok := s.runs.cached(id); ok {
			points = nil
			if sv := view.Of(sc, res, view.Options{}).Search; sv != nil {
				for _, p := range sv.Points {
					points = append(points, strconv.Quote(p.Name))
				}
			}
		}
		msg := fmt.Sprintf("strategy: this scenario has no strategy or search frontier point %q; it has %s", name, strings.Join(names, ", "))
		if len(points) > 0 {
			msg += ", and the search's frontier points " + strings.Join(points, ", ")
		}
		return nil, echo.NewHTTPError(http.StatusNotFound, msg)
	}
	return nil, echo.NewHTTPError(http.StatusNotFound, fmt.Sprintf("strategy: this scenario has no strategy %q; it has %s", name, strings.Join(names, ", ")))
}

// isPointName reports whether name could name a point of the frontier of
// a search from strategy: "strategy (search N)", N from 1 and written as
// the Search section writes it.
func isPointName(strategy, name string) bool {
	n, ok := strings.CutPrefix(name, strategy+" (search ")
	if !ok {
		return false
	}
	n, ok = strings.CutSuffix(n, ")")
	i, err := strconv.Atoi(n)
	return ok && err == nil && i >= 1 && strconv.Itoa(i) == n
}

// handleExport answers GET /s/:id/export?format=…&strategy=…: the policy
// of the strategy, or of the search frontier's point, as a configuration
// of that format, or with as=json the configuration and the notes on what
// it could not express. Without a strategy, a scenario of several is
// exported whole in the formats that hold several (convert.ExportAll:
// Istio, Linkerd, resilience4j), its notes under strategies[i]; the
// others need one named.
func (s *Server) handleExport(c echo.Context) error {
	format, name, asJSON, err := exportQuery(c)
	if err != nil {
		return err
	}
	id := c.Param("id")
	var st *engine.Strategy
	var all []engine.Strategy // without a strategy, in a format of convert.Joined: every one
	var backends *engine.Backends
	sub, err := s.begin(c, id, func(sc *engine.Scenario) (err error) {
		backends = convert.Backends(sc)
		if name == "" && len(sc.Strategies) > 1 && slices.Contains(convert.Joined, format) {
			all = sc.Strategies
			return nil
		}
		st, err = s.exportStrategy(c.Request().Context(), id, sc, name)
		return err
	})
	if sub == nil {
		return err
	}
	c.Response().Header().Set("Access-Control-Allow-Origin", "*")
	ctype := convert.MediaType(format)
	if asJSON {
		ctype = echo.MIMEApplicationJSON
	}
	if all != nil {
		return s.serveCached(c, sub.builtin != nil, ctype, func() ([]byte, error) {
			out, notes, err := convert.ExportAllFrom(format, all, backends)
			if err != nil {
				return nil, err
			}
			if !asJSON {
				return out, nil
			}
			// The notes of every strategy, each path under its strategy's.
			list := []convert.Note{}
			for i := range notes {
				for _, n := range notes[i] {
					n.Path = strings.TrimSuffix(fmt.Sprintf("strategies[%d].%s", i, n.Path), ".")
					list = append(list, n)
				}
			}
			return json.Marshal(exportAnswer{Format: format, ContentType: convert.MediaType(format), Config: string(out), Notes: list})
		})
	}
	return s.serveCached(c, sub.builtin != nil, ctype, func() ([]byte, error) {
		out, notes, err := convert.ExportFrom(format, *st, backends)
		if err != nil {
			return nil, err
		}
		if !asJSON {
			return out, nil
		}
		return json.Marshal(exportAnswer{Format: format, Strategy: cmp.Or(name, st.Name), ContentType: convert.MediaType(format),
			Config: string(out), Notes: orEmpty(notes)})
	})
}

// orEmpty keeps an answer's notes a list in JSON when there are none.
func orEmpty(notes []convert.Note) []convert.Note {
	if notes == nil {
		return []convert.Note{}
	}
	return notes
}

// exportPanel is a strategy's Export panel on its page: a link per format
// to the export endpoint, and its gRPC service config with the notes.
func exportPanel(id string, i int, st *engine.Strategy) *exportView {
	ev := &exportView{ID: "export-" + strconv.Itoa(i), Label: convert.Label(convert.GRPC)}
	for _, f := range convert.ExportFormats {
		q := "format=" + f + "&strategy=" + url.QueryEscape(st.Name)
		ev.Links = append(ev.Links, exportLink{Label: convert.Label(f), URL: "/s/" + id + "/export?" + q, Notes: "/s/" + id + "/export?" + q + "&as=json"})
	}
	out, notes, err := convert.Export(convert.GRPC, *st)
	if err != nil {
		return ev // not for a format of the list
	}
	ev.Text = string(out)
	for _, n := range notes {
		ev.Notes = append(ev.Notes, n.String())
	}
	return ev
}

// searchExports are the Export panels of a search's frontier points, in
// order (nil for a point without its strategy): links to each in every
// format, with the recommended point's gRPC service config too.
func searchExports(id string, sv *view.SearchView) []*exportView {
	var out []*exportView
	for i, p := range sv.Points {
		var st engine.Strategy
		if len(p.Strategy) == 0 || json.Unmarshal(p.Strategy, &st) != nil {
			out = append(out, nil)
			continue
		}
		ev := exportPanel(id, i, &st)
		ev.ID = "export-search-" + strconv.Itoa(i+1)
		if !p.Recommended {
			ev.Text, ev.Notes = "", nil
		}
		out = append(out, ev)
	}
	return out
}
