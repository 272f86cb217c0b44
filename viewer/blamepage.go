package viewer

import (
	"cmp"
	"context"
	"errors"
	"net/http"
	"strconv"

	"github.com/git-snap/git-snap/provenance"
	"github.com/git-snap/git-snap/storage"
)

// blameMarks is how many sessions' edits get a colour of their own on
// the blame page; more share them.
const blameMarks = 8

// blameView is the blame page's data: a file's lines with who wrote
// each, and the agents' edits among them, each with its prompt and a
// link to its turn in the timeline.
type blameView struct {
	Path, Rev string
	// Problem says why the file cannot be blamed as asked: not in the
	// revision, binary, a revision that names no commit.
	Problem string
	File    *provenance.File
	Edits   []blameEdit
	Lines   []blameLine
	Counts  provenance.Tally
	// The lines of each kind.
	Agent, Mixed, Person, Unknown int
}

// blameEdit is an agent's edit as the page shows it.
type blameEdit struct {
	*provenance.Edit
	Mark  int    // its colour
	Link  string // to its turn in the session's timeline
	Lines int
}

// blameLine is a line as the page shows it.
type blameLine struct {
	provenance.Line
	At int // its edit, into Edits; -1 for none
}

func (s *Server) blamePage(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	v := &blameView{Path: r.PathValue("path"), Rev: cmp.Or(r.URL.Query().Get("rev"), "HEAD")}
	if s.opts.Blame == nil {
		s.fail(w, r, &pageError{http.StatusNotFound, "this viewer does not blame files: git snap view does"})
		return
	}
	err := s.read(ctx, func(storage.Reader) error {
		var err error
		v.File, err = s.opts.Blame(ctx, v.Rev, v.Path)
		return err
	})
	var bad *provenance.InputError
	switch {
	case errors.As(err, &bad):
		// An answer, not a failure: the files page links every file an
		// agent captured, and one may not be in the code (any more).
		v.Problem = bad.Msg
	case err != nil:
		s.fail(w, r, err)
		return
	default:
		v.fill()
	}
	s.render(w, r, "blame", page{Title: "Who wrote " + v.Path, Nav: "sessions", Data: v})
}

// fill lists the page's edits in the order their lines first come, each
// with its colour and its turn's link, and marks the lines with them.
func (v *blameView) fill() {
	index := map[*provenance.Edit]int{}
	for _, l := range v.File.Lines {
		bl := blameLine{Line: l, At: -1}
		if e := l.Edit; e != nil {
			i, ok := index[e]
			if !ok {
				i = len(v.Edits)
				index[e] = i
				v.Edits = append(v.Edits, blameEdit{Edit: e, Mark: i % blameMarks, Link: turnLink(e)})
			}
			v.Edits[i].Lines++
			bl.At = i
		}
		v.Lines = append(v.Lines, bl)
	}
	v.Counts = provenance.Count([]*provenance.File{v.File})
	k := v.Counts.Kinds
	v.Agent, v.Mixed, v.Person, v.Unknown = k[provenance.Agent], k[provenance.Mixed], k[provenance.Person], k[provenance.Unknown]
}

// turnLink is the timeline of an edit's session at its turn: the
// session by name when it is a local one, else the edit's snapshot.
func turnLink(e *provenance.Edit) string {
	rev := e.Session
	if e.Remote != "" {
		rev = e.Snapshot.String()
	}
	link := "/session/" + rev
	if e.Turn > 0 {
		link += "#turn-" + strconv.Itoa(e.Turn)
	}
	return link
}

// Blame is what the viewer asks to blame a file: the command line's
// gitsnap.Repository.Blame, given a revision of the code and a path
// from the repository's root.
type Blame func(ctx context.Context, rev, path string) (*provenance.File, error)
