package codestate

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"path"
	"strings"

	"github.com/git-snap/git-snap/internal/safefile"
)

// pattern is one line of an ignore file, as git's dir.c parses it.
type pattern struct {
	text     string // without its '!' and its trailing '/'
	base     string // the directory of its .gitignore, "" at the top or for other files
	negative bool   // '!': re-includes
	dirOnly  bool   // a trailing '/': matches directories only
	noSlash  bool   // no '/' but a trailing one: matches a name at any depth
}

// parsePatterns reads an ignore file's lines, each relative to base.
func parsePatterns(b []byte, base string) []pattern {
	b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))
	var out []pattern
	for _, line := range strings.Split(string(b), "\n") {
		line = trimTrailingSpaces(strings.TrimSuffix(line, "\r"))
		if line == "" || line[0] == '#' {
			continue
		}
		p := pattern{base: base}
		if line[0] == '!' {
			p.negative, line = true, line[1:]
		}
		if strings.HasSuffix(line, "/") {
			p.dirOnly, line = true, line[:len(line)-1]
		}
		if line == "" {
			continue
		}
		p.text, p.noSlash = line, !strings.Contains(line, "/")
		out = append(out, p)
	}
	return out
}

// trimTrailingSpaces drops the spaces that end a line, unless a
// backslash quotes them, as git does.
func trimTrailingSpaces(s string) string {
	end := len(s)
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case ' ':
			if end == len(s) {
				end = i
			}
		case '\\':
			i++
			end = len(s)
		default:
			end = len(s)
		}
	}
	if end > len(s) {
		end = len(s)
	}
	return s[:end]
}

// matches reports whether p matches the path (relative to the work
// tree) whose last name is base, a directory or not.
func (p pattern) matches(rel string, isDir bool) bool {
	if p.dirOnly && !isDir {
		return false
	}
	if p.noSlash {
		return wildmatch(p.text, path.Base(rel), false)
	}
	name := rel
	if p.base != "" {
		rest, ok := strings.CutPrefix(rel, p.base+"/")
		if !ok {
			return false
		}
		name = rest
	}
	return wildmatch(strings.TrimPrefix(p.text, "/"), name, true)
}

// ignorer decides which untracked files git leaves out: the .gitignore
// files of the work tree, read as they are needed, then info/exclude,
// then the user's excludes file, as git's dir.c orders them.
type ignorer struct {
	root  string
	files [][]pattern          // info/exclude, then the user's file
	dirs  map[string][]pattern // a directory's .gitignore, once read
}

// maxIgnoreFile bounds an ignore file read: a larger one is not a list
// of names, and the caller falls back to git.
const maxIgnoreFile = 4 << 20

// errIgnoreFile means an ignore file could not be read as git reads it.
var errIgnoreFile = errors.New("an ignore file that cannot be read")

func newIgnorer(root string, files ...string) (*ignorer, error) {
	ig := &ignorer{root: root, dirs: map[string][]pattern{}}
	for _, f := range files {
		b, err := readIgnoreFile(f, true)
		if err != nil {
			return nil, err
		}
		ig.files = append(ig.files, parsePatterns(b, ""))
	}
	return ig, nil
}

// readIgnoreFile reads an ignore file; none is as good as an empty one.
// Git follows links for the files outside the work tree (follow) and
// refuses them for a .gitignore.
func readIgnoreFile(name string, follow bool) ([]byte, error) {
	if name == "" {
		return nil, nil
	}
	open := safefile.Open
	if follow {
		open = safefile.OpenFollow
	}
	f, err := open(name)
	switch {
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, safefile.ErrRefused) && !follow:
		return nil, nil
	case err != nil:
		return nil, errIgnoreFile
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxIgnoreFile+1))
	if err != nil || len(b) > maxIgnoreFile {
		return nil, errIgnoreFile
	}
	return b, nil
}

// patternsOf are the patterns of dir's .gitignore ("" is the top).
func (ig *ignorer) patternsOf(dir string) ([]pattern, error) {
	if ps, ok := ig.dirs[dir]; ok {
		return ps, nil
	}
	name := ig.root + "/.gitignore"
	if dir != "" {
		name = ig.root + "/" + dir + "/.gitignore"
	}
	b, err := readIgnoreFile(name, false)
	if err != nil {
		return nil, err
	}
	ps := parsePatterns(b, dir)
	ig.dirs[dir] = ps
	return ps, nil
}

// ignored reports whether git leaves the untracked file rel out: it or
// one of its directories is matched last by a pattern that is not a
// '!' one. A file in an ignored directory cannot be included again.
func (ig *ignorer) ignored(rel string) (bool, error) {
	parts := strings.Split(rel, "/")
	for i := 1; i <= len(parts); i++ {
		p := strings.Join(parts[:i], "/")
		excluded, err := ig.excluded(p, i < len(parts))
		if err != nil || excluded {
			return excluded, err
		}
	}
	return false, nil
}

// excluded reports whether the patterns that apply to rel exclude it:
// those of the .gitignore files of its directories, the deepest first,
// then the other files; in each, the last pattern that matches decides.
func (ig *ignorer) excluded(rel string, isDir bool) (bool, error) {
	dir := path.Dir(rel)
	if dir == "." {
		dir = ""
	}
	for {
		ps, err := ig.patternsOf(dir)
		if err != nil {
			return false, err
		}
		if p, ok := lastMatch(ps, rel, isDir); ok {
			return !p.negative, nil
		}
		if dir == "" {
			break
		}
		if dir = path.Dir(dir); dir == "." {
			dir = ""
		}
	}
	for _, ps := range ig.files {
		if p, ok := lastMatch(ps, rel, isDir); ok {
			return !p.negative, nil
		}
	}
	return false, nil
}

func lastMatch(ps []pattern, rel string, isDir bool) (pattern, bool) {
	for i := len(ps) - 1; i >= 0; i-- {
		if ps[i].matches(rel, isDir) {
			return ps[i], true
		}
	}
	return pattern{}, false
}
