// Package golden compares what a test produces with a file kept in the
// repository, as the standard library's golden tests do.
//
// Only tests import it. It is a package rather than a _test.go file because
// the engine's, the charts' and the built-ins' tests share it, and test files
// cannot be imported; internal keeps it out of the module's API. A test binary
// that imports it has the -update flag, which rewrites the files instead of
// comparing them.
package golden

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files instead of comparing with them")

// Check compares got with the file at path, byte for byte. On a difference
// it writes got to path+".actual" and fails the test. With -update it writes
// got to path instead, creating its directory.
func Check(t testing.TB, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -run '%s' -update creates it)", err, t.Name())
	}
	if !bytes.Equal(got, want) {
		_ = os.WriteFile(path+".actual", got, 0o644)
		t.Errorf("differs from %s; the output is in %s.actual (diff them; go test -run '%s' -update accepts it)", path, path, t.Name())
	}
}
