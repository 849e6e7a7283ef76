package sqlite

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strconv"
	"strings"
	"time"
)

// migrationFS holds the schema migrations, named NNNN_name.sql. They are
// plain SQLite SQL, without PRAGMA or transaction statements, so that
// `wrangler d1 migrations apply` can apply the same files to Cloudflare D1.
//
//go:embed migrations/*.sql
var migrationFS embed.FS

// A migration is one file of migrationFS.
type migration struct {
	version int
	name    string // file name, as wrangler records it
	sql     string
}

// migrations returns the migrations in fsys sorted by version. File names
// must start with a positive version number and an underscore and end in
// ".sql"; no two may share a version.
func migrations(fsys fs.FS) ([]migration, error) {
	names, err := fs.Glob(fsys, "*.sql")
	if err != nil {
		return nil, err
	}
	var ms []migration
	for _, name := range names {
		num, _, ok := strings.Cut(name, "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil || v <= 0 {
			return nil, fmt.Errorf("migration %s: name is not NNNN_name.sql", name)
		}
		b, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, err
		}
		ms = append(ms, migration{version: v, name: name, sql: string(b)})
	}
	slices.SortFunc(ms, func(a, b migration) int { return a.version - b.version })
	for i := 1; i < len(ms); i++ {
		if ms[i].version == ms[i-1].version {
			return nil, fmt.Errorf("migrations %s and %s share version %d", ms[i-1].name, ms[i].name, ms[i].version)
		}
	}
	return ms, nil
}

// migrate applies, in order, the migrations not yet recorded in
// schema_migrations, each in its own transaction with its record.
func (db *DB) migrate(ctx context.Context) error {
	ms, err := migrations(mustSub(migrationFS, "migrations"))
	if err != nil {
		return err
	}
	if _, err := db.write.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version    INTEGER PRIMARY KEY,
		name       TEXT NOT NULL,
		applied_at INTEGER NOT NULL
	)`); err != nil {
		return fmt.Errorf("create schema_migrations: %w", err)
	}
	for _, m := range ms {
		if err := db.apply(ctx, m); err != nil {
			return fmt.Errorf("migration %s: %w", m.name, err)
		}
	}
	return nil
}

// apply applies m unless schema_migrations records it already. The check
// runs inside the transaction, so a concurrent Open of the same file cannot
// apply m twice.
func (db *DB) apply(ctx context.Context, m migration) error {
	tx, err := db.write.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()

	var n int
	err = tx.QueryRowContext(ctx, `SELECT 1 FROM schema_migrations WHERE version = ?`, m.version).Scan(&n)
	if err == nil {
		return nil // applied already
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return err
	}
	if _, err := tx.ExecContext(ctx, m.sql); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx,
		`INSERT INTO schema_migrations(version, name, applied_at) VALUES(?, ?, ?)`,
		m.version, m.name, time.Now().Unix()); err != nil {
		return err
	}
	return tx.Commit()
}
