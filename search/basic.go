package search

import "strings"

// Basic translates a basic regular expression, git grep's default
// syntax (POSIX BRE with GNU extensions), into the RE2 syntax that
// Query.Regexp expects. In a basic expression, ( ) { } | + ? are literal
// characters and their backslashed forms are operators, * at the start
// of an expression is a literal, \< and \> are word boundaries, and a
// backslash inside a bracket expression is a literal backslash.
// Back-references (\1) have no RE2 equivalent and are rejected.
func Basic(pattern string) (string, error) {
	var b strings.Builder
	atStart := true // at the start of an expression, where * is a literal
	for i := 0; i < len(pattern); i++ {
		c := pattern[i]
		switch {
		case c == '[':
			j, class := bracket(pattern, i)
			b.WriteString(class)
			i = j
			atStart = false
			continue
		case c == '\\' && i+1 < len(pattern):
			i++
			d := pattern[i]
			switch {
			case strings.IndexByte("(){}|+?", d) >= 0:
				b.WriteByte(d)
				atStart = d == '(' || d == '|'
				continue
			case d == '<' || d == '>':
				b.WriteString(`\b`)
			case '1' <= d && d <= '9':
				return "", &PatternError{`back-references (\` + string(d) + `) are not supported; use -E and write the repeated text out`}
			default:
				b.WriteByte('\\')
				b.WriteByte(d)
			}
		case strings.IndexByte("(){}|+?", c) >= 0, c == '*' && atStart:
			b.WriteByte('\\')
			b.WriteByte(c)
		default:
			b.WriteByte(c)
			atStart = c == '^' && atStart
			continue
		}
		atStart = false
	}
	return b.String(), nil
}

// bracket copies the bracket expression starting at pattern[i], with
// its backslashes made literal, and returns the index of its closing
// ']'. An unclosed expression is copied unchanged, so that the regexp
// compiler rejects it.
func bracket(pattern string, i int) (int, string) {
	j := i + 1
	if j < len(pattern) && pattern[j] == '^' {
		j++
	}
	if j < len(pattern) && pattern[j] == ']' {
		j++ // a leading ']' is a member of the set
	}
	for j < len(pattern) && pattern[j] != ']' {
		if pattern[j] == '[' && j+1 < len(pattern) && strings.IndexByte(":.=", pattern[j+1]) >= 0 {
			if k := strings.Index(pattern[j+2:], string(pattern[j+1])+"]"); k >= 0 {
				j += k + 4 // skip a [:class:] inside the set
				continue
			}
		}
		j++
	}
	if j >= len(pattern) {
		return len(pattern) - 1, pattern[i:]
	}
	body := pattern[i+1 : j]
	return j, "[" + strings.ReplaceAll(body, `\`, `\\`) + "]"
}
