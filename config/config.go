// Package config reads git-snap's settings from YAML files belonging to
// the user, the team (committed with the code) and this clone, merged in
// that order. Only the command line reads these files; the library gets
// the settings it needs through its own Options.
package config

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/git-snap/git-snap/gitstore"
	"github.com/git-snap/git-snap/internal/safefile"
	"github.com/git-snap/git-snap/redact"
)

// Config is git-snap's configuration. Files are read in the order of
// Sources, and each overrides the settings of the files before it,
// except that the team's file may only tighten security settings (see
// Load).
type Config struct {
	// Session is the default session for save, checkpoint and log.
	Session string `yaml:"session"`
	Refs    struct {
		// Prefix is the prefix of session refs; refs/snap/ by default.
		Prefix string `yaml:"prefix"`
		// CheckpointsInTags keeps checkpoints under refs/tags/snap/, where
		// earlier versions kept them and where git push --tags and git
		// clone transfer them. By default they are under refs/snap-tags/.
		CheckpointsInTags bool `yaml:"checkpoints_in_tags"`
	} `yaml:"refs"`
	Limits struct {
		// MaxDocumentBytes bounds a document given to save or import.
		MaxDocumentBytes int `yaml:"max_document_bytes"`
		// MaxDepth bounds the nesting of arrays and objects.
		MaxDepth int `yaml:"max_depth"`
		// MaxValueBytes bounds one string or number.
		MaxValueBytes int `yaml:"max_value_bytes"`
		// MaxReadBytes bounds how much of a transcript file one hook call
		// or import step reads; the next call continues from there.
		MaxReadBytes int `yaml:"max_read_bytes"`
		// MaxFileBytes bounds the size of a work-tree file a hook
		// captures. Larger files are listed as skipped and not read.
		MaxFileBytes int `yaml:"max_file_bytes"`
	} `yaml:"limits"`
	Code struct {
		// Record controls whether each snapshot records the work tree's
		// commit and whether it has uncommitted changes.
		Record *bool `yaml:"record"`
	} `yaml:"code"`
	// Redact adds redaction rules or an allowlist, or turns redaction off.
	Redact redact.Config `yaml:"redact"`
	// Retention prunes sessions as they grow.
	Retention struct {
		// MaxPerSession, when set, keeps this many snapshots (plus those
		// that checkpoints name) once a session has grown a tenth past it.
		MaxPerSession int `yaml:"max_per_session"`
		// KeepFirst also keeps each session's first snapshot.
		KeepFirst bool `yaml:"keep_first"`
	} `yaml:"retention"`
	// Prices adds models to the price table that stats and trace use to
	// estimate costs, or overrides its prices. It maps a model name to US
	// dollars per million tokens of each kind.
	Prices map[string]Price `yaml:"prices"`
	// Warnings lists the settings Load ignored, each naming its file, for
	// the command line to print.
	Warnings []string `yaml:"-"`
}

// Price is a model's price in US dollars per million tokens.
type Price struct {
	Input      float64 `yaml:"input"`
	CacheRead  float64 `yaml:"cache_read"`
	CacheWrite float64 `yaml:"cache_write"`
	Output     float64 `yaml:"output"`
}

// Default values of Config's limits.
const (
	DefaultMaxDocumentBytes = 64 << 20
	DefaultMaxDepth         = 512
	// MaxMaxDepth bounds max_depth. A document is stored indented, one
	// level per line, so its stored size grows with the square of its
	// depth (18 KB nested 9,000 levels deep made a 162 MB blob).
	MaxMaxDepth          = 1000
	DefaultMaxValueBytes = 16 << 20
	DefaultMaxReadBytes  = 8 << 20
	DefaultMaxFileBytes  = 1 << 20
)

// Error reports a configuration file that cannot be used as it is. The
// user must fix it; the command line exits with status 2.
type Error struct {
	File string
	Err  error
}

