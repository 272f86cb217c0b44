package report

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/git-snap/git-snap/agent"
	"github.com/git-snap/git-snap/gitstore"
	"github.com/git-snap/git-snap/snapshot"
)

// builder reads a session's records into turns, with the generic
// message views of package agent (no agent format is parsed here).
type builder struct {
	out   *Session
	a     agent.Adapter // nil for a session a harness recorded
	msgs  []any
	start int
	marks map[int][]string
	calls map[string]*ToolCall // by call id, to attach results
	turn  Turn
	n     int // prompts so far
	// prompted says a prompt began the current turn.
	prompted bool
	spans    [][2]int // per turn in out.Turns: the index of its first record and the one after its last
	first    int      // the index of the current turn's first record
	// threads reads which subagent a record is of (nil: the agent runs
	// none); subs are the subagents met, spawned the tool calls that
	// ran them (call id → name).
	threads agent.Threads
	subs    map[string]*Subagent
	spawned map[string]string
}

func newBuilder(out *Session, source string, msgs []any, start int, marks map[int][]string) *builder {
	a, _ := agent.Lookup(source, agent.Env{})
	threads, _ := a.(agent.Threads)
	return &builder{out: out, a: a, msgs: msgs, start: start, marks: marks, calls: map[string]*ToolCall{},
		threads: threads, subs: map[string]*Subagent{}, spawned: map[string]string{}}
}

// build reads the records from start on. A range that starts inside a
// turn continues that turn's number, with no prompt of its own.
func (b *builder) build() {
	for _, raw := range b.msgs[:b.start] {
		if b.isPrompt(raw, agent.ViewMessage(raw)) {
			b.n++
		}
	}
	b.turn = Turn{N: b.n, ID: fmt.Sprintf("turn-%d", b.n), Continued: b.n > 0}
	b.first = b.start
	models := map[string]bool{}
	for i := b.start; i < len(b.msgs); i++ {
		b.mark(i)
		m := agent.ViewMessage(b.msgs[i])
		if m.Model != "" && !strings.HasPrefix(m.Model, "<") { // "<synthetic>": written by the harness, not a model
			models[m.Model] = true
		}
		b.record(i, b.msgs[i], m)
	}
	b.mark(len(b.msgs))
	b.close(len(b.msgs))
	b.nest()
	for m := range models {
		b.out.Models = append(b.out.Models, m)
	}
	sort.Strings(b.out.Models)
}

// mark adds the checkpoints taken when the session held i records.
func (b *builder) mark(i int) {
	for _, name := range b.marks[i] {
		b.add(Item{Kind: KindCheckpoint, ID: fmt.Sprintf("checkpoint-%s", name), Index: i, Text: name})
	}
}

func (b *builder) add(it Item) { b.turn.Items = append(b.turn.Items, it) }

// close ends the current turn before record i. A turn no prompt began
// (turn 0, or the turn a range starts inside) is left out when nothing
// happened in it.
func (b *builder) close(i int) {
	if !b.prompted && len(b.turn.Items) == 0 {
		return
	}
	b.turn.Start, b.turn.End = b.first, i
	b.out.Turns = append(b.out.Turns, b.turn)
	b.spans = append(b.spans, [2]int{b.first, i})
}

// record reads record i into the main thread's turn or its subagent's
// thread.
func (b *builder) record(i int, raw any, m snapshot.Message) {
	if b.threads == nil {
		b.message(i, raw, m)
		return
	}
	if call, name := b.threads.Spawned(raw); name != "" {
		b.spawned[call] = name
	}
	name := b.threads.Thread(raw)
	if name == "" {
		b.message(i, raw, m)
		return
	}
	sa := b.subs[name]
	if sa == nil {
		// Shown where it first appears unless a tool call ran it (nest).
		sa = &Subagent{Name: name, ID: "subagent-" + name}
		b.subs[name] = sa
		b.add(Item{Kind: KindSubagent, ID: sa.ID, Index: i, Role: m.Role, Time: m.Time, Subagent: sa})
	}
	sa.Records = append(sa.Records, i)
	main := b.turn.Items
	b.turn.Items = sa.Items
	if b.isPrompt(raw, m) || b.isCompaction(raw) { // within a thread, the task it was given
		b.input(i, m)
	} else {
		b.message(i, raw, m)
	}
	sa.Items, b.turn.Items = b.turn.Items, main
}

// nest puts each subagent under the tool call that ran it, when that
// call is in the range, instead of where its records first appeared.
func (b *builder) nest() {
	started := map[*Subagent]bool{}
	for call, name := range b.spawned {
		if c, sa := b.calls[call], b.subs[name]; c != nil && sa != nil && c.Subagent == nil {
			c.Subagent, started[sa] = sa, true
		}
	}
	if len(started) == 0 {
		return
	}
	for k := range b.out.Turns {
		t := &b.out.Turns[k]
		t.Items = slices.DeleteFunc(t.Items, func(it Item) bool { return it.Kind == KindSubagent && started[it.Subagent] })
	}
}

