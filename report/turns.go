package report

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/git-snap/git-snap/agent"
	"github.com/git-snap/git-snap/snapshot"
	"github.com/git-snap/git-snap/storage"
)

// builder reads a session's records into turns, as the agent that
// recorded the session reads them (agent.Reader: no agent format is
// parsed here).
//
// It reads a session twice (see Open). The first pass (outline) keeps
// no text: it finds the turns, which call each tool result belongs to
// and where each subagent's thread is shown. The second reads the
// records again in order and gives each turn whole as soon as it ends:
// a result or a thread's record that comes after its turn (an import
// puts a subagent's records after the whole main transcript) is read
// then, out of order, and passed over when its place comes.
type builder struct {
	out   *Session
	rd    agent.Reader
	start int
	marks map[int][]string
	turn  Turn
	n     int // prompts so far
	// prompted says a prompt began the current turn.
	prompted bool
	first    int // the index of the current turn's first record
	// threads reads which subagent a record is of (nil: the agent runs
	// none); subs are the subagents met.
	threads agent.Threads
	subs    map[string]*Subagent

	outline bool
	plan    *plan                             // what the outline found; nil in the outline
	calls   map[string]*outlineCall           // by call id, in the outline: to attach results
	spawned map[string]string                 // in the outline: call id → the subagent it ran
	pending []*outlineCall                    // in the outline: the calls of the turn not yet ended
	tools   map[[2]string]*outlineCall        // in the outline: the first call of each tool in each thread
	thread  string                            // in the outline: the thread of the record read
	live    map[partKey]*ToolCall             // the second pass's calls not yet given, by their place
	done    map[partKey]bool                  // results read ahead of their place
	read    map[int]bool                      // thread records read ahead of their place
	emit    func(t *Turn) error               // gives a turn once it ends
	fetch   func(i int) (agent.Record, error) // reads record i out of order
	err     error
}

// outlineCall is a tool call as the outline keeps it, until the end:
// where it is and the turn that shows it. A session of 200,000 records
// has 50,000 calls; as ToolCalls they took 8 MB.
type outlineCall struct {
	at   partKey
	turn int // the place in Session.Turns of the turn that shows it
}

// partKey is a part of a record: a tool call's or a tool result's place.
type partKey struct{ rec, part int }

// plan is what the outline found for the second pass.
type plan struct {
	attach  map[partKey]partKey   // a tool result → the call it belongs to
	results map[partKey][]partKey // a call → its results, in order
	nested  map[string]partKey    // a subagent → the call that ran it
	threads map[string][]int      // a subagent → its records
	home    map[string]int        // a subagent → the turn that shows it, by its place in Session.Turns
	turns   int                   // how many turns there are
}

func newBuilder(out *Session, rd agent.Reader, start int, marks map[int][]string) *builder {
	return &builder{out: out, rd: rd, start: start, marks: marks, threads: rd.Threads(), subs: map[string]*Subagent{},
		calls: map[string]*outlineCall{}, spawned: map[string]string{}, live: map[partKey]*ToolCall{}, done: map[partKey]bool{}, read: map[int]bool{}}
}

// begin starts at record b.start: a range that starts inside a turn
// continues that turn's number, with no prompt of its own. prompts is
// how many records before the start are prompts.
func (b *builder) begin(prompts int) {
	b.n = prompts
	b.turn = Turn{N: b.n, ID: fmt.Sprintf("turn-%d", b.n), Continued: b.n > 0}
	b.first = b.start
	if b.outline {
		b.plan = &plan{attach: map[partKey]partKey{}, results: map[partKey][]partKey{}, nested: map[string]partKey{}, threads: map[string][]int{}, home: map[string]int{}}
	}
}

// next reads record i in order.
func (b *builder) next(i int, rec agent.Record) error {
	b.mark(i)
	if !b.read[i] {
		b.record(i, rec)
	}
	delete(b.read, i)
	return b.err
}

// end closes the last turn after n records.
func (b *builder) end(n int) error {
	b.mark(n)
	b.close(n)
	if b.outline {
		b.nest()
	}
	return b.err
}

// mark adds the checkpoints taken when the session held i records.
func (b *builder) mark(i int) {
	for _, name := range b.marks[i] {
		b.add(Item{Kind: KindCheckpoint, ID: fmt.Sprintf("checkpoint-%s", name), Index: i, Text: name})
	}
}

func (b *builder) add(it Item) {
	if b.outline { // no text: the outline counts items, and keeps the subagents' to nest them
		it.Text = ""
	}
	b.turn.Items = append(b.turn.Items, it)
}