// Error names the file and the problem.
func (e *Error) Error() string { return fmt.Sprintf("config %s: %v", e.File, e.Err) }

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }

// UserError marks the error as one the user must fix.
func (e *Error) UserError() {}

// Sources lists the files a configuration is read from. Any of them may
// be "".
type Sources struct {
	User  string // the user's file: $XDG_CONFIG_HOME/git-snap/config.yaml
	Team  string // the team's committed file: .git-snap.yaml at the work tree root
	Clone string // this clone's file: .git/snap/config.yaml
}

// SourcesFor returns the configuration files of a repository.
// userConfigDir is the user's configuration directory ($XDG_CONFIG_HOME,
// or ~/.config), or "" for none; workTree is "" in a bare repository.
func SourcesFor(userConfigDir, workTree, commonDir string) Sources {
	var s Sources
	if userConfigDir != "" {
		s.User = filepath.Join(userConfigDir, "git-snap", "config.yaml")
	}
	if workTree != "" {
		s.Team = filepath.Join(workTree, ".git-snap.yaml")
	}
	if commonDir != "" {
		s.Clone = filepath.Join(commonDir, "snap", "config.yaml")
	}
	return s
}

// Files lists the sources that are set, lowest precedence first.
func (s Sources) Files() []string {
	var files []string
	for _, f := range []string{s.User, s.Team, s.Clone} {
		if f != "" {
			files = append(files, f)
		}
	}
	return files
}

// MaxFileBytes bounds the size of a settings file. A larger file is
// refused without being read.
const MaxFileBytes = 1 << 20

// Load reads and merges the files of s, skipping missing files. The
// team's file is committed, so anyone who can push to the repository can
// write it; therefore it may tighten security settings but never relax
// them. It may add redaction rules (but not replace the user's) and
// lower limits (but not raise them). It may not turn redaction off or add
// allowlist entries. Settings it is not allowed to change are ignored
// with a warning in Config.Warnings. Only the user's file and the
// clone's file can relax security settings.
func Load(s Sources) (Config, error) {
	var cfg Config
	for _, f := range []struct {
		name string
		team bool
		root string // the directory a symbolic link must stay inside
	}{{s.User, false, "/"}, {s.Team, true, filepath.Dir(s.Team)}, {s.Clone, false, filepath.Dir(filepath.Dir(s.Clone))}} {
		if f.name == "" {
			continue
		}
		// Every command and the hook read these files, and the team's
		// file can be committed by anyone who can push. So a link to
		// /dev/zero, a FIFO or a sparse file of gigabytes must be refused
		// without being read.
		b, err := safefile.ReadFile(context.Background(), f.name, f.root, MaxFileBytes)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		var refused *safefile.Error
		if errors.As(err, &refused) { // drop the file name, which Error adds
			err = fmt.Errorf("%s: refused, %s", refused.What, refused.Hint)
		}
		if err != nil {
			return Config{}, &Error{f.name, err}
		}
		if !f.team {
			err = Parse(b, &cfg)
		} else {
			cfg, err = mergeTeam(cfg, b, f.name)
		}
		if err != nil {
			return Config{}, &Error{f.name, err}
		}
	}
	if cfg.Limits.MaxDocumentBytes <= 0 {
		cfg.Limits.MaxDocumentBytes = DefaultMaxDocumentBytes
	}
	if cfg.Limits.MaxDepth <= 0 {
		cfg.Limits.MaxDepth = DefaultMaxDepth
	}
	if cfg.Limits.MaxValueBytes <= 0 {
		cfg.Limits.MaxValueBytes = DefaultMaxValueBytes
	}
	if cfg.Limits.MaxReadBytes <= 0 {
		cfg.Limits.MaxReadBytes = DefaultMaxReadBytes
	}
	if cfg.Limits.MaxFileBytes <= 0 {
		cfg.Limits.MaxFileBytes = DefaultMaxFileBytes
	}
	return cfg, nil
}

