// Package redact finds secrets in snapshot documents and replaces them
// before anything is written: API keys and tokens of the common services,
// private key blocks, JWTs, credentials in URLs and password or token
// assignments with high-entropy values. The rules are one tested table;
// more rules and an allowlist come from the configuration.
package redact

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"math"
	"regexp"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/git-snap/git-snap/snapshot"
)

// Rule finds one kind of secret.
type Rule struct {
	Name string
	// re compiles the rule's pattern on first use: most documents wake
	// few rules, and compiling them all costs a save half a millisecond.
	re func() *regexp.Regexp
	// Keywords, when set, must occur in a string for the pattern to run:
	// a fast filter, since most strings hold no secret at all. With Fold
	// they are matched against the lower-cased string.
	Keywords []string
	Fold     bool
	// MinEntropy, when set, skips matches whose secret looks like words
	// rather than a key (bits per character, Shannon).
	MinEntropy float64
	// Valid, when set, must accept the secret: names in code
	// (api_key: anthropic_api_key()) are not secrets.
	Valid func(secret string) bool
}

// BuiltinRules are the rules every redactor starts with.
func BuiltinRules() []Rule {
	r := func(name, pattern string, entropy float64, keywords ...string) Rule {
		return Rule{Name: name, re: sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(pattern) }), MinEntropy: entropy, Keywords: keywords}
	}
	fold := func(r Rule) Rule { r.Fold = true; return r }
	mixed := func(r Rule) Rule { r.Valid = hasDigitAndLetter; return r }
	return []Rule{
		r("private-key", `-----BEGIN[ A-Z0-9_-]{0,100}PRIVATE KEY( BLOCK)?-----[\s\S]*?-----END[ A-Z0-9_-]{0,100}PRIVATE KEY( BLOCK)?-----`, 0, "PRIVATE KEY"),
		r("aws-access-key-id", `\b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b`, 0, "AKIA", "ASIA", "ABIA", "ACCA"),
		fold(r("aws-secret-access-key", `(?i)aws_?secret_?access_?key["'\s:=]{1,5}(?P<secret>[A-Za-z0-9/+]{40})\b`, 0, "secret")),
		r("github-token", `\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{36,255}\b`, 0, "ghp_", "gho_", "ghu_", "ghs_", "ghr_"),
		r("github-fine-grained-token", `\bgithub_pat_[A-Za-z0-9_]{80,100}\b`, 0, "github_pat_"),
		r("gitlab-token", `\bgl(?:pat|dt|ptt|rt|cbt|oas)-[A-Za-z0-9_-]{20,}`, 0, "glpat-", "gldt-", "glptt-", "glrt-", "glcbt-", "gloas-"),
		r("slack-token", `\bxox[abposr]-[A-Za-z0-9-]{10,}`, 0, "xox"),
		r("slack-webhook", `https://hooks\.slack\.com/services/T[A-Za-z0-9_]+/B[A-Za-z0-9_]+/[A-Za-z0-9_]+`, 0, "hooks.slack.com"),
		r("anthropic-api-key", `\bsk-ant-(?:api|admin)\d\d-[A-Za-z0-9_-]{80,}`, 0, "sk-ant-"),
		r("openai-api-key", `\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}T3BlbkFJ[A-Za-z0-9_-]{20,}|\bsk-(?:proj|svcacct|admin)-[A-Za-z0-9_-]{40,}`, 0, "sk-"),
		r("google-api-key", `\bAIza[0-9A-Za-z_-]{35}\b`, 0, "AIza"),
		r("stripe-key", `\b(?:sk|rk)_(?:live|test)_[0-9A-Za-z]{24,}\b`, 0, "_live_", "_test_"),
		r("jwt", `\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{10,}`, 0, "eyJ"),
		r("url-credentials", `[a-zA-Z][a-zA-Z0-9+.-]{1,20}://[^\s:/@"'<>\[\]]{1,100}:(?P<secret>[^\s:/@"'<>\[\]]{3,200})@[A-Za-z0-9.-]+`, 0, "://"),
		mixed(fold(r("password-assignment", `(?i)(?:password|passwd|pwd|secret|token|api_?key|access_?key|auth_?token|client_?secret)[A-Za-z0-9_]*["']?\s*[:=]\s*["']?(?P<secret>[A-Za-z0-9/+_=.~!@#$%^&*-]{12,200})`, 3.5,
			"pass", "pwd", "secret", "token", "key"))),
	}
}

// Pattern is the rule's regular expression. The secret is the whole
// match, or the submatch named "secret" when there is one.
func (r Rule) Pattern() *regexp.Regexp { return r.re() }

// Finding is one secret found in a document.
type Finding struct {
	Rule    string
	Path    string // JSON path of the string, or files["…"] for a file
	Preview string // the secret with its middle masked
}

// Redactor replaces secrets. The zero value finds nothing; use New.
type Redactor struct {
	rules []Rule
	allow []*regexp.Regexp
}

// Config adds rules and allowlist patterns (regular expressions) to the
// built-in ones, or turns redaction off.
type Config struct {
	Disabled bool              `yaml:"disabled"`
	Rules    map[string]string `yaml:"rules"` // name → pattern
	Allow    []string          `yaml:"allow"` // secrets matching these are kept
}

// New makes a redactor from the built-in rules and cfg.
func New(cfg Config) (*Redactor, error) {
	if cfg.Disabled {
		return &Redactor{}, nil
	}
	r := &Redactor{rules: BuiltinRules()}
	names := make([]string, 0, len(cfg.Rules))
	for name := range cfg.Rules {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		re, err := regexp.Compile(cfg.Rules[name])
		if err != nil {
			return nil, fmt.Errorf("redact rule %s: %w", name, err)
		}
		r.rules = append(r.rules, Rule{Name: name, re: func() *regexp.Regexp { return re }})
	}
	for _, a := range cfg.Allow {
		re, err := regexp.Compile(a)
		if err != nil {
			return nil, fmt.Errorf("redact allow %q: %w", a, err)
		}
		r.allow = append(r.allow, re)
	}
	return r, nil
}

