package viewer

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"time"

	"github.com/git-snap/git-snap/storage"
)

// events streams server-sent events: one "refs" event, listing the
// sessions whose ref moved, appeared or went, each time that happens.
// The refs are looked at every Options.Poll (less often when that takes
// long); reading them is a few stats while no ref moved, and no object.
func (s *Server) events(w http.ResponseWriter, r *http.Request) {
	flusher, ok := w.(http.Flusher)
	if !ok {
		http.Error(w, "streaming is not supported", http.StatusInternalServerError)
		return
	}
	ctx := r.Context()
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	last, err := s.tips(r)
	if err != nil {
		return
	}
	fmt.Fprint(w, "retry: 2000\n\n")
	if shown := r.URL.Query().Get("tips"); shown != "" && shown != tipsDigest(last) {
		// The page was made before a ref moved that this stream already sees.
		data, _ := json.Marshal(map[string][]string{"sessions": movedSessions(s.store, nil, last)})
		fmt.Fprintf(w, "event: refs\ndata: %s\n\n", data)
	}
	flusher.Flush()
	wait := s.opts.Poll
	for {
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
		start := time.Now()
		now, err := s.tips(r)
		// Listing thousands of loose refs takes a while, under the
		// store's lock: look less often then, so that pages still get it.
		wait = max(s.opts.Poll, 4*time.Since(start))
		if err != nil {
			return
		}
		changed := movedSessions(s.store, last, now)
		last = now
		if len(changed) == 0 {
			continue
		}
		data, _ := json.Marshal(map[string][]string{"sessions": changed})
		if _, err := fmt.Fprintf(w, "event: refs\ndata: %s\n\n", data); err != nil {
			return
		}
		flusher.Flush()
	}
}

func (s *Server) tips(r *http.Request) (map[string]storage.ID, error) {
	var tips map[string]storage.ID
	err := s.read(r.Context(), func(st storage.Reader) error {
		var err error
		tips, err = st.Tips(r.Context())
		return err
	})
	return tips, err
}

// movedSessions names the sessions whose ref differs between two
// listings, sorted.
func movedSessions(st storage.Reader, a, b map[string]storage.ID) []string {
	seen := map[string]bool{}
	for ref := range maps.Keys(a) {
		if a[ref] != b[ref] {
			seen[ref] = true
		}
	}
	for ref := range maps.Keys(b) {
		if a[ref] != b[ref] {
			seen[ref] = true
		}
	}
	var out []string
	for ref := range seen {
		if name, _, ok := st.SessionOfRef(ref); ok {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}
