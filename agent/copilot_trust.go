package agent

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// GitHub Copilot CLI runs the hooks of a repository's .github/hooks only
// in a folder it trusts (docs/formats.md): one listed in trustedFolders
// of the user's config.json in ~/.copilot (a folder trusts those under
// it), or any working directory with COPILOT_ALLOW_ALL=true, or one
// --trust-folder names for one run. config.json is JSON after a few
// `//` comment lines Copilot CLI writes at its top.

// UserConfig is the user's config.json, where Copilot CLI keeps the
// trusted folders: $COPILOT_HOME/config.json, else ~/.copilot/config.json.
func (c Copilot) UserConfig() string { return filepath.Join(c.Home, "config.json") }

// readCopilotConfig reads config.json: its leading comment lines, kept
// as they are, and the JSON after them; a file that does not exist is
// empty.
func readCopilotConfig(path string) (head []byte, s *ordered, err error) {
	data, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, nil, fmt.Errorf("read %s: %w", path, err)
	}
	rest := data
	for {
		trimmed := bytes.TrimLeft(rest, " \t\r\n")
		if !bytes.HasPrefix(trimmed, []byte("//")) {
			break
		}
		nl := bytes.IndexByte(trimmed, '\n')
		if nl < 0 {
			trimmed = trimmed[len(trimmed):]
		} else {
			trimmed = trimmed[nl+1:]
		}
		rest = trimmed
	}
	head = data[:len(data)-len(rest)]
	s, err = parseOrdered(rest)
	return head, s, withPath(err, path)
}

// trustedFolders lists config.json's trusted folders.
func (c Copilot) trustedFolders() ([]string, error) {
	_, s, err := readCopilotConfig(c.UserConfig())
	if err != nil {
		return nil, err
	}
	list, _ := s.get("trustedFolders").([]any)
	var out []string
	for _, v := range list {
		if f, ok := v.(string); ok {
			out = append(out, filepath.Clean(f))
		}
	}
	return out, nil
}

// trusts reports whether one of folders holds dir.
func trusts(folders []string, dir string) bool {
	return slices.ContainsFunc(folders, func(f string) bool {
		return dir == f || strings.HasPrefix(dir, strings.TrimSuffix(f, string(filepath.Separator))+string(filepath.Separator))
	})
}

// Needs implements Needer: the repository trusted in config.json, for
// hooks in its .github/hooks.
func (c Copilot) Needs(hooksFile, workTree string) []Check {
	if !projectHooks(hooksFile, workTree) {
		return nil
	}
	file := c.UserConfig()
	check := Check{Name: "copilot trusted folder", Status: OK, Detail: workTree + " is trusted in " + file}
	folders, err := c.trustedFolders()
	switch {
	case err != nil:
		check.Status, check.Detail, check.Fix = Fail, err.Error(), "fix "+file
	case !trusts(folders, workTree):
		check.Status = Fail
		check.Detail = fmt.Sprintf("%s is not trusted in %s: Copilot CLI does not load the repository's .github/hooks, and runs no git-snap hook", workTree, file)
		check.Fix = fmt.Sprintf(`git snap install copilot trusts it, or add %q to "trustedFolders" in %s (or trust the folder when Copilot CLI asks)`, workTree, file)
	}
	return []Check{check}
}

// TrustFolder adds the repository at workTree to trustedFolders in the
// user's config.json when hooksFile is in it and no folder there holds it
// yet. It reports what it did, or, for a file it will not edit, what to
// add by hand.
func (c Copilot) TrustFolder(hooksFile, workTree string) (TrustChange, error) {
	if !projectHooks(hooksFile, workTree) {
		return TrustChange{}, nil
	}
	path := c.UserConfig()
	head, s, err := readCopilotConfig(path)
	ch := TrustChange{What: "the folder " + workTree, Manual: fmt.Sprintf(`"trustedFolders": [%q]`, workTree)}
	if err != nil {
		var se *SettingsError
		if errors.As(err, &se) {
			return ch, nil // not JSON git-snap can read: said, not edited
		}
		return TrustChange{}, err
	}
	list, isList := s.get("trustedFolders").([]any)
	if s.get("trustedFolders") != nil && !isList {
		return ch, nil
	}
	folders, _ := c.trustedFolders()
	if trusts(folders, workTree) {
		return TrustChange{}, nil
	}
	s.set("trustedFolders", append(list, workTree))
	var b bytes.Buffer
	b.Write(head)
	writeOrdered(&b, s, "")
	b.WriteByte('\n')
	mode := os.FileMode(0o600)
	if fi, err := os.Stat(path); err == nil {
		mode = fi.Mode().Perm()
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return TrustChange{}, fmt.Errorf("trust %s for Copilot CLI: %w", workTree, err)
	}
	if err := writeFileAtomic(path, b.Bytes(), mode); err != nil {
		return TrustChange{}, fmt.Errorf("trust %s for Copilot CLI: %w", workTree, err)
	}
	ch.Done, ch.Manual = true, ""
	return ch, nil
}
