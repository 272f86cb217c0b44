package agent

// Threads is a RecordReader whose agent runs subagents: their records
// come into the session beside the main thread's (Claude Code's Task
// tool), and a tool result of the main thread says which subagent the
// call ran. Package report nests a subagent's thread under that call.
type Threads interface {
	// Thread names the subagent whose thread a record is part of; "" for
	// the main thread.
	Thread(record any) string
	// Spawned reads a record that reports a subagent's work as a tool's
	// result: the call's id and the subagent's name, "" when it is not
	// one.
	Spawned(record any) (callID, thread string)
}
