package viewer

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"time"
	"unicode/utf8"

	"github.com/git-snap/git-snap/approxidate"
	"github.com/git-snap/git-snap/search"
	"github.com/git-snap/git-snap/storage"
)

// maxHits is the most hits a search page shows; a pattern that matches
// more says so and asks for a narrower one.
const maxHits = 200

// searchForm is the search page's form, as the URL gives it.
type searchForm struct {
	Q, Session, Agent, Tool, File, Since, Until string
	IgnoreCase, Regexp                          bool
}

// searchView is the search page's data.
type searchView struct {
	Form  searchForm
	Now   time.Time
	Hits  []searchHit
	More  bool   // more hits than shown
	Error string // what is wrong with the form, for the user to correct
	Asked bool   // a pattern was given
}

// searchHit is one hit, its line cut at the matches to mark them.
type searchHit struct {
	search.Hit
	Parts []linePart
}

// linePart is a piece of a hit's line; Mark for a match.
type linePart struct {
	Text string
	Mark bool
}

func formOf(v url.Values) searchForm {
	return searchForm{
		Q: v.Get("q"), Session: v.Get("session"), Agent: v.Get("agent"), Tool: v.Get("tool"), File: v.Get("file"),
		Since: v.Get("since"), Until: v.Get("until"), IgnoreCase: v.Get("i") != "", Regexp: v.Get("re") != "",
	}
}

// query turns the form into a search: a literal pattern unless Regexp
// (RE2 syntax, as git snap search -E), the times as git reads them.
func (f searchForm) query(now time.Time) (search.Query, error) {
	q := search.Query{Pattern: f.Q, Regexp: f.Regexp, IgnoreCase: f.IgnoreCase, Session: f.Session, Agent: f.Agent,
		Tool: f.Tool, File: f.File, Limit: maxHits + 1}
	var err error
	if q.Since, err = approxidate.Parse(f.Since, now); err != nil {
		return q, fmt.Errorf("since: %w", err)
	}
	if q.Until, err = approxidate.Parse(f.Until, now); err != nil {
		return q, fmt.Errorf("until: %w", err)
	}
	return q, nil
}

// searchPage is the search of git snap search over every session, its
// hits linking to the message in the session's timeline. It keeps the
// search index (a cache under .git/snap/search, as git snap search
// does) up to date; it writes nothing else.
func (s *Server) searchPage(w http.ResponseWriter, r *http.Request) {
	v := &searchView{Form: formOf(r.URL.Query()), Now: s.opts.Now()}
	v.Asked = v.Form.Q != ""
	status := http.StatusOK
	if v.Asked {
		hits, err := s.search(r.Context(), v.Form, v.Now)
		var pe *search.PatternError
		var ue userError
		switch {
		case errors.As(err, &pe), errors.As(err, &ue):
			status, v.Error = http.StatusBadRequest, err.Error()
		case err != nil:
			s.fail(w, r, err)
			return
		}
		if len(hits) > maxHits {
			hits, v.More = hits[:maxHits], true
		}
		for _, h := range hits {
			v.Hits = append(v.Hits, searchHit{Hit: h, Parts: partsOf(h.Line, h.Match)})
		}
	}
	s.renderStatus(w, r, status, "search", page{Title: "Search", Nav: "search", Query: v.Form.Q, Data: v})
}

// search runs the form's query on the index, opened on first use: on a
// store of its own when the options give one, else on the viewer's,
// under its lock.
func (s *Server) search(ctx context.Context, f searchForm, now time.Time) ([]search.Hit, error) {
	q, err := f.query(now)
	if err != nil {
		return nil, &search.PatternError{Msg: err.Error()}
	}
	if s.opts.OpenSearchStore != nil {
		x, err := s.ownSearchIndex(ctx)
		if err != nil {
			return nil, err
		}
		return x.Search(ctx, q)
	}
	var hits []search.Hit
	err = s.read(ctx, func(st storage.Reader) error {
		if s.index == nil {
			if s.index, err = search.Open(ctx, st, s.opts.SearchDir); err != nil {
				return err
			}
		}
		hits, err = s.index.Search(ctx, q)
		return err
	})
	return hits, err
}

// ownSearchIndex is the index on the store Options.OpenSearchStore
// opens, opened on the first call. The index serialises its own calls.
func (s *Server) ownSearchIndex(ctx context.Context) (*search.Index, error) {
	s.searchMu.Lock()
	defer s.searchMu.Unlock()
	if s.ownIndex != nil {
		return s.ownIndex, nil
	}
	st, err := s.opts.OpenSearchStore(ctx)
	if err != nil {
		return nil, fmt.Errorf("open the repository for search: %w", err)
	}
	x, err := search.Open(ctx, st, s.opts.SearchDir)
	if err != nil {
		st.Close()
		return nil, err
	}
	s.searchStore, s.ownIndex = st, x
	return x, nil
}

// partsOf cuts line at the matches' byte offsets, ignoring any that do
// not fall on the line's characters in order.
func partsOf(line string, matches [][2]int) []linePart {
	var out []linePart
	at := 0
	for _, m := range matches {
		if m[0] < at || m[1] <= m[0] || m[1] > len(line) || !utf8.RuneStart(line[m[0]]) || (m[1] < len(line) && !utf8.RuneStart(line[m[1]])) {
			continue
		}
		if m[0] > at {
			out = append(out, linePart{Text: line[at:m[0]]})
		}
		out = append(out, linePart{Text: line[m[0]:m[1]], Mark: true})
		at = m[1]
	}
	if at < len(line) {
		out = append(out, linePart{Text: line[at:]})
	}
	return out
}
