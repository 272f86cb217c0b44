package gitstore

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
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
	Home           string // the home folder ($HOME, %USERPROFILE%), for ~/.gitconfig
	XDGConfigHome  string // $XDG_CONFIG_HOME, for its git/config
	ConfigNoSystem bool   // $GIT_CONFIG_NOSYSTEM: skip the system config
	// ConfigSystem is the system config file: $GIT_CONFIG_SYSTEM, else
	// where the git that runs keeps it (SystemConfigFile); "" reads none.
	ConfigSystem string
	ConfigGlobal string // $GIT_CONFIG_GLOBAL: the user's config file
	// ConfigPairs are keys and values set for this call, in turn (key,
	// value, key, value…), from git -c ($GIT_CONFIG_PARAMETERS) and
	// $GIT_CONFIG_COUNT: they win over every file.
	ConfigPairs []string
}

// Discover finds the repository that contains dir, the way git does:
// env.GitDir if set, else the nearest .git directory or gitfile above
// dir, else dir itself when it is a bare repository. The work tree is, as
// for git: env.WorkTree if set; else core.worktree from the repository's
// config (relative to the git dir); else, with env.GitDir, dir itself
// unless core.bare is true; else the directory holding .git.
func Discover(dir string, env GitEnv) (Paths, error) {
	if env.GitDir != "" {
		gitDir := absFrom(dir, env.GitDir)
		if env.WorkTree != "" {
			return fromGitDir(gitDir, absFrom(dir, env.WorkTree))
		}
		wt, bare := coreWorkTree(gitDir)
		switch {
		case wt != "":
		case bare:
		default:
			wt, _ = filepath.Abs(dir)
		}
		return fromGitDir(gitDir, wt)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return Paths{}, err
	}
	for d := abs; ; d = filepath.Dir(d) {
		dotgit := filepath.Join(d, ".git")
		if fi, err := os.Stat(dotgit); err == nil {
			if fi.IsDir() {
				if wt, _ := coreWorkTree(dotgit); wt != "" {
					return fromGitDir(dotgit, wt)
				}
				return fromGitDir(dotgit, d)
			}
			gd, err := readGitFile(dotgit)
			if err != nil {
				return Paths{}, err
			}
			return fromGitDir(gd, d)
		}
		if isGitDir(d) {
			wt, _ := coreWorkTree(d)
			return fromGitDir(d, wt)
		}
		if parent := filepath.Dir(d); parent == d {
			return Paths{}, fmt.Errorf("%w (or any of the parent directories): %s", ErrNotRepository, abs)
		}
	}
}

// coreWorkTree reads core.worktree (made absolute from the git dir) and
// core.bare from a repository's own config; an unreadable config says
// neither.
func coreWorkTree(gitDir string) (workTree string, bare bool) {
	entries, err := readConfig(filepath.Join(gitDir, "config"))
	if err != nil {
		return "", false
	}
	for _, e := range entries {
		switch e.Name() {
		case "core.worktree":
			workTree = ""
			if e.Value != "" {
				workTree = absFrom(gitDir, e.Value)
			}
		case "core.bare":
			bare = e.NoValue || strings.EqualFold(e.Value, "true")
		}
	}
	return workTree, bare
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
	entries, err := readConfig(filepath.Join(p.CommonDir, "config"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	for _, e := range entries {
		if e.Name() == "core.repositoryformatversion" && e.Value != "" && e.Value != "0" && e.Value != "1" {
			return &FormatError{p.CommonDir, fmt.Sprintf("repository format version %s is newer than git-snap understands", e.Value)}
		}
	}
	for _, opt := range entries {
		if opt.Section != "extensions" || opt.HasSubsection {
			continue
		}
		name, value := opt.Key, strings.ToLower(opt.Value)
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
