package agent

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHugeSettingsAreRefused: a 100 MB settings file was read, parsed
// and written back whole, holding over 600 MB of memory for 13 s. One
// past maxSettings is now refused with a SettingsError (exit status 2)
// and left as it was, for every new agent's file.
func TestHugeSettingsAreRefused(t *testing.T) {
	home, work := t.TempDir(), t.TempDir()
	big := append(append([]byte(`{"x": "`), bytes.Repeat([]byte("a"), maxSettings)...), `"}`...)
	for _, name := range []string{"qwen", "droid", "pi", "kilo"} {
		a, err := Lookup(name, Env{Home: home})
		if err != nil {
			t.Fatal(err)
		}
		file, err := a.SettingsFile(ProjectScope, work)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, big, 0o644); err != nil {
			t.Fatal(err)
		}
		_, err = Install(a, file, "git-snap hook "+name)
		var se *SettingsError
		if !errors.As(err, &se) || !strings.Contains(err.Error(), "larger than 16 MiB") {
			t.Errorf("%s: install over a %d-byte file: %v, want a SettingsError saying it is too large", name, len(big), err)
		}
		if got, _ := os.ReadFile(file); !bytes.Equal(got, big) {
			t.Errorf("%s: the file was changed", name)
		}
	}
}
