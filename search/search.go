// Package search finds text in every recorded session: message text,
// tool inputs and results, and the paths of captured files. It keeps a
// trigram index under the store's git dir (.git/snap/search by default).
// The index is updated from the sessions' newest snapshots when a search
// runs, never from the hook. Each search indexes what was recorded since
// the previous one, and an index that is missing, damaged or from
// another version is rebuilt. Each message blob is indexed once per
// session and attributed to the first snapshot that held it (see
// docs/design.md §8).
package search

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"time"

	"github.com/git-snap/git-snap/storage"
)

// Query describes what to look for and where.
type Query struct {
	// Pattern is a literal string or, when Regexp is set, an RE2 regular
	// expression (Go's regexp syntax; see Basic for git grep's default
	// syntax). It is matched line by line, as git grep matches.
	Pattern    string
	Regexp     bool
	IgnoreCase bool
	// Filters. An empty filter selects everything. Session, Agent, Tool
	// and Label are globs (path.Match). File is a glob matched against
	// each path that a session captured or that one of its tool calls
	// wrote. A glob with a '/' is matched against the whole path; one
	// without is matched against the base name.
	Session, Agent, Tool, File, Label string
	// Since and Until bound the message's time (its record's time, or
	// else its snapshot's time). A zero value means no bound.
	Since, Until time.Time
	// Limit is the maximum number of hits returned; 0 means no limit.
	Limit int
	// SessionsOnly returns only the first hit of each session.
	SessionsOnly bool
}

// Hit is one matching line.
type Hit struct {
	Session  string `json:"session"`
	Snapshot string `json:"snapshot"` // the commit id of the first snapshot that held the message
	Seq      int    `json:"seq"`
	Message  int    `json:"message"` // the message's index, as show numbers it; -1 for a file path
	Role     string `json:"role"`
	// Field is the part of the message that holds the line: text,
	// thinking, tool_input, tool_result or path.
	Field string `json:"field"`
	Tool  string `json:"tool,omitempty"` // the tool, for a tool_input or tool_result
	// Line is the matching line. A long line is cut to a window around
	// the first match, with "…" marking each cut.
	Line string `json:"line"`
	// LineNumber is the 1-based number of the line in its field's text.
	LineNumber int       `json:"line_number"`
	Match      [][2]int  `json:"match"` // byte offsets of each match in Line
	Time       time.Time `json:"time"`  // the message's time, or else its snapshot's
}

// Field names of Hit.Field.
const (
	FieldText       = "text"
	FieldThinking   = "thinking"
	FieldToolInput  = "tool_input"
	FieldToolResult = "tool_result"
	FieldPath       = "path"
)

// Index searches one store. It is safe for concurrent use; calls are
// serialised, because the underlying store may be used by only one
// goroutine at a time. Other processes may search the same index
// concurrently.
type Index struct {
	mu    sync.Mutex
	store storage.Reader
	dir   string
	// segmentBytes is the amount of text buffered in memory before a
	// segment is written. Tests make it small to write many segments.
	segmentBytes int
	maxSegments  int
	// damaged names the sessions the last update skipped because their
	// newest snapshot could not be read (a *gitstore.DamagedSessions).
	// It is nil when there are none.
	damaged error
}

// DefaultDir returns the directory of the index of a repository's store:
// under its common git dir, next to git-snap's other caches.
func DefaultDir(commonDir string) string {
	return filepath.Join(commonDir, "snap", "search")
}

// Open returns the index of a store, kept in dir (see DefaultDir). It
// reads nothing yet; each Search first updates the index to the
// sessions' newest snapshots.
func Open(ctx context.Context, s storage.Reader, dir string) (*Index, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if s == nil {
		return nil, errors.New("search: no store")
	}
	if dir == "" {
		return nil, errors.New("search: no directory for the index")
	}
	return &Index{store: s, dir: dir, segmentBytes: 12 << 20, maxSegments: 8}, nil
}

// Close releases the index. The store stays open.
func (x *Index) Close() error { return nil }

// Update brings the index up to date with every session's newest
// snapshot. Search calls it; it is exported for callers that want the
// index ready ahead of time. Sessions whose newest snapshot cannot be
// read are skipped and named in a *gitstore.DamagedSessions error.
func (x *Index) Update(ctx context.Context) error {
	x.mu.Lock()
	defer x.mu.Unlock()
	if _, err := x.update(ctx); err != nil {
		return err
	}
	return x.damaged
}

// Search updates the index and returns the hits for q, ordered with the
// most recently active sessions first, then by message. Sessions whose
// newest snapshot cannot be read are skipped and named in a
// *gitstore.DamagedSessions error returned with the hits.
func (x *Index) Search(ctx context.Context, q Query) ([]Hit, error) {
	m, err := compile(q)
	if err != nil {
		return nil, err
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	man, err := x.update(ctx)
	if errors.Is(err, errCorrupt) { // a segment to merge was damaged
		man, err = x.rebuild(ctx)
	}
	if err != nil {
		return nil, err
	}
	hits, err := x.query(ctx, q, m, man)
	if errors.Is(err, errStale) {
		// Another process replaced the index after the update; read the
		// new one.
		if man, err = readManifest(x.dir); err == nil {
			hits, err = x.query(ctx, q, m, man)
		}
	}
	if errors.Is(err, errCorrupt) || errors.Is(err, errStale) {
		// The index was damaged after the update read it, or replaced
		// again during the query: rebuild it and retry once.
		if man, err = x.rebuild(ctx); err != nil {
			return nil, err
		}
		hits, err = x.query(ctx, q, m, man)
	}
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	return hits, x.damaged
}

// errCorrupt marks an index file that cannot be parsed.
var errCorrupt = errors.New("search index damaged")

// errStale marks an index file that another process removed between
// reading the manifest and opening the file.
var errStale = errors.New("search index changed while being read")

// PatternError reports a pattern that cannot be searched for.
type PatternError struct{ Msg string }

func (e *PatternError) Error() string { return e.Msg }

// UserError marks a pattern error as one the caller must fix.
func (e *PatternError) UserError() {}
