package agent

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"strings"
	"time"

	"github.com/git-snap/git-snap/snapshot"
)

// documentAgent is an agent whose transcript is one JSON document that it
// rewrites as the session grows (Gemini CLI's chat file, OpenCode's
// export), not lines it appends. The records are the elements of one
// array member of the document; the rest of it is its head.
type documentAgent interface {
	// RecordsKey names the document's member that holds the records.
	RecordsKey() string
	// IsTranscriptFile tells, by its name, whether a file found below a
	// directory given to import is a transcript.
	IsTranscriptFile(name string) bool
}

// mixedAgent is a documentAgent whose agent now appends lines: Gemini
// CLI 0.61 appends JSONL chats, and still reads (as git-snap still
// records) the one-document chats it wrote before. The file's name
// tells which a transcript is.
type mixedAgent interface {
	// IsDocumentFile reports whether the transcript at path is one JSON
	// document rather than lines.
	IsDocumentFile(path string) bool
}

// documentKey says whether a's transcript at path is a document, and the
// member that holds its records. With no path (a hook call that names
// none), a mixed agent's session goes on as its last snapshot (rest)
// was recorded.
func documentKey(a Adapter, path string, rest map[string]any) (string, bool) {
	da, ok := a.(documentAgent)
	if !ok {
		return "", false
	}
	if m, mixed := a.(mixedAgent); mixed {
		if path == "" {
			_, ok = docStateFrom(rest)
		} else {
			ok = m.IsDocumentFile(path)
		}
	}
	return da.RecordsKey(), ok
}

// IsDocumentFile reports whether a's transcript at path is one JSON
// document it rewrites (Gemini CLI's older chats, OpenCode) rather than
// lines it appends: such a session is named by the id its document
// carries.
func IsDocumentFile(a Adapter, path string) bool {
	_, ok := documentKey(a, path, nil)
	return ok
}

// dater is a documentAgent whose documents say when they were last
// written (OpenCode's export: info.time.updated). A document older than
// the one the session's last snapshot was recorded from is an earlier
// state that a hook call recorded late (OpenCode's plugin call for
// session.idle can finish after its exit, when git snap hook has already
// recorded what opencode export printed then): it is not recorded.
type dater interface {
	// Updated is when the document with this head was last written, in
	// any unit that grows; 0 when it does not say.
	Updated(head map[string]any) int64
}

// documentMember is the member of a snapshot's rest that says how a
// document transcript is rebuilt from the snapshot's messages.
const documentMember = "document"

// maxDocumentBytes bounds a document transcript: it is read whole.
const maxDocumentBytes = 256 << 20

// docState is what a snapshot keeps of a document transcript: the head,
// which stored messages are the document's records now (ranges of
// message indexes, in order), and a digest of each of those records, so
// that the next call finds the first record the agent changed.
type docState struct {
	Path   string
	Key    string // the records' member; "" when the document has none
	Head   map[string]any
	Live   [][2]int64 // [first message, count]
	Hashes []any      // one string per live record
	Stored int64      // messages stored so far
}

func docStateFrom(rest map[string]any) (docState, bool) {
	m, ok := rest[documentMember].(map[string]any)
	if !ok {
		return docState{}, false
	}
	st := docState{Path: str(m, "path"), Key: str(m, "key")}
	st.Head, _ = m["head"].(map[string]any)
	st.Hashes, _ = m["hashes"].([]any)
	st.Stored, _ = num(m["stored"])
	live, _ := m["live"].([]any)
	for _, r := range live {
		pair, _ := r.([]any)
		if len(pair) == 2 {
			a, _ := num(pair[0])
			n, _ := num(pair[1])
			st.Live = append(st.Live, [2]int64{a, n})
		}
	}
	return st, true
}

func (st docState) json() map[string]any {
	live := make([]any, len(st.Live))
	for i, r := range st.Live {
		live[i] = []any{r[0], r[1]}
	}
	m := map[string]any{"path": st.Path, "head": st.Head, "live": live, "hashes": st.Hashes, "stored": st.Stored}
	if st.Key != "" {
		m["key"] = st.Key
	}
	if st.Head == nil {
		m["head"] = map[string]any{}
	}
	return m
}

// keep cuts the live records to the first n.
func (st *docState) keep(n int64) {
	var out [][2]int64
	for _, r := range st.Live {
		if n <= 0 {
			break
		}
		r[1] = min(r[1], n)
		n -= r[1]
		out = append(out, r)
	}
	st.Live = out
}

// liveIndexes lists the stored messages that are the document's records.
func (st docState) liveIndexes() []int64 {
	var out []int64
	for _, r := range st.Live {
		for i := range r[1] {
			out = append(out, r[0]+i)
		}
	}
	return out
}