// close ends the current turn before record i. A turn no prompt began
// (turn 0, or the turn a range starts inside) is left out when nothing
// happened in it.
func (b *builder) close(i int) {
	if !b.prompted && len(b.turn.Items) == 0 || b.err != nil {
		return
	}
	b.turn.Start, b.turn.End = b.first, i
	if b.outline {
		b.outlineTurn()
		return
	}
	if b.err = b.resolve(i); b.err != nil {
		return
	}
	t := b.turn
	b.forget(t.Items)
	b.err = b.emit(&t)
}

// outlineTurn keeps the turn without its items, but for the subagents
// shown in it, whose home it is unless a call nests them (nest).
func (b *builder) outlineTurn() {
	k := len(b.out.Turns)
	var kept []Item
	for _, it := range b.turn.Items {
		if it.Kind == KindSubagent {
			b.plan.home[it.Subagent.Name] = k
			kept = append(kept, Item{Kind: it.Kind, Subagent: it.Subagent})
		}
	}
	for _, c := range b.pending {
		c.turn = k
	}
	b.pending = b.pending[:0]
	b.turn.Items = kept
	b.out.Turns = append(b.out.Turns, b.turn)
}

// record reads record i into the main thread's turn or its subagent's
// thread.
func (b *builder) record(i int, rec agent.Record) {
	if b.threads == nil {
		b.message(i, rec)
		return
	}
	if call, name := b.threads.Spawned(rec.Raw); name != "" && b.outline {
		b.spawned[call] = name
	}
	name := b.threads.Thread(rec.Raw)
	b.thread = name
	if name == "" {
		b.message(i, rec)
		return
	}
	m := rec.Message
	sa := b.subs[name]
	if sa == nil {
		// Shown where it first appears unless a tool call ran it (nest).
		sa = &Subagent{Name: name, ID: "subagent-" + name}
		b.subs[name] = sa
		if _, nested := b.nestedElsewhere(name); !nested {
			b.add(Item{Kind: KindSubagent, ID: sa.ID, Index: i, Role: m.Role, Time: m.Time, Subagent: sa})
		}
	}
	if b.outline {
		b.plan.threads[name] = append(b.plan.threads[name], i)
	}
	sa.Records = append(sa.Records, i)
	main := b.turn.Items
	b.turn.Items = sa.Items
	if b.rd.IsPrompt(rec) || b.rd.IsCompaction(rec) { // within a thread, the task it was given
		b.input(i, m)
	} else {
		b.message(i, rec)
	}
	sa.Items, b.turn.Items = b.turn.Items, main
	if b.outline {
		sa.Items = sa.Items[:0] // the outline keeps no thread's items
	}
}

// nestedElsewhere reports whether the second pass nests subagent name
// under a call, so that it shows no item where its thread begins.
func (b *builder) nestedElsewhere(name string) (partKey, bool) {
	if b.plan == nil || b.outline {
		return partKey{}, false
	}
	k, ok := b.plan.nested[name]
	return k, ok
}

func (b *builder) message(i int, rec agent.Record) {
	m := rec.Message
	switch {
	case b.rd.IsPrompt(rec):
		b.close(i)
		b.n++
		b.turn = Turn{N: b.n, ID: fmt.Sprintf("turn-%d", b.n), Time: m.Time, Prompt: b.promptOf(m)}
		b.prompted, b.first = true, i
	case b.rd.IsCompaction(rec):
		b.add(Item{Kind: KindCompaction, ID: fmt.Sprintf("msg-%d", i), Index: i, Role: m.Role, Time: m.Time, Text: firstText(m)})
	case !rec.IsConversation(): // the rule show and diff read too
		b.out.Other[rec.Kind()]++
	case (m.Role == "assistant" || m.Role == "model") && len(m.Parts) == 0:
		// a model call's usage alone (a subagent's response its parent's
		// transcript mirrors): nothing to show, counted as what it is
		obj, _ := rec.Raw.(map[string]any)
		kind, _ := obj["type"].(string)
		b.out.Other[cmp.Or(kind, m.Role)]++
	case m.Role == "assistant" || m.Role == "model":
		b.answer(i, m)
	default: // user, tool, human, system, developer: input, and preambles folded as context
		b.input(i, m)
	}
}

// outlinePrompt is how much of a prompt the outline keeps: the rail of
// the viewer shows its first 200 characters.
const outlinePrompt = 1024