func (b *builder) message(i int, raw any, m snapshot.Message) {
	switch {
	case b.isPrompt(raw, m):
		b.close(i)
		b.n++
		b.turn = Turn{N: b.n, ID: fmt.Sprintf("turn-%d", b.n), Time: m.Time, Prompt: firstText(m)}
		b.prompted, b.first = true, i
	case b.isCompaction(raw):
		b.add(Item{Kind: KindCompaction, ID: fmt.Sprintf("msg-%d", i), Index: i, Role: m.Role, Time: m.Time, Text: firstText(m)})
	case !agent.IsConversation(raw): // the rule show and diff read too
		b.out.Other[agent.RecordKind(raw)]++
	case (m.Role == "assistant" || m.Role == "model") && len(m.Parts) == 0:
		// a model call's usage alone (a subagent's response its parent's
		// transcript mirrors): nothing to show, counted as what it is
		rec, _ := raw.(map[string]any)
		kind, _ := rec["type"].(string)
		b.out.Other[cmp.Or(kind, m.Role)]++
	case m.Role == "assistant" || m.Role == "model":
		b.answer(i, m)
	default: // user, tool, human, system, developer: input, and preambles folded as context
		b.input(i, m)
	}
}

func (b *builder) isPrompt(raw any, m snapshot.Message) bool {
	if b.a != nil {
		return b.a.IsPrompt(raw)
	}
	return m.Role == "user" && len(m.Parts) > 0 && m.Parts[0].Kind == snapshot.PartText
}

func (b *builder) isCompaction(raw any) bool {
	if b.a != nil {
		return b.a.IsCompaction(raw)
	}
	for _, a := range agent.Adapters(agent.Env{}) {
		if a.IsCompaction(raw) {
			return true
		}
	}
	return false
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
			call := &ToolCall{Name: p.Tool, CallID: p.CallID, Input: inputText(p.Input), Summary: inputSummary(p.Input), Diff: inputDiff(p.Input)}
			if p.CallID != "" {
				b.calls[p.CallID] = call
			}
			b.add(Item{Kind: KindTool, ID: fmt.Sprintf("tool-%d-%d", i, j), Index: i, Role: m.Role, Time: m.Time, Tool: call})
		case snapshot.PartToolResult:
			b.result(i, j, m, p)
		}
	}
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
	if call, ok := b.calls[p.CallID]; ok && p.CallID != "" {
		if call.HasResult {
			call.Result += "\n"
		}
		call.Result += p.Text
		call.HasResult = true
		call.Failed = call.Failed || p.IsError
		return
	}
	b.add(Item{Kind: KindResult, ID: fmt.Sprintf("msg-%d-%d", i, j), Index: i, Role: m.Role, Time: m.Time, Text: p.Text,
		Tool: &ToolCall{CallID: p.CallID, Result: p.Text, HasResult: true, Failed: p.IsError}})
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

// turnFiles puts on each turn the files that changed between the last
// snapshot that holds no more than its prompt and the first that holds
// all its records: what the user changed between turns is left out where
// the hook recorded a snapshot at the prompt. Where one snapshot holds
// several turns, the changes show on the first.
func turnFiles(ctx context.Context, s gitstore.Snapshots, out *Session, spans [][2]int, snaps []gitstore.Entry, from plumbing.Hash, tipDoc map[string]any) error {
	if len(snaps) == 0 {
		return nil
	}
	var done gitstore.Entry // the end of the last diff shown
	for k := range out.Turns {
		base, cur := from, snaps[len(snaps)-1]
		for _, e := range snaps {
			if e.Header.Messages <= spans[k][0]+1 {
				base = e.ID
			}
		}
		for _, e := range snaps {
			if e.Header.Messages >= spans[k][1] {
				cur = e
				break
			}
		}
		if !done.ID.IsZero() && cur.Header.Seq <= done.Header.Seq || cur.ID == base || cur.Header.Messages <= spans[k][0] {
			continue
		}
		if !done.ID.IsZero() && (base.IsZero() || seqOf(snaps, base) < done.Header.Seq) {
			base = done.ID // what the turn before showed is not shown again
		}
		var doc map[string]any // cur's document, when it is at hand
		if cur.ID == snaps[len(snaps)-1].ID {
			doc = tipDoc
		}
		changes, err := fileChanges(ctx, s, base, cur.ID, doc)
		if err != nil {
			return err
		}
		out.Turns[k].Files, done = changes, cur
	}
	return nil
}

// seqOf is the place of snapshot id among snaps, 0 when it is not there
// (the range's start).
func seqOf(snaps []gitstore.Entry, id plumbing.Hash) int {
	for _, e := range snaps {
		if e.ID == id {
			return e.Header.Seq
		}
	}
	return 0
}

// fileChanges diffs the captured files of two snapshots; a zero a is
// the empty session before the first. bDoc is b's document when the
// caller has read it already (nil: read it).
func fileChanges(ctx context.Context, s gitstore.Snapshots, a, b plumbing.Hash, bDoc map[string]any) ([]snapshot.FileChange, error) {
	if !a.IsZero() {
		d, err := s.Diff(ctx, a, b)
		if err != nil {
			return nil, err
		}
		return d.Files, nil
	}
	if bDoc == nil {
		var err error
		if bDoc, _, err = s.Read(ctx, b); err != nil {
			return nil, err
		}
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
