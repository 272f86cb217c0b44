//go:build unix

package main

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// memSaveMessages is the number of messages of the save memory rows'
// document: with saveDocLine's records, about 20 MB, the largest
// document issue 31 found save over its budget with (168 MiB).
const memSaveMessages = 50000

// saveMemoryRows are the peak resident memory of git snap save of a
// document of memSaveMessages messages into a fresh repository, and of
// the next save, of the same document with a message more, on the tip
// the first one wrote.
func (b *bench) saveMemoryRows() ([]row, error) {
	dir := filepath.Join(b.work, "memory-save")
	if err := b.newRepo(dir); err != nil {
		return nil, err
	}
	var rows []row
	for _, n := range []int{memSaveMessages, memSaveMessages + 1} {
		doc := filepath.Join(b.work, fmt.Sprintf("save-%d.json", n))
		size, err := writeSaveDocument(doc, n)
		if err != nil {
			return nil, err
		}
		peak, d, err := b.peakRSS(dir, b.bin, "save", "--session", "doc", "--no-code", doc)
		if err != nil {
			return nil, err
		}
		what := fmt.Sprintf("peak memory: git snap save of a %.1f MB document of %d messages into a fresh repository", float64(size)/1e6, n)
		if n > memSaveMessages {
			what = fmt.Sprintf("peak memory: the next git snap save, the same document with one message more (%d)", n)
		}
		rows = append(rows, memRow(what, peak, fmt.Sprintf("/usr/bin/time -v; %.1f s", d.Seconds())))
	}
	return rows, nil
}

// writeSaveDocument writes a snapshot document of n messages to path,
// a Claude Code record each, and returns its size.
func writeSaveDocument(path string, n int) (int64, error) {
	f, err := os.Create(path)
	if err != nil {
		return 0, err
	}
	w := bufio.NewWriter(f)
	_, _ = w.WriteString(`{"agent":"claude-code","messages":[`) // a failed write is Flush's error
	for i := range n {
		if i > 0 {
			_ = w.WriteByte(',')
		}
		_, _ = w.Write(saveDocLine(i))
	}
	_, _ = w.WriteString("]}\n")
	if err := w.Flush(); err != nil {
		f.Close()
		return 0, err
	}
	if err := f.Close(); err != nil {
		return 0, err
	}
	return fileSize(path), nil
}

// saveDocLine is claudeLine's record i with the metadata every record
// of a real session carries, some of them (about 400 bytes).
func saveDocLine(i int) []byte {
	meta := fmt.Sprintf(`{"parentUuid":"u%d","cwd":"/home/dev/projects/parser","version":"2.1.39",`, i-1)
	line := claudeLine("doc", i)
	return append([]byte(meta), strings.TrimPrefix(string(line), "{")...)
}
