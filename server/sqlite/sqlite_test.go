package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"

	"github.com/retrylab/retrylab/server/storetest"
)

// MustOpenDB opens a database in a new temporary directory and closes it
// when the test ends.
func MustOpenDB(tb testing.TB) *DB {
	tb.Helper()
	return mustOpen(tb, filepath.Join(tb.TempDir(), "db", "retrylab.db"))
}

// mustOpen opens the database at path and closes it when the test ends.
func mustOpen(tb testing.TB, path string) *DB {
	tb.Helper()
	db, err := Open(context.Background(), path)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		if err := db.Close(); err != nil {
			tb.Error(err)
		}
	})
	return db
}

func TestStore(t *testing.T) {
	storetest.Run(t, func(t *testing.T) storetest.Store { return MustOpenDB(t) })
}

func TestDataSurvivesReopen(t *testing.T) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "retrylab.db")
	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.PutScenario(ctx, "abc", []byte("kept")); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}

	db = mustOpen(t, path)
	got, err := db.GetScenario(ctx, "abc")
	if err != nil || string(got) != "kept" {
		t.Fatalf("after reopen, GetScenario = %q, %v; want %q", got, err, "kept")
	}
}

func TestMigrationsIdempotent(t *testing.T) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "retrylab.db")
	if err := mustOpen(t, path).Close(); err != nil {
		t.Fatal(err)
	}
	db := mustOpen(t, path)

	sub, err := migrationFS.ReadDir("migrations")
	if err != nil {
		t.Fatal(err)
	}
	rows, err := db.read.QueryContext(ctx, `SELECT version, name FROM schema_migrations ORDER BY version`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var names []string
	for rows.Next() {
		var v int
		var name string
		if err := rows.Scan(&v, &name); err != nil {
			t.Fatal(err)
		}
		names = append(names, name)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if len(names) != len(sub) {
		t.Fatalf("schema_migrations holds %q, want one row for each of %d files", names, len(sub))
	}
	for i, e := range sub {
		if names[i] != e.Name() {
			t.Errorf("schema_migrations row %d = %q, want %q", i, names[i], e.Name())
		}
	}
}

func TestMigrationNames(t *testing.T) {
	for _, tt := range []struct {
		name string
		fsys fstest.MapFS
	}{
		{"no version", fstest.MapFS{"scenarios.sql": {}}},
		{"version zero", fstest.MapFS{"0000_scenarios.sql": {}}},
		{"shared version", fstest.MapFS{"0001_a.sql": {}, "1_b.sql": {}}},
	} {
		if _, err := migrations(tt.fsys); err == nil {
			t.Errorf("%s: migrations succeeded, want an error", tt.name)
		}
	}

	ms, err := migrations(fstest.MapFS{"0010_c.sql": {}, "0002_b.sql": {}, "0001_a.sql": {}})
	if err != nil {
		t.Fatal(err)
	}
	var got []int
	for _, m := range ms {
		got = append(got, m.version)
	}
	if len(got) != 3 || got[0] != 1 || got[1] != 2 || got[2] != 10 {
		t.Errorf("versions = %v, want [1 2 10]", got)
	}
}

// TestPragmas checks the pragmas on several connections at once, so that
// each comes from the pool rather than one being reused.
func TestPragmas(t *testing.T) {
	ctx := t.Context()
	db := MustOpenDB(t)
	check := func(name string, c *sql.Conn) {
		t.Helper()
		for _, p := range []struct{ pragma, want string }{
			{"journal_mode", "wal"},
			{"busy_timeout", "5000"},
			{"synchronous", "1"}, // NORMAL
			{"foreign_keys", "1"},
		} {
			var got string
			if err := c.QueryRowContext(ctx, "PRAGMA "+p.pragma).Scan(&got); err != nil {
				t.Fatalf("%s: PRAGMA %s: %v", name, p.pragma, err)
			}
			if got != p.want {
				t.Errorf("%s: PRAGMA %s = %q, want %q", name, p.pragma, got, p.want)
			}
		}
	}

	var conns []*sql.Conn
	for range 3 {
		c, err := db.read.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		conns = append(conns, c)
	}
	for i, c := range conns {
		check(fmt.Sprintf("reader %d", i), c)
	}
	w, err := db.write.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	check("writer", w)
}

func TestReadersAreReadOnly(t *testing.T) {
	db := MustOpenDB(t)
	_, err := db.read.ExecContext(t.Context(),
		`INSERT INTO scenarios(id, body, created_at) VALUES('x', x'00', 0)`)
	if err == nil {
		t.Fatal("insert through the reader pool succeeded, want an error")
	}
}

func TestIntegrityCheck(t *testing.T) {
	db := MustOpenDB(t)
	if err := db.PutScenario(t.Context(), "abc", []byte("x")); err != nil {
		t.Fatal(err)
	}
	if err := db.IntegrityCheck(t.Context()); err != nil {
		t.Fatal(err)
	}
}

func TestCount(t *testing.T) {
	ctx := t.Context()
	db := MustOpenDB(t)
	count := func() int {
		t.Helper()
		n, err := db.Count(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := count(); n != 0 {
		t.Fatalf("Count of a new database = %d, want 0", n)
	}
	for _, id := range []string{"a", "b", "a"} {
		if err := db.PutScenario(ctx, id, []byte("body of "+id)); err != nil {
			t.Fatal(err)
		}
	}
	if n := count(); n != 2 {
		t.Errorf("Count after putting a, b, a = %d, want 2", n)
	}
}

// TestOpenPathWithOddCharacters checks that the path reaches SQLite intact
// through the file: URI.
func TestOpenPathWithOddCharacters(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a dir?#%&=", "x.db")
	db := mustOpen(t, path)
	if err := db.PutScenario(t.Context(), "abc", []byte("x")); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatal(err)
	}
}
