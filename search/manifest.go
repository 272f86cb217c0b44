package search

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/git-snap/git-snap/internal/safefile"
	"github.com/git-snap/git-snap/storage"
)

// The manifest lists the segments that make up the index and, for each
// session, the newest snapshot indexed and the generation number its
// docs carry. A session whose history was rewritten (by prune or a
// forced pull) gets a new generation, and a dropped session gets none.
// Its old docs stay in their segments but no longer count, until a merge
// leaves them out. The manifest is a small text file that is replaced
// as a whole (written to a temporary file, then renamed), so a reader
// sees either the old one or the new one. Its last line, "end <sha1>",
// holds the SHA-1 of everything before it, so a manifest damaged in
// place is detected and the index rebuilt, as for a damaged segment.

// manifestHeader is the manifest's first line and names the version of
// the whole index. A manifest of another version is not read; the index
// is rebuilt in the current version.
const manifestHeader = "git-snap search index 3" // 2: the end line's checksum; 3: deflated blocks, pages checked when read

// maxManifestBytes bounds the size of the manifest. A larger file (such
// as a planted sparse file) is treated as damage and not read.
const maxManifestBytes = 256 << 20

type manifest struct {
	stamp    string // the store's TipsStamp when the sessions were last read
	nextGen  uint32
	segments []string
	sessions map[string]*sessionState
}

type sessionState struct {
	tip    storage.ID
	gen    uint32
	time   int64  // the newest snapshot's time, for ordering hits
	agent  string // the agent that wrote the records, if an agent recognises them
	source string // what saved the newest snapshot ("claude-code", "import", "cli", …)
	paths  map[string]bool
	calls  map[string]string // tool calls still waiting for their result
}

// initMaps creates the session's maps before an update writes to them.
// Reading a manifest leaves them nil for sessions that have no entries,
// which is most of them: a search reads the lines of 10k sessions and
// may write to just one.
func (s *sessionState) initMaps() {
	if s.paths == nil {
		s.paths = map[string]bool{}
	}
	if s.calls == nil {
		s.calls = map[string]string{}
	}
}

func newManifest() *manifest {
	return &manifest{nextGen: 1, sessions: map[string]*sessionState{}}
}

func (m *manifest) encode(w io.Writer) error {
	b := &bytes.Buffer{}
	fmt.Fprintf(b, "%s\ngen %d\nstamp %s\n", manifestHeader, m.nextGen, strconv.Quote(m.stamp))
	for _, s := range m.segments {
		fmt.Fprintf(b, "seg %s\n", s)
	}
	for name, s := range m.sessions {
		fmt.Fprintf(b, "sess %s %s %d %d %s %s\n", name, s.tip, s.gen, s.time, strconv.Quote(s.agent), strconv.Quote(s.source))
		for p := range s.paths {
			fmt.Fprintf(b, "path %s\n", strconv.Quote(p))
		}
		for id, tool := range s.calls {
			fmt.Fprintf(b, "call %s %s\n", strconv.Quote(id), strconv.Quote(tool))
		}
	}
	sum := sha1.Sum(b.Bytes())
	fmt.Fprintf(b, "end %x\n", sum)
	_, err := w.Write(b.Bytes())
	return err
}

// readManifest reads dir's manifest. A missing manifest means an empty
// index, and a manifest that cannot be parsed is errCorrupt.
func readManifest(dir string) (*manifest, error) {
	data, err := safefile.ReadFile(context.Background(), filepath.Join(dir, "manifest"), "", maxManifestBytes)
	if os.IsNotExist(err) {
		return newManifest(), nil
	}
	if errors.Is(err, safefile.ErrRefused) {
		return nil, fmt.Errorf("manifest: %v: %w", err, errCorrupt)
	}
	if err != nil {
		return nil, err
	}
	m, ok := parseManifest(data)
	if !ok {
		return nil, fmt.Errorf("manifest: %w", errCorrupt)
	}
	return m, nil
}

func parseManifest(data []byte) (*manifest, bool) {
	i := bytes.LastIndex(data, []byte("\nend "))
	if i < 0 {
		return nil, false
	}
	sum := sha1.Sum(data[:i+1])
	if string(data[i+1:]) != fmt.Sprintf("end %x\n", sum) {
		return nil, false
	}
	data = data[:i+1] // the lines the checksum covers
	m := newManifest()
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	if !sc.Scan() || sc.Text() != manifestHeader {
		return nil, false
	}
	var cur *sessionState
	for sc.Scan() {
		kind, rest, _ := strings.Cut(sc.Text(), " ")
		var ok bool
		switch kind {
		case "gen":
			n, err := strconv.ParseUint(rest, 10, 32)
			m.nextGen, ok = uint32(n), err == nil
		case "stamp":
			m.stamp, ok = unquote(rest)
		case "seg":
			m.segments, ok = append(m.segments, rest), validSegmentName(rest)
		case "sess":
			cur, ok = parseSession(m, rest)
		case "path":
			var p string
			p, ok = unquote(rest)
			ok = ok && cur != nil
			if ok {
				cur.initMaps()
				cur.paths[p] = true
			}
		case "call":
			ok = cur != nil && parseCall(cur, rest)
		}
		if !ok {
			return nil, false
		}
	}
	return m, true
}

func parseSession(m *manifest, line string) (*sessionState, bool) {
	f := strings.SplitN(line, " ", 5)
	if len(f) != 5 || len(f[1]) != 40 {
		return nil, false
	}
	gen, err1 := strconv.ParseUint(f[2], 10, 32)
	t, err2 := strconv.ParseInt(f[3], 10, 64)
	agent, source, ok := cutQuoted(f[4])
	if err1 != nil || err2 != nil || !ok || m.sessions[f[0]] != nil {
		return nil, false
	}
	s := &sessionState{tip: storage.NewID(f[1]), gen: uint32(gen), time: t, agent: agent, source: source}
	m.sessions[f[0]] = s
	return s, true
}

func parseCall(s *sessionState, line string) bool {
	a, b, ok := cutQuoted(line)
	if ok {
		s.initMaps()
		s.calls[a] = b
	}
	return ok
}

// cutQuoted reads two quoted strings separated by a space.
func cutQuoted(line string) (string, string, bool) {
	q, err := strconv.QuotedPrefix(line)
	if err != nil || len(line) < len(q)+1 {
		return "", "", false
	}
	a, ok1 := unquote(q)
	b, ok2 := unquote(line[len(q)+1:])
	return a, b, ok1 && ok2
}

func unquote(s string) (string, bool) {
	u, err := strconv.Unquote(s)
	return u, err == nil
}

func validSegmentName(s string) bool {
	return strings.HasPrefix(s, "seg-") && len(s) == 4+24 && strings.Trim(s[4:], "0123456789abcdef") == ""
}

// newSegmentName returns a random segment name, which no other writer
// will pick.
func newSegmentName() string {
	var b [12]byte
	_, _ = rand.Read(b[:]) // crypto/rand's Read never fails
	return "seg-" + hex.EncodeToString(b[:])
}

// writeAtomic writes a temporary file and renames it into place, so that
// a reader sees either the old content or the new, never a mix.
func writeAtomic(path string, write func(io.Writer) error) error {
	f, err := os.CreateTemp(filepath.Dir(path), ".tmp-"+filepath.Base(path)+"-*")
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(f, 1<<16)
	err = write(bw)
	if err == nil {
		err = bw.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
