package d1

import (
	"errors"
	"syscall"
	"testing"
)

// TestWriteError: D1's messages for a full, read-only or passing failure
// wrap the errno the server answers 503 for, keeping the message; others
// are left as they are.
func TestWriteError(t *testing.T) {
	for _, tc := range []struct {
		msg  string
		want error
	}{
		{"D1_ERROR: Exceeded maximum DB size", syscall.ENOSPC},
		{"D1_ERROR: database or disk is full: SQLITE_FULL", syscall.ENOSPC},
		{"D1_ERROR: attempt to write a readonly database: SQLITE_READONLY", syscall.EROFS},
		{"D1_ERROR: Network connection lost.", syscall.EIO},
		{"D1 DB storage operation exceeded timeout which caused object to be reset.", syscall.EIO},
		{"D1_ERROR: internal error; reference = 1234", syscall.EIO},
		{"D1 DB is overloaded. Too many requests queued.", syscall.EIO},
		{"D1_ERROR: no such table: scenarios: SQLITE_ERROR", nil},
	} {
		orig := errors.New(tc.msg)
		got := writeError(orig)
		if !errors.Is(got, orig) {
			t.Errorf("%q: %v does not wrap the original", tc.msg, got)
		}
		for _, errno := range []error{syscall.ENOSPC, syscall.EROFS, syscall.EIO} {
			if errors.Is(got, errno) != (errno == tc.want) {
				t.Errorf("%q: errors.Is(%v) = %v, want it only for %v", tc.msg, errno, errors.Is(got, errno), tc.want)
			}
		}
	}
	if writeError(nil) != nil {
		t.Error("writeError(nil) is not nil")
	}
}
