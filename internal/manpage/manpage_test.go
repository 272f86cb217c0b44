package manpage

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// hostile is text that roff would take as requests or escapes.
var hostile = Page{
	Name: "x-y", Section: 1, Manual: `a "quoted" manual`, Summary: `back\slash and -dash`,
	Synopsis: []string{".TH not a request", "'also not"},
	Sections: []Section{{
		Title: "Description",
		Text:  "first paragraph\n.SH not a heading\n\n  indented \\fB kept\n  'quote\n\nsecond paragraph",
		Items: []Item{{Tag: Bold("--flag") + " " + Italic("N"), Text: "one\n\ntwo"}},
	}},
}

// TestWriteEscapes checks that nothing in the text becomes a request or
// an escape: when the real man renders the page, every word appears as
// written.
func TestWriteEscapes(t *testing.T) {
	var b bytes.Buffer
	if err := Write(&b, hostile); err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(b.String(), "\n") {
		if strings.HasPrefix(l, ".") && !isMacro(l) {
			t.Errorf("text became a request: %q", l)
		}
	}
	man, err := exec.LookPath("man")
	if err != nil {
		if os.Getenv("GIT_SNAP_REQUIRE_TOOLS") != "" {
			t.Fatal("man is not installed and GIT_SNAP_REQUIRE_TOOLS is set")
		}
		t.Skip("man is not installed")
	}
	f := filepath.Join(t.TempDir(), "x-y.1")
	if err := os.WriteFile(f, b.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(man, "-l", f)
	cmd.Env = append(os.Environ(), "MANPAGER=cat", "MANWIDTH=200", "LANG=C.UTF-8")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("man -l: %v", err)
	}
	for _, want := range []string{`back\slash and -dash`, ".TH not a request", "'also not", ".SH not a heading", `indented \fB kept`, "second paragraph", "--flag N", "two"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("man shows no %q in:\n%s", want, out)
		}
	}
}

func isMacro(l string) bool {
	for _, m := range []string{".TH ", ".SH ", ".PP", ".IP", ".TP", ".RS ", ".RE", ".nf", ".fi"} {
		if strings.HasPrefix(l, m) {
			return true
		}
	}
	return false
}
