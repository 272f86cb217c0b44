package refs

import (
	"fmt"
	"strings"
)

// CheckName reports whether name is a ref name git accepts under refs/,
// as `git check-ref-format` rules them. Every name that reaches a path on
// disk passes here first, so that no name, wherever it came from, can
// climb out of the refs directory with `..` or name a lock file.
func CheckName(name string) error {
	rest, ok := strings.CutPrefix(name, "refs/")
	if !ok || rest == "" {
		return fmt.Errorf("ref name %q does not start with refs/", name)
	}
	if strings.Contains(name, "@{") || strings.HasSuffix(name, ".") || strings.HasSuffix(name, "/") {
		return fmt.Errorf("ref name %q is not one git accepts", name)
	}
	for _, part := range strings.Split(rest, "/") {
		if err := checkComponent(part); err != nil {
			return fmt.Errorf("ref name %q: %w", name, err)
		}
	}
	return nil
}

// checkPrefix checks a prefix to list under: a ref name and a final /.
func checkPrefix(prefix string) error {
	name, ok := strings.CutSuffix(prefix, "/")
	if !ok {
		return fmt.Errorf("ref prefix %q does not end with /", prefix)
	}
	return CheckName(name)
}

func checkComponent(part string) error {
	switch {
	case part == "":
		return fmt.Errorf("an empty component")
	case strings.HasPrefix(part, "."):
		return fmt.Errorf("component %q starts with '.'", part)
	case strings.HasSuffix(part, ".lock"):
		return fmt.Errorf("component %q ends with .lock", part)
	case strings.Contains(part, ".."):
		return fmt.Errorf("component %q holds '..'", part)
	}
	for _, c := range part {
		if c < 0x20 || c == 0x7f || strings.ContainsRune(" ~^:?*[\\", c) {
			return fmt.Errorf("component %q holds %q", part, c)
		}
	}
	return nil
}