// promptOf is a turn's prompt: whole, or its start in the outline.
func (b *builder) promptOf(m snapshot.Message) string {
	p := firstText(m)
	if b.outline && len(p) > outlinePrompt {
		n := outlinePrompt
		for n > 0 && !utf8.RuneStart(p[n]) {
			n--
		}
		p = strings.Clone(p[:n]) // not the whole text, which the outline would keep
	}
	return p
}

// answer adds what the model said: text, reasoning, tool calls.
func (b *builder) answer(i int, m snapshot.Message) {
	for j, p := range m.Parts {
		switch p.Kind {
		case snapshot.PartText, snapshot.PartThinking:
			if strings.TrimSpace(p.Text) == "" {
				continue
			}
			kind := KindText
			if p.Kind == snapshot.PartThinking {
				kind = KindThinking
			}
			b.add(Item{Kind: kind, ID: fmt.Sprintf("msg-%d-%d", i, j), Index: i, Role: m.Role, Time: m.Time, Text: p.Text})
		case snapshot.PartToolCall:
			b.toolCall(i, j, m, p)
		case snapshot.PartToolResult:
			b.result(i, j, m, p)
		}
	}
}

// toolCall adds a call the model made: in the outline without its
// input, only to attach its results.
func (b *builder) toolCall(i, j int, m snapshot.Message, p snapshot.Part) {
	at := partKey{i, j}
	if b.outline {
		c := &outlineCall{at: at, turn: -1}
		if p.CallID != "" {
			b.calls[p.CallID] = c
		}
		b.pending = append(b.pending, c)
		b.firstCall(p.Tool, c)
		b.add(Item{Kind: KindTool, Index: i}) // counted, not shown
		return
	}
	call := &ToolCall{Name: p.Tool, CallID: p.CallID, at: at}
	call.Input, call.Summary, call.Diff = inputText(p.Input), inputSummary(p.Input), inputDiff(p.Input)
	b.live[at] = call
	b.add(Item{Kind: KindTool, ID: fmt.Sprintf("tool-%d-%d", i, j), Index: i, Role: m.Role, Time: m.Time, Tool: call})
}

// input adds what reached the model that is not a prompt: tool results
// (on their calls), text the harness or the user gave, system and
// developer text. A text equal to the turn's prompt is the prompt again
// (Codex writes it as an event and as a message).
func (b *builder) input(i int, m snapshot.Message) {
	for j, p := range m.Parts {
		switch p.Kind {
		case snapshot.PartToolResult:
			b.result(i, j, m, p)
		case snapshot.PartText:
			if t := strings.TrimSpace(p.Text); t == "" || t == strings.TrimSpace(b.turn.Prompt) {
				continue
			}
			b.add(Item{Kind: KindContext, ID: fmt.Sprintf("msg-%d-%d", i, j), Index: i, Role: m.Role, Time: m.Time, Text: p.Text})
		}
	}
}

// result puts a tool result on its call, or shows it alone when the
// call is not in the range.
func (b *builder) result(i, j int, m snapshot.Message, p snapshot.Part) {
	at := partKey{i, j}
	if b.outline {
		if call, ok := b.calls[p.CallID]; ok && p.CallID != "" {
			b.plan.attach[at] = call.at
			b.plan.results[call.at] = append(b.plan.results[call.at], at)
			return
		}
	} else if to, ok := b.plan.attach[at]; ok {
		if !b.done[at] {
			b.done[at] = true
			if call := b.live[to]; call != nil {
				call.attach(p)
			}
		}
		return
	}
	b.add(Item{Kind: KindResult, ID: fmt.Sprintf("msg-%d-%d", i, j), Index: i, Role: m.Role, Time: m.Time, Text: p.Text,
		Tool: &ToolCall{CallID: p.CallID, Result: p.Text, HasResult: true, Failed: p.IsError}})
}

// attach adds a result to the call.
func (c *ToolCall) attach(p snapshot.Part) {
	if c.HasResult {
		c.Result += "\n"
	}
	c.Result += p.Text
	c.HasResult = true
	c.Failed = c.Failed || p.IsError
}

// firstCall notes the first call of its tool in the thread being read,
// for toolsShown.
func (b *builder) firstCall(tool string, c *outlineCall) {
	if b.tools == nil {
		b.tools = map[[2]string]*outlineCall{}
	}
	k := [2]string{tool, b.thread}
	if b.tools[k] == nil {
		b.tools[k] = c
	}
}

