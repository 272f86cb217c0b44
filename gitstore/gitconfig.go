package gitstore

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/git-snap/git-snap/gitstore/internal/gitcfg"
)

// maxConfigBytes bounds each config file read: git's own are a few KB.
const maxConfigBytes = 1 << 20

// GitConfig reads keys ("section.name", as core.pager or color.ui) from
// git's configuration the way git config --get finds them, the last one
// set winning: the system file (unless env.ConfigNoSystem), the XDG and
// the user's file (or env.ConfigGlobal), the repository's own (none when
// p is zero), then what git -c and GIT_CONFIG_COUNT set. include.path is
// followed; includeIf is not (git's conditions need more than the files).
// It reads files in the process, because running git config would cost
// each reading command as much as git log itself. A key set nowhere is
// absent from the map.
func GitConfig(p Paths, env GitEnv, keys ...string) map[string]string {
	want := map[string]bool{}
	for _, k := range keys {
		want[strings.ToLower(k)] = true
	}
	out := map[string]string{}
	r := &configReader{home: env.Home, want: want, out: out, left: maxConfigFiles}
	for _, f := range configFiles(p, env) {
		r.file(f, 0)
	}
	for i := 0; i+1 < len(env.ConfigPairs); i += 2 {
		if k := strings.ToLower(env.ConfigPairs[i]); want[k] {
			out[k] = env.ConfigPairs[i+1]
		}
	}
	return out
}

// configFiles are the files git reads, lowest priority first.
func configFiles(p Paths, env GitEnv) []string {
	var files []string
	if !env.ConfigNoSystem && env.ConfigSystem != "" {
		files = append(files, env.ConfigSystem)
	}
	if env.ConfigGlobal != "" {
		files = append(files, env.ConfigGlobal)
	} else {
		xdg := env.XDGConfigHome
		if xdg == "" && env.Home != "" {
			xdg = filepath.Join(env.Home, ".config")
		}
		if xdg != "" {
			files = append(files, filepath.Join(xdg, "git", "config"))
		}
		if env.Home != "" {
			files = append(files, filepath.Join(env.Home, ".gitconfig"))
		}
	}
	if p.CommonDir != "" {
		files = append(files, filepath.Join(p.CommonDir, "config"))
	}
	return files
}

// SystemConfigFile is where the git program at gitPath keeps its system
// config, as git finds it from where it is installed: etc/gitconfig
// under its prefix, the folder above its bin/ (or, for Git for Windows,
// cmd/, or the folder above mingw64/bin/); /etc/gitconfig for a git in
// /usr/bin, as distributions build it; "" for no git. The path is not
// made canonical: Homebrew's git is a link in its prefix's bin/, and its
// config is in that prefix's etc/.
func SystemConfigFile(gitPath string) string {
	if gitPath == "" {
		return ""
	}
	prefix := filepath.Dir(filepath.Dir(gitPath))
	switch strings.ToLower(filepath.Base(prefix)) {
	case "mingw64", "mingw32", "clangarm64", "clang64", "ucrt64":
		prefix = filepath.Dir(prefix)
	}
	if filepath.ToSlash(prefix) == "/usr" {
		return "/etc/gitconfig"
	}
	return filepath.Join(prefix, "etc", "gitconfig")
}

// maxConfigFiles bounds the files one GitConfig reads: includes ten
// deep, each file including the next many times over, would otherwise be
// read as many times as git would (without end, for a person waiting).
const maxConfigFiles = 256

// configReader reads config files for GitConfig.
type configReader struct {
	home string
	want map[string]bool
	out  map[string]string
	left int // files that may still be read
}

// file sets in out the wanted keys path sets, and follows its
// include.path entries (relative to the file, ~/ from home), at most ten
// deep as git does.
func (r *configReader) file(path string, depth int) {
	if r.left <= 0 {
		return
	}
	r.left--
	entries, err := readConfig(path)
	if err != nil {
		return
	}
	for _, e := range entries {
		switch k := e.Name(); {
		case k == "include.path" && depth < 10:
			r.file(includePath(path, r.home, e.Value), depth+1)
		case r.want[k]:
			r.out[k] = e.Value
		}
	}
}

func includePath(from, home, inc string) string {
	if rest, ok := strings.CutPrefix(inc, "~/"); ok && home != "" {
		return filepath.Join(home, rest)
	}
	return absFrom(filepath.Dir(from), inc)
}

// readConfig reads the entries of a git config file, a regular file
// (a FIFO or a device would block or never end) of at most
// maxConfigBytes: a larger one is refused rather than read in part.
func readConfig(path string) ([]gitcfg.Entry, error) {
	b, err := readBoundedGitFile(path, maxConfigBytes)
	if err != nil {
		return nil, err
	}
	entries, err := gitcfg.Parse(b)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return entries, nil
}
