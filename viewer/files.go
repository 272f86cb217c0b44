package viewer

import (
	"bytes"
	"context"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/git-snap/git-snap/storage"
)

// maxFileChain bounds the snapshots the files page walks back through to
// find where each file changed.
const maxFileChain = 5000

// maxShownBytes bounds the content of one file shown on a page.
const maxShownBytes = 2 << 20

// filesView is the files page's data: the files captured at a snapshot
// and, for each, the snapshots of its session that changed it.
type filesView struct {
	Rev        string
	Entry      storage.Entry
	SessionRev string // names the session's tip: its name, or its fetched ref
	Now        time.Time
	Files      []fileHistory
	Partial    bool // the session is longer than maxFileChain

	// Blame says the viewer can show who wrote each line of a file of
	// the code (the blame page).
	Blame bool

	Path    string // the file shown, "" for none
	Content []string
	Binary  bool
	Size    int
	Cut     bool // the content is longer than maxShownBytes
}

type fileHistory struct {
	Path    string
	Mode    string
	Present bool            // captured at this snapshot (else removed before it)
	Changes []storage.Entry // oldest first: the snapshots that added, changed or removed it
}

func (s *Server) filesPage(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	v := &filesView{Rev: r.PathValue("rev"), Path: r.URL.Query().Get("path"), Now: s.opts.Now(), Blame: s.opts.Blame != nil}
	err := s.read(ctx, func(st storage.Reader) error { return fileHistories(ctx, st, v) })
	if err != nil {
		s.fail(w, r, err)
		return
	}
	s.render(w, r, "files", page{Title: "Files of " + v.Entry.Header.Session, Nav: "sessions", Data: v})
}

// fileHistories fills v: the files at its snapshot, where each changed,
// and the content of the file v.Path names.
func fileHistories(ctx context.Context, st storage.Reader, v *filesView) error {
	id, err := st.Resolve(ctx, v.Rev)
	if err != nil {
		return err
	}
	if v.Entry, err = st.Entry(ctx, id); err != nil {
		return err
	}
	if v.SessionRev, err = sessionRev(ctx, st, v.Entry); err != nil {
		return err
	}
	var entries []storage.Entry
	err = st.Walk(ctx, []storage.ID{id}, func(e storage.Entry) error {
		entries = append(entries, e)
		if len(entries) >= maxFileChain {
			v.Partial = true
			return storage.ErrStop
		}
		return nil
	})
	if err != nil {
		return err
	}
	slices.Reverse(entries)
	byPath := map[string]*fileHistory{}
	prev := map[string]storage.ID{}
	var prevSet storage.FileSetID
	for i, e := range entries {
		set, err := st.Files(ctx, e)
		if err != nil {
			return err
		}
		if i > 0 && set.ID == prevSet {
			continue
		}
		prevSet = set.ID
		now := map[string]storage.ID{}
		for _, f := range set.Files {
			now[f.Path] = f.Blob
			h := byPath[f.Path]
			if h == nil {
				h = &fileHistory{Path: f.Path}
				byPath[f.Path] = h
			}
			h.Mode = f.Mode
			if prev[f.Path] != f.Blob {
				h.Changes = append(h.Changes, e)
			}
		}
		for p := range prev {
			if _, ok := now[p]; !ok {
				byPath[p].Changes = append(byPath[p].Changes, e)
			}
		}
		prev = now
	}
	for p, h := range byPath {
		_, h.Present = prev[p]
		v.Files = append(v.Files, *h)
	}
	slices.SortFunc(v.Files, func(a, b fileHistory) int { return strings.Compare(a.Path, b.Path) })
	if v.Path == "" {
		return nil
	}
	blob, ok := prev[v.Path]
	if !ok {
		return &pageError{http.StatusNotFound, "snapshot " + v.Rev + " holds no file " + v.Path}
	}
	data, err := st.Blob(ctx, blob)
	if err != nil {
		return err
	}
	v.showContent(data)
	return nil
}

// showContent splits a file's text into lines, or says it is binary.
func (v *filesView) showContent(data []byte) {
	v.Size = len(data)
	if len(data) > maxShownBytes {
		data, v.Cut = data[:maxShownBytes], true
	}
	if bytes.IndexByte(data, 0) >= 0 {
		v.Binary = true
		return
	}
	v.Content = strings.Split(strings.TrimSuffix(strings.ToValidUTF8(string(data), "\uFFFD"), "\n"), "\n")
}
