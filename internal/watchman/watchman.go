// Package watchman asks a running watchman server which files changed,
// through its socket, as git's fsmonitor hook (version 2) does: one
// connection, JSON requests and answers a line each, and no watchman
// process started per question. It never starts the server: where none
// runs, Dial fails and the caller looks at the files itself.
package watchman

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
)

// Client is a connection to a watchman server.
type Client struct {
	conn io.ReadWriteCloser
	r    *bufio.Reader
}

// ErrNoServer means no watchman server answers at the socket.
var ErrNoServer = errors.New("no watchman server answers")

// Dial connects to the server listening at sock (its unix socket, or
// its named pipe on Windows). The context bounds every request made on
// the connection afterwards, too.
func Dial(ctx context.Context, sock string) (*Client, error) {
	if sock == "" {
		return nil, ErrNoServer
	}
	conn, err := dial(sock)
	if err != nil {
		return nil, fmt.Errorf("%w at %s: %v", ErrNoServer, sock, err)
	}
	if d, ok := ctx.Deadline(); ok {
		setDeadline(conn, d)
	}
	return &Client{conn: conn, r: bufio.NewReaderSize(conn, 64<<10)}, nil
}

// Close closes the connection.
func (c *Client) Close() error { return c.conn.Close() }

// maxAnswer bounds one answer: a question about a few hundred files
// needs a fraction of it, and a server gone wrong must not fill memory.
const maxAnswer = 64 << 20

// call sends a request and decodes its answer into out. Answers the
// server sends unasked (a log line, a subscription) are passed over.
func (c *Client) call(out any, req ...any) error {
	b, err := json.Marshal(req)
	if err != nil {
		return err
	}
	if _, err := c.conn.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("watchman %v: %w", req[0], err)
	}
	for {
		line, err := readLine(c.r, maxAnswer)
		if err != nil {
			return fmt.Errorf("watchman %v: %w", req[0], err)
		}
		var head struct {
			Error        string `json:"error"`
			Unilateral   bool   `json:"unilateral"`
			Log          string `json:"log"`
			Subscription string `json:"subscription"`
		}
		if err := json.Unmarshal(line, &head); err != nil {
			return fmt.Errorf("watchman %v: an answer that is not JSON: %w", req[0], err)
		}
		if head.Unilateral || head.Log != "" || head.Subscription != "" {
			continue
		}
		if head.Error != "" {
			return fmt.Errorf("watchman %v: %s", req[0], head.Error)
		}
		return json.Unmarshal(line, out)
	}
}

// readLine reads one newline-terminated line of at most max bytes.
func readLine(r *bufio.Reader, max int) ([]byte, error) {
	var out []byte
	for {
		part, err := r.ReadSlice('\n')
		out = append(out, part...)
		switch {
		case err == nil:
			return out, nil
		case !errors.Is(err, bufio.ErrBufferFull):
			return nil, err
		case len(out) > max:
			return nil, fmt.Errorf("an answer of more than %d bytes", max)
		}
	}
}

// Watch is a directory the server watches, and where a work tree lies
// in it: watchman watches a project's root once for all the trees in it.
type Watch struct {
	Root     string // what the server watches
	Relative string // the work tree within Root; "" when it is Root
}

// WatchProject asks the server to watch the project dir is in (it does
// nothing when it already does) and says where.
func (c *Client) WatchProject(dir string) (Watch, error) {
	var out struct {
		Watch    string `json:"watch"`
		Relative string `json:"relative_path"`
	}
	if err := c.call(&out, "watch-project", dir); err != nil {
		return Watch{}, err
	}
	return Watch{Root: out.Watch, Relative: out.Relative}, nil
}

// Clock is the server's clock for w now, once every change made before
// the call is known to it (watchman syncs through a cookie file).
func (c *Client) Clock(w Watch, sync time.Duration) (string, error) {
	var out struct {
		Clock string `json:"clock"`
	}
	if err := c.call(&out, "clock", w.Root, map[string]any{"sync_timeout": sync.Milliseconds()}); err != nil {
		return "", err
	}
	return out.Clock, nil
}

// Changes are the files changed since a clock.
type Changes struct {
	// Paths are the changed files and directories, relative to the
	// work tree, slash-separated, existing or not; git's own directory
	// is left out.
	Paths []string
	// Clock is the clock to ask from next time.
	Clock string
	// Fresh says the server cannot tell: it restarted, or the clock is
	// of another server or watch. Paths is empty then.
	Fresh bool
}

// Since lists what changed in w since clock, once every change made
// before the call is known to the server.
func (c *Client) Since(w Watch, clock string, sync time.Duration) (Changes, error) {
	q := map[string]any{
		"since":                   clock,
		"fields":                  []string{"name"},
		"expression":              []any{"not", []any{"anyof", []any{"dirname", ".git"}, []any{"name", ".git"}}},
		"empty_on_fresh_instance": true,
		"sync_timeout":            sync.Milliseconds(),
	}
	if w.Relative != "" {
		q["relative_root"] = w.Relative
	}
	var out struct {
		Files []string `json:"files"`
		Clock string   `json:"clock"`
		Fresh bool     `json:"is_fresh_instance"`
	}
	if err := c.call(&out, "query", w.Root, q); err != nil {
		return Changes{}, err
	}
	return Changes{Paths: out.Files, Clock: out.Clock, Fresh: out.Fresh}, nil
}

// Watched reports whether the server watches dir or a directory it is in.
func (c *Client) Watched(dir string) (bool, error) {
	var out struct {
		Roots []string `json:"roots"`
	}
	if err := c.call(&out, "watch-list"); err != nil {
		return false, err
	}
	for _, r := range out.Roots {
		if dir == r || strings.HasPrefix(dir, strings.TrimSuffix(r, "/")+"/") {
			return true, nil
		}
	}
	return false, nil
}
