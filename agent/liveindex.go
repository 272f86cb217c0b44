package agent

// LiveIndex lists which of a document's n stored messages are live
// (see Session), in order, with the file each came from, reading only
// the document's other members (rest). ok is false when the records
// themselves say it (an agent whose transcript appends changes to
// records, Gemini CLI's JSONL chat): then read them all (LiveMessages).
func LiveIndex(rest map[string]any, n int) (index []int, thread []string, ok bool) {
	return FirstLiveIndex(rest, n, n)
}

// FirstLiveIndex is LiveIndex's first k entries (all, when fewer),
// listed without the others: the live runs are few, and a reader of a
// session's first records (its title) need not list 50,000 indexes to
// keep 256 of them (6 ms on every sessions page after a hook call).
func FirstLiveIndex(rest map[string]any, n, k int) (index []int, thread []string, ok bool) {
	if recordsSayLive(rest) {
		return nil, nil, false
	}
	// liveRuns reads only the members other than messages, and gives
	// no reducer here: recordsSayLive is the case it would.
	runs, _ := liveRuns(rest, n)
	size := 0
	for _, run := range runs {
		size += run.n
	}
	index, thread = make([]int, 0, min(size, k)), make([]string, 0, min(size, k))
	for _, run := range runs {
		for i := run.from; i < run.from+run.n && len(index) < k; i++ {
			index = append(index, i)
			thread = append(thread, run.thread)
		}
	}
	return index, thread, true
}

// recordsSayLive reports whether which records are live can only be read
// from the records themselves: an agent that reduces its records
// (liveReducer) with no document state and a transcript layout.
func recordsSayLive(rest map[string]any) bool {
	name, _ := rest["agent"].(string)
	if name == "" {
		return false
	}
	a, err := Lookup(name, Env{})
	if err != nil {
		return false
	}
	if _, reduces := a.(liveReducer); !reduces {
		return false
	}
	if _, state := docStateFrom(rest); state {
		return false
	}
	l, err := LayoutFrom(rest)
	return err == nil && len(l.Runs) > 0
}
