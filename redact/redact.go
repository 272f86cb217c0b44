// Package redact finds secrets in snapshot documents and replaces them
// before anything is written: API keys and tokens of the common services,
// private key blocks, JWTs, credentials in URLs and Authorization
// headers, password assignments and token assignments with high-entropy
// values, in strings, in keys, behind JSON escapes and inside base64.
// The rules are one tested table; more rules and an allowlist come from
// the configuration.
package redact

import (
	"encoding/base64"
	"fmt"
	"math"
	"regexp"
	"regexp/syntax"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/git-snap/git-snap/snapshot"
)

// Rule finds one kind of secret.
type Rule struct {
	Name string
	// re compiles the rule's pattern on first use. Most documents wake
	// few rules, and compiling them all would add half a millisecond to
	// every save.
	re func() *regexp.Regexp
	// Keywords, when set, must occur in a string for the pattern to run.
	// They are a fast filter, since most strings hold no secret at all.
	// With Fold they are matched against the lower-cased string.
	Keywords []string
	Fold     bool
	// MinEntropy, when set, skips matches whose secret looks like words
	// rather than a key (bits per character, Shannon).
	MinEntropy float64
	// Valid, when set, must accept the secret: names in code
	// (api_key: anthropic_api_key()) are not secrets.
	Valid func(secret string) bool
	// value, when set, must accept the secret s[start:end] in its
	// surroundings.
	value func(s string, start, end int) bool
	// gate, when set, must accept a string for the pattern to run. It is
	// a fast check for the shape of a secret, for a rule with no keyword.
	gate func(s string) bool
	// near runs the pattern only around the keywords. Its matches are
	// short and start at most a few words before a keyword, and a
	// pattern with no literal prefix is slow over a long string.
	near bool
}

// Bounds of the text around a keyword that a near rule looks at.
const nearBefore, nearAfter = 100, 400

