package capture

import (
	"bytes"
	"context"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-snap/git-snap/agent"
	"github.com/git-snap/git-snap/session"
	"github.com/git-snap/git-snap/storage"

	"github.com/git-snap/git-snap/gitstore"
	"github.com/git-snap/git-snap/internal/testdocs"
	"github.com/git-snap/git-snap/snapshot"
)

func newStore(t *testing.T) (string, *gitstore.Store) {
	t.Helper()
	dir := t.TempDir()
	if out, err := exec.Command("git", "init", "-q", dir).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	s, err := gitstore.Open(context.Background(), dir, gitstore.Options{Counter: session.Counter{}, View: session.View})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return dir, s
}

// grower writes a transcript file a piece at a time, as the agent does,
// sometimes stopping in the middle of a line.
type grower struct {
	path string
	data []byte // the whole file
	done int    // bytes written so far
}

func (g *grower) grow(t *testing.T, r *rand.Rand) {
	if g.done >= len(g.data) {
		return
	}
	n := min(len(g.data)-g.done, 1+r.IntN(len(g.data)/6+1))
	f, err := os.OpenFile(g.path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(g.data[g.done : g.done+n]); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	g.done += n
}

// complete is what a reader may take: the whole lines written so far.
func (g *grower) complete() [][]byte {
	written := g.data[:g.done]
	end := bytes.LastIndexByte(written, '\n') + 1
	var lines [][]byte
	for _, l := range bytes.Split(written[:end], []byte("\n")) {
		if len(l) > 0 {
			lines = append(lines, l)
		}
	}
	return lines
}

func TestRestoreIsLineForLineOnEveryTranscript(t *testing.T) {
	ctx := context.Background()
	src := testdocs.TranscriptDir()
	mains, _ := filepath.Glob(filepath.Join(src, "*.jsonl"))
	for _, main := range mains {
		t.Run(filepath.Base(main), func(t *testing.T) {
			_, s := newStore(t)
			proj := t.TempDir()
			stem := strings.TrimSuffix(filepath.Base(main), ".jsonl")
			var growers []*grower
			add := func(from, to string) {
				data, err := os.ReadFile(from)
				if err != nil {
					t.Fatal(err)
				}
				if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
					t.Fatal(err)
				}
				growers = append(growers, &grower{path: to, data: data})
			}
			target := filepath.Join(proj, stem+".jsonl")
			add(main, target)
			subs, _ := filepath.Glob(filepath.Join(src, stem, "subagents", "*.jsonl"))
			for _, sub := range subs {
				add(sub, filepath.Join(proj, stem, "subagents", filepath.Base(sub)))
			}
			in := Ingest{Store: s, Adapter: agent.ClaudeCode{}}
			r := rand.New(rand.NewPCG(uint64(len(main)), 3))
			p := agent.Payload{Agent: "claude-code", Event: "PostToolUse", Tool: "Edit", SessionID: stem, TranscriptPath: target}
			for step := 0; ; step++ {
				more := false
				for _, g := range growers {
					if r.IntN(3) > 0 || step > 40 {
						g.grow(t, r)
					}
					more = more || g.done < len(g.data)
				}
				if _, _, err := in.Run(ctx, p, storage.SaveOptions{}); err != nil {
					t.Fatalf("step %d: %v", step, err)
				}
				checkRestore(t, s, stem, growers, proj)
				if !more {
					break
				}
			}
		})
	}
}

// restoreTip reads a session's tip back as agent.Restore writes its transcript
// files.
func restoreTip(t *testing.T, s *gitstore.Store, session string) map[string][][]byte {
	t.Helper()
	tip, err := s.SessionTip(session)
	if err != nil || tip.IsZero() {
		t.Fatalf("no snapshot of %s: %v", session, err)
	}
	doc, _, err := s.Read(context.Background(), tip)
	if err != nil {
		t.Fatal(err)
	}
	files, err := agent.Restore(doc)
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// checkRestore compares every transcript file restored from the tip with
// the complete lines written so far.
func checkRestore(t *testing.T, s *gitstore.Store, session string, growers []*grower, proj string) {
	t.Helper()
	files := restoreTip(t, s, session)
	for _, g := range growers {
		rel, _ := filepath.Rel(proj, g.path)
		name := filepath.ToSlash(rel)
		if name == session+".jsonl" {
			name = ""
		}
		want := g.complete()
		got := files[name]
		if len(got) != len(want) {
			t.Fatalf("%s: %d lines restored, %d written", rel, len(got), len(want))
		}
		for i := range want {
			a, err1 := snapshot.Parse(got[i], snapshot.Limits{})
			b, err2 := snapshot.Parse(want[i], snapshot.Limits{})
			if err1 != nil || err2 != nil || !snapshot.Equal(a, b) {
				t.Fatalf("%s line %d differs:\n got %.200s\nwant %.200s", rel, i+1, got[i], want[i])
			}
		}
	}
}

func TestLinesLeavesAHalfWrittenLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.jsonl")
	if err := os.WriteFile(path, []byte("{\"a\":1}\n{\"b\":"), 0o600); err != nil {
		t.Fatal(err)
	}
	lines, next, err := agent.Lines(path, 0, 0)
	if err != nil || len(lines) != 1 || next != 8 {
		t.Fatalf("lines %q next %d err %v", lines, next, err)
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString("2}\nnot json\n"); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	lines, next, err = agent.Lines(path, next, 0)
	if err != nil || len(lines) != 2 || string(lines[0]) != `{"b":2}` || next != 25 {
		t.Fatalf("lines %q next %d err %v", lines, next, err)
	}
	if e := agent.Element(lines[1], snapshot.Limits{}); e != "not json" {
		t.Errorf("a line that is not JSON is kept as %v", e)
	}
	if _, _, err := agent.Lines(path, 1000, 0); err == nil {
		t.Error("reading past a truncated file gave no error")
	}
}

func TestTurnsLabelsAndPreCompactCheckpoint(t *testing.T) {
	ctx := context.Background()
	_, s := newStore(t)
	tr, err := testdocs.Transcripts()
	if err != nil {
		t.Fatal(err)
	}
	var short testdocs.Transcript
	for _, x := range tr {
		if x.Name == "short.jsonl" {
			short = x
		}
	}
	path := filepath.Join(t.TempDir(), "s.jsonl")
	if err := os.WriteFile(path, append(bytes.Join(short.Lines, []byte("\n")), '\n'), 0o600); err != nil {
		t.Fatal(err)
	}
	in := Ingest{Store: s, Adapter: agent.ClaudeCode{}}
	e, added, err := in.Run(ctx, agent.Payload{Event: "PreCompact", SessionID: "sess", TranscriptPath: path}, storage.SaveOptions{})
	if err != nil || !added {
		t.Fatal(added, err)
	}
	if e.Header.Label != "PreCompact" || e.Header.Source != "claude-code" || e.Header.Turn != 1 {
		t.Errorf("header %+v", e.Header)
	}
	cps, _ := s.Checkpoints(ctx, "sess", false)
	if len(cps) != 1 || cps[0].Name != agent.PreCompactCheckpoint || cps[0].Target != e.ID {
		t.Errorf("checkpoints %+v", cps)
	}
	// Nothing new: no snapshot, but a second PreCompact still marks the tip.
	if _, added, err := in.Run(ctx, agent.Payload{Event: "Stop", SessionID: "sess", TranscriptPath: path}, storage.SaveOptions{}); err != nil || added {
		t.Errorf("nothing new: added %v %v", added, err)
	}
}
