package hookcmd

import (
	"bytes"
	"slices"
	"strings"
	"testing"
)

// TestParse checks that git-snap-hook parses its command line as git
// snap parses its global flags and hook's arguments, and that the
// follow-up call is started with where this one was told to record, so
// that it records there too.
func TestParse(t *testing.T) {
	env := map[string]string{"GIT_SNAP_DIR": ""}
	for _, tc := range []struct {
		args           []string
		env            string // $GIT_SNAP_DIR
		dir, store     string
		given          bool
		agent          string
		rest, again    []string
		code           int
		stdout, stderr string
	}{
		{args: []string{"claude-code"}, dir: "/w", agent: "claude-code", again: nil},
		{args: []string{"copilot", "sessionEnd"}, dir: "/w", agent: "copilot", rest: []string{"sessionEnd"}},
		{args: []string{"-C", "sub", "codex", "{}"}, dir: "/w/sub", given: true, agent: "codex", rest: []string{"{}"}, again: []string{"-C", "/w/sub"}},
		{args: []string{"-C=/abs", "--store", "s.git", "git", "post-commit"}, dir: "/abs", store: "s.git", given: true, agent: "git", rest: []string{"post-commit"},
			again: []string{"-C", "/abs", "--store", "s.git"}},
		{args: []string{"gemini"}, env: "/store", dir: "/w", store: "/store", given: true, agent: "gemini", again: []string{"-C", "/w", "--store", "/store"}},
		{args: []string{"--", "-odd"}, dir: "/w", agent: "-odd"},
		{args: []string{"--version"}, code: 0, stdout: "git-snap-hook version "},
		{args: []string{"-h"}, code: 0, stdout: "usage: git-snap-hook"},
		{args: nil, code: 2, stderr: "name the agent"},
		{args: []string{"--"}, code: 2, stderr: "name the agent"},
		{args: []string{"--store"}, code: 2, stderr: "--store needs a directory"},
		{args: []string{"-x", "claude-code"}, code: 2, stderr: "unknown option -x"},
	} {
		env["GIT_SNAP_DIR"] = tc.env
		p := Process{Dir: "/w", Getenv: func(k string) string { return env[k] }, Hook: nil}
		var stdout, stderr bytes.Buffer
		done, code := p.parse(tc.args, &stdout, &stderr)
		if tc.stdout != "" || tc.stderr != "" || tc.code != 0 {
			if !done || code != tc.code || !strings.Contains(stdout.String(), tc.stdout) || !strings.Contains(stderr.String(), tc.stderr) {
				t.Errorf("%q: done %v, exit %d, stdout %q, stderr %q", tc.args, done, code, stdout.String(), stderr.String())
			}
			continue
		}
		if done || p.Dir != tc.dir || p.Store != tc.store || p.DirGiven != tc.given || p.Agent != tc.agent || !slices.Equal(p.Args, tc.rest) || !slices.Equal(p.followUpArgs(), tc.again) {
			t.Errorf("%q: %+v, again %q", tc.args, p, p.followUpArgs())
		}
	}
}