// readDocument reads a document transcript whole: its head, and its
// records (nil, with key "", when it has no such member).
func readDocument(path, key string, lim snapshot.Limits) (head map[string]any, records []any, hasKey bool, err error) {
	f, err := OpenRegular(path)
	if err != nil {
		return nil, nil, false, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxDocumentBytes+1))
	if err != nil {
		return nil, nil, false, err
	}
	if len(data) > maxDocumentBytes {
		return nil, nil, false, fmt.Errorf("%s is over %d bytes, the most read of one document transcript", path, maxDocumentBytes)
	}
	v, err := snapshot.Parse(data, lim)
	if err != nil {
		return nil, nil, false, fmt.Errorf("%s is not a complete JSON document (the agent may be writing it; the next call reads it again): %w", path, err)
	}
	doc, ok := v.(map[string]any)
	if !ok {
		return nil, nil, false, fmt.Errorf("%s is %s, not a JSON object", path, snapshot.KindOf(v))
	}
	head = map[string]any{}
	for k, v := range doc {
		if k != key {
			head[k] = v
		}
	}
	raw, hasKey := doc[key]
	if hasKey {
		if records, ok = raw.([]any); !ok {
			return nil, nil, false, fmt.Errorf("%s: %q is %s, not an array", path, key, snapshot.KindOf(raw))
		}
	}
	return head, records, hasKey, nil
}

func recordHash(rec any) (string, error) {
	b, err := snapshot.Marshal(rec)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:8]), nil
}

// documentUpdate reads a document transcript as it is now: the records
// from the first one that changed since the last call are new messages,
// and the live ranges say which messages the document holds, so that
// each snapshot gives back the document as it was then and the versions
// it replaced stay in the session's history.
func documentUpdate(a Adapter, p Payload, key string, rest map[string]any, lim snapshot.Limits) (Update, error) {
	u := Update{Others: rest, Touched: StringSet(rest["touched_files"])}
	st, _ := docStateFrom(rest)
	if p.TranscriptPath == "" {
		return u, nil
	}
	head, records, hasKey, err := readDocument(p.TranscriptPath, key, lim)
	if errors.Is(err, fs.ErrNotExist) && st.Stored == 0 {
		return u, nil // the agent has not written it yet
	}
	if err != nil {
		return u, err
	}
	if d, ok := a.(dater); ok && st.Head != nil && d.Updated(head) < d.Updated(st.Head) {
		return u, nil // an earlier state, written late: the session went on past it
	}
	same, hashes, err := unchangedPrefix(records, st.Hashes)
	if err != nil {
		return u, err
	}
	st.keep(same)
	if n := int64(len(records)) - same; n > 0 {
		st.Live = append(st.Live, [2]int64{st.Stored, n})
		u.Messages = records[same:]
		st.Stored += n
	}
	st.Path, st.Head, st.Hashes, st.Key = p.TranscriptPath, head, hashes, ""
	if hasKey {
		st.Key = key
	}
	rest[documentMember] = st.json()
	for _, rec := range records {
		if a.IsPrompt(rec) {
			u.Turn++
		}
	}
	rest["turns"] = u.Turn
	for _, rec := range u.Messages {
		for _, t := range a.TouchedFiles(rec) {
			u.Touched[t] = true
		}
	}
	return u, nil
}

// unchangedPrefix hashes records and counts how many of the first ones
// still have the hashes stored before.
func unchangedPrefix(records, before []any) (int64, []any, error) {
	hashes := make([]any, len(records))
	same := int64(0)
	for i, rec := range records {
		h, err := recordHash(rec)
		if err != nil {
			return 0, nil, err
		}
		hashes[i] = h
		if int64(i) == same && i < len(before) && before[i] == h {
			same++
		}
	}
	return same, hashes, nil
}

// restoreDocument writes a document transcript back as it was when the
// snapshot was taken: its head with the live records.
func restoreDocument(doc map[string]any, st docState) (map[string][][]byte, error) {
	msgs, _ := doc[snapshot.MemberMessages].([]any)
	out := map[string]any{}
	for k, v := range st.Head {
		out[k] = v
	}
	records := []any{}
	for _, i := range st.liveIndexes() {
		if i < 0 || i >= int64(len(msgs)) {
			return nil, fmt.Errorf("the document's layout names message %d; the snapshot holds %d", i, len(msgs))
		}
		records = append(records, msgs[i])
	}
	if st.Key != "" {
		out[st.Key] = records
	} else if len(records) > 0 {
		return nil, fmt.Errorf("the document's layout names records but no member to hold them")
	}
	b, err := snapshot.MarshalIndent(out)
	if err != nil {
		return nil, err
	}
	return map[string][][]byte{"": {b}}, nil
}

// documentRecords reads a document transcript for import: the document
// itself, for Importer.Check, and the time of its newest record.
func documentRecords(a Adapter, path, key string, lim snapshot.Limits) (map[string]any, time.Time, error) {
	head, records, hasKey, err := readDocument(path, key, lim)
	if err != nil {
		return nil, time.Time{}, err
	}
	var newest time.Time
	for _, rec := range records {
		m, _ := a.View(rec)
		if at, err := time.Parse(time.RFC3339Nano, m.Time); err == nil && at.After(newest) {
			newest = at
		}
	}
	doc := head
	if hasKey {
		doc = map[string]any{key: records}
		for k, v := range head {
			doc[k] = v
		}
	}
	return doc, newest, nil
}

// documentName names the session a document transcript holds: the id
// its head gives, else the file's name without its extension.
func documentName(path, key string, id func(head map[string]any) string) string {
	if head, _, _, err := readDocument(path, key, snapshot.Limits{}); err == nil && id(head) != "" {
		return id(head)
	}
	return strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
}
