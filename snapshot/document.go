package snapshot

import (
	"encoding/base64"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
)

// Members of a document that git-snap understands and stores outside
// snapshot.json.
const (
	MemberMessages = "messages"
	MemberEvents   = "events"
	MemberFiles    = "files"
)

// File modes a captured file may have, as git writes them.
const (
	ModeRegular    = "100644"
	ModeExecutable = "100755"
	ModeSymlink    = "120000"
)

// File is one captured work-tree file.
type File struct {
	Path    string // slash-separated, relative to the work tree root
	Mode    string // ModeRegular, ModeExecutable or ModeSymlink
	Content []byte
}

// Parts is a document split the way it is stored: Messages and Events as
// one blob per element, Files as blobs at their own paths, and all other
// members (Others) in snapshot.json. Others also keeps, under "files", each
// file's members other than its content, so that Join returns exactly
// the document that Split was given.
type Parts struct {
	Others   map[string]any
	Messages []any
	Events   []any
	Files    []File // sorted by Path
}

// InputError is a problem with a document given to git-snap. It is an
// error in the user's input, not a failure of the tool.
type InputError struct {
	Path string // JSON path of the offending value
	Msg  string
}

// Error returns the JSON path and the problem.
func (e *InputError) Error() string { return fmt.Sprintf("at %s: %s", e.Path, e.Msg) }

// UserError marks the error as one the user must fix: the input is wrong.
func (e *InputError) UserError() {}

func inputErr(path []any, format string, args ...any) error {
	return &InputError{Path: FormatPath(path), Msg: fmt.Sprintf(format, args...)}
}

// StoredApart reports whether a member of a document is stored outside
// snapshot.json (messages, events, files). Such a member is appended to
// or captured, never set as a plain value.
func StoredApart(member string) bool {
	switch member {
	case MemberMessages, MemberEvents, MemberFiles:
		return true
	}
	return false
}

// Others returns a copy of doc without the members stored outside
// snapshot.json. That copy is what a program that keeps its own state in
// a document reads and writes back. Others returns nil for a nil doc, so
// that "no document" can still be told apart from an empty one.
func Others(doc map[string]any) map[string]any {
	if doc == nil {
		return nil
	}
	out := make(map[string]any, len(doc))
	for k, v := range doc {
		if !StoredApart(k) {
			out[k] = v
		}
	}
	return out
}

// Split validates a document and splits it for storage. A non-empty
// messages or events array is stored element by element; an empty one
// stays in Others unchanged.
func Split(doc map[string]any) (*Parts, error) {
	p := &Parts{Others: Others(doc)}
	if p.Others == nil {
		p.Others = map[string]any{}
	}
	var err error
	if p.Messages, err = extractArray(doc, p.Others, MemberMessages); err != nil {
		return nil, err
	}
	if p.Events, err = extractArray(doc, p.Others, MemberEvents); err != nil {
		return nil, err
	}
	if p.Files, err = extractFiles(doc, p.Others); err != nil {
		return nil, err
	}
	return p, nil
}

// extractArray returns the elements of doc's member, to be stored one
// blob per element. An empty array is left in rest instead, so that []
// reads back as [].
func extractArray(doc, rest map[string]any, member string) ([]any, error) {
	v, ok := doc[member]
	if !ok {
		return nil, nil
	}
	arr, ok := v.([]any)
	if !ok {
		return nil, inputErr([]any{member}, "%s must be an array, not %s", member, KindOf(v))
	}
	if len(arr) == 0 {
		rest[member] = v
		return nil, nil
	}
	return arr, nil
}

// extractFiles returns doc's files, to be stored as blobs, and leaves in
// rest each file's members other than its content. An empty files
// member is left in rest unchanged.
func extractFiles(doc, rest map[string]any) ([]File, error) {
	v, ok := doc[MemberFiles]
	if !ok {
		return nil, nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, inputErr([]any{MemberFiles}, "files must be an object of path → {\"content\": …}, not %s", KindOf(v))
	}
	files := make([]File, 0, len(m))
	meta := make(map[string]any, len(m))
	for path, entry := range m {
		f, notes, err := splitFile(path, entry)
		if err != nil {
			return nil, err
		}
		files = append(files, f)
		meta[path] = notes
	}
	slices.SortFunc(files, func(a, b File) int { return strings.Compare(a.Path, b.Path) })
	if err := checkFileTree(files); err != nil {
		return nil, err
	}
	rest[MemberFiles] = v
	if len(files) > 0 {
		rest[MemberFiles] = meta
	}
	return files, nil
}

