package agent

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Gemini CLI runs the hooks of a project's .gemini/settings.json only
// past its gates (docs/formats.md):
//
//   - folder trust, on unless the user's settings turn it off
//     (security.folderTrust.enabled): an untrusted folder's settings,
//     its hooks among them, are not loaded. The user's
//     ~/.gemini/trustedFolders.json trusts one, {"<abs path>":
//     "TRUST_FOLDER"} (TRUST_PARENT trusts the folder's parent,
//     DO_NOT_TRUST distrusts; the longest path that holds the folder
//     decides), as does GEMINI_CLI_TRUST_WORKSPACE=true;
//   - hooksConfig.enabled: false in any settings file turns every hook
//     off.

// TrustedFolders is the user's trustedFolders.json:
// $GEMINI_CLI_TRUSTED_FOLDERS_PATH, else trustedFolders.json in ~/.gemini.
func (g Gemini) TrustedFolders() string {
	if p := os.Getenv("GEMINI_CLI_TRUSTED_FOLDERS_PATH"); p != "" {
		return p
	}
	return filepath.Join(g.Dir, "trustedFolders.json")
}

// folderTrustOn reports whether the user's settings leave folder trust on
// (its default).
func (g Gemini) folderTrustOn() bool {
	s, err := readSettings(filepath.Join(g.Dir, "settings.json"))
	if err != nil {
		return true
	}
	sec, _ := s.get("security").(*ordered)
	if sec == nil {
		return true
	}
	ft, _ := sec.get("folderTrust").(*ordered)
	return ft == nil || ft.get("enabled") != false
}

// folderTrust is the trust trustedFolders.json gives dir: the level of
// the longest rule whose folder holds it, "" when none does.
func (g Gemini) folderTrust(dir string) (string, error) {
	s, err := readSettings(g.TrustedFolders())
	if err != nil {
		return "", err
	}
	best, level := -1, ""
	for _, k := range s.keys {
		v, _ := s.get(k).(string)
		rule := filepath.Clean(k)
		if v == "TRUST_PARENT" {
			rule = filepath.Dir(rule)
		}
		if (dir == rule || strings.HasPrefix(dir, strings.TrimSuffix(rule, string(filepath.Separator))+string(filepath.Separator))) && len(rule) > best {
			best, level = len(rule), v
		}
	}
	return level, nil
}

// projectHooks reports whether hooksFile is the project's settings at
// workTree, which folder trust gates.
func projectHooks(hooksFile, workTree string) bool {
	return workTree != "" && strings.HasPrefix(hooksFile, workTree+string(filepath.Separator))
}

// Needs implements Needer: the project's folder trust, for hooks in its
// settings, and no settings file that turns hooks off.
func (g Gemini) Needs(hooksFile, workTree string) []Check {
	var out []Check
	if projectHooks(hooksFile, workTree) {
		file := g.TrustedFolders()
		trust := Check{Name: "gemini folder trust", Status: OK, Detail: workTree + " is trusted in " + file}
		level, err := g.folderTrust(workTree)
		switch {
		case !g.folderTrustOn():
			trust.Detail = "folder trust is off in " + filepath.Join(g.Dir, "settings.json")
		case err != nil:
			trust.Status, trust.Detail, trust.Fix = Fail, err.Error(), "fix "+file
		case level == "DO_NOT_TRUST":
			trust.Status, trust.Detail = Fail, fmt.Sprintf("%s is not trusted (DO_NOT_TRUST) in %s: Gemini CLI ignores the project's .gemini/settings.json, and its hooks", workTree, file)
			trust.Fix = fmt.Sprintf("trust the folder in Gemini CLI (/permissions), or remove its DO_NOT_TRUST from %s", file)
		case level != "TRUST_FOLDER" && level != "TRUST_PARENT":
			trust.Status, trust.Detail = Fail, fmt.Sprintf("%s is not trusted in %s: Gemini CLI ignores the project's .gemini/settings.json, and its hooks", workTree, file)
			trust.Fix = fmt.Sprintf(`git snap install gemini trusts it, or add "%s": "TRUST_FOLDER" to %s (or trust the folder when Gemini CLI asks)`, workTree, file)
		}
		out = append(out, trust)
	}
	on := Check{Name: "gemini hooks on", Status: OK, Detail: "no settings file turns hooks off"}
	files := []string{filepath.Join(g.Dir, "settings.json")}
	if workTree != "" {
		files = append(files, filepath.Join(workTree, ".gemini", "settings.json"))
	}
	for _, f := range files {
		s, err := readSettings(f)
		if err != nil {
			continue // the settings check names the hooks' own file
		}
		if hc, _ := s.get("hooksConfig").(*ordered); hc != nil && hc.get("enabled") == false {
			on.Status, on.Detail = Fail, fmt.Sprintf(`"hooksConfig": {"enabled": false} in %s: Gemini CLI runs no hook`, f)
			on.Fix = fmt.Sprintf(`remove "enabled": false from "hooksConfig" in %s`, f)
			break
		}
	}
	return append(out, on)
}

// TrustFolder trusts the project at workTree in the user's
// trustedFolders.json when hooksFile is its settings and folder trust
// would keep Gemini CLI from reading them; a folder the user distrusted
// is left so. It reports what it did, or what to do by hand.
func (g Gemini) TrustFolder(hooksFile, workTree string) (TrustChange, error) {
	if !projectHooks(hooksFile, workTree) || !g.folderTrustOn() {
		return TrustChange{}, nil
	}
	level, err := g.folderTrust(workTree)
	if err != nil || level == "TRUST_FOLDER" || level == "TRUST_PARENT" {
		return TrustChange{}, err
	}
	ch := TrustChange{What: "the folder " + workTree}
	if level == "DO_NOT_TRUST" {
		ch.Manual = fmt.Sprintf(`%s is marked DO_NOT_TRUST in %s: trust it in Gemini CLI (/permissions) for its hooks to run`, workTree, g.TrustedFolders())
		return ch, nil
	}
	_, err = editSettings(g.TrustedFolders(), false, func(s *ordered) (bool, error) {
		s.set(workTree, "TRUST_FOLDER")
		return true, nil
	})
	if err != nil {
		ch.Manual = fmt.Sprintf(`"%s": "TRUST_FOLDER"`, workTree)
		return ch, nil
	}
	ch.Done = true
	return ch, nil
}
