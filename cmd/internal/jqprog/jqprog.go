// Package jqprog is --jq as git-snap-jq runs it: a jq expression,
// compiled and run by gojq, the Go jq. git-snap does not link gojq,
// whose package init builds the table of jq's built-in functions on
// every start (docs/design.md §7).
package jqprog

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/itchyny/gojq"

	"github.com/git-snap/git-snap/cmd/internal/programs"
)

// Compile compiles a jq expression (programs.Set's JQ).
func Compile(expr string) (programs.Filter, error) {
	q, err := gojq.Parse(expr)
	if err != nil {
		return nil, err
	}
	code, err := gojq.Compile(q)
	if err != nil {
		return nil, err
	}
	return filter{code}, nil
}

type filter struct{ code *gojq.Code }

// ExprError is an error the expression gave for the value it ran on.
type ExprError struct{ Err error }

// Error is the jq error's.
func (e *ExprError) Error() string { return e.Err.Error() }

// UserError marks the error as the user's: the expression is wrong for
// the output.
func (e *ExprError) UserError() {}

// Run writes each value the expression gives for v: a string as it is,
// on its own line, anything else as JSON, as gh --jq and jq -r do. jq's
// halt without a value ends it without an error.
func (f filter) Run(ctx context.Context, w io.Writer, v any) error {
	iter := f.code.RunWithContext(ctx, v)
	for {
		x, ok := iter.Next()
		if !ok {
			return nil
		}
		if err, ok := x.(error); ok {
			var halt *gojq.HaltError
			if errors.As(err, &halt) && halt.Value() == nil {
				return nil
			}
			return &ExprError{err}
		}
		if s, ok := x.(string); ok {
			if _, err := fmt.Fprintln(w, s); err != nil {
				return err
			}
			continue
		}
		if err := programs.WriteValue(w, x); err != nil {
			return err
		}
	}
}
