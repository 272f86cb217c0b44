package mcpserver

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// maxLine is the longest message a client may send. It matches the
// SDK's own limit (mcp.DefaultMaxLineLength).
const maxLine = 16 << 20

// lockedWriter serialises writes. The SDK and guard each write one
// message per call, so their lines never interleave. It also tracks the
// ids of requests passed on but not yet answered, so that when the input
// ends the outstanding answers are written before the connection closes.
type lockedWriter struct {
	mu      sync.Mutex
	w       io.Writer
	pending map[string]bool // ids of requests not answered yet
	done    *sync.Cond      // signalled when an answer is written
}

func newLockedWriter(w io.Writer) *lockedWriter {
	l := &lockedWriter{w: w, pending: map[string]bool{}}
	l.done = sync.NewCond(&l.mu)
	return l
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	n, err := l.w.Write(p)
	for _, id := range responseIDs(p) {
		delete(l.pending, id)
	}
	l.done.Broadcast()
	return n, err
}

// Close leaves the writer open: it is the process's stdout.
func (l *lockedWriter) Close() error { return nil }

// sent records the ids of the requests in a line passed on to the server.
func (l *lockedWriter) sent(line []byte) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, m := range messages(line) {
		if m.Method != "" && len(m.ID) > 0 && string(m.ID) != "null" {
			l.pending[string(m.ID)] = true
		}
	}
}

// drain waits until every request passed on is answered, or stop is
// closed.
func (l *lockedWriter) drain(stop <-chan struct{}) {
	go func() {
		<-stop
		l.mu.Lock()
		l.done.Broadcast()
		l.mu.Unlock()
	}()
	l.mu.Lock()
	defer l.mu.Unlock()
	for len(l.pending) > 0 {
		select {
		case <-stop:
			return
		default:
		}
		l.done.Wait()
	}
}

// message holds the fields of a JSON-RPC message that guard looks at.
type message struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
}

// messages decodes a line as one message or a batch of them.
func messages(line []byte) []message {
	var batch []message
	if json.Unmarshal(line, &batch) == nil {
		return batch
	}
	var m message
	if json.Unmarshal(line, &m) == nil {
		return []message{m}
	}
	return nil
}

// responseIDs returns the ids of the responses in a line the server wrote.
func responseIDs(p []byte) []string {
	var ids []string
	for _, line := range bytes.Split(p, []byte("\n")) {
		for _, m := range messages(line) {
			if m.Method == "" && len(m.ID) > 0 {
				ids = append(ids, string(m.ID))
			}
		}
	}
	return ids
}

// guard reads the client's messages, one per line, and passes on to the
// SDK only those it can decode. The SDK's stdio connection ends at the
// first line it cannot read, so guard answers such a line itself, with
// JSON-RPC's parse error (-32700) or invalid request (-32600) and the
// request's id when it has one, and keeps reading. That way a bad
// request never stops the server. When the input ends, guard waits for
// the outstanding answers before it ends the connection, or until stop
// is closed, so that a client that writes its requests and then closes
// its end (as a shell pipe does) still gets them all.
func guard(r io.Reader, w *lockedWriter, stop <-chan struct{}) io.ReadCloser {
	pr, pw := io.Pipe()
	go func() {
		br := bufio.NewReaderSize(r, 64<<10)
		for {
			line, tooLong, err := readLine(br)
			if len(bytes.TrimSpace(line)) > 0 || tooLong {
				if reply := check(line, tooLong); reply != nil {
					if _, werr := w.Write(reply); werr != nil {
						pw.CloseWithError(werr)
						return
					}
				} else {
					w.sent(line)
					if _, werr := pw.Write(append(line, '\n')); werr != nil {
						return // the server stopped reading
					}
				}
			}
			if err != nil {
				if errors.Is(err, io.EOF) {
					err = nil
					w.drain(stop)
				}
				pw.CloseWithError(err)
				return
			}
		}
	}()
	return pr
}

// readLine reads one line without its newline; a line longer than
// maxLine is read to its end and dropped, and reported as too long.
func readLine(br *bufio.Reader) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := br.ReadSlice('\n')
		if !tooLong {
			if len(line)+len(chunk) > maxLine {
				tooLong, line = true, nil
			} else {
				line = append(line, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return bytes.TrimRight(line, "\r\n"), tooLong, err
	}
}

// check returns the error reply to a line the SDK cannot read, or nil if
// the SDK can read it.
func check(line []byte, tooLong bool) []byte {
	if tooLong {
		return reply(nil, jsonrpc.CodeParseError, fmt.Sprintf("the message is longer than %d bytes; nothing was done", maxLine))
	}
	if !json.Valid(line) {
		return reply(nil, jsonrpc.CodeParseError, "not JSON: send one JSON-RPC 2.0 message per line")
	}
	var batch []json.RawMessage
	if json.Unmarshal(line, &batch) == nil {
		return batchReply(batch)
	}
	if _, err := jsonrpc.DecodeMessage(line); err != nil {
		var req struct {
			ID json.RawMessage `json:"id"`
		}
		_ = json.Unmarshal(line, &req)
		return reply(req.ID, jsonrpc.CodeInvalidRequest, "not a JSON-RPC 2.0 request, notification or response: "+err.Error())
	}
	return nil
}

// maxBatch limits the number of answers to one batch. A 16 MiB line can
// hold a million tiny requests, and refusing each would take ten times
// that size.
const maxBatch = 100

// batchReply refuses a batch. MCP dropped batches in version 2025-06-18,
// and the SDK's connection would end at one. Each request in the batch
// gets an error with its id, in one array, as JSON-RPC answers a batch.
// A batch with no readable request gets a single error.
func batchReply(batch []json.RawMessage) []byte {
	const msg = "batches are not supported: send one JSON-RPC 2.0 message per line"
	if len(batch) > maxBatch {
		return reply(nil, jsonrpc.CodeInvalidRequest, fmt.Sprintf("a batch of %d messages: %s", len(batch), msg))
	}
	var out []json.RawMessage
	for _, m := range batch {
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(m, &req) == nil && req.Method != "" && len(req.ID) > 0 && validID(req.ID) {
			out = append(out, bytes.TrimSuffix(reply(req.ID, jsonrpc.CodeInvalidRequest, msg), []byte("\n")))
		}
	}
	if len(out) == 0 {
		return reply(nil, jsonrpc.CodeInvalidRequest, msg)
	}
	data, _ := json.Marshal(out)
	return append(data, '\n')
}

// reply returns a JSON-RPC error response as one line. The id is null
// when the request's id cannot be read.
func reply(id json.RawMessage, code int64, msg string) []byte {
	if len(id) == 0 || !validID(id) {
		id = json.RawMessage("null")
	}
	out, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   struct {
			Code    int64  `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}{JSONRPC: "2.0", ID: id, Error: struct {
		Code    int64  `json:"code"`
		Message string `json:"message"`
	}{code, msg}})
	return append(out, '\n')
}

// validID reports whether id is one JSON-RPC allows: a string or a number.
func validID(id json.RawMessage) bool {
	var v any
	if json.Unmarshal(id, &v) != nil {
		return false
	}
	switch v.(type) {
	case string, float64:
		return true
	}
	return false
}
