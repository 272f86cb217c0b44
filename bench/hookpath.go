//go:build unix

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	gitsnap "github.com/git-snap/git-snap"
	"github.com/git-snap/git-snap/agent"
	"github.com/git-snap/git-snap/capture"
	"github.com/git-snap/git-snap/internal/testdocs"
	"github.com/git-snap/git-snap/storage"
)

// transcript is a Claude Code session recorded the way a repository
// gets its sessions from hooks and imports: its transcript file grows,
// and capture.Ingest (the hook's own code, which writes by
// gitstore.Store.Append) records what it gained as the next snapshot.
type transcript struct {
	in   capture.Ingest
	p    agent.Payload
	path string
}

// hookPath is the label rows give data built through transcript.
const hookPath = "written by the hook path (capture.Ingest, Append)"

// newTranscript is the transcript file at path (made empty when
// missing) of a session of the store s, whose work tree is dir.
func newTranscript(s *gitsnap.Repository, dir, path, session string) (*transcript, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o777); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY, 0o666)
	if err != nil {
		return nil, err
	}
	if err := f.Close(); err != nil {
		return nil, err
	}
	in, err := claudeIngest(s)
	if err != nil {
		return nil, err
	}
	return &transcript{
		in:   in,
		p:    agent.Payload{Agent: "claude-code", Event: "PostToolUse", SessionID: session, TranscriptPath: path, CWD: dir},
		path: path,
	}, nil
}

// claudeIngest records Claude Code transcripts into s as a hook call
// does, with no bound on what one call reads.
func claudeIngest(s *gitsnap.Repository) (capture.Ingest, error) {
	a, err := agent.Lookup("claude-code", agent.Env{})
	return capture.Ingest{Store: s.Storage(), Adapter: a, MaxReadBytes: 1 << 30}, err
}

// grow appends records to the transcript and records them as one
// snapshot dated at (now when zero).
func (t *transcript) grow(ctx context.Context, at time.Time, records ...[]byte) error {
	if err := appendLines(t.path, records...); err != nil {
		return err
	}
	_, added, err := t.in.Run(ctx, t.p, storage.SaveOptions{Time: at})
	if err == nil && !added {
		err = fmt.Errorf("session %s: the hook path recorded nothing new", t.p.SessionID)
	}
	return err
}

// appendLines appends records, one a line, to a file.
func appendLines(path string, records ...[]byte) error {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	for _, r := range records {
		buf.Write(r)
		buf.WriteByte('\n')
	}
	_, err = f.Write(buf.Bytes())
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// realRecords returns the first n records of the longest real Claude
// Code transcript in testdata, made a session of their own: its session
// id replaced by one made from name, so that no two sessions share a
// record's bytes.
func realRecords(name string, n int) ([][]byte, error) {
	longest, err := testdocs.Longest()
	if err != nil {
		return nil, err
	}
	if n > len(longest.Lines) {
		return nil, fmt.Errorf("%s has %d records, not %d", longest.Name, len(longest.Lines), n)
	}
	id := []byte(sessionUUID(longest.Lines))
	own := []byte(fmt.Sprintf("%08x-0000-4000-8000-%012x", len(name), hash(name)))
	out := make([][]byte, n)
	for i, l := range longest.Lines[:n] {
		out[i] = bytes.ReplaceAll(l, id, own)
	}
	return out, nil
}

// sessionUUID is the sessionId the records of a transcript carry.
func sessionUUID(lines [][]byte) string {
	for _, l := range lines {
		var r struct {
			SessionID string `json:"sessionId"`
		}
		if json.Unmarshal(l, &r) == nil && r.SessionID != "" {
			return r.SessionID
		}
	}
	return "\x00none"
}

// hash is FNV-1a of s, enough to tell sessions' ids apart.
func hash(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := range len(s) {
		h = (h ^ uint64(s[i])) * 1099511628211
	}
	return h & (1<<48 - 1)
}

// hookTimer is a timer of the hook call (b.hookArgs) in dir on a session
// whose transcript is at path and holds records 0 to from-1: each run
// appends the next two records to the transcript (untimed), as a tool
// call does, then times the hook.
func (b *bench) hookTimer(dir, path string, payload []byte, session string, from int) timer {
	next := from
	return func(int) (time.Duration, error) {
		if err := appendLines(path, claudeLine(session, next), claudeLine(session, next+1)); err != nil {
			return 0, err
		}
		next += 2
		hook := b.hookArgs("claude-code")
		return b.run(dir, payload, hook...)
	}
}

// hookPayload is the payload of a PostToolUse hook call after Bash.
func hookPayload(session, path, dir string) []byte {
	payload, _ := json.Marshal(map[string]any{"session_id": session, "transcript_path": path, "cwd": dir, "hook_event_name": "PostToolUse", "tool_name": "Bash"})
	return payload
}

// gitIn runs git in dir (the bench's work directory when empty).
func (b *bench) gitIn(dir string, args ...string) error {
	cmd := exec.Command("git", args...)
	cmd.Dir, cmd.Env = dir, b.env
	if dir == "" {
		cmd.Dir = b.work
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("git %v: %v\n%s", args, err, out)
	}
	return nil
}
