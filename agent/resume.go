package agent

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"

	"github.com/git-snap/git-snap/snapshot"
)

// Resumer is an Adapter that can put a recorded session back where the
// agent itself looks for it, so that the agent resumes it.
type Resumer interface {
	// ResumeTarget is where the main transcript of the session doc holds
	// goes, and the command that resumes it.
	ResumeTarget(session string, doc map[string]any) (path, command string, err error)
}

// TranscriptNamer is an Adapter whose agent names a session's main
// transcript other than <session>.jsonl.
type TranscriptNamer interface {
	TranscriptName(session string, doc map[string]any) string
}

// TranscriptName is the file name of a session's main transcript as the
// agent names it.
func TranscriptName(a Adapter, session string, doc map[string]any) string {
	if n, ok := a.(TranscriptNamer); ok {
		return n.TranscriptName(session, doc)
	}
	return session + ".jsonl"
}

// ResumeFile is one transcript file resume writes.
type ResumeFile struct {
	Name  string // the file's name in the session's layout: "" for the main transcript
	Path  string
	Data  []byte
	State string // "new", "same" (already there, byte for byte) or "differs"
}

// ResumePlan is what resume writes and the command it prints.
type ResumePlan struct {
	Files   []ResumeFile
	Command string
}

// ResumeConflictError is a resume refused: a different file is where the
// transcript goes.
type ResumeConflictError struct{ Paths []string }

// Error names the files and what to do.
func (e *ResumeConflictError) Error() string {
	return fmt.Sprintf("%s already there and different (the agent went on after this snapshot?); nothing was written: --force overwrites", strings.Join(e.Paths, ", "))
}

// UserError marks the error as the user's to decide.
func (e *ResumeConflictError) UserError() {}

// PlanResume lays out where a session's transcript files go for its agent
// to resume it: the main one where ResumeTarget says, the others
// (subagents) beside it as they were; generations the agent rewrote
// (Layout.Key's name~N) are not written back.
func PlanResume(a Adapter, session string, doc map[string]any) (ResumePlan, error) {
	r, ok := a.(Resumer)
	if !ok {
		return ResumePlan{}, fmt.Errorf("git-snap cannot resume %s sessions", a.Name())
	}
	main, command, err := r.ResumeTarget(session, doc)
	if err != nil {
		return ResumePlan{}, err
	}
	files, err := Restore(doc)
	if err != nil {
		return ResumePlan{}, err
	}
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	sort.Strings(names)
	plan := ResumePlan{Command: command}
	for _, name := range names {
		path := main
		if name != "" {
			if strings.Contains(name, "~") {
				continue
			}
			if err := snapshot.CheckPath(name); err != nil {
				return plan, fmt.Errorf("transcript file %q: %w", name, err)
			}
			path = filepath.Join(filepath.Dir(main), filepath.FromSlash(name))
		}
		f := ResumeFile{Name: name, Path: path, Data: JoinLines(files[name]), State: "new"}
		if old, err := os.ReadFile(path); err == nil {
			f.State = "differs"
			if bytes.Equal(old, f.Data) {
				f.State = "same"
			}
		} else if !errors.Is(err, fs.ErrNotExist) {
			return plan, err
		}
		plan.Files = append(plan.Files, f)
	}
	return plan, nil
}

// Write writes the plan's files; a file there that differs is an error
// (and nothing is written) unless force.
func (p ResumePlan) Write(force bool) error {
	var differ []string
	for _, f := range p.Files {
		if f.State == "differs" {
			differ = append(differ, f.Path)
		}
	}
	if len(differ) > 0 && !force {
		return &ResumeConflictError{Paths: differ}
	}
	for _, f := range p.Files {
		if f.State == "same" {
			continue
		}
		if err := writeFileAtomic(f.Path, f.Data, 0o600); err != nil {
			return fmt.Errorf("write %s: %w", f.Path, err)
		}
	}
	return nil
}

// Moved is the layout of a session whose transcript files the plan put
// back (rest is the session tip's members but messages, events and
// files): each file written is read on from its new path, past what was
// written. A file written back is JSON-equal to the one read, not the
// same bytes, so without this the agent's next lines would be taken for
// a rewritten file and the whole file recorded again. ok is false when
// the layout does not know the plan's files (rest is not of the
// snapshot the plan was made from).
func (p ResumePlan) Moved(rest map[string]any) (map[string]any, bool, error) {
	l, err := LayoutFrom(rest)
	if err != nil {
		return nil, false, err
	}
	for _, f := range p.Files {
		i := l.latest(f.Name)
		if i < 0 || l.Files[i].Lines != bytes.Count(f.Data, []byte("\n")) {
			return nil, false, nil
		}
		fp, err := fingerprint(bytes.NewReader(f.Data), int64(len(f.Data)))
		if err != nil {
			return nil, false, err
		}
		l.Files[i].Path, l.Files[i].Offset, l.Files[i].Fingerprint = f.Path, int64(len(f.Data)), fp
	}
	out := make(map[string]any, len(rest))
	for k, v := range rest {
		out[k] = v
	}
	out["transcript"] = l.JSON()
	return out, true, nil
}