func splitFile(path string, entry any) (File, map[string]any, error) {
	at := []any{MemberFiles, path}
	if err := CheckPath(path); err != nil {
		return File{}, nil, inputErr(at, "%v", err)
	}
	obj, ok := entry.(map[string]any)
	if !ok {
		return File{}, nil, inputErr(at, "a file must be an object with \"content\", not %s", KindOf(entry))
	}
	content, ok := obj["content"].(string)
	if !ok {
		return File{}, nil, inputErr(at, "a file needs \"content\" as a string")
	}
	f := File{Path: path, Mode: ModeRegular, Content: []byte(content)}
	rest := make(map[string]any, len(obj))
	for k, v := range obj {
		if k != "content" {
			rest[k] = v
		}
	}
	if mode, ok := obj["mode"]; ok {
		s, _ := mode.(string)
		if s != ModeRegular && s != ModeExecutable && s != ModeSymlink {
			return File{}, nil, inputErr(append(at, "mode"), "mode must be %q, %q or %q", ModeRegular, ModeExecutable, ModeSymlink)
		}
		f.Mode = s
	}
	if enc, ok := obj["encoding"]; ok {
		if enc != "base64" {
			return File{}, nil, inputErr(append(at, "encoding"), "the only encoding is \"base64\"")
		}
		raw, err := base64.StdEncoding.DecodeString(content)
		if err != nil || base64.StdEncoding.EncodeToString(raw) != content {
			return File{}, nil, inputErr(append(at, "content"), "content is not canonical standard base64 (with padding)")
		}
		f.Content = raw
	}
	return f, rest, nil
}

// checkFileTree rejects a file whose path is also a directory in another
// file's path (a and a/b), which a git tree cannot hold. files must be
// sorted by path.
func checkFileTree(files []File) error {
	for i := 1; i < len(files); i++ {
		for j := i - 1; j >= 0 && strings.HasPrefix(files[i].Path, files[j].Path); j-- {
			if strings.HasPrefix(files[i].Path, files[j].Path+"/") {
				return inputErr([]any{MemberFiles, files[i].Path}, "%q is a file, so it cannot also be a directory", files[j].Path)
			}
		}
	}
	return nil
}

// Limits on a captured file's path, matching most file systems.
const (
	MaxPathBytes     = 4096
	MaxPathPartBytes = 255
)

// CheckPath accepts a relative, clean, slash-separated path that stays
// inside a work tree and out of .git, including every spelling that a
// file system may treat as .git. Snapshots can come from other people,
// so paths are checked when a document is saved and again when a stored
// snapshot is read.
func CheckPath(path string) error {
	switch {
	case path == "":
		return fmt.Errorf("the path is empty")
	case !utf8.ValidString(path):
		return fmt.Errorf("the path is not valid UTF-8")
	case len(path) > MaxPathBytes:
		return fmt.Errorf("path %.40q… is longer than %d bytes", path, MaxPathBytes)
	case strings.HasPrefix(path, "/") || strings.Contains(path, "\\") || len(path) > 1 && path[1] == ':':
		return fmt.Errorf("path %q must be relative, with forward slashes", path)
	case strings.IndexFunc(path, func(r rune) bool { return r < 0x20 || r == 0x7f }) >= 0:
		return fmt.Errorf("path %q holds a control character", path)
	}
	for _, seg := range strings.Split(path, "/") {
		switch {
		case seg == "" || seg == "." || seg == "..":
			return fmt.Errorf("path %q must be clean: no empty, '.' or '..' parts", path)
		case len(seg) > MaxPathPartBytes:
			return fmt.Errorf("path %q has a part longer than %d bytes", path, MaxPathPartBytes)
		case isGitDirName(seg):
			return fmt.Errorf("path %q goes into a .git directory", path)
		}
	}
	return nil
}

// isGitDirName reports whether seg is .git or a name that some file
// system treats as .git: any case, code points HFS+ ignores (zero-width
// joiners and the like), trailing dots and spaces and alternate data
// streams (NTFS), and the 8.3 short name.
func isGitDirName(seg string) bool {
	s := strings.Map(func(r rune) rune {
		if hfsIgnorable(r) {
			return -1
		}
		return r
	}, strings.ToLower(seg))
	s, _, _ = strings.Cut(s, ":")
	s = strings.TrimRight(s, ". ")
	return s == ".git" || s == "git~1"
}

// hfsIgnorable reports whether HFS+ ignores r when comparing names. The
// list matches git's own path checks.
func hfsIgnorable(r rune) bool {
	switch {
	case r >= 0x200c && r <= 0x200f, r >= 0x202a && r <= 0x202e, r >= 0x206a && r <= 0x206f, r == 0xfeff:
		return true
	}
	return false
}

// Join rebuilds the document from its parts.
func (p *Parts) Join() map[string]any {
	doc := make(map[string]any, len(p.Others)+3)
	for k, v := range p.Others {
		doc[k] = v
	}
	if len(p.Messages) > 0 {
		doc[MemberMessages] = p.Messages
	}
	if len(p.Events) > 0 {
		doc[MemberEvents] = p.Events
	}
	if len(p.Files) > 0 {
		meta, _ := p.Others[MemberFiles].(map[string]any)
		files := make(map[string]any, len(p.Files))
		for _, f := range p.Files {
			entry := map[string]any{}
			if m, ok := meta[f.Path].(map[string]any); ok {
				for k, v := range m {
					entry[k] = v
				}
			}
			if entry["encoding"] == "base64" {
				entry["content"] = base64.StdEncoding.EncodeToString(f.Content)
			} else {
				entry["content"] = string(f.Content)
			}
			files[f.Path] = entry
		}
		doc[MemberFiles] = files
	}
	return doc
}

// KindOf names the JSON kind of v for use in messages, such as
// "an object", "an array" or "a string".
func KindOf(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case string:
		return "a string"
	case map[string]any:
		return "an object"
	case []any:
		return "an array"
	}
	return "a number"
}
