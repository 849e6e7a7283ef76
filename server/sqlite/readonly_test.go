package sqlite

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/retrylab/retrylab/server/storetest"
)

// makeUnwritable makes the file at path impossible to write for this
// process: chmod for a user, the immutable attribute for root (who ignores
// modes). It skips the test when it cannot.
func makeUnwritable(t *testing.T, path string) {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, fi.Mode().Perm()&0o555); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(path, fi.Mode().Perm()) })
	if os.Geteuid() == 0 { // root writes whatever the mode
		if out, err := exec.Command("chattr", "+i", path).CombinedOutput(); err != nil {
			t.Skipf("cannot make %s unwritable here: %v %s", path, err, out)
		}
		t.Cleanup(func() { exec.Command("chattr", "-i", path).Run() })
	}
}

// TestReadOnlyFileIsServed: a database file that cannot be written opens
// for reading, so that the server starts and serves what it holds;
// writes fail with an error wrapping syscall.EROFS and store nothing.
func TestReadOnlyFileIsServed(t *testing.T) {
	for _, dirToo := range []bool{false, true} {
		t.Run(map[bool]string{false: "file", true: "file and directory"}[dirToo], func(t *testing.T) { testReadOnly(t, dirToo) })
	}
}

func testReadOnly(t *testing.T, dirToo bool) {
	path := filepath.Join(t.TempDir(), "retrylab.db")
	db, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.PutScenario(t.Context(), "present", []byte("x")); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	makeUnwritable(t, path)
	if dirToo {
		makeUnwritable(t, filepath.Dir(path))
	}
	db, err = Open(context.Background(), path)
	if err != nil {
		t.Fatalf("Open of a read-only file: %v", err)
	}
	defer db.Close()
	if got, err := db.GetScenario(t.Context(), "present"); err != nil || string(got) != "x" {
		t.Errorf("GetScenario = %q, %v; want the stored body", got, err)
	}
	if err := db.PutScenario(t.Context(), "new", []byte("y")); !errors.Is(err, syscall.EROFS) {
		t.Errorf("PutScenario = %v, want an error wrapping EROFS", err)
	}

}

// TestFullDiskContract: a database that has reached its size (here
// max_page_count, as a full disk would) fails writes with an error wrapping
// syscall.ENOSPC and keeps serving reads.
func TestFullDiskContract(t *testing.T) {
	storetest.RunUnwritable(t, func(t *testing.T) storetest.Store {
		db := MustOpenDB(t)
		if err := db.PutScenario(t.Context(), "present", []byte("x")); err != nil {
			t.Fatal(err)
		}
		var pages int
		if err := db.write.QueryRowContext(t.Context(), `PRAGMA page_count`).Scan(&pages); err != nil {
			t.Fatal(err)
		}
		if _, err := db.write.ExecContext(t.Context(), fmt.Sprintf(`PRAGMA max_page_count = %d`, pages)); err != nil {
			t.Fatal(err)
		}
		return db
	})
}

// TestReadOnlyContract: a database opened read-only keeps the contract of
// a store that cannot be written.
func TestReadOnlyContract(t *testing.T) {
	storetest.RunUnwritable(t, func(t *testing.T) storetest.Store {
		path := filepath.Join(t.TempDir(), "retrylab.db")
		db := mustOpen(t, path)
		if err := db.PutScenario(t.Context(), "present", []byte("x")); err != nil {
			t.Fatal(err)
		}
		return newDB(db.read, nil) // as openReadOnly leaves it
	})
}
