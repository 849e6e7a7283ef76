-- Scenarios shared by link, keyed by an ID derived from their canonical JSON.
-- created_at is in Unix seconds.
CREATE TABLE scenarios (
	id         TEXT PRIMARY KEY,
	body       BLOB NOT NULL,
	created_at INTEGER NOT NULL
);
