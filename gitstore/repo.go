package gitstore

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/format/config"
)

// Paths locates the parts of a git repository that git-snap uses.
type Paths struct {
	GitDir    string // this work tree's git dir (.git, or .git/worktrees/<name>)
	CommonDir string // objects, refs and config shared by all work trees
	WorkTree  string // "" in a bare repository
}

// FormatError means the repository uses a format git-snap cannot write
// safely. Nothing has been written when it is returned.
type FormatError struct {
	Dir    string
	Reason string
}

// Error names the repository and why git-snap will not write to it.
func (e *FormatError) Error() string {
	return fmt.Sprintf("%s: %s", e.Dir, e.Reason)
}

// GitEnv is what git's environment variables say. The library reads no
// environment; the command line fills this in from its own.
type GitEnv struct {
	GitDir         string // $GIT_DIR
	WorkTree       string // $GIT_WORK_TREE
	CommitterName  string // $GIT_COMMITTER_NAME
	CommitterEmail string // $GIT_COMMITTER_EMAIL
	Home           string // $HOME, for ~/.gitconfig
	XDGConfigHome  string // $XDG_CONFIG_HOME, for its git/config
}

// Discover finds the repository that contains dir, the way git does:
// env.GitDir if set, else the nearest .git directory or gitfile above
// dir, else dir itself when it is a bare repository.
func Discover(dir string, env GitEnv) (Paths, error) {
	if env.GitDir != "" {
		return fromGitDir(absFrom(dir, env.GitDir), env.WorkTree)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return Paths{}, err
	}
	for d := abs; ; d = filepath.Dir(d) {
		dotgit := filepath.Join(d, ".git")
		if fi, err := os.Stat(dotgit); err == nil {
			if fi.IsDir() {
				return fromGitDir(dotgit, d)
			}
			gd, err := readGitFile(dotgit)
			if err != nil {
				return Paths{}, err
			}
			return fromGitDir(gd, d)
		}
		if isGitDir(d) {
			return fromGitDir(d, "")
		}
		if parent := filepath.Dir(d); parent == d {
			return Paths{}, fmt.Errorf("%w (or any of the parent directories): %s", ErrNotRepository, abs)
		}
	}
}

func absFrom(base, p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	abs, _ := filepath.Abs(filepath.Join(base, p))
	return abs
}

// readGitFile reads a "gitdir: <path>" file, as linked worktrees and
// submodules have.
func readGitFile(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	line := strings.TrimSpace(string(b))
	gd, ok := strings.CutPrefix(line, "gitdir:")
	if !ok {
		return "", fmt.Errorf("%s: not a gitfile (no \"gitdir:\" line)", path)
	}
	return absFrom(filepath.Dir(path), strings.TrimSpace(gd)), nil
}

func isGitDir(d string) bool {
	for _, name := range []string{"HEAD", "objects", "refs"} {
		if _, err := os.Stat(filepath.Join(d, name)); err != nil {
			return false
		}
	}
	return true
}

func fromGitDir(gitDir, workTree string) (Paths, error) {
	if !isGitDir(gitDir) && !isLinkedGitDir(gitDir) {
		return Paths{}, fmt.Errorf("%w: %s", ErrNotRepository, gitDir)
	}
	p := Paths{GitDir: gitDir, CommonDir: gitDir, WorkTree: workTree}
	if b, err := os.ReadFile(filepath.Join(gitDir, "commondir")); err == nil {
		p.CommonDir = absFrom(gitDir, strings.TrimSpace(string(b)))
	}
	return p, nil
}

// isLinkedGitDir recognises .git/worktrees/<name>, which has HEAD and a
// commondir file but no objects of its own.
func isLinkedGitDir(d string) bool {
	_, errHead := os.Stat(filepath.Join(d, "HEAD"))
	_, errCommon := os.Stat(filepath.Join(d, "commondir"))
	return errHead == nil && errCommon == nil
}

// extensions git-snap can work with: they change nothing in how objects
// and refs are written.
var safeExtensions = map[string]bool{
	"worktreeconfig":  true,
	"noop":            true,
	"noop-v1":         true,
	"preciousobjects": true, // git-snap never deletes objects
	"partialclone":    true,
}

// checkFormat refuses repositories whose objects or refs go-git cannot
// write the way git expects, before anything is written.
func checkFormat(p Paths) error {
	raw, err := os.ReadFile(filepath.Join(p.CommonDir, "config"))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return fmt.Errorf("read git config: %w", err)
	}
	cfg := config.New()
	if err := config.NewDecoder(bytes.NewReader(raw)).Decode(cfg); err != nil {
		return fmt.Errorf("read %s: %w", filepath.Join(p.CommonDir, "config"), err)
	}
	core := cfg.Section("core")
	if v := core.Option("repositoryformatversion"); v != "" && v != "0" && v != "1" {
		return &FormatError{p.CommonDir, fmt.Sprintf("repository format version %s is newer than git-snap understands", v)}
	}
	ext := cfg.Section("extensions")
	for _, opt := range ext.Options {
		name, value := strings.ToLower(opt.Key), strings.ToLower(opt.Value)
		switch {
		case name == "objectformat" && value != "sha1":
			return &FormatError{p.CommonDir, fmt.Sprintf("the repository uses %s object ids; git-snap can only write SHA-1 repositories (keep snapshots in a separate store: git snap init --bare DIR)", value)}
		case name == "objectformat":
		case name == "refstorage" && value != "files":
			return &FormatError{p.CommonDir, fmt.Sprintf("the repository keeps refs in %s; git-snap can only update refs stored as files (keep snapshots in a separate store: git snap init --bare DIR)", value)}
		case name == "refstorage":
		case !safeExtensions[name]:
			return &FormatError{p.CommonDir, fmt.Sprintf("the repository uses extensions.%s, which git-snap does not know how to write safely", opt.Key)}
		}
	}
	if _, err := os.Stat(filepath.Join(p.CommonDir, "reftable")); err == nil {
		return &FormatError{p.CommonDir, "the repository keeps refs in a reftable; git-snap can only update refs stored as files"}
	}
	return nil
}
