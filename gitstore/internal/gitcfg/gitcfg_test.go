package gitcfg

import (
	"os/exec"
	"testing"
)

// shapes are config files as git writes them and as people do: every
// kind of header, quoting, escape, continuation, comment and spacing,
// CRLF lines, and each way a line can be one git refuses.
var shapes = []string{
	"[core]\n\tbare = false\n\trepositoryformatversion = 0\n",
	"[user]\n\tname = Ada Lovelace\n\temail = ada@example.com\n",
	"[remote \"origin\"]\n\turl = https://example.com/x.git\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n",
	"[Core]\n\tBare = TRUE\n",
	"[core]\n\tbare\n\tfilemode\n",
	"[core] bare = true\n",
	"[section.Sub]\nkey = v\n",
	"[section \"Sub Section\"]\nkey = v\n",
	"[section \"with \\\"quote\\\" and \\\\ and \\x\"]\nkey = v\n",
	"[a]\nk = \"quoted # not a comment\" ; a comment\n",
	"[a]\nk = a   b\t\tc   \n",
	"[a]\nk =    leading\n",
	"[a]\nk = \"  kept  \"\n",
	"[a]\nk = x\\ty\\nz\\\\w\\\"q\\bB\n",
	"[a]\nk = one \\\n two\n",
	"[a]\nk = \"one \\\n two\"\n",
	"[a]\nk = v # comment\nl = w;comment\n",
	"# comment\n; comment\n[a] # comment\n  k = v\n",
	"[a]\r\nk = v\r\nl = \"q\"\r\nm\r\n",
	"\xef\xbb\xbf[a]\nk = v\n",
	"[a]\nk =\n",
	"[a]\nk = \"\"\n",
	"[a]\nk-2 = v\nK3=v\n",
	"[include]\n\tpath = other.cfg\n[includeIf \"gitdir:~/x/\"]\n\tpath = y\n",
	"[a \"x\"]\nk = 1\n[a]\nk = 2\n[a \"x\"]\nk = 3\n",
	"[a]\nk = a\"b\"c\n",
	"[a]\nk = \"a\"\"b\"\n",
	"",
	"\n\n",
	"k = v\n[a]\nx = 1\n", // a key before any section
	"[a]\nk = v\\",        // a backslash at the end of the file
	// refused
	"[a]\nk = \"unclosed\n",
	"[a]\nk = bad \\q escape\n",
	"[a\nk = v\n",
	"[]\nk = v\n",
	"[a \"x\" ]\nk = v\n",
	"[a \"x\nk = v\n",
	"[a x]\nk = v\n",
	"[a]\n1k = v\n",
	"[a]\nk v\n",
	"[a]\nk # comment\n",
	"[a]\nk_x = v\n",
	"[a!]\nk = v\n",
	"[a]\nk = \"v\\",
}

// TestParseAsGit: Parse reads each shape as git config --list reads it,
// the same names and values in the same order, and refuses what git
// refuses.
func TestParseAsGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	dir := t.TempDir()
	for _, shape := range shapes {
		checkAsGit(t, dir, shape)
	}
}

// FuzzParse: no input makes Parse fail other than with ErrSyntax.
func FuzzParse(f *testing.F) {
	for _, s := range shapes {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		_, _ = Parse(b)
	})
}
