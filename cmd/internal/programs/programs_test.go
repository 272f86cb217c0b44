package programs

import (
	"context"
	"io"
	"strings"
	"testing"
)

// A set has a program when it links every piece the program runs.
func TestSetHas(t *testing.T) {
	get := func(context.Context, string) (io.ReadCloser, error) { return nil, nil }
	replay := func(context.Context, ReplayRequest) error { return nil }
	for _, tc := range []struct {
		set  Set
		want []Program
	}{
		{Set{}, nil},
		{Set{View: func(context.Context, ViewRequest) error { return nil }}, []Program{View}},
		{Set{MCP: func(context.Context, MCPRequest) error { return nil }}, []Program{MCP}},
		{Set{JQ: func(string) (Filter, error) { return nil, nil }}, []Program{JQ}},
		{Set{Replay: replay, Get: get}, nil}, // no OTLP: not all of git-snap-http
	} {
		for _, p := range All {
			want := false
			for _, w := range tc.want {
				want = want || w == p
			}
			if got := tc.set.Has(p); got != want {
				t.Errorf("%+v has %s: %v, want %v", tc.set, p, got, want)
			}
		}
	}
}

// The install hint names the version of the program that looked when it
// is a release, else the latest.
func TestMissingHint(t *testing.T) {
	e := &MissingError{Program: View, What: "git snap view", Beside: "/opt/bin"}
	if got := e.Error(); got != "git snap view runs in the program git-snap-view, which is not installed (not beside /opt/bin nor on PATH)" {
		t.Errorf("Error: %q", got)
	}
	for version, at := range map[string]string{
		"v1.2.3":                  "@v1.2.3 ",
		"(devel)":                 "@latest ",
		"(devel) (0123456789ab)":  "@latest ",
		"v1.2.3 (0123456789ab+c)": "@latest ",
	} {
		if h := e.Hint(version); !strings.Contains(h, "go install github.com/git-snap/git-snap/cmd/git-snap-view"+at) {
			t.Errorf("Hint(%q) = %q, want it to install %s", version, h, at)
		}
	}
}

// A program run by one of its own version says nothing; by another, it
// names both.
func TestVersionWarning(t *testing.T) {
	if w := VersionWarning("git-snap-jq", "", "v1"); w != "" {
		t.Errorf("not run by git-snap: %q", w)
	}
	if w := VersionWarning("git-snap-jq", "v1", "v1"); w != "" {
		t.Errorf("same version: %q", w)
	}
	if w := VersionWarning("git-snap-jq", "v2", "v1"); !strings.Contains(w, "git-snap-jq is version v1, the git-snap that ran it v2") {
		t.Errorf("another version: %q", w)
	}
}
