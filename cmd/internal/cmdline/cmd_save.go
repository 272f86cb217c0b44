package cmdline

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	gitsnap "github.com/git-snap/git-snap"

	"github.com/urfave/cli/v2"

	"github.com/git-snap/git-snap/cmd/internal/proc"
	"github.com/git-snap/git-snap/config"
	"github.com/git-snap/git-snap/redact"
	"github.com/git-snap/git-snap/render"
	"github.com/git-snap/git-snap/snapshot"
	"github.com/git-snap/git-snap/storage"
)

type saveOptions struct {
	File       string
	Session    string
	Label      string
	Turn       int
	Checkpoint string
	Message    string
	Source     string
	NoCode     bool
	DryRun     bool
	Append     bool
}

func cmdSave(e *env) *cli.Command {
	return &cli.Command{
		Name:      "save",
		Usage:     "save a snapshot of an agent's state",
		ArgsUsage: "[FILE|-]",
		Description: `Reads a JSON object (from FILE, or stdin) and records it as the next snapshot
of the session: messages one blob each, files as real blobs, the rest in snapshot.json.
Prints the new snapshot's id.

With --append, the input is JSON Lines instead: each line one new message, added
to the session's newest snapshot (everything else kept as it is); the work done is
proportional to the lines given, not to the session's length. A line that is not
JSON is refused with its number, and nothing is written.

Examples:
   git snap save --session fix-login --label "after tests" state.json
   agent-dump | git snap save -s fix-login --turn 3 --checkpoint green
   printf '%s\n' '{"role":"user","content":"next"}' | git snap save -s run-42 --append`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "session", Aliases: []string{"s"}, Usage: "session `NAME` (default $GIT_SNAP_SESSION or config session)"},
			&cli.StringFlag{Name: "label", Aliases: []string{"l"}, Usage: "`TEXT` saying what happened, e.g. \"PostToolUse Edit\""},
			&cli.IntFlag{Name: "turn", Aliases: []string{"t"}, Usage: "the agent's turn `N`"},
			&cli.StringFlag{Name: "checkpoint", Aliases: []string{"c"}, Usage: "also name the snapshot as checkpoint `NAME`"},
			&cli.StringFlag{Name: "message", Aliases: []string{"m"}, Usage: "a note (`TEXT`), shown as the commit subject"},
			&cli.StringFlag{Name: "source", Value: "cli", Usage: "what took the snapshot (agent or tool `NAME`)"},
			&cli.BoolFlag{Name: "no-code", Usage: "do not record the work tree's commit"},
			&cli.BoolFlag{Name: "dry-run", Aliases: []string{"n"}, Usage: "check the document and show what would be redacted; write nothing"},
			&cli.BoolFlag{Name: "append", Aliases: []string{"a"}, Usage: "read JSON Lines of new messages and add them to the session's newest snapshot"},
		},
		Action: action(e, shape{max: 1}, parseSave, runSave),
	}
}

func parseSave(c *cli.Context) (saveOptions, error) {
	return saveOptions{
		File: c.Args().First(), Session: c.String("session"), Label: c.String("label"),
		Turn: c.Int("turn"), Checkpoint: c.String("checkpoint"), Message: c.String("message"),
		Source: c.String("source"), NoCode: c.Bool("no-code"), DryRun: c.Bool("dry-run"), Append: c.Bool("append"),
	}, nil
}

// saveMemoryLimit is the heap, beyond its document's text, a save has
// the collector aim under: SaveScanned holds the text, one message and
// a few hundred bytes a message at most (blob ids, where it lies, the
// tally's entry for its model call), but GOGC alone let the heap grow to
// twice that, garbage included: a 21 MB document of 50,000 messages was
// 84 MB resident.
const saveMemoryLimit = 40 << 20

// runSave records the document as the session's next snapshot, names it
// when asked, and applies the retention policy.
func runSave(ctx context.Context, d *deps, o saveOptions) error {
	o.Session = or(o.Session, d.session)
	if err := o.check(); err != nil {
		return err
	}
	// A document is read as text and saved a message at a time
	// (SaveScanned); --append's lines are few.
	var doc *snapshot.Scanned
	var msgs []any
	var err error
	if o.Append {
		msgs, err = readLines(d.in, d.dir, o.File, d.cfg)
	} else if doc, err = readScanned(d.in, d.dir, o.File, d.cfg); err == nil {
		proc.LimitMemory(int64(doc.Size()) + saveMemoryLimit)
	}
	if err != nil {
		return err
	}
	if o.DryRun {
		return dryRunSave(d, doc, msgs)
	}
	so := storage.SaveOptions{Session: o.Session, Turn: o.Turn, Label: o.Label, Source: o.Source, Message: o.Message}
	if !o.NoCode && d.cfg.RecordCode() {
		code, err := d.repo.CodeState(ctx, d.dir, false)
		if err != nil {
			fmt.Fprintf(d.errOut, "git-snap: warning: code commit not recorded: %v\n", err)
		}
		if !code.Commit.IsZero() {
			so.Code, so.Dirty = code.Commit.String(), code.Dirty
		}
	}
	var entry storage.Entry
	if o.Append {
		entry, err = appendMessages(ctx, d.repo, so, msgs)
	} else {
		entry, err = d.repo.SaveScanned(ctx, doc, so)
	}
	if err != nil {
		return fmt.Errorf("save: %w", err)
	}
	if o.Checkpoint != "" {
		if _, err := d.repo.SetCheckpoint(ctx, o.Checkpoint, entry.ID, o.Message, true); err != nil {
			return fmt.Errorf("snapshot %s saved, but checkpoint %s not set: %w", entry.ID, o.Checkpoint, err)
		}
	}
	fmt.Fprintln(d.out, entry.ID)
	_, err = d.repo.ApplyRetention(ctx, o.Session, entry.Header.Seq, retention(d.cfg))
	return err
}

