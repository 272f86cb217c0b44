// Package search finds text in every recorded session: message text,
// tool inputs and results, and the paths of captured files. It keeps a
// trigram index under the store's git dir (.git/snap/search by default),
// built from the sessions' tips when a search runs and never on the
// hook's path: a search reads what was recorded since the last one, and
// an index that is missing, damaged or of another version is rebuilt.
// Each message blob is indexed once per session, attributed to the first
// snapshot that held it (see docs/design.md §8).
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

// Query is what to look for and where.
type Query struct {
	// Pattern is a literal string, or with Regexp an RE2 regular
	// expression (Go's regexp syntax; see Basic for git grep's default
	// syntax). It is matched line by line, as git grep matches.
	Pattern    string
	Regexp     bool
	IgnoreCase bool
	// Filters; "" selects everything. Session, Agent, Tool and Label are
	// globs (path.Match); File is a glob matched against each path a
	// session captured or a tool call of it wrote, whole or, for a glob
	// without '/', against its base name.
	Session, Agent, Tool, File, Label string
	// Since and Until bound the time of the message (its record's time,
	// else its snapshot's); zero means no bound.
	Since, Until time.Time
	// Limit is the most hits returned; 0 means all.
	Limit int
	// SessionsOnly returns one hit per session, the first.
	SessionsOnly bool
}

// Hit is one line that matched.
type Hit struct {
	Session  string `json:"session"`
	Snapshot string `json:"snapshot"` // the commit id of the first snapshot that held the message
	Seq      int    `json:"seq"`
	Message  int    `json:"message"` // the message's index (as show numbers it), -1 for a file path
	Role     string `json:"role"`
	// Field is where the line is: text, thinking, tool_input,
	// tool_result or path.
	Field string `json:"field"`
	Tool  string `json:"tool,omitempty"` // the tool of a tool_input or tool_result
	// Line is the matching line, cut to a window around the first match
	// when long (the cut marked with "…").
	Line string `json:"line"`
	// LineNumber is the line's number in its field's text, from 1.
	LineNumber int       `json:"line_number"`
	Match      [][2]int  `json:"match"` // byte offsets of each match in Line
	Time       time.Time `json:"time"`  // the message's time, else its snapshot's
}

// Field names of Hit.Field.
const (
	FieldText       = "text"
	FieldThinking   = "thinking"
	FieldToolInput  = "tool_input"
	FieldToolResult = "tool_result"
	FieldPath       = "path"
)

// Index searches one store. It is safe for concurrent use: calls are
// taken one at a time, as the store underneath is for one goroutine at
// a time. Other processes may search the same index at once.
type Index struct {
	mu    sync.Mutex
	store storage.Reader
	dir   string
	// segmentBytes is the text kept in memory before a segment is
	// written; tests make it small to write many segments.
	segmentBytes int
	maxSegments  int
	// damaged names the sessions the last update left out, their newest
	// snapshot unreadable (a *gitstore.DamagedSessions); nil when none.
	damaged error
}

// DefaultDir is where the index of a repository's store lives: under
// its common git dir, beside git-snap's other caches.
func DefaultDir(commonDir string) string {
	return filepath.Join(commonDir, "snap", "search")
}

// Open returns the index of a store kept in dir (see DefaultDir). It
// reads nothing yet: each Search brings the index up to the sessions'
// tips first.
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

// Update brings the index up to every session's tip. Search calls it;
// it is exported for a caller that wants the index ready ahead of time.
// Sessions whose newest snapshot cannot be read are left out and named
// by a *gitstore.DamagedSessions error.
func (x *Index) Update(ctx context.Context) error {
	x.mu.Lock()
	defer x.mu.Unlock()
	if _, err := x.update(ctx); err != nil {
		return err
	}
	return x.damaged
}

// Search updates the index and returns the hits of q: sessions most
// recently active first, then by message. Sessions whose newest
// snapshot cannot be read are left out and named by a
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
		// Another process replaced the index since the update: read
		// what it wrote.
		if man, err = readManifest(x.dir); err == nil {
			hits, err = x.query(ctx, q, m, man)
		}
	}
	if errors.Is(err, errCorrupt) || errors.Is(err, errStale) {
		// Damaged since the update read it, or replaced under us again:
		// build it anew and ask again, once.
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

// errCorrupt marks an index file that cannot be read as written.
var errCorrupt = errors.New("search index damaged")

// errStale marks an index file removed by another process between
// reading the manifest and opening it.
var errStale = errors.New("search index changed while read")

// PatternError is a pattern that cannot be searched for.
type PatternError struct{ Msg string }

func (e *PatternError) Error() string { return e.Msg }

// UserError marks a pattern error as the caller's to correct.
func (e *PatternError) UserError() {}