// BuiltinRules returns the rules every redactor starts with. Specific
// formats come first; the assignment rules, which judge a value by its
// key and what it looks like, come last. A false positive loses data for
// good, so values that look like code (a call, a path, a variable) are
// kept.
func BuiltinRules() []Rule {
	r := func(name, pattern string, entropy float64, keywords ...string) Rule {
		return Rule{Name: name, re: sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(pattern) }), MinEntropy: entropy, Keywords: keywords}
	}
	fold := func(r Rule) Rule { r.Fold = true; return r }
	valid := func(r Rule, v func(string) bool) Rule { r.Valid = v; return r }
	value := func(r Rule, v func(s string, start, end int) bool) Rule { r.value = v; return r }
	near := func(r Rule) Rule { r.near = true; return r }
	gate := func(r Rule, g func(string) bool) Rule { r.gate = g; return r }
	return []Rule{
		r("private-key", `-----BEGIN[ A-Z0-9_-]{0,100}PRIVATE KEY( BLOCK)?-----[\s\S]*?-----END[ A-Z0-9_-]{0,100}PRIVATE KEY( BLOCK)?-----`, 0, "PRIVATE KEY"),
		// A key printed without its END line (by head, or in cut-off
		// output): match its BEGIN line and the lines of its body, up to
		// the first line that is not part of it. Text right after the
		// last body line is kept.
		r("private-key", cutKey, 0, "PRIVATE KEY"),
		r("kubeconfig-client-key", `client-key-data["']?\s*:\s*["']?(?P<secret>[A-Za-z0-9+/]{16,}={0,2})`, 0, "client-key-data"),
		r("aws-access-key-id", `\b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b`, 0, "AKIA", "ASIA", "ABIA", "ACCA"),
		// STS answers name it SecretAccessKey; a key may start or end
		// with / or +, so its end is where the alphabet ends.
		near(fold(r("aws-secret-access-key", `(?i)(?:aws_?)?secret_?access_?key["'\s:=]{1,5}(?P<secret>[A-Za-z0-9/+]{40})(?:[^A-Za-z0-9/+=]|$)`, 0, "secret"))),
		near(fold(r("aws-session-token", `(?i)(?:aws_?)?session_?token["'\s:=]{1,5}(?P<secret>[A-Za-z0-9/+]{100,}={0,2})`, 0, "sessiontoken", "session_token"))),
		r("github-token", `\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{36,255}\b`, 0, "ghp_", "gho_", "ghu_", "ghs_", "ghr_"),
		r("github-fine-grained-token", `\bgithub_pat_[A-Za-z0-9_]{80,100}\b`, 0, "github_pat_"),
		r("gitlab-token", `\bgl(?:pat|dt|ptt|rt|cbt|oas)-[A-Za-z0-9_-]{20,}`, 0, "glpat-", "gldt-", "glptt-", "glrt-", "glcbt-", "gloas-"),
		r("slack-token", `\bxox[abposre]-[A-Za-z0-9-]{10,}|\bxapp-\d-[A-Za-z0-9]{6,}-\d{6,}-[A-Za-z0-9]{20,}`, 0, "xox", "xapp-"),
		r("slack-webhook", `https://hooks\.slack\.com/services/T[A-Za-z0-9_]+/B[A-Za-z0-9_]+/[A-Za-z0-9_]+`, 0, "hooks.slack.com"),
		r("anthropic-api-key", `\bsk-ant-(?:api|admin)\d\d-[A-Za-z0-9_-]{80,}`, 0, "sk-ant-"),
		// Claude Code's own login: an access and a refresh token.
		r("anthropic-oauth-token", `\bsk-ant-o[ar]t\d\d-[A-Za-z0-9_-]{32,}`, 0, "sk-ant-"),
		r("openai-api-key", `\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}T3BlbkFJ[A-Za-z0-9_-]{20,}|\bsk-(?:proj|svcacct|admin)-[A-Za-z0-9_-]{40,}`, 0, "sk-"),
		r("google-api-key", `\bAIza[0-9A-Za-z_-]{35}\b`, 0, "AIza"),
		r("google-oauth-token", `\bya29\.[0-9A-Za-z_-]{20,}`, 0, "ya29."),
		r("stripe-key", `\b(?:sk|rk)_(?:live|test)_[0-9A-Za-z]{24,}\b|\bwhsec_[0-9A-Za-z]{24,}\b`, 0, "_live_", "_test_", "whsec_"),
		r("npm-token", `\bnpm_[A-Za-z0-9]{36}\b`, 0, "npm_"),
		r("pypi-token", `\bpypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,}`, 0, "pypi-AgEI"),
		r("huggingface-token", `\bhf_[A-Za-z0-9]{34}\b`, 0, "hf_"),
		r("sendgrid-api-key", `\bSG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}\b`, 0, "SG."),
		near(r("twilio-key", `\bSK[0-9a-fA-F]{32}\b|\bAC[0-9a-f]{32}:(?P<secret>[0-9a-f]{32})\b`, 0, "SK", "AC")),
		near(fold(r("azure-storage-key", `(?i)\b(?:AccountKey|SharedAccessKey)=(?P<secret>[A-Za-z0-9+/]{40,}={0,2})`, 0, "accesskey=", "accountkey="))),
		r("jwt", `\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{10,}`, 0, "eyJ"),
		near(r("url-credentials", `[a-zA-Z][a-zA-Z0-9+.-]{1,20}://[^\s:/@"'<>\[\]]{0,100}:(?P<secret>[^\s:/@"'<>\[\]]{3,200})@[A-Za-z0-9.-]+`, 0, "://")),
		near(valid(fold(r("authorization-header", `(?i)\b(?:bearer|basic)\s+(?P<secret>[A-Za-z0-9._~+/-]{12,}=*)`, 0, "bearer", "basic")), credential)),
		valid(r("docker-auth", `"auth"\s*:\s*"(?P<secret>[A-Za-z0-9+/]{8,}={0,2})"`, 0, `"auth"`), userColonPassword),
		r("docker-auth", `"(?:identitytoken|registrytoken)"\s*:\s*"(?P<secret>[^"\s]{8,})"`, 0, `"identitytoken"`, `"registrytoken"`),
		near(value(r("netrc-password", `\b(?:machine\s+[A-Za-z0-9_.-]+|default)(?:\s+(?:login|account|port)\s+\S*[^\s,:;.])*\s+password\s+(?P<secret>(?:[^\s\\]|\\[^nrtu"/])+)`, 0, "password"), notCode)),
		gate(r("pgpass-password", pgpassLine, 0), pgpassShaped),
		// Keys named for what they sign or encrypt (PRIVATE_KEY=0x…,
		// SECRET_KEY_BASE=, APP_KEY=base64:…, JWT_SIGNING_KEY=), judged
		// like token assignments; a file name (server.key) is kept.
		near(value(valid(fold(r("key-assignment", `(?i)(?:^|[^a-z0-9])(?:[a-z0-9]+[_.-])*(?:`+keyKinds+`)[_.-]?key(?:[_.-]?base)?["']?\s*[:=]\s*["']?(?P<secret>[A-Za-z0-9/+_=.:~-]{16,})`, 3.5,
			keyNames()...)), hasDigitAndLetter), notCodeOrFile)),
		near(value(fold(r("password-assignment", `(?i)(?:^|[^a-z0-9])(?:[a-z0-9]*[_.-]?(?:password|passwd|passphrase|secret)|[a-z0-9]*[_.-](?:pwd|pass))["']?\s*[:=]\s*["']?(?P<secret>[^\s"'`+"`"+`,;]{6,200})`, 0,
			"pass", "pwd", "secret")), wordPassword)),
		near(value(valid(fold(r("token-assignment", `(?i)(?:password|passwd|pwd|secret|token|api_?key|access_?key|secret_?key|auth_?token|client_?secret)["']?\s*[:=]\s*["']?(?P<secret>[A-Za-z0-9/+_=.~!@#$%^&*-]{12,})`, 3.5,
			"pass", "pwd", "secret", "token", "key")), hasDigitAndLetter), notCode)),
	}
}

