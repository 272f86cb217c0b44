package agent

import "github.com/git-snap/git-snap/snapshot"

// turnState is what counting turns keeps of one thread (one file of the
// session: the main transcript, a subagent's) from one record to the
// next. Threads keep their own, so that the order in which they are read
// (stored, or merged by time for a timeline) changes no count.
type turnState struct {
	command bool // a slash command the model has not answered yet
	open    bool // a prompt no model call has answered yet
	// prompt and kind are that prompt's text and record kind, hashed:
	// they are only compared.
	prompt, kind uint64
}

// turnStep is what one record is to the turns.
type turnStep uint8

const (
	notTurn         turnStep = iota
	stepCommand              // a slash command: a turn once the model answers it
	stepPrompt               // a prompt: a turn
	stepPromptAgain          // the open prompt written again in a record of another kind
	stepCompaction           // the conversation compacted
	stepMirror               // a subagent's response mirrored into its parent's thread
	stepAnswer               // the model's answer, with its tool calls
	stepInput                // input that is no answer: a pending command is no turn
)

// turnReader reads records as prompts and commands the way the agent
// that recorded them does (nil: a harness, whose prompts are its user
// text messages).
type turnReader struct {
	a    Adapter
	cmds commandReader
}

func newTurnReader(a Adapter) turnReader {
	r := turnReader{a: a}
	r.cmds, _ = a.(commandReader)
	return r
}

func (r turnReader) isPrompt(raw any, m snapshot.Message) bool {
	if r.a != nil {
		return r.a.IsPrompt(raw)
	}
	return m.Role == "user" && len(m.Parts) > 0 && m.Parts[0].Kind == snapshot.PartText
}

// step reads one record of the thread. answered says the record answers
// a pending slash command, which is then a turn: a response with
// something in it (a mirrored one, with nothing, answers nothing).
func (st *turnState) step(r turnReader, raw any, m snapshot.Message) (s turnStep, answered bool) {
	response := m.Role == "assistant" || m.Role == "model"
	if response && len(m.Parts) > 0 {
		answered = st.command
		st.command, st.open = false, false
	}
	switch {
	case r.cmds != nil && r.cmds.IsCommand(raw):
		st.command = true
		return stepCommand, answered
	case r.isPrompt(raw, m):
		text, kind := hashString(promptText(m)), hashString(recordKind(raw))
		if st.open && text == st.prompt && kind != st.kind {
			return stepPromptAgain, answered // written twice
		}
		st.command, st.prompt, st.kind, st.open = false, text, kind, true
		return stepPrompt, answered
	case isCompaction(raw):
		return stepCompaction, answered
	case response && len(m.Parts) == 0:
		return stepMirror, answered
	case response:
		return stepAnswer, answered
	case r.cmds != nil && r.cmds.IsInput(raw):
		st.command = false
		return stepInput, answered
	}
	return notTurn, answered
}

// hashString is a 64-bit FNV-1a hash: what a count keeps of a text or an
// id it only compares.
func hashString(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}
