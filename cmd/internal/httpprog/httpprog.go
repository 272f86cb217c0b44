// Package httpprog is what git-snap-http runs of git-snap's commands:
// the parts that speak HTTP, whose client, server and OTLP types
// git-snap does not link (docs/design.md §7): export --format otel
// (OTLP), replay --serve (the model APIs) and prices update's download.
package httpprog

import (
	"context"
	"io"
	"net/http"
	"time"

	"github.com/git-snap/git-snap/cmd/internal/programs"
)

// Get is programs.Set's Get: the body of url when its server answers
// 200 OK (else a *programs.StatusError), read within a minute.
func Get(ctx context.Context, url string) (io.ReadCloser, error) {
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		cancel()
		return nil, &BadURLError{err}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		cancel()
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		cancel()
		return nil, &programs.StatusError{URL: url, Status: resp.Status}
	}
	return body{resp.Body, cancel}, nil
}

// BadURLError is a URL no request can be made of.
type BadURLError struct{ Err error }

// Error is the request's error.
func (e *BadURLError) Error() string { return e.Err.Error() }

// UserError marks the URL as the user's to correct.
func (e *BadURLError) UserError() {}

// body is a response's body whose close ends its deadline.
type body struct {
	io.ReadCloser
	cancel context.CancelFunc
}

func (b body) Close() error {
	err := b.ReadCloser.Close()
	b.cancel()
	return err
}
