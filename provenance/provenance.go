// Package provenance says who wrote each line of a file: which agent
// session, snapshot and prompt, or a person. It reads what snapshots
// already keep (the files an agent touched, captured at every hook call;
// the code commit each snapshot was taken at; the commits amends and
// rebases rewrote, .git/snap/rewritten) beside git blame's answer for
// each line.
//
// A line is an agent's when a capture of its session introduced that
// very line, and the commit that brought it into history (git blame's)
// is one of the session's commits, a rewrite of one (amend, rebase,
// squash and fixup), or a copy of its work (a cherry-pick, a rebase or a
// squash merge made elsewhere: most of what that commit brought into the
// file was introduced by the session before it was made). A line changed
// again outside any capture is the person's who changed it. What the
// snapshots cannot settle is unknown.
//
// The lines each capture introduced are kept in an index under
// .git/snap/cache/lines/, built from the snapshots once and then a
// snapshot at a time, so that a blame reads no captured file.
package provenance

import (
	"time"

	"github.com/git-snap/git-snap/gitstore"
	"github.com/git-snap/git-snap/storage"
)

// Kind says who wrote a line.
type Kind string

// The kinds of line.
const (
	Agent   Kind = "agent"   // an agent's capture introduced it, and its commit is the session's
	Mixed   Kind = "mixed"   // an agent's line a person changed only in its spacing
	Person  Kind = "person"  // no capture introduced it: a person wrote it
	Unknown Kind = "unknown" // an agent wrote it, but its commit cannot be tied to the session, or the snapshots were pruned
)

// Edit is an agent's edit: the snapshot whose capture introduced lines.
type Edit struct {
	Session  string
	Remote   string // the remote a fetched session came from; "" for a local one
	Snapshot storage.ID
	Seq      int
	Turn     int
	Prompt   string // the turn's prompt, its first line
	Agent    string // the agent that recorded it (the header's Source)
	Model    string // the model whose answer came with the edit; "" when not known
	Time     time.Time
}

// Line is one line of a file, with who wrote it.
type Line struct {
	N        int    // at the revision blamed, from 1
	Text     string // without its newline
	Commit   storage.ID
	OrigPath string    // the path in Commit
	OrigLine int       // the line's number in Commit
	Author   string    // Commit's author
	Time     time.Time // Commit's author time
	// Committed is when Commit was made (its committer time).
	Committed time.Time
	Kind      Kind
	// Edit is the agent's edit that wrote the line (Agent, Mixed).
	Edit *Edit
	// By says how Commit is the session's: "commit" (a snapshot of the
	// session named it), "rewrite" (an amend or rebase made it of one
	// that did), "lines" (it brought in the session's lines: a
	// cherry-pick, a rebase or a squash merge made elsewhere).
	By string
	// Why says why a line is unknown.
	Why string
}

// File is a file's lines at a revision.
type File struct {
	Path   string // from the repository's root
	Rev    string
	Commit storage.ID
	Lines  []Line
	// Captured says some session's capture introduced lines in the
	// file; when false, no agent's edit of it was recorded.
	Captured bool
	// Pruned names the sessions that lost snapshots to a prune: lines
	// they captured there read as a person's or unknown.
	Pruned []Pruned
	// Damaged names the sessions that could not be read, left out; nil
	// when none was.
	Damaged *storage.DamagedSessions
}

// Pruned is a session some of whose snapshots a prune removed.
type Pruned struct {
	Session   string
	Remote    string
	Snapshots int
}

// Options say where the code is and where the index is kept.
type Options struct {
	Git Git
	// CacheDir is where the index is kept (.git/snap/cache/lines); ""
	// keeps none, and reads the sessions anew each time.
	CacheDir string
	// Rewrites are the code commits amends and rebases rewrote.
	Rewrites gitstore.Rewrites
	// Progress, when set, is told how many sessions a first reading of
	// many has read.
	Progress func(done, of int)
	// Commit, when set, resolves a revision without running git where
	// it can (HEAD); ok false leaves it to git rev-parse.
	Commit func(rev string) (id storage.ID, ok bool)
}
