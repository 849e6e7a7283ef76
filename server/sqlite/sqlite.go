// Package sqlite opens the SQLite file that stores shared scenarios, through
// modernc.org/sqlite (pure Go, no cgo), and keeps its schema up to date; the
// queries are package server/sqlstore's, the same on Cloudflare D1.
package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"modernc.org/sqlite" // registers the "sqlite" driver

	"github.com/retrylab/retrylab/server/sqlstore"
)

// pragmas are set on every connection, through the DSN so that each
// connection the pools open gets them.
const pragmas = "_pragma=busy_timeout(5000)" +
	"&_pragma=journal_mode(WAL)" +
	"&_pragma=synchronous(NORMAL)" +
	"&_pragma=foreign_keys(on)"

// readConns is the size of the reader pool.
const readConns = 8

// DB is a store of shared scenarios in one SQLite file. It writes through a
// single connection and reads through a pool of read-only connections, which
// WAL mode lets run alongside the writer. It is safe for concurrent use.
//
// A database file that cannot be written (read-only, or on a read-only
// file system) is opened for reading, if its schema is up to date: reads
// work, and every write fails with an error wrapping syscall.EROFS.
type DB struct {
	*sqlstore.Store         // PutScenario, GetScenario and Count
	write           *sql.DB // one connection: SQLite allows one writer at a time; nil when read-only
	read            *sql.DB // read-only connections
}

// newDB returns the database that reads through read and writes through
// write (nil when read-only).
func newDB(read, write *sql.DB) *DB {
	return &DB{Store: sqlstore.New(read, write, writeError), write: write, read: read}
}

// Open opens the database file at path, creating it and its parent
// directory if missing, and brings its schema up to date.
func Open(ctx context.Context, path string) (*DB, error) {
	if path == "" {
		return nil, errors.New("sqlite: empty path")
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		return nil, err
	}

	db := &DB{}
	// _txlock=immediate takes the write lock when a transaction begins, so
	// two processes migrating the same file queue on busy_timeout instead
	// of failing to upgrade a read lock.
	if db.write, err = sql.Open("sqlite", dsn(abs, "_txlock=immediate")); err != nil {
		return nil, err
	}
	db.write.SetMaxOpenConns(1)
	if err := db.migrate(ctx); err != nil {
		db.write.Close()
		if _, statErr := os.Stat(abs); statErr == nil && errors.Is(writeError(err), syscall.EROFS) {
			return openReadOnly(ctx, path, abs, err)
		}
		return nil, fmt.Errorf("sqlite: %s: %w", path, err)
	}

	// mode=ro works in WAL mode once the file exists and is in WAL mode,
	// which the writer has just made sure of.
	if db.read, err = sql.Open("sqlite", dsn(abs, "mode=ro")); err != nil {
		db.write.Close()
		return nil, err
	}
	db.read.SetMaxOpenConns(readConns)
	db.read.SetMaxIdleConns(readConns)
	if err := db.read.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("sqlite: %s: %w", path, err)
	}
	return newDB(db.read, db.write), nil
}

// openReadOnly opens, for reading only, the existing database file at abs
// that could not be opened for writing (why), if its schema is up to date.
//
// In a directory it cannot write either, SQLite cannot make the shared
// memory file that WAL mode reads through; the file is then opened as
// immutable, which reads the database file alone (a clean shutdown leaves
// everything in it).
func openReadOnly(ctx context.Context, path, abs string, why error) (*DB, error) {
	ms, err := migrations(mustSub(migrationFS, "migrations"))
	if err != nil {
		return nil, err
	}
	var errs []error
	for _, mode := range []string{"mode=ro", "mode=ro&immutable=1"} {
		read, err := sql.Open("sqlite", dsn(abs, mode))
		if err != nil {
			return nil, err
		}
		read.SetMaxOpenConns(readConns)
		read.SetMaxIdleConns(readConns)
		var applied int
		err = read.QueryRowContext(ctx, `SELECT COUNT(*) FROM schema_migrations`).Scan(&applied)
		if err == nil && applied == len(ms) {
			return newDB(read, nil), nil
		}
		read.Close()
		if err == nil {
			err = fmt.Errorf("its schema is not up to date (%d of %d migrations)", applied, len(ms))
		}
		errs = append(errs, err)
	}
	return nil, fmt.Errorf("sqlite: %s cannot be written (%w) nor read: %w", path, why, errors.Join(errs...))
}

func mustSub(fsys fs.FS, dir string) fs.FS {
	sub, err := fs.Sub(fsys, dir)
	if err != nil {
		panic(err) // dir is a literal of this package
	}
	return sub
}

// ReadOnly reports whether the database was opened for reading only,
// its file not being writable.
func (db *DB) ReadOnly() bool { return db.write == nil }

// Primary SQLite result codes (https://sqlite.org/rescode.html).
const (
	codePerm     = 3
	codeReadOnly = 8
	codeIOErr    = 10
	codeFull     = 13
	codeCantOpen = 14
)

// writeError tells apart the errors of a write that say the database cannot
// take writes now: a full disk wraps syscall.ENOSPC, a read-only file (or
// one that cannot be opened for writing) syscall.EROFS and an I/O error
// syscall.EIO, so that the server can answer
// 503 and Retry-After (reads may still work).
func writeError(err error) error {
	var se *sqlite.Error
	if err == nil || !errors.As(err, &se) {
		return err
	}
	switch se.Code() & 0xff {
	case codeFull:
		return fmt.Errorf("%w (%w)", err, syscall.ENOSPC)
	case codeReadOnly, codePerm, codeCantOpen:
		return fmt.Errorf("%w (%w)", err, syscall.EROFS)
	case codeIOErr:
		return fmt.Errorf("%w (%w)", err, syscall.EIO)
	}
	return err
}

// dsn returns the URI that opens the file at the absolute path abs with the
// pragmas and the extra query parameters.
func dsn(abs, extra string) string {
	p := filepath.ToSlash(abs)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p // a Windows drive letter: file:///C:/...
	}
	u := url.URL{Scheme: "file", Path: p, RawQuery: pragmas + "&" + extra}
	return u.String()
}

// Close closes the database. The writer closes last so that SQLite can
// checkpoint the write-ahead log into the file.
func (db *DB) Close() error {
	var err error
	if db.read != nil {
		err = db.read.Close()
	}
	if db.write == nil {
		return err
	}
	return errors.Join(err, db.write.Close())
}

// IntegrityCheck runs PRAGMA integrity_check and reports an error listing
// the problems found unless SQLite answers "ok".
func (db *DB) IntegrityCheck(ctx context.Context) error {
	rows, err := db.read.QueryContext(ctx, `PRAGMA integrity_check`)
	if err != nil {
		return err
	}
	defer rows.Close()
	var problems []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return err
		}
		problems = append(problems, s)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if len(problems) == 1 && problems[0] == "ok" {
		return nil
	}
	return fmt.Errorf("sqlite: integrity check: %s", strings.Join(problems, "; "))
}
