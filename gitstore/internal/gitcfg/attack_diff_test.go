package gitcfg

import (
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

var extra = []string{
	"[a]\nk = one \\\r\n two\n",
	"[a]\nk = v\x00w\n",
	"[a]\nk\x00 = v\n",
	"[a]\nk = \v v \f\n",
	"[a]\nk \r = v\n",
	"[a \"x\r\"]\nk = v\n",
	"[a \"x\"]\r\nk = v\r\n",
	"[a]\nk=v\r",
	"[a]\nk\r",
	"[a]\nk = \"a\r\nb\"\n",
	"[a]\nk = a\rb\n",
	"[a]\n\xef\xbb\xbfk = v\n",
	"\xef\xbb\xbf\xef\xbb\xbf[a]\nk = v\n",
	"[a.B.c]\nk = v\n",
	"[a .b]\nk=v\n",
	"[a.]\nk=v\n",
	"[.a]\nk=v\n",
	"[a \"\"]\nk=v\n",
	"[a\t\"x\"]\nk=v\n",
	"[a  \"x\"]\nk=v\n",
	"[a \"x\"]k=v\n",
	"[a]k=v\n",
	"[a]\n\tk\t=\tv\t\n",
	"[a]\nk = \\\n",
	"[a]\nk = \"\\\"\n",
	"[a]\nk = #\n",
	"[a]\nk = \"#\"#x\n",
	"[a]\nk = x\\\n#y\n",
	"[a]\n-k = v\n",
	"[a-b]\nk=v\n",
	"[a_b]\nk=v\n",
	"[a]\nk = \xff\xfe\n",
	"[a \"\xc3\xa9\"]\nk=v\n",
	"[a]\nk\\\n= v\n",
	"[a]\n k = v \\\n",
	"[a \"x\\\"]\nk=v\n",
	"\r\n[a]\r\n\r\nk=v",
	"[a]\n\rk=v\n",
	"[a]\nk=v\n\x00",
	"\x00",
	"[a]\nk=\"a\" \"b\"\n",
	"[a]\nk = a \"  b  \" c\n",
	"[a]\nk=  \"\" x\n",
	"[a]\nk = \\t\n",
	"[a]\nk = x\t\\\n\ty\n",
	"[a]\nk= a \\\n\n",
	"[" + strings.Repeat("a", 10000) + "]\n" + strings.Repeat("k", 10000) + "=v\n",
	"[a \"" + strings.Repeat("s", 20000) + "\"]\nk=v\n",
	"[a]\nk=" + strings.Repeat("v", 100000) + "\n",
}

func TestAttackParseAsGit(t *testing.T) {
	dir := t.TempDir()
	for _, shape := range extra {
		checkAsGit(t, dir, shape)
	}
}

// checkAsGit holds Parse to git config --list on one file's bytes: the
// same names and values in the same order, or an error where git gives
// one.
func checkAsGit(t *testing.T, dir, shape string) {
	t.Helper()
	f := filepath.Join(dir, "config")
	if err := os.WriteFile(f, []byte(shape), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("git", "config", "--file", f, "--list")
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir)
	out, gitErr := cmd.Output()
	entries, err := Parse([]byte(shape))
	if (err != nil) != (gitErr != nil) {
		t.Errorf("%.80q: error %v, git's %v (git out %.80q)", shape, err, gitErr, out)
		return
	}
	if err != nil {
		return
	}
	var got strings.Builder
	for _, e := range entries {
		got.WriteString(e.Name())
		if !e.NoValue {
			got.WriteString("=" + e.Value)
		}
		got.WriteString("\n")
	}
	if got.String() != string(out) {
		t.Errorf("%.80q:\n got %.80q\nwant %.80q", shape, got.String(), out)
	}
}

// TestParseRandomAsGit: shapes drawn (with a fixed seed) from the bytes
// git's reader treats specially read as git config --list reads them.
func TestParseRandomAsGit(t *testing.T) {
	pieces := []string{"[a]", "[b \"S\"]", "[c.D]", "\n", "\r\n", "\r", " ", "\t", "k", "K2", "-", "=", "\"", "\\", "\\\n", "\\n", "#", ";", "x", "\x00", "\v", "]", "[", "."}
	r := rand.New(rand.NewPCG(1, 2))
	dir := t.TempDir()
	for i := 0; i < 400; i++ {
		var b strings.Builder
		b.WriteString("[a]\n")
		for n := r.IntN(12); n >= 0; n-- {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		checkAsGit(t, dir, b.String())
	}
}