// Placeholder replaces a secret found by rule.
func Placeholder(rule string) string { return "[REDACTED:" + rule + "]" }

// String redacts one string, returning the new string and what it found.
func (r *Redactor) String(s string) (string, []Finding) {
	if r == nil || len(r.rules) == 0 || len(s) < 8 {
		return s, nil
	}
	var found []Finding
	lower := ""
	for _, rule := range r.rules {
		if len(rule.Keywords) > 0 {
			hay := s
			if rule.Fold {
				if lower == "" {
					lower = strings.ToLower(s)
				}
				hay = lower
			}
			if !containsAny(hay, rule.Keywords) {
				continue
			}
		}
		before := len(found)
		s = r.apply(rule, s, &found)
		if len(found) > before {
			lower = "" // s changed
		}
	}
	return s, found
}

func containsAny(s string, words []string) bool {
	for _, w := range words {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

// Document returns a copy of doc with every secret in its strings
// replaced, and what was found where. Keys are left as they are.
func (r *Redactor) Document(doc map[string]any) (map[string]any, []Finding) {
	if r == nil || len(r.rules) == 0 {
		return doc, nil
	}
	var found []Finding
	out := make(map[string]any, len(doc))
	for k, v := range doc {
		if k == snapshot.MemberFiles {
			out[k] = r.files(v, &found)
			continue
		}
		out[k] = r.value(v, []any{k}, &found)
	}
	sort.SliceStable(found, func(i, j int) bool { return found[i].Path < found[j].Path })
	return out, found
}

// files redacts captured files. Base64 content is decoded first: text is
// redacted and encoded again; binary content (not UTF-8, or with NUL
// bytes) is left as it is, since a replacement would only corrupt it.
func (r *Redactor) files(v any, found *[]Finding) any {
	m, ok := v.(map[string]any)
	if !ok {
		return r.value(v, []any{snapshot.MemberFiles}, found)
	}
	out := make(map[string]any, len(m))
	for path, entry := range m {
		e, ok := entry.(map[string]any)
		if !ok || e["encoding"] != "base64" {
			out[path] = r.value(entry, []any{snapshot.MemberFiles, path}, found)
			continue
		}
		out[path] = r.base64File(e, []any{snapshot.MemberFiles, path, "content"}, found)
	}
	return out
}

func (r *Redactor) base64File(e map[string]any, path []any, found *[]Finding) map[string]any {
	content, _ := e["content"].(string)
	raw, err := base64.StdEncoding.DecodeString(content)
	if err != nil || !utf8.Valid(raw) || bytes.IndexByte(raw, 0) >= 0 {
		return e
	}
	text, f := r.String(string(raw))
	if len(f) == 0 {
		return e
	}
	for _, x := range f {
		x.Path = snapshot.FormatPath(path)
		*found = append(*found, x)
	}
	out := make(map[string]any, len(e))
	for k, v := range e {
		out[k] = v
	}
	out["content"] = base64.StdEncoding.EncodeToString([]byte(text))
	return out
}

func (r *Redactor) value(v any, path []any, found *[]Finding) any {
	switch v := v.(type) {
	case string:
		s, f := r.String(v)
		for _, x := range f {
			x.Path = snapshot.FormatPath(path)
			*found = append(*found, x)
		}
		return s
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[k] = r.value(e, append(path[:len(path):len(path)], k), found)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = r.value(e, append(path[:len(path):len(path)], i), found)
		}
		return out
	}
	return v
}

func (r *Redactor) apply(rule Rule, s string, found *[]Finding) string {
	pattern := rule.Pattern()
	locs := pattern.FindAllStringSubmatchIndex(s, -1)
	if locs == nil {
		return s
	}
	sub := pattern.SubexpIndex("secret")
	var b strings.Builder
	last := 0
	for _, loc := range locs {
		start, end := loc[0], loc[1]
		if sub > 0 && loc[2*sub] >= 0 {
			start, end = loc[2*sub], loc[2*sub+1]
		}
		secret := s[start:end]
		if strings.Contains(secret, "REDACTED:") || r.allowed(secret) ||
			rule.MinEntropy > 0 && entropy(secret) < rule.MinEntropy || rule.Valid != nil && !rule.Valid(secret) {
			continue
		}
		b.WriteString(s[last:start])
		b.WriteString(Placeholder(rule.Name))
		last = end
		*found = append(*found, Finding{Rule: rule.Name, Preview: mask(secret)})
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

func (r *Redactor) allowed(secret string) bool {
	for _, a := range r.allow {
		if a.MatchString(secret) {
			return true
		}
	}
	return false
}

func hasDigitAndLetter(s string) bool {
	return strings.ContainsAny(s, "0123456789") && strings.IndexFunc(s, func(r rune) bool {
		return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z'
	}) >= 0
}

// entropy is the Shannon entropy of s in bits per character.
func entropy(s string) float64 {
	counts := map[rune]int{}
	n := 0
	for _, c := range s {
		counts[c]++
		n++
	}
	h := 0.0
	for _, k := range counts {
		p := float64(k) / float64(n)
		h -= p * math.Log2(p)
	}
	return h
}

// mask keeps the first and last characters of a secret, for reports.
func mask(s string) string {
	if len(s) <= 8 {
		return strings.Repeat("*", len(s))
	}
	return s[:4] + strings.Repeat("*", min(len(s)-8, 12)) + s[len(s)-4:]
}