// cutKey matches a PEM private key's BEGIN line and the lines of its
// body, in plain text or behind JSON escapes, each possibly after a line
// number (from cat -n or an agent's file reader), up to the first line
// that is not base64. The last line may be cut short where the text ends
// or a quote closes it.
const cutKey = `(?P<secret>-----BEGIN[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----` +
	`(?:` + pemBreak + `(?:Proc-Type|DEK-Info):[^\r\n\\]*)*` +
	`(?:` + pemBreak + `[A-Za-z0-9+/=]{16,})+` +
	`(?:` + pemBreak + `[A-Za-z0-9+/=]{1,15})?)` +
	`(?:[ \t]*(?:\r?\n|\\r|\\n|["'` + "`" + `]|$))`

// pemBreak matches what comes between two lines of a printed key.
const pemBreak = `(?:[ \t]*(?:\r?\n|\\r\\n|\\n)|[ \t])+[ \t]*(?:\d{1,7}(?:→|\t))?`

// keyKinds are the words that name what a key in a key assignment is
// for.
const keyKinds = `private|signing|app|master|encryption|secret|jwt|hmac|cookie`

// keyNames returns the key-assignment rule's keywords: each kind of key
// and "key", as one word or two.
func keyNames() []string {
	var names []string
	for _, kind := range strings.Split(keyKinds, "|") {
		for _, sep := range []string{"", "_", "-", "."} {
			names = append(names, kind+sep+"key")
		}
	}
	return names
}

// pgpassShaped reports whether s may contain a .pgpass line: a port (a
// number or *) between colons, then three more fields, the last ending
// a line. It rules out the times in a JSON line, which have a quote
// before their third colon.
func pgpassShaped(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] != ':' {
			continue
		}
		k := i + 1
		for k < len(s) && k-i <= 5 && (s[k] >= '0' && s[k] <= '9' || s[k] == '*' && k == i+1) {
			k++
		}
		if k == i+1 || k >= len(s) || s[k] != ':' {
			continue
		}
		colons, field := 0, 0
		for k++; k < len(s) && !strings.ContainsRune(" \t\r\n\"'`\\", rune(s[k])); k++ {
			if s[k] == ':' {
				if field == 0 {
					break
				}
				colons, field = colons+1, 0
			} else {
				field++
			}
		}
		if colons == 2 && field > 0 {
			return true
		}
	}
	return false
}

// pgpassLine matches a line of a .pgpass file,
// host:port:database:user:password, whose host has a letter or a dot
// (or is *) and whose port is a number (or *). Times and MAC addresses
// do not fit that shape. \: and \\ are escapes.
const pgpassLine = `(?m)(?:^|[ \t→|"'` + "`" + `])(?:\*|[A-Za-z0-9_-]*[A-Za-z._][A-Za-z0-9._-]*):(?:\*|\d{1,5}):` +
	`(?:[^:\s\\]|\\[:\\])+:(?:[^:\s\\]|\\[:\\])+:(?P<secret>(?:[^:\s\\"'` + "`" + `]|\\[:\\])+)[ \t]*(?:\r?\n|$|["'` + "`" + `])`

// Pattern returns the rule's regular expression. The secret is the whole
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
	// index, built on first use, finds the rules a string wakes in one
	// pass. It is nil when there are too many rules for one index; each
	// rule is then checked separately.
	index func() *keywordIndex
	// clean remembers object keys found to hold no secret, up to
	// maxCleanKeys. A transcript's records repeat the same few names
	// thousands of times, and redacting each one again was slow.
	clean  sync.Map // string → struct{}
	nClean atomic.Int64
}

// minSecret is the length of the shortest string searched for secrets.
const minSecret = 8

// maxCleanKeys limits the size of Redactor.clean; keys beyond it are
// redacted every time they occur.
const maxCleanKeys = 4096

