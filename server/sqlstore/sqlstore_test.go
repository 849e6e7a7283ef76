package sqlstore_test

import (
	"database/sql"
	"os"
	"path/filepath"
	"testing"

	_ "modernc.org/sqlite" // the "sqlite" driver

	"github.com/retrylab/retrylab/server/sqlstore"
	"github.com/retrylab/retrylab/server/storetest"
)

// TestOneDB runs the store contract on one *sql.DB for reads and writes,
// as the Worker opens D1 (whose own test is make worker-test), here over
// SQLite with the schema's migration applied as D1 applies it.
func TestOneDB(t *testing.T) {
	schema, err := os.ReadFile("../sqlite/migrations/0001_scenarios.sql")
	if err != nil {
		t.Fatal(err)
	}
	storetest.Run(t, func(t *testing.T) storetest.Store {
		db, err := sql.Open("sqlite", "file:"+filepath.ToSlash(filepath.Join(t.TempDir(), "d1.db"))+"?_pragma=busy_timeout(5000)")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		db.SetMaxOpenConns(1) // D1 runs one statement at a time
		if _, err := db.ExecContext(t.Context(), string(schema)); err != nil {
			t.Fatal(err)
		}
		return sqlstore.New(db, db, nil)
	})
}
