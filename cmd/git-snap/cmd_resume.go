package main

import (
	"context"

	"github.com/urfave/cli/v2"
)

type resumeOptions struct{}

func cmdResume(e *env) *cli.Command {
	return &cli.Command{Name: "resume", Hidden: true, Action: action(e, shape{}, func(*cli.Context) (resumeOptions, error) { return resumeOptions{}, nil }, func(context.Context, *deps, resumeOptions) error { return nil })}
}
