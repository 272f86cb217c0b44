package modelapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
)

// events writes server-sent events, flushing each so that the client
// reads it as it comes.
type events struct {
	w   http.ResponseWriter
	f   http.Flusher
	err error // the first write error; later sends do nothing
}

func newEvents(w http.ResponseWriter) (*events, error) {
	f, ok := w.(http.Flusher)
	if !ok {
		return nil, errors.New("the response cannot be streamed")
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	return &events{w: w, f: f}, nil
}

// send writes one event named name (none when "") with v as its data.
func (e *events) send(name string, v any) {
	if e.err != nil {
		return
	}
	data, err := json.Marshal(v)
	if err != nil {
		e.err = err
		return
	}
	if name != "" {
		_, e.err = fmt.Fprintf(e.w, "event: %s\n", name)
	}
	if e.err == nil {
		_, e.err = fmt.Fprintf(e.w, "data: %s\n\n", data)
	}
	e.f.Flush()
}

func writeJSON(w http.ResponseWriter, status int, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, err = w.Write(data)
	return err
}
