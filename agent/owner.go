package agent

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/git-snap/git-snap/snapshot"
)

// payloadChecker is a HookReader whose payloads say themselves whether
// they are its agent's: Claude Code's always name the transcript, so a
// payload that names none is another program's that runs Claude Code's
// hooks (Continue's cn does).
type payloadChecker interface {
	CheckPayload(p Payload) error
}

// ForeignError is a hook call refused because it is not its agent's:
// nothing is recorded, and the error says what was found.
type ForeignError struct{ Msg string }

// Error says what the call was found to be.
func (e *ForeignError) Error() string { return e.Msg }

// headBytes is how much of a transcript's start Owner reads: enough for
// its first records, cheap beside a hook call.
const headBytes = 64 << 10

// Owner checks that a hook call's payload and the transcript it names are
// a's agent's. A transcript another agent git-snap knows wrote (a Qwen
// Code chat named to Claude Code's hook, since Qwen Code's hooks are
// Claude Code's) gives that agent and the payload as it reads it, with a
// note saying so, to record the call as that agent's. A payload or
// transcript of no agent git-snap knows is a *ForeignError. A transcript
// not yet written, or too short to tell, is taken as a's.
func Owner(a Adapter, p Payload, env Env) (Adapter, Payload, string, error) {
	if c, ok := a.(payloadChecker); ok {
		if err := c.CheckPayload(p); err != nil {
			return nil, p, "", err
		}
	}
	if p.TranscriptPath == "" || IsDocumentFile(a, p.TranscriptPath) {
		return a, p, "", nil
	}
	first := headRecords(p.TranscriptPath)
	if len(first) == 0 || a.Check(first) == nil {
		return a, p, "", nil
	}
	for _, other := range Adapters(env) {
		if other.Name() == a.Name() || IsDocumentFile(other, p.TranscriptPath) || other.Check(first) != nil {
			continue
		}
		title := registry[other.Name()].Info.Title
		stdin, err := json.Marshal(p.Raw)
		if err != nil {
			return nil, p, "", err
		}
		q, err := other.Decode(stdin, nil)
		if err != nil {
			return nil, p, "", &ForeignError{Msg: fmt.Sprintf("the transcript %s is %s's, not %s's, and the payload is not one of %s's (%v): nothing recorded", p.TranscriptPath, title, registry[a.Name()].Info.Title, title, err)}
		}
		return other, q, fmt.Sprintf("the transcript %s is %s's, not %s's: recorded as %s", p.TranscriptPath, title, registry[a.Name()].Info.Title, other.Name()), nil
	}
	if len(first) < 3 {
		return a, p, "", nil // too little to tell: the agent may be writing its first lines
	}
	return nil, p, "", &ForeignError{Msg: fmt.Sprintf("the transcript %s is not %s's (%v), nor any agent's git-snap knows: nothing recorded", p.TranscriptPath, registry[a.Name()].Info.Title, a.Check(first))}
}

// headRecords are the records of the complete lines in a transcript's
// first headBytes; none when it cannot be read.
func headRecords(path string) []any {
	f, err := OpenRegular(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	buf := make([]byte, headBytes)
	n, _ := f.Read(buf)
	var out []any
	for rest := buf[:n]; ; {
		i := bytes.IndexByte(rest, '\n')
		if i < 0 {
			break
		}
		if line := rest[:i]; len(line) > 0 {
			out = append(out, Element(line, snapshot.Limits{}))
		}
		rest = rest[i+1:]
	}
	return out
}

// CheckPayload implements payloadChecker: Claude Code names the
// session's transcript in every payload; one that names none comes from
// another program that runs Claude Code's hooks (Continue's cn sends its
// own session id and an empty transcript_path).
func (ClaudeCode) CheckPayload(p Payload) error {
	if p.TranscriptPath != "" {
		return nil
	}
	if _, ok := p.Raw["transcript_path"]; !ok && p.Event == "SessionStart" {
		return nil // an older Claude Code's first call
	}
	return &ForeignError{Msg: fmt.Sprintf("the payload of session %s names no transcript, which Claude Code's always do: it comes from another program that runs Claude Code's hooks (Continue's cn does); nothing recorded", p.SessionID)}
}
