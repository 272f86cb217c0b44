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

// TestHome: $HOME, else $USERPROFILE (Windows sets it where HOME is not),
// for git's global config, agents' files and the user's settings.
func TestHome(t *testing.T) {
	for _, tc := range []struct{ home, profile, want string }{
		{"/home/ada", `C:\Users\ada`, "/home/ada"},
		{"", `C:\Users\ada`, `C:\Users\ada`},
		{"", "", ""},
	} {
		getenv := func(k string) string {
			return map[string]string{"HOME": tc.home, "USERPROFILE": tc.profile}[k]
		}
		if got := Home(getenv); got != tc.want {
			t.Errorf("HOME %q, USERPROFILE %q: home %q, want %q", tc.home, tc.profile, got, tc.want)
		}
		if got := GitEnv(getenv).Home; got != tc.want {
			t.Errorf("HOME %q, USERPROFILE %q: git's home %q, want %q", tc.home, tc.profile, got, tc.want)
		}
		if got := AgentEnv(getenv).Home; got != tc.want {
			t.Errorf("HOME %q, USERPROFILE %q: agents' home %q, want %q", tc.home, tc.profile, got, tc.want)
		}
	}
}