// Config adds rules and allowlist patterns (regular expressions) to the
// built-in ones, or turns redaction off.
type Config struct {
	Disabled bool              `yaml:"disabled"`
	Rules    map[string]string `yaml:"rules"` // name → pattern
	Allow    []string          `yaml:"allow"` // secrets matching these are kept
}

// compiled counts the configured rules compiled so far, for tests.
var compiled atomic.Int64

// New returns a redactor with the built-in rules and those of cfg.
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
		// Parse the pattern now, so that every command reports a bad
		// rule, but compile it on first use. Most commands (log, show,
		// sessions) never use it, and a team's file of 20,000 rules
		// made each of them compile all 20,000 first. Any pattern that
		// syntax.Parse accepts, regexp.Compile accepts too.
		pattern := cfg.Rules[name]
		if _, err := syntax.Parse(pattern, syntax.Perl); err != nil {
			return nil, fmt.Errorf("redact rule %s: %w", name, err)
		}
		r.rules = append(r.rules, Rule{Name: name, re: sync.OnceValue(func() *regexp.Regexp {
			compiled.Add(1)
			return regexp.MustCompile(pattern)
		})})
	}
	for _, a := range cfg.Allow {
		re, err := regexp.Compile(a)
		if err != nil {
			return nil, fmt.Errorf("redact allow %q: %w", a, err)
		}
		r.allow = append(r.allow, re)
	}
	r.index = sync.OnceValue(func() *keywordIndex {
		ix, _ := newKeywordIndex(r.rules)
		return ix
	})
	return r, nil
}

// waking calls fn with each rule that s wakes, in order. Once fn
// changes s, the remaining rules are checked against the new s.
func (r *Redactor) waking(s string, fn func(rule Rule, s string) string) string {
	var ix *keywordIndex
	if r.index != nil {
		ix = r.index()
	}
	var set uint64
	lower := ""
	if ix != nil {
		set = ix.wakeSet(s)
	}
	for i, rule := range r.rules {
		if ix != nil && !ix.wakes(i, set) || ix == nil && !rule.wakes(s, &lower) {
			continue
		}
		if next := fn(rule, s); next != s {
			s, lower = next, ""
			if ix != nil {
				set = ix.wakeSet(s)
			}
		}
	}
	return s
}

// Placeholder returns the text that replaces a secret found by rule.
func Placeholder(rule string) string { return "[REDACTED:" + rule + "]" }

// String redacts one string, returning the new string and what it found.
// Besides the string as it is, it searches the string with its JSON
// escapes decoded, and inside base64 runs that decode to text. JSON
// escapes matter because a transcript line that did not parse is kept
// raw: \u0067hp_… hides ghp_… from a pattern, and a file's lines are all
// on one line there.
func (r *Redactor) String(s string) (string, []Finding) {
	if r == nil || len(r.rules) == 0 || len(s) < minSecret {
		return s, nil
	}
	var found []Finding
	s = r.rulesPass(s, &found)
	if strings.Contains(s, `\u`) || strings.Contains(s, `\/`) || heldJSON(s) && (strings.Contains(s, `\n`) || strings.Contains(s, `\"`)) {
		s = r.escaped(s, &found)
	}
	s = r.base64Runs(s, &found)
	return s, found
}

// heldJSON reports whether s is JSON text stored in a string (a line
// that did not parse, or a tool's JSON answer). In such text, \n and \"
// hide the line breaks and quotes of the files and assignments inside.
func heldJSON(s string) bool {
	t := strings.TrimLeft(s, " \t\r\n")
	return t != "" && (t[0] == '{' || t[0] == '[')
}

// wakes reports whether s contains one of the rule's keywords. lower
// caches s lower-cased; it is computed when first needed, and "" until
// then.
func (rule Rule) wakes(s string, lower *string) bool {
	if len(rule.Keywords) == 0 {
		return true
	}
	hay := s
	if rule.Fold {
		if *lower == "" {
			*lower = strings.ToLower(s)
		}
		hay = *lower
	}
	return containsAny(hay, rule.Keywords)
}

// rulesPass runs every rule over s.
func (r *Redactor) rulesPass(s string, found *[]Finding) string {
	return r.waking(s, func(rule Rule, s string) string { return r.apply(rule, s, found) })
}

