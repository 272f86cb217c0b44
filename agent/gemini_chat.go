package agent

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/git-snap/git-snap/internal/lazy"
)

// Live implements liveReducer: the messages a JSONL chat has held, in
// order, each as its last line wrote it, read as Gemini CLI loads the
// chat (loadConversationRecord in its chatRecordingService) but for what
// its loading loses that happened. A message record sets the message of
// its id, in the place it first took; {"$rewindTo": id} drops that
// message and every one after it (all of them when none has the id), as
// the user took them back. {"$set": {"messages": [...]}} is the history
// Gemini CLI sends from then on (the session's context at the start, a
// compressed history, the history rebuilt on resume): for Gemini CLI it
// replaces every message, here it adds the messages the chat did not
// hold (the context, a compression's summary) after the others, and
// keeps those it leaves out or rebuilds without their tool calls and
// tokens (a compression's older messages, a resumed session's), which
// were sent and answered. The first line's messages are such a $set.
// Other lines (the metadata, $set of anything else) hold no message.
// Each message comes with the place of the line it was read from.
// Records of a .json chat, one message each with its own id, come out
// as they went in.
func (Gemini) Live(lines []any, index []int) ([]any, []int) {
	c := liveChat{byID: map[string]liveEntry{}}
	var kept []any // records that are no chat line: kept as they are
	var keptAt []int
	for i, line := range lines {
		if r, ok := line.(map[string]any); ok && c.read(r, index[i]) {
			continue
		}
		kept, keptAt = append(kept, line), append(keptAt, index[i])
	}
	out, at := kept, keptAt
	for _, id := range c.order {
		out, at = append(out, c.byID[id].rec), append(at, c.byID[id].index)
	}
	return out, at
}

// liveChat is the messages a Gemini CLI chat holds as Live reads its
// lines: their ids in the place each first took, so that a message a
// later line rewrites keeps its place, and the last record of each.
type liveChat struct {
	order []string
	byID  map[string]liveEntry
}

// liveEntry is a message's record with the place of the line it was
// read from.
type liveEntry struct {
	rec   any
	index int
}

// read applies one line of the chat, read from the place at, and reports
// whether it is a chat line; Live keeps the others as they are.
func (c *liveChat) read(r map[string]any, at int) bool {
	if to, ok := r["$rewindTo"].(string); ok {
		c.rewindTo(to)
		return true
	}
	if id, ok := r["id"].(string); ok {
		c.set(id, liveEntry{r, at})
		return true
	}
	if upd, ok := r["$set"].(map[string]any); ok {
		if msgs, ok := upd["messages"].([]any); ok {
			c.addNew(msgs, at)
		}
		return true
	}
	if _, ok := r["sessionId"].(string); ok {
		if msgs, ok := r["messages"].([]any); ok {
			c.addNew(msgs, at)
		}
		return true
	}
	return false
}

// set makes e the record of the message id, in the place the id first
// took or, for a new id, after the others.
func (c *liveChat) set(id string, e liveEntry) {
	if _, seen := c.byID[id]; !seen {
		c.order = append(c.order, id)
	}
	c.byID[id] = e
}

// addNew adds the messages of a history the chat does not hold yet: a
// history set again leaves out or rebuilds messages that were sent and
// answered, so the records already read stand.
func (c *liveChat) addNew(msgs []any, at int) {
	for _, m := range msgs {
		r, ok := m.(map[string]any)
		if !ok {
			continue
		}
		if id, ok := r["id"].(string); ok {
			if _, seen := c.byID[id]; !seen {
				c.set(id, liveEntry{m, at})
			}
		}
	}
}

// rewindTo drops the message to and every one after it, as the user took
// them back; all of them when none has that id, as Gemini CLI does.
func (c *liveChat) rewindTo(to string) {
	cut := len(c.order)
	for k, id := range c.order {
		if id == to {
			cut = k
			break
		}
	}
	if cut == len(c.order) { // not found: Gemini CLI drops them all
		cut = 0
	}
	for _, id := range c.order[cut:] {
		delete(c.byID, id)
	}
	c.order = c.order[:cut]
}

// projectDir is the folder under ~/.gemini/tmp where Gemini CLI keeps
// the project at root's chats (its ProjectRegistry, 0.61): the name
// projects.json gives the project, else the folder whose .project_root
// names it, else the one Gemini CLI will claim for it: the base name,
// lower case, each run of other characters than letters and digits one
// '-', with -1, -2, … after it while another project has that name.
func (g Gemini) projectDir(root string) string {
	tmp := filepath.Join(g.Dir, "tmp")
	name, taken := g.registeredProject(root)
	if name != "" {
		return filepath.Join(tmp, name)
	}
	owner := func(name string) (string, bool) {
		data, err := os.ReadFile(filepath.Join(tmp, name, ".project_root"))
		return strings.TrimSpace(string(data)), err == nil
	}
	if entries, err := os.ReadDir(tmp); err == nil {
		for _, e := range entries {
			if o, ok := owner(e.Name()); ok && o == filepath.Clean(root) {
				return filepath.Join(tmp, e.Name())
			}
		}
	}
	slug := strings.Trim(nonSlug().ReplaceAllString(strings.ToLower(filepath.Base(root)), "-"), "-")
	if slug == "" {
		slug = "project"
	}
	for n := 0; ; n++ {
		name = slug
		if n > 0 {
			name += "-" + strconv.Itoa(n)
		}
		if o, ok := owner(name); taken[name] || ok && o != filepath.Clean(root) {
			continue
		}
		return filepath.Join(tmp, name)
	}
}

var nonSlug = lazy.Regexp(`[^a-z0-9]+`)

// registeredProject is the name ~/.gemini/projects.json gives the
// project at root ("" when none), and every name it gives.
func (g Gemini) registeredProject(root string) (string, map[string]bool) {
	names := map[string]bool{}
	data, err := os.ReadFile(filepath.Join(g.Dir, "projects.json"))
	if err != nil {
		return "", names
	}
	var reg struct {
		Projects map[string]string `json:"projects"`
	}
	if json.Unmarshal(data, &reg) != nil {
		return "", names
	}
	for _, n := range reg.Projects {
		names[n] = true
	}
	name := reg.Projects[filepath.Clean(root)]
	if name != "" && !strings.ContainsAny(name, `/\`) && name != "." && name != ".." {
		return name, names
	}
	return "", names
}

// CompactionMarks implements compactionMarker: the ids of the
// acknowledgements of a compressed history (see IsCompaction) a line
// holds, itself or among the messages it sets.
func (g Gemini) CompactionMarks(record any) []string {
	r, _ := record.(map[string]any)
	msgs := []any{record}
	if upd, ok := r["$set"].(map[string]any); ok {
		msgs, _ = upd["messages"].([]any)
	} else if m, ok := r["messages"].([]any); ok {
		msgs = m
	}
	var out []string
	for _, m := range msgs {
		if g.IsCompaction(m) {
			mm, _ := m.(map[string]any)
			out = append(out, str(mm, "id"))
		}
	}
	return out
}