// mergeTeam applies the team's file on top of cfg. Of its redaction and
// limit settings, it keeps only those that tighten security.
func mergeTeam(cfg Config, data []byte, file string) (Config, error) {
	var team Config // the team's file on its own
	if err := Parse(data, &team); err != nil {
		return Config{}, err
	}
	merged := cfg
	merged.Redact.Rules = nil // otherwise Parse would add to cfg's map
	if err := Parse(data, &merged); err != nil {
		return Config{}, err
	}
	warn := func(format string, a ...any) {
		merged.Warnings = append(merged.Warnings, file+": "+fmt.Sprintf(format, a...)+
			"; a committed file may only tighten security settings (relax them in your own config or .git/snap/config.yaml)")
	}
	merged.Redact = cfg.Redact
	if team.Redact.Disabled && !cfg.Redact.Disabled {
		warn("redact.disabled is ignored")
	}
	if len(team.Redact.Allow) > 0 {
		warn("redact.allow is ignored (%d entries)", len(team.Redact.Allow))
	}
	if len(team.Redact.Rules) > 0 {
		rules := make(map[string]string, len(cfg.Redact.Rules)+len(team.Redact.Rules))
		for name, re := range cfg.Redact.Rules {
			rules[name] = re
		}
		for name, re := range team.Redact.Rules {
			if old, ok := rules[name]; ok && old != re {
				warn("redact rule %s is ignored: it would replace the one set before", name)
				continue
			}
			rules[name] = re
		}
		merged.Redact.Rules = rules
	}
	for _, l := range []struct {
		name            string
		team, cur, dflt int
		dst             *int
	}{
		{"limits.max_document_bytes", team.Limits.MaxDocumentBytes, cfg.Limits.MaxDocumentBytes, DefaultMaxDocumentBytes, &merged.Limits.MaxDocumentBytes},
		{"limits.max_depth", team.Limits.MaxDepth, cfg.Limits.MaxDepth, DefaultMaxDepth, &merged.Limits.MaxDepth},
		{"limits.max_value_bytes", team.Limits.MaxValueBytes, cfg.Limits.MaxValueBytes, DefaultMaxValueBytes, &merged.Limits.MaxValueBytes},
	} {
		cur := l.cur
		if cur <= 0 {
			cur = l.dflt
		}
		if l.team > cur {
			warn("%s %d is ignored: it is above %d", l.name, l.team, cur)
			*l.dst = l.cur
		}
	}
	return merged, nil
}

// Parse reads YAML into cfg, on top of the settings it already holds.
// Unknown keys are errors, so that a misspelt setting does not go
// unnoticed.
func Parse(data []byte, cfg *Config) error {
	data, rules, err := extractRules(data)
	if err != nil {
		return err
	}
	defer addRules(cfg, cfg.Redact.Rules, rules)
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(cfg); err != nil && !errors.Is(err, io.EOF) { // an empty file is fine
		var te *yaml.TypeError
		if !errors.As(err, &te) {
			return err
		}
		var msgs []string
		for _, m := range te.Errors {
			m, _, _ = strings.Cut(m, " in type ")
			if line, rest, ok := strings.Cut(m, ": "); ok {
				if field, ok := strings.CutPrefix(rest, "field "); ok {
					m = line + ": unknown setting " + strings.TrimSuffix(field, " not found")
				}
			}
			msgs = append(msgs, m)
		}
		return fmt.Errorf("%s (the settings are listed in the file git snap init writes)", strings.Join(msgs, "; "))
	}
	if cfg.Refs.Prefix != "" {
		if err := gitstore.CheckRefPrefix(cfg.Refs.Prefix); err != nil {
			return fmt.Errorf("refs.prefix: %w", err)
		}
	}
	if cfg.Limits.MaxDepth > MaxMaxDepth {
		return fmt.Errorf("limits.max_depth: %d is more than %d; lower it (a document's stored size grows with the square of its depth)", cfg.Limits.MaxDepth, MaxMaxDepth)
	}
	if cfg.Limits.MaxDocumentBytes < 0 || cfg.Limits.MaxDepth < 0 || cfg.Limits.MaxValueBytes < 0 || cfg.Limits.MaxReadBytes < 0 || cfg.Limits.MaxFileBytes < 0 || cfg.Retention.MaxPerSession < 0 {
		return fmt.Errorf("limits must not be negative")
	}
	for model, p := range cfg.Prices {
		for _, v := range []float64{p.Input, p.CacheRead, p.CacheWrite, p.Output} {
			// Written this way, NaN fails too.
			if !(v >= 0 && v <= maxPricePerMillion) {
				return fmt.Errorf("prices.%s: %v is not a price from $0 to $%d per million tokens; fix the number", model, v, maxPricePerMillion)
			}
		}
	}
	return nil
}

