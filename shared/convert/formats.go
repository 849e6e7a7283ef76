package convert

import (
	"fmt"
	"slices"
	"strconv"
)

// PlannedImportFormats are the formats issue 17 names for import that are
// not built yet. Every entry point (the command, the server) answers them
// with CheckFormat's "not supported yet" instead of "unknown".
var PlannedImportFormats = []string{}

// PlannedExportFormats are the formats named for export that are not built
// yet.
var PlannedExportFormats = []string{}

// CheckFormat reports whether Import (export false) or Export (export
// true) takes format: nil if it does, else an error saying why not (a
// planned format not supported yet, an export-only format, an unknown
// name, none) and listing the supported formats and the planned ones. The
// message begins with the format as written, or "is missing", for the
// caller to put after the name of its field or flag.
func CheckFormat(format string, export bool) error {
	verb, formats, planned := "import", ImportFormats, PlannedImportFormats
	if export {
		verb, formats, planned = "export", ExportFormats, PlannedExportFormats
	}
	if slices.Contains(formats, format) {
		return nil
	}
	supported := fmt.Sprintf("supported: %s; planned: %s", quoteList(formats), quoteList(planned))
	switch {
	case slices.Contains(planned, format):
		return fmt.Errorf("%s is not supported yet for %s; %s", strconv.Quote(format), verb, supported)
	case !export && slices.Contains(ExportFormats, format):
		return fmt.Errorf("%s is export only (RetryLab writes it but does not read it); %s", strconv.Quote(format), supported)
	case format == "":
		return fmt.Errorf("is missing; %s", supported)
	}
	return fmt.Errorf("%s is not a format RetryLab can %s; %s", strconv.Quote(format), verb, supported)
}