// escaped runs the rules over s with its JSON escapes decoded, and
// replaces what they find in s itself, escapes and all.
func (r *Redactor) escaped(s string, found *[]Finding) string {
	dec, at := unescape(s)
	if dec == s {
		return s
	}
	r.waking(dec, func(rule Rule, dec string) string {
		spans := r.find(rule, dec)
		if spans == nil {
			return dec
		}
		var b strings.Builder
		last := 0
		for _, sp := range spans {
			start, end := at[sp[0]], at[sp[1]]
			b.WriteString(s[last:start])
			b.WriteString(Placeholder(rule.Name))
			last = end
			*found = append(*found, Finding{Rule: rule.Name, Preview: mask(dec[sp[0]:sp[1]])})
		}
		b.WriteString(s[last:])
		s = b.String()
		dec, at = unescape(s)
		return dec
	})
	return s
}

// unescape decodes the JSON escapes in s. at[i] is the offset in s of
// the escape or byte that gave byte i of the result; at[len] is len(s).
func unescape(s string) (string, []int) {
	b := make([]byte, 0, len(s))
	at := make([]int, 0, len(s)+1)
	for i := 0; i < len(s); {
		c, n := s[i], 1
		from := len(b)
		switch {
		case c != '\\' || i+1 == len(s):
			b = append(b, c)
		case s[i+1] == 'u':
			v, err := strconv.ParseUint(s[i+2:min(i+6, len(s))], 16, 16)
			if err != nil || i+6 > len(s) {
				b = append(b, c)
				break
			}
			rn, m := rune(v), 6
			if utf16.IsSurrogate(rn) && i+12 <= len(s) && s[i+6:i+8] == `\u` {
				if w, err := strconv.ParseUint(s[i+8:i+12], 16, 16); err == nil {
					rn, m = utf16.DecodeRune(rn, rune(w)), 12
				}
			}
			b, n = utf8.AppendRune(b, rn), m
		default:
			n = 2
			switch d := s[i+1]; d {
			case 'n':
				b = append(b, '\n')
			case 't':
				b = append(b, '\t')
			case 'r':
				b = append(b, '\r')
			case '/', '\\', '"':
				b = append(b, d)
			default:
				b, n = append(b, c), 1
			}
		}
		for range len(b) - from {
			at = append(at, i)
		}
		i += n
	}
	return string(b), append(at, len(s))
}

// Lengths of the base64 runs that redaction decodes: long enough to hold
// a token, and up to the size of a configuration (a kubeconfig's key, a
// service account's JSON in GOOGLE_CREDENTIALS). A run longer than
// maxShortRun is decoded only when its start decodes to text, which an
// image's does not.
const (
	minBase64Run = 24
	maxShortRun  = 1024
	maxBase64Run = 64 << 10
)