// maxPricePerMillion is the most a million tokens may cost in the
// prices section: far above any model's price, and low enough that a
// session's cost cannot overflow the integer it is counted in.
const maxPricePerMillion = 1_000_000

// RecordCode reports whether snapshots record the code commit.
func (c Config) RecordCode() bool { return c.Code.Record == nil || *c.Code.Record }

// Sample is the commented settings file that `git snap init` writes.
const Sample = `# git-snap settings for this repository, shared with the team.
# Settings for this clone only go in .git/snap/config.yaml, and your own
# in $XDG_CONFIG_HOME/git-snap/config.yaml. Later files override earlier
# ones, except that this file may only tighten redaction and limits: it
# can add rules and lower limits, but cannot turn redaction off, allow
# secrets or raise limits (do that in your own file or the clone's).

# Default session for save, checkpoint, log and stats (or $GIT_SNAP_SESSION).
# session: main

refs:
  # Where session branches live. refs/snap/ keeps them out of git branch,
  # pull requests and CI; refs/heads/snap/ makes them ordinary branches.
  prefix: refs/snap/
  # Checkpoints are annotated tags under refs/snap-tags/, which git tag -l,
  # git push --tags and git clone ignore (git snap push sends them).
  # true keeps them under refs/tags/snap/ instead, as earlier versions did.
  checkpoints_in_tags: false

limits:
  # Largest document save and import accept, in bytes (64 MiB).
  max_document_bytes: 67108864
  # Deepest nesting of arrays and objects (at most 1000; agents' JSON is
  # less than 50 deep).
  max_depth: 512
  # Largest single string or number, in bytes (16 MiB).
  max_value_bytes: 16777216
  # Most bytes of a transcript one hook call reads (8 MiB). The next call
  # continues from there, so a huge transcript is read in steps.
  max_read_bytes: 8388608
  # Largest work-tree file a hook call captures (1 MiB). Larger files are
  # not read; they are listed under skipped_files with their sizes.
  max_file_bytes: 1048576

code:
  # Record the commit the work tree is at, and whether it has changes,
  # in each snapshot (Snap-Code and Snap-Dirty trailers).
  record: true

redact:
  # Secrets are replaced by [REDACTED:<rule>] before anything is written,
  # and counted in a Snap-Redacted trailer. Built-in rules cover AWS,
  # GitHub, GitLab, Slack, OpenAI, Anthropic, Google, Stripe, npm, PyPI,
  # Hugging Face, SendGrid, Azure and Twilio keys, private keys, JWTs,
  # credentials in URLs and Authorization headers, password=/token= values.
  disabled: false
  # More rules, name: regular expression.
  rules: {}
  #   internal-ticket-token: '\bTKT-[0-9a-f]{32}\b'
  # Secrets matching any of these are kept (e.g. documented example keys).
  allow: []
  #   - '^AKIAIOSFODNN7EXAMPLE$'

retention:
  # Keep at most this many snapshots per session (0: all), plus those that
  # checkpoints name. Applied after a save once a session has grown a
  # tenth past the limit.
  max_per_session: 0
  keep_first: false

# Prices that stats and trace use to estimate costs, in US dollars per
# million tokens. These add models to the built-in table or override it.
# prices:
#   my-model: {input: 3, cache_read: 0.3, cache_write: 3.75, output: 15}
`