// dryRunSave lists what a save of doc, or the append of msgs, would
// redact, and writes nothing.
func dryRunSave(d *deps, doc *snapshot.Scanned, msgs []any) error {
	var found []redact.Finding
	if doc == nil {
		_, found = d.repo.Redactor().Document(map[string]any{snapshot.MemberMessages: msgs})
	} else {
		var err error
		if found, err = d.repo.Redactor().Scanned(doc); err != nil {
			return err
		}
	}
	for _, f := range found {
		fmt.Fprintf(d.out, "would redact %s at %s: %s\n", f.Rule, f.Path, f.Preview)
	}
	fmt.Fprintf(d.out, "the document is valid; %s would be redacted; nothing was written\n", render.Count(len(found), "secret"))
	return nil
}

// appendMessages adds msgs to the session's newest snapshot, keeping
// everything else it holds; a session without one starts with them.
func appendMessages(ctx context.Context, s *gitsnap.Repository, so storage.SaveOptions, msgs []any) (storage.Entry, error) {
	e, added, err := s.Append(ctx, so, func(tipRest map[string]any) (storage.Delta, error) {
		return storage.Delta{Messages: msgs, Others: tipRest}, nil
	})
	if err == nil && !added {
		return e, usagef("--append read no message: give one JSON value a line")
	}
	return e, err
}

// check refuses names and numbers save cannot use, before the document
// is read.
func (o saveOptions) check() error {
	if o.Session == "" {
		return usagef("save needs a session: --session NAME (or set $GIT_SNAP_SESSION)")
	}
	if err := snapshot.CheckName("session", o.Session); err != nil {
		return usagef("%v", err)
	}
	if o.Turn < 0 {
		return usagef("--turn must not be negative")
	}
	if o.Checkpoint != "" {
		if err := snapshot.CheckName("checkpoint", o.Checkpoint); err != nil {
			return usagef("%v", err)
		}
	}
	return nil
}

func limits(cfg config.Config) snapshot.Limits {
	return snapshot.Limits{MaxDepth: cfg.Limits.MaxDepth, MaxValueBytes: cfg.Limits.MaxValueBytes}
}

// readLines reads JSON Lines of messages for save --append, within the
// document limit, each line checked before anything is written; blank
// lines are skipped.
func readLines(stdin io.Reader, dir, file string, cfg config.Config) ([]any, error) {
	name, data, err := readInput(stdin, dir, file, cfg)
	if err != nil {
		return nil, err
	}
	var msgs []any
	for i, line := range bytes.Split(data, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		v, err := snapshot.Parse(line, limits(cfg))
		if err != nil {
			return nil, &snapshot.InputError{Path: fmt.Sprintf("%s line %d", name, i+1), Msg: err.Error()}
		}
		msgs = append(msgs, v)
	}
	return msgs, nil
}

// readScanned reads and checks a document as readDocument does, with the
// same errors, but holds its messages and events as text, to be read
// one at a time (snapshot.ScanDocument).
func readScanned(stdin io.Reader, dir, file string, cfg config.Config) (*snapshot.Scanned, error) {
	name, data, err := readInput(stdin, dir, file, cfg)
	if err != nil {
		return nil, err
	}
	doc, err := snapshot.ScanDocument(data, limits(cfg))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if _, err := snapshot.Split(doc.Others); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return doc, nil
}

// readDocument reads and validates a document from a file (relative to
// dir) or stdin, within the configured limits, before anything is written.
func readDocument(stdin io.Reader, dir, file string, cfg config.Config) (map[string]any, error) {
	name, data, err := readInput(stdin, dir, file, cfg)
	if err != nil {
		return nil, err
	}
	doc, err := snapshot.ParseDocument(data, limits(cfg))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if _, err := snapshot.Split(doc); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return doc, nil
}

// readInput reads a file (relative to dir) or stdin, within the
// configured document limit, and names it for errors.
func readInput(stdin io.Reader, dir, file string, cfg config.Config) (string, []byte, error) {
	r := stdin
	name := "stdin"
	if file != "" && file != "-" {
		name = file
		path := file
		if !filepath.IsAbs(path) {
			path = filepath.Join(dir, path)
		}
		f, err := os.Open(path)
		if err != nil {
			return "", nil, usagef("cannot read %s: %v", file, err)
		}
		defer f.Close()
		r = f
	}
	data, err := readAtMost(r, int64(cfg.Limits.MaxDocumentBytes)+1)
	if err != nil {
		return "", nil, fmt.Errorf("read %s: %w", name, err)
	}
	if len(data) > cfg.Limits.MaxDocumentBytes {
		return "", nil, usagef("%s is larger than the limit of %d bytes (limits.max_document_bytes in .git-snap.yaml)", name, cfg.Limits.MaxDocumentBytes)
	}
	return name, data, nil
}

// readAtMost reads r to its end or to limit bytes. A regular file is read
// into a buffer of its size, where io.ReadAll would grow one by doubling:
// a 3 MB document cost 6 MB of fresh memory, and its clearing showed in a
// save's profile.
func readAtMost(r io.Reader, limit int64) ([]byte, error) {
	size := int64(512)
	if f, ok := r.(*os.File); ok {
		if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
			size = min(fi.Size()+1, limit) // +1 sees the end without a second read
		}
	}
	var b bytes.Buffer
	// ReadFrom grows, to twice and more, a buffer with fewer than
	// MinRead bytes free: the last read, that sees the end, must find
	// them, else a document was held three times over as it was read.
	b.Grow(int(size) + bytes.MinRead)
	_, err := b.ReadFrom(io.LimitReader(r, limit))
	return b.Bytes(), err
}
