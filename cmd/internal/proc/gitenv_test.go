package proc

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

func TestParseConfigParameters(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"'color.ui'='always'", []string{"color.ui", "always"}},
		{"'color.ui=always' 'core.pager'='less -S'", []string{"color.ui", "always", "core.pager", "less -S"}},
		{`'a.b'='it'\''s x'`, []string{"a.b", "it's x"}},
		{`'alias.pe'=''\!'printenv X'`, []string{"alias.pe", "!printenv X"}},
		{"'a.b'='x' 'broken", []string{"a.b", "x"}},
		{"unquoted", nil},
	} {
		if got := parseConfigParameters(tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("parseConfigParameters(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestParseConfigParametersReadsWhatGitWrites has git -c write the
// variable for a command it runs, and reads it back.
func TestParseConfigParametersReadsWhatGitWrites(t *testing.T) {
	out, err := exec.Command("git", "-c", "alias.pe=!printenv GIT_CONFIG_PARAMETERS", "-c", "color.ui=always", "-c", "a.b=it's a 'test'", "pe").Output()
	if err != nil {
		t.Skip("git cannot run an alias here:", err)
	}
	got := parseConfigParameters(strings.TrimSpace(string(out)))
	want := []string{"alias.pe", "!printenv GIT_CONFIG_PARAMETERS", "color.ui", "always", "a.b", "it's a 'test'"}
	if !slices.Equal(got, want) {
		t.Errorf("read %q from %q, want %q", got, out, want)
	}
}