// addRules adds the rules that extractRules read to cfg's rules. The
// "rules:" key that extractRules left empty decodes as null, which
// clears the map, so the rules that were there before (prior) are put
// back first.
func addRules(cfg *Config, prior, rules map[string]string) {
	if rules == nil {
		return
	}
	if cfg.Redact.Rules == nil {
		cfg.Redact.Rules = prior
	}
	if cfg.Redact.Rules == nil {
		cfg.Redact.Rules = make(map[string]string, len(rules))
	}
	for name, re := range rules {
		cfg.Redact.Rules[name] = re
	}
}

// manyRules is the number of redact.rules entries above which
// extractRules parses the mapping itself. yaml.v3 checks a mapping's
// keys for duplicates pair by pair, so 20,000 rules used to add seconds
// to every command before it did anything.
const manyRules = 256

// extractRules parses a large block mapping redact.rules itself, one key
// at a time, using a set to find duplicates. It returns data with the
// mapping's lines blanked (so that line numbers in other errors stay
// correct) and the rules the mapping held. It returns nil rules when it
// leaves data to the decoder.
func extractRules(data []byte) ([]byte, map[string]string, error) {
	if len(data) < 64*manyRules { // too short to hold that many rules
		return data, nil, nil
	}
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil || len(root.Content) == 0 {
		return data, nil, nil // let the decoder report what is wrong
	}
	top := root.Content[0]
	redact, redactNext := mappingValue(top, "redact")
	if redact == nil {
		return data, nil, nil
	}
	r, rulesNext := mappingValue(redact, "rules")
	if r == nil || r.Kind != yaml.MappingNode || r.Style&yaml.FlowStyle != 0 || len(r.Content) < 2*manyRules {
		return data, nil, nil
	}
	rules := make(map[string]string, len(r.Content)/2)
	for i := 0; i+1 < len(r.Content); i += 2 {
		k, v := r.Content[i], r.Content[i+1]
		if k.Kind != yaml.ScalarNode || v.Kind != yaml.ScalarNode {
			return nil, nil, fmt.Errorf("line %d: redact.rules: each rule is a name and a regular expression", k.Line)
		}
		if _, dup := rules[k.Value]; dup {
			return nil, nil, fmt.Errorf("line %d: redact.rules: %s is named twice", k.Line, k.Value)
		}
		rules[k.Value] = v.Value
	}
	// The mapping runs from its first key to the line before whatever
	// follows it: the next key of redact, or else the next top-level key.
	lines := bytes.SplitAfter(data, []byte("\n"))
	end := len(lines)
	if next := firstNonNil(rulesNext, redactNext); next != nil {
		end = next.Line - 1
	}
	out := make([]byte, 0, len(data))
	for i, l := range lines {
		if i+1 >= r.Content[0].Line && i < end {
			if bytes.HasSuffix(l, []byte("\n")) {
				out = append(out, '\n')
			}
			continue
		}
		out = append(out, l...)
	}
	return out, rules, nil
}

// mappingValue finds key in a block mapping node and returns its value
// and the next key (nil when key is the last one).
func mappingValue(m *yaml.Node, key string) (value, next *yaml.Node) {
	if m == nil || m.Kind != yaml.MappingNode {
		return nil, nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			if i+2 < len(m.Content) {
				next = m.Content[i+2]
			}
			return m.Content[i+1], next
		}
	}
	return nil, nil
}

// firstNonNil returns a if it is not nil, and b otherwise.
func firstNonNil(a, b *yaml.Node) *yaml.Node {
	if a != nil {
		return a
	}
	return b
}