// JoinLines makes a transcript file of its lines.
func JoinLines(lines [][]byte) []byte {
	var b bytes.Buffer
	for _, l := range lines {
		b.Write(l)
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// claudeProjectDir is the folder name Claude Code keeps a project's
// sessions in: the project's path with every character but ASCII letters
// and digits made "-" (one per UTF-16 unit, as Claude Code counts them).
func claudeProjectDir(cwd string) string {
	var b strings.Builder
	for _, r := range cwd {
		switch {
		case r < 128 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9'):
			b.WriteRune(r)
		case r > 0xFFFF:
			b.WriteString("--")
		default:
			b.WriteByte('-')
		}
	}
	return b.String()
}

// claudeMaxDir is the longest folder name Claude Code uses as it is; a
// longer one it cuts and tells apart by a hash git-snap does not know.
const claudeMaxDir = 200

// ResumeTarget implements Resumer: projects/<the project's path,
// encoded>/<session>.jsonl in Claude Code's config folder, resumed by
// claude -r in the project.
func (c ClaudeCode) ResumeTarget(session string, doc map[string]any) (string, string, error) {
	cwd, _ := doc["cwd"].(string)
	if cwd == "" { // an imported session: its records say
		cwd = claudeCWD(doc)
	}
	if cwd == "" || !filepath.IsAbs(cwd) {
		return "", "", fmt.Errorf("the snapshot names no project folder (cwd) to resume the session in")
	}
	if err := snapshot.CheckName("session", session); err != nil {
		return "", "", err
	}
	dir := claudeProjectDir(cwd)
	if len(dir) > claudeMaxDir {
		matches, _ := filepath.Glob(filepath.Join(c.ConfigDir, "projects", dir[:claudeMaxDir]+"*"))
		if len(matches) != 1 {
			return "", "", fmt.Errorf("the project path %s is too long to know Claude Code's folder for it; run claude there once, then resume", cwd)
		}
		dir = filepath.Base(matches[0])
	}
	path := filepath.Join(c.ConfigDir, "projects", dir, session+".jsonl")
	return path, andThen("cd "+shellQuote(cwd), "claude -r "+session), nil
}

// userShell is the shell a person types a resume command into:
// PowerShell, Windows' own, or a POSIX shell.
type userShell struct{ powerShell bool }

// thisShell is the user's shell on this system.
func thisShell() userShell { return userShell{powerShell: runtime.GOOS == "windows"} }

// shellQuote quotes a word for the user's shell (see userShell).
func shellQuote(s string) string { return thisShell().quote(s) }

// andThen joins two commands for the user's shell, the second run after
// the first.
func andThen(first, then string) string { return thisShell().then(first, then) }

// quote quotes a word when it needs it, in single quotes: a quote in it
// is doubled for PowerShell, and closed, escaped and opened again for sh.
func (u userShell) quote(s string) string {
	plain := "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./"
	if u.powerShell {
		plain += `\:`
	}
	if s != "" && strings.Trim(s, plain) == "" {
		return s
	}
	if u.powerShell {
		return "'" + strings.ReplaceAll(s, "'", "''") + "'"
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// then joins two commands: && in sh; ; in PowerShell, as Windows
// PowerShell 5 has no &&.
func (u userShell) then(first, then string) string {
	if u.powerShell {
		return first + "; " + then
	}
	return first + " && " + then
}

// claudeCWD is the project folder a Claude Code transcript's first
// records name.
func claudeCWD(doc map[string]any) string {
	msgs, _ := doc[snapshot.MemberMessages].([]any)
	for _, m := range msgs[:min(len(msgs), 50)] {
		r, _ := m.(map[string]any)
		if cwd := str(r, "cwd"); cwd != "" {
			return cwd
		}
	}
	return ""
}

// NameTranscriptFiles names the files agent.Restore gives back as the
// agent names them on disk: the main transcript (name "") as
// TranscriptName says, an earlier generation of it ("~N") after it, the
// subagents' under their own names. A name that would leave the folder
// the files are written to is refused.
func NameTranscriptFiles(a Adapter, session string, doc map[string]any, files map[string][][]byte) (map[string][][]byte, error) {
	out := make(map[string][][]byte, len(files))
	for name, lines := range files {
		switch {
		case name == "":
			name = TranscriptName(a, session, doc)
		case strings.HasPrefix(name, "~"):
			name = TranscriptName(a, session, doc) + name
		}
		if err := snapshot.CheckPath(name); err != nil {
			return nil, fmt.Errorf("transcript file %q: %w", name, err)
		}
		out[name] = lines
	}
	return out, nil
}