// toolsShown lists the tools called, in the order the document first
// shows each: a subagent's calls where its thread is shown, under the
// call that ran it or where its first record is.
func (b *builder) toolsShown() []string {
	type shown struct {
		tool string
		key  [5]int
	}
	var all []shown
	for k, c := range b.tools {
		key := [5]int{c.turn, c.at.rec, c.at.part, -1, -1}
		if name := k[1]; name != "" {
			if at, ok := b.plan.nested[name]; ok {
				key = [5]int{b.plan.home[name], at.rec, at.part, c.at.rec, c.at.part}
			} else if recs := b.plan.threads[name]; len(recs) > 0 {
				key = [5]int{b.plan.home[name], recs[0], -1, c.at.rec, c.at.part}
			}
		}
		all = append(all, shown{k[0], key})
	}
	slices.SortFunc(all, func(x, y shown) int { return slices.Compare(x.key[:], y.key[:]) })
	var out []string
	for _, s := range all {
		if !slices.Contains(out, s.tool) {
			out = append(out, s.tool)
		}
	}
	return out
}

// nest puts each subagent under the tool call that ran it, when that
// call is in the range, instead of where its records first appeared
// (the outline decides; the second pass follows).
func (b *builder) nest() {
	running := map[*outlineCall]bool{} // the calls given a subagent
	for _, call := range slices.Sorted(maps.Keys(b.spawned)) {
		name := b.spawned[call]
		c, sa := b.calls[call], b.subs[name]
		if _, done := b.plan.nested[name]; c == nil || sa == nil || done || running[c] {
			continue
		}
		running[c] = true
		b.plan.nested[name], b.plan.home[name] = c.at, c.turn
	}
	for k := range b.out.Turns {
		t := &b.out.Turns[k]
		t.Items = slices.DeleteFunc(t.Items, func(it Item) bool {
			_, nested := b.plan.nested[it.Subagent.Name]
			return nested
		})
	}
	b.plan.turns = len(b.out.Turns)
}

// resolve completes the turn that ends before record i: the results of
// its calls and the records of the subagents it shows that come later
// are read now (and passed over at their place), and each subagent a
// call ran is put under it.
func (b *builder) resolve(i int) error {
	nestedBy := map[partKey]string{}
	for name, at := range b.plan.nested {
		nestedBy[at] = name
	}
	for more := true; more; {
		more = false
		for _, c := range callsIn(b.turn.Items) {
			if name, ok := nestedBy[c.at]; ok && c.Subagent == nil {
				c.Subagent, more = b.subagent(name), true
			}
			n, err := b.readResults(c, i)
			if err != nil {
				return err
			}
			more = more || n > 0
		}
		for _, sa := range subagentsIn(b.turn.Items) {
			n, err := b.readThread(sa, i)
			if err != nil {
				return err
			}
			more = more || n > 0
		}
	}
	return nil
}

// subagent is the thread of name, begun if none of its records came yet.
func (b *builder) subagent(name string) *Subagent {
	sa := b.subs[name]
	if sa == nil {
		sa = &Subagent{Name: name, ID: "subagent-" + name}
		b.subs[name] = sa
	}
	return sa
}

// readResults puts on c its results from record i on, read out of
// order; it returns how many.
func (b *builder) readResults(c *ToolCall, i int) (int, error) {
	n := 0
	for _, at := range b.plan.results[c.at] {
		if at.rec < i || b.done[at] {
			continue
		}
		rec, err := b.fetch(at.rec)
		if err != nil {
			return n, err
		}
		if parts := rec.Message.Parts; at.part < len(parts) {
			c.attach(parts[at.part])
		}
		b.done[at] = true
		n++
	}
	return n, nil
}

// readThread reads the records of sa's thread from record i on, out of
// order; it returns how many.
func (b *builder) readThread(sa *Subagent, i int) (int, error) {
	n := 0
	for _, r := range b.plan.threads[sa.Name] {
		if r < i || b.read[r] {
			continue
		}
		rec, err := b.fetch(r)
		if err != nil {
			return n, err
		}
		b.record(r, rec)
		b.read[r] = true
		n++
	}
	return n, nil
}

// forget lets go of what a turn given holds.
func (b *builder) forget(items []Item) {
	for _, c := range callsIn(items) {
		delete(b.live, c.at)
	}
	for _, sa := range subagentsIn(items) {
		delete(b.subs, sa.Name)
	}
}

