package convert

import (
	"fmt"
	"slices"
	"strconv"
)

// formatInfo labels each format for people, says the syntax its documents
// are written in (JSON, YAML, of which JSON is a part, INI, or code), and
// gives the media type to serve what Export writes with: JSON as JSON,
// everything else (YAML, INI, code) as UTF-8 text, which browsers show
// rather than download.
var formatInfo = map[string]struct{ label, syntax, mediaType string }{
	GRPC:             {"gRPC service config (JSON)", "json", "application/json"},
	Envoy:            {"Envoy route and cluster (YAML)", "yaml", "text/plain; charset=UTF-8"},
	Istio:            {"Istio VirtualService (YAML)", "yaml", "text/plain; charset=UTF-8"},
	Linkerd:          {"Linkerd ServiceProfile (YAML)", "yaml", "text/plain; charset=UTF-8"},
	Resilience4j:     {"resilience4j, Spring Boot (YAML)", "yaml", "text/plain; charset=UTF-8"},
	Polly:            {".NET resilience handler, Polly (appsettings JSON)", "json", "application/json"},
	AWS:              {"AWS shared config (INI)", "ini", "text/plain; charset=UTF-8"},
	FailsafeGo:       {"failsafe-go (Go)", "go", "text/plain; charset=UTF-8"},
	Cenkalti:         {"cenkalti/backoff (Go)", "go", "text/plain; charset=UTF-8"},
	PollyCSharp:      {"Polly v8 (C#)", "csharp", "text/plain; charset=UTF-8"},
	Resilience4jJava: {"resilience4j (Java)", "java", "text/plain; charset=UTF-8"},
}

// Syntax is the syntax of a format's documents: "json", "yaml" (which
// reads JSON too), "ini", or the language of its code ("go", "csharp",
// "java"); "" for a name that is not a format.
func Syntax(format string) string { return formatInfo[format].syntax }

// Label names a format for people: "gRPC service config (JSON)". It is
// the format itself for a name that is not a format.
func Label(format string) string {
	if f, ok := formatInfo[format]; ok {
		return f.label
	}
	return format
}

// MediaType is the media type to serve what Export writes in format with.
func MediaType(format string) string {
	if f, ok := formatInfo[format]; ok {
		return f.mediaType
	}
	return "application/octet-stream"
}

// CheckFormat reports whether Import (export false) or Export (export
// true) takes format: nil if it does, else an error saying why not (an
// export-only format, an unknown name, none) and listing the supported
// formats. The message begins with the format as written, or "is
// missing", for the caller to put after the name of its field or flag.
func CheckFormat(format string, export bool) error {
	verb, formats := "import", ImportFormats
	if export {
		verb, formats = "export", ExportFormats
	}
	if slices.Contains(formats, format) {
		return nil
	}
	supported := "supported: " + quoteList(formats)
	switch {
	case !export && slices.Contains(ExportFormats, format):
		return fmt.Errorf("%s is export only (RetryLab writes it but does not read it); %s", strconv.Quote(format), supported)
	case format == "":
		return fmt.Errorf("is missing; %s", supported)
	}
	return fmt.Errorf("%s is not a format RetryLab can %s; %s", strconv.Quote(format), verb, supported)
}