// base64Runs searches runs of the base64 alphabet that are long enough
// to hold a token and short enough not to be a file. A run that decodes
// to text in which a rule finds a secret is replaced whole.
func (r *Redactor) base64Runs(s string, found *[]Finding) string {
	var b strings.Builder
	last := 0
	for i := 0; i < len(s); {
		if !isBase64(s[i]) || i > 0 && s[i-1] == '\\' { // \n in a line kept raw is no base64
			i++
			continue
		}
		j, run := wrappedRun(s, i)
		k := j
		for k < len(s) && k-j < 2 && s[k] == '=' {
			k++
		}
		if n := len(run); n >= minBase64Run && n <= maxBase64Run && (i == 0 || !isWordByte(s[i-1]) || i >= 2 && s[i-2] == '\\') && (n <= maxShortRun || textStart(run[:maxShortRun])) {
			if text, ok := decodeText(run + s[j:k]); ok {
				var inner []Finding
				r.rulesPass(text, &inner)
				if len(inner) > 0 {
					b.WriteString(s[last:i])
					name := inner[0].Rule + "-base64"
					b.WriteString(Placeholder(name))
					last = k
					*found = append(*found, Finding{Rule: name, Preview: mask(s[i:k])})
				}
			}
		}
		i = k
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// wrappedRun returns the end of the run of the base64 alphabet at s[i],
// and the run without its line breaks. It follows the run across the
// line breaks of wrapped base64 as tools write it (base64 and openssl
// wrap at 64 or 76), with the breaks either raw or escaped as in JSON.
// A line of a width that is a multiple of four and at least 60 continues
// on the next line, which must be as wide or be the last. Each line
// decodes on its own to a piece of the whole.
func wrappedRun(s string, i int) (end int, run string) {
	j := i
	for j < len(s) && isBase64(s[j]) {
		j++
	}
	width := j - i
	if width < 60 || width%4 != 0 {
		return j, s[i:j]
	}
	var b strings.Builder
	b.WriteString(s[i:j])
	for {
		k := j
		for _, br := range []string{"\r\n", "\n", `\r\n`, `\n`} {
			if strings.HasPrefix(s[k:], br) {
				k += len(br)
				break
			}
		}
		m := k
		for m < len(s) && isBase64(s[m]) {
			m++
		}
		if k == j || m == k || m-k > width {
			return j, b.String()
		}
		b.WriteString(s[k:m])
		j = m
		if m-k < width {
			return j, b.String() // the last line
		}
	}
}

func isBase64(c byte) bool {
	return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '/'
}

func isWordByte(c byte) bool { return isBase64(c) || c == '_' || c == '-' || c == '.' }

// textStart reports whether a base64 run's first maxShortRun characters
// (a multiple of four) decode to text, ignoring a rune cut off at the
// end.
func textStart(s string) bool {
	raw, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return false
	}
	for k := 0; k < utf8.UTFMax-1 && len(raw) > 0 && !utf8.Valid(raw); k++ {
		raw = raw[:len(raw)-1]
	}
	return isText(raw)
}

// isText reports whether raw is UTF-8 without control bytes other than
// line breaks and tabs.
func isText(raw []byte) bool {
	if !utf8.Valid(raw) {
		return false
	}
	for _, c := range raw {
		if c < 0x20 && c != '\n' && c != '\t' && c != '\r' || c == 0x7f {
			return false
		}
	}
	return true
}

// decodeText decodes standard base64, padded or not, to printable text.
func decodeText(s string) (string, bool) {
	enc := base64.StdEncoding
	if len(s)%4 != 0 {
		enc = base64.RawStdEncoding
	}
	raw, err := enc.DecodeString(s)
	if err != nil || !isText(raw) {
		return "", false
	}
	return string(raw), true
}

// Bytes redacts a captured file's content. Text, and content that is
// mostly text (with a stray byte that is not UTF-8, or a NUL), is
// redacted. Binary content is left as it is, since a replacement would
// corrupt it.
func (r *Redactor) Bytes(b []byte) ([]byte, []Finding) {
	if !MostlyText(b) {
		return b, nil
	}
	s, found := r.String(string(b))
	if len(found) == 0 {
		return b, nil
	}
	return []byte(s), found
}

// MostlyText reports whether content is text to redact: fewer than one
// byte in twenty is a control byte or not part of valid UTF-8.
func MostlyText(b []byte) bool {
	bad := 0
	for i := 0; i < len(b); {
		c, n := utf8.DecodeRune(b[i:])
		if c == utf8.RuneError && n == 1 || c < 0x20 && c != '\n' && c != '\t' && c != '\r' && c != '\f' {
			bad++
		}
		i += n
	}
	return bad*20 < len(b)
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
// and key replaced, and what was found where.
func (r *Redactor) Document(doc map[string]any) (map[string]any, []Finding) {
	if r == nil || len(r.rules) == 0 {
		return doc, nil
	}
	var found []Finding
	out := make(map[string]any, len(doc))
	keys := r.keys(doc, nil, &found)
	for k, v := range doc {
		if k == snapshot.MemberFiles {
			out[k] = r.files(v, &found)
			continue
		}
		if nk, ok := keys[k]; ok {
			k = nk
		}
		out[k] = r.value(v, []any{k}, &found)
	}
	SortFindings(found)
	return out, found
}

// Element redacts element i of a document's member (messages[i],
// events[i]) as Document would in the whole document, for a document
// read one element at a time (snapshot.Scanned). Its findings, together
// with Document's findings on the other members and sorted with
// SortFindings, equal Document's findings on the whole document.
func (r *Redactor) Element(member string, i int, v any) (any, []Finding) {
	if r == nil || len(r.rules) == 0 {
		return v, nil
	}
	var found []Finding
	return r.value(v, []any{member, i}, &found), found
}

// RenamesKey reports whether Document would rename a top-level member
// with that name, because the name holds a secret. A document whose
// messages member would be renamed cannot be read one element at a time.
func (r *Redactor) RenamesKey(name string) bool {
	_, found := r.String(name)
	return len(found) > 0
}

// SortFindings sorts findings into Document's order: by JSON path, and
// within one string in the order they were found.
func SortFindings(found []Finding) {
	sort.SliceStable(found, func(i, j int) bool { return found[i].Path < found[j].Path })
}

// Scanned returns what Document would find in the document in d,
// reading its messages and events one at a time.
func (r *Redactor) Scanned(d *snapshot.Scanned) ([]Finding, error) {
	if r.RenamesKey(snapshot.MemberMessages) || r.RenamesKey(snapshot.MemberEvents) {
		doc, err := d.Document() // the member renamed is Document's to find
		if err != nil {
			return nil, err
		}
		_, found := r.Document(doc)
		return found, nil
	}
	_, found := r.Document(d.Others)
	for _, member := range []string{snapshot.MemberMessages, snapshot.MemberEvents} {
		for i := range d.Len(member) {
			v, err := d.Element(member, i)
			if err != nil {
				return nil, err
			}
			_, f := r.Element(member, i, v)
			found = append(found, f...)
		}
	}
	SortFindings(found)
	return found, nil
}

// files redacts captured files. Base64 content is decoded first and
// redacted as Bytes does: mostly text is redacted and encoded again,
// binary content is left as it is.
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
	if err != nil {
		return e
	}
	text, f := r.Bytes(raw)
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
	out["content"] = base64.StdEncoding.EncodeToString(text)
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
		keys := r.keys(v, path, found)
		for k, e := range v {
			if nk, ok := keys[k]; ok {
				k = nk
			}
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

// nearMatches returns the matches of a near rule in the windows around
// its keywords, as offsets in s. A match that runs to the end of its
// window is searched for again in the rest of s, so a long match is
// never cut short.
func nearMatches(rule Rule, s string) [][]int {
	hay := s
	if rule.Fold {
		hay = strings.ToLower(s)
		if len(hay) != len(s) { // case mapping moved the offsets
			return rule.Pattern().FindAllStringSubmatchIndex(s, -1)
		}
	}
	wins := keywordWindows(hay, rule.Keywords)
	if wins == nil {
		return nil
	}
	var locs [][]int
	covered := 0 // matches end at or after this
	for i := 0; i < len(wins); {
		w := wins[i]
		for i++; i < len(wins) && wins[i][0] <= w[1]; i++ {
			w[1] = max(w[1], wins[i][1])
		}
		for _, loc := range rule.Pattern().FindAllStringSubmatchIndex(s[w[0]:w[1]], -1) {
			base := w[0]
			if loc[1] == w[1]-w[0] && w[1] < len(s) {
				base += loc[0]
				if loc = rule.Pattern().FindStringSubmatchIndex(s[base:]); loc == nil {
					continue
				}
			}
			for k := range loc {
				if loc[k] >= 0 {
					loc[k] += base
				}
			}
			if loc[0] < covered {
				continue
			}
			covered = loc[1]
			locs = append(locs, loc)
		}
	}
	return locs
}

// keywordWindows returns the windows around each occurrence of words in
// hay, sorted by start.
func keywordWindows(hay string, words []string) [][2]int {
	var wins [][2]int
	for _, kw := range words {
		for off := 0; ; {
			i := strings.Index(hay[off:], kw)
			if i < 0 {
				break
			}
			i += off
			wins = append(wins, [2]int{max(0, i-nearBefore), min(len(hay), i+len(kw)+nearAfter)})
			off = i + len(kw)
		}
	}
	sort.Slice(wins, func(i, j int) bool { return wins[i][0] < wins[j][0] })
	return wins
}

// keys redacts the keys of an object, since a key can hold a secret just
// as a value can (an environment map keyed by a token, a cache keyed by
// a URL with credentials). It returns the new name of each key that
// changed. A new name that another key already has gets " #2", " #3"…
// so that no member is lost.
func (r *Redactor) keys(m map[string]any, path []any, found *[]Finding) map[string]string {
	var renamed map[string]string
	var findings map[string][]Finding
	for k := range m {
		if len(k) < minSecret {
			continue
		}
		if _, ok := r.clean.Load(k); ok {
			continue
		}
		nk, f := r.String(k)
		if len(f) == 0 {
			if r.nClean.Add(1) <= maxCleanKeys {
				r.clean.Store(k, struct{}{})
			}
			continue
		}
		if renamed == nil {
			renamed, findings = map[string]string{}, map[string][]Finding{}
		}
		renamed[k], findings[k] = nk, f
	}
	if renamed == nil {
		return nil
	}
	olds := make([]string, 0, len(renamed))
	for k := range renamed {
		olds = append(olds, k)
	}
	sort.Strings(olds)
	taken := make(map[string]bool, len(m))
	for k := range m {
		if _, ok := renamed[k]; !ok {
			taken[k] = true
		}
	}
	for _, k := range olds {
		nk := renamed[k]
		for i := 2; taken[nk]; i++ {
			nk = fmt.Sprintf("%s #%d", renamed[k], i)
		}
		taken[nk] = true
		renamed[k] = nk
		for _, x := range findings[k] {
			x.Path = snapshot.FormatPath(append(path[:len(path):len(path)], nk)) + " (key)"
			*found = append(*found, x)
		}
	}
	return renamed
}

func (r *Redactor) apply(rule Rule, s string, found *[]Finding) string {
	spans := r.find(rule, s)
	if spans == nil {
		return s
	}
	var b strings.Builder
	last := 0
	for _, sp := range spans {
		b.WriteString(s[last:sp[0]])
		b.WriteString(Placeholder(rule.Name))
		last = sp[1]
		*found = append(*found, Finding{Rule: rule.Name, Preview: mask(s[sp[0]:sp[1]])})
	}
	b.WriteString(s[last:])
	return b.String()
}

// find returns the spans of the secrets that rule finds in s.
func (r *Redactor) find(rule Rule, s string) [][2]int {
	if rule.gate != nil && !rule.gate(s) {
		return nil
	}
	pattern := rule.Pattern()
	var locs [][]int
	if rule.near && len(s) > 2*(nearBefore+nearAfter) {
		locs = nearMatches(rule, s)
	} else {
		locs = pattern.FindAllStringSubmatchIndex(s, -1)
	}
	if locs == nil {
		return nil
	}
	sub := pattern.SubexpIndex("secret")
	var spans [][2]int
	for _, loc := range locs {
		start, end := loc[0], loc[1]
		if sub > 0 && loc[2*sub] >= 0 {
			start, end = loc[2*sub], loc[2*sub+1]
		}
		secret := s[start:end]
		if strings.Contains(secret, "REDACTED:") || r.allowed(secret) ||
			rule.MinEntropy > 0 && entropy(secret) < rule.MinEntropy || rule.Valid != nil && !rule.Valid(secret) ||
			rule.value != nil && !rule.value(s, start, end) {
			continue
		}
		spans = append(spans, [2]int{start, end})
	}
	return spans
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

// entropy returns the Shannon entropy of s in bits per character.
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

// mask shows at most four characters of a secret, the first and last
// two, and never more than a quarter of it, for reports.
func mask(s string) string {
	n := len(s)
	stars := func(k int) string { return strings.Repeat("*", min(k, 12)) }
	switch {
	case n >= 16:
		return s[:2] + stars(n-4) + s[n-2:]
	case n >= 8:
		return s[:1] + stars(n-2) + s[n-1:]
	}
	return stars(n)
}

// notCode rejects values that look like code rather than a secret: a call
// (get_token(), Base.encode64(…)), a path, a variable or a template.
func notCode(s string, start, end int) bool {
	v := s[start:end]
	if end < len(s) && s[end] == '(' || strings.Contains(v, "(") {
		return false
	}
	for _, p := range []string{"/", "~/", "./", "../", "$", "%", "<", "{", "[", "*"} {
		if strings.HasPrefix(v, p) {
			return false
		}
	}
	return true
}

// notCodeOrFile is like notCode but also rejects file names (server.key,
// certs/app.pem), because a key setting often names the file that holds
// the key.
func notCodeOrFile(s string, start, end int) bool {
	v := s[start:end]
	if dot := strings.LastIndexByte(v, '.'); dot >= 0 && len(v)-dot <= 6 {
		ext := v[dot+1:]
		if ext != "" && strings.IndexFunc(ext, func(r rune) bool { return r < 'a' || r > 'z' }) < 0 {
			return false
		}
	}
	return notCode(s, start, end)
}

// userColonPassword accepts a docker auth value: base64 of user:password.
func userColonPassword(v string) bool {
	text, ok := decodeText(v)
	return ok && strings.Contains(text, ":")
}

// wordPassword accepts a password that need not look random, when its
// context shows it is one: a whole quoted value ("password": "…", with a
// digit or a symbol, so that "string" or "required" are kept) or a shell
// or .env assignment to an upper-case name (DB_PASSWORD=…).
func wordPassword(s string, start, end int) bool {
	if !notCode(s, start, end) {
		return false
	}
	v := s[start:end]
	if start > 0 && (s[start-1] == '"' || s[start-1] == '\'') {
		q := s[start-1]
		closed := end < len(s) && s[end] == q
		return closed && (hasDigitAndLetter(v) || strings.IndexFunc(v, isSymbol) >= 0)
	}
	if start >= 2 && s[start-1] == '=' && s[start-2] >= 'A' && s[start-2] <= 'Z' {
		return len(v) >= 8
	}
	return false
}

func isSymbol(r rune) bool {
	return r < 128 && !isBase64(byte(r)) || r == '+' || r == '/'
}

// credential accepts what follows Bearer or Basic when it is a token and
// not a word ("Bearer token", "basic authentication").
func credential(v string) bool {
	return hasDigitAndLetter(v) || strings.HasSuffix(v, "=")
}