// callsIn lists the tool calls of items, their subagents' included.
func callsIn(items []Item) []*ToolCall {
	var out []*ToolCall
	eachItem(items, func(it *Item) {
		if it.Kind == KindTool && it.Tool != nil {
			out = append(out, it.Tool)
		}
	})
	return out
}

// subagentsIn lists the subagents items show, under calls or alone.
func subagentsIn(items []Item) []*Subagent {
	var out []*Subagent
	eachItem(items, func(it *Item) {
		switch {
		case it.Subagent != nil:
			out = append(out, it.Subagent)
		case it.Tool != nil && it.Tool.Subagent != nil:
			out = append(out, it.Tool.Subagent)
		}
	})
	return out
}

// eachItem calls fn on each item and on the items of the subagents they
// hold, in order.
func eachItem(items []Item, fn func(*Item)) {
	for k := range items {
		it := &items[k]
		fn(it)
		switch {
		case it.Tool != nil && it.Tool.Subagent != nil:
			eachItem(it.Tool.Subagent.Items, fn)
		case it.Subagent != nil:
			eachItem(it.Subagent.Items, fn)
		}
	}
}

func firstText(m snapshot.Message) string {
	for _, p := range m.Parts {
		if p.Kind == snapshot.PartText {
			return p.Text
		}
	}
	return ""
}

// inputText shows a tool call's input: JSON indented, and a string that
// holds JSON (OpenAI's arguments) as that JSON.
func inputText(v any) string {
	if s, ok := v.(string); ok {
		parsed, err := snapshot.Parse([]byte(s), snapshot.Limits{})
		if _, isObj := parsed.(map[string]any); err != nil || !isObj {
			return s
		}
		v = parsed
	}
	if v == nil {
		return ""
	}
	out, err := snapshot.MarshalIndent(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return strings.TrimSuffix(string(out), "\n")
}

// filer finds each turn's files in order: those that changed between
// the last snapshot that holds no more than its prompt and the first
// that holds all its records. What the user changed between turns is
// left out where the hook recorded a snapshot at the prompt; where one
// snapshot holds several turns, the changes show on the first.
type filer struct {
	s     Store
	snaps []storage.Entry
	from  storage.ID
	done  storage.Entry // the end of the last diff shown
}

// restart is a filer for another reading from the first turn; nil for
// none.
func (f *filer) restart() *filer {
	if f == nil || len(f.snaps) == 0 {
		return nil
	}
	return &filer{s: f.s, snaps: f.snaps, from: f.from}
}

// of is the files of the next turn, whose records are start to end.
func (f *filer) of(ctx context.Context, start, end int) ([]snapshot.FileChange, error) {
	snaps := f.snaps
	base, cur := f.from, snaps[len(snaps)-1]
	for _, e := range snaps {
		if e.Header.Messages <= start+1 {
			base = e.ID
		}
	}
	for _, e := range snaps {
		if e.Header.Messages >= end {
			cur = e
			break
		}
	}
	if !f.done.ID.IsZero() && cur.Header.Seq <= f.done.Header.Seq || cur.ID == base || cur.Header.Messages <= start {
		return nil, nil
	}
	if !f.done.ID.IsZero() && (base.IsZero() || seqOf(snaps, base) < f.done.Header.Seq) {
		base = f.done.ID // what the turn before showed is not shown again
	}
	changes, err := fileChanges(ctx, f.s, base, cur.ID)
	if err != nil {
		return nil, err
	}
	f.done = cur
	return changes, nil
}

// seqOf is the place of snapshot id among snaps, 0 when it is not there
// (the range's start).
func seqOf(snaps []storage.Entry, id storage.ID) int {
	for _, e := range snaps {
		if e.ID == id {
			return e.Header.Seq
		}
	}
	return 0
}

// fileChanges diffs the captured files of two snapshots; a zero a is
// the empty session before the first.
func fileChanges(ctx context.Context, s Store, a, b storage.ID) ([]snapshot.FileChange, error) {
	if !a.IsZero() {
		d, err := s.Diff(ctx, a, b)
		if err != nil {
			return nil, err
		}
		return d.Files, nil
	}
	bDoc, _, err := s.ReadWithoutMessages(ctx, b)
	if err != nil {
		return nil, err
	}
	files, ok := bDoc[snapshot.MemberFiles]
	if !ok {
		return nil, nil
	}
	d, err := snapshot.Compare(map[string]any{}, map[string]any{snapshot.MemberFiles: files}, nil)
	if err != nil {
		return nil, fmt.Errorf("diff the files of %s: %w", b, err)
	}
	return d.Files, nil
}
