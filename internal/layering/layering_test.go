// Package layering holds the module's imports to the layering that
// docs/design.md §1 lists. The list is read from the document, not kept
// here, so that people and the test read the same rule; the test fails
// both on an import the list does not allow and on an arrow the list
// keeps that the code no longer has, so that the document stays true.
//
// The package has test files only: it is no part of the layering it
// checks.
package layering

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
)

const (
	// designDoc is the document whose §1 lists the allowed imports.
	designDoc = "docs/design.md"
	// rootName names the module's root package in that list: by its
	// package name, as Go programs import it, since its path relative to
	// the module is empty.
	rootName = "gitsnap"
	// pendingMark follows a package that is not in the module yet (it is
	// on its way from another branch): its arrows are allowed before they
	// exist, and checked like the others once it does.
	pendingMark = "(pending)"
)

// noGit lists the packages that docs/design.md §1 says read no git: the
// document model and the agents' formats. Any go-git package among their
// dependencies breaks that, however deep.
var noGit = []string{"agent", "snapshot"}

// builds are the GOOS values the imports are read for: the module has
// files for unix and for other systems (build constraints), and an
// import in either is an import.
var builds = []string{"linux", "windows"}

// layering is the list of docs/design.md §1: every package of the module
// with the packages of the module it may import, in groups from the top
// (the command line) down.
type layering struct {
	order   []string                   // the packages, as listed
	group   map[string]int             // a package's group, 0 at the top
	allowed map[string]map[string]bool // package → the packages it may import
	pending map[string]bool            // packages marked (pending)
}

// parseLayering reads the block of allowed imports: one line per
// package, "pkg → a, b, c" or "pkg" alone when it imports none of the
// module's packages, an indented line going on with the list of the line
// before, a blank line closing a group, "#" starting a comment. A package
// may be marked "(pending)" after its name.
func parseLayering(block string) (layering, error) {
	l := layering{group: map[string]int{}, allowed: map[string]map[string]bool{}, pending: map[string]bool{}}
	group, inGroup := 0, false
	last := "" // the package whose list an indented line continues
	for n, line := range strings.Split(block, "\n") {
		if i := strings.Index(line, "#"); i >= 0 {
			line = line[:i]
		}
		if strings.TrimSpace(line) == "" {
			if inGroup {
				group, inGroup, last = group+1, false, ""
			}
			continue
		}
		fail := func(format string, args ...any) error {
			return fmt.Errorf("line %d of the imports block (%q): %s", n+1, strings.TrimSpace(line), fmt.Sprintf(format, args...))
		}
		head, targets, hasArrow := strings.Cut(line, "→")
		if line[0] == ' ' || line[0] == '\t' {
			if hasArrow || last == "" {
				return l, fail("an indented line goes on with the list of the line before, which has none")
			}
			targets = line
		} else {
			fields := strings.Fields(head)
			switch {
			case len(fields) == 2 && fields[1] == pendingMark:
				l.pending[fields[0]] = true
			case len(fields) != 1:
				return l, fail("a line is a package, optionally %s, then → and the packages it may import", pendingMark)
			}
			last = fields[0]
			if _, dup := l.group[last]; dup {
				return l, fail("%s is listed twice", last)
			}
			l.order = append(l.order, last)
			l.group[last], inGroup = group, true
			l.allowed[last] = map[string]bool{}
			if !hasArrow {
				last = "" // nothing to go on with
				continue
			}
		}
		for _, t := range strings.Split(targets, ",") {
			t = strings.TrimSpace(t)
			switch {
			case t == "": // the comma ending a line that goes on below
			case strings.ContainsAny(t, " \t"):
				return l, fail("%q: packages are separated by commas", t)
			case l.allowed[last][t]:
				return l, fail("%s → %s is listed twice", last, t)
			default:
				l.allowed[last][t] = true
			}
		}
	}
	if len(l.order) == 0 {
		return l, errors.New("the imports block lists no package")
	}
	return l, nil
}

// imports are the imports between the module's packages: package →
// imported package → the files (relative to the module) that import it.
// A package of test files only is present with no imports.
type imports map[string]map[string][]string

// check compares the imports of the code with the layering and returns
// what disagrees, each problem a sentence that says what to change.
func check(l layering, actual imports) []string {
	var out []string
	addf := func(format string, args ...any) { out = append(out, fmt.Sprintf(format, args...)) }
	where := designDoc + " §1"

	// The list itself: every arrow points down to a package with a line.
	for _, p := range l.order {
		for _, t := range sortedKeys(l.allowed[p]) {
			g, ok := l.group[t]
			switch {
			case !ok:
				addf("%s lists %s → %s, but %s has no line of its own: add it to the group it belongs to", where, p, t, t)
			case g <= l.group[p]:
				addf("%s lists %s → %s, which does not point down: %s must be in a group below %s's", where, p, t, t, p)
			}
		}
	}
	// The list and the module name the same packages.
	for _, p := range l.order {
		if _, ok := actual[p]; !ok && !l.pending[p] {
			addf("%s lists %s, which is no package of the module: remove its line", where, p)
		}
	}
	for _, p := range sortedKeys(actual) {
		if _, ok := l.group[p]; !ok {
			addf("package %s is not in %s: add its line, with its imports, to the group it belongs to", p, where)
			continue
		}
		// (a) An import the list does not allow.
		for _, t := range sortedKeys(actual[p]) {
			if !l.allowed[p][t] {
				addf("%s imports %s (%s), which %s does not allow: remove the import, or add the arrow %s → %s there if it is meant",
					p, t, strings.Join(actual[p][t], ", "), where, p, t)
			}
		}
	}
	// (b) An arrow the code no longer has. A pending package's arrows
	// need not exist until the package does.
	for _, p := range l.order {
		if _, ok := actual[p]; !ok {
			continue // reported above, or pending
		}
		for _, t := range sortedKeys(l.allowed[p]) {
			_, exists := actual[t]
			if !exists && l.pending[t] {
				continue
			}
			if _, ok := actual[p][t]; !ok {
				addf("%s lists %s → %s, but %s does not import %s: remove the arrow, so that the list says what the code does", where, p, t, p, t)
			}
		}
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// importsBlock returns the block of allowed imports: the fenced block
// marked "imports" in §1 of the design document.
func importsBlock(doc string) (string, error) {
	_, s1, ok := strings.Cut(doc, "\n## §1 ")
	if !ok {
		return "", fmt.Errorf("%s has no §1", designDoc)
	}
	if end := strings.Index(s1, "\n## "); end >= 0 {
		s1 = s1[:end]
	}
	_, rest, ok := strings.Cut(s1, "\n```imports\n")
	if !ok {
		return "", fmt.Errorf("%s §1 has no ```imports block", designDoc)
	}
	block, _, ok := strings.Cut(rest, "\n```")
	if !ok {
		return "", fmt.Errorf("%s §1: the ```imports block is not closed", designDoc)
	}
	return block, nil
}

// goPackage is what the test reads of `go list -json`.
type goPackage struct {
	ImportPath string
	Dir        string
	Standard   bool
	GoFiles    []string
	CgoFiles   []string
	Imports    []string
	Error      *struct{ Err string }
}

// module is what go list says of the module, for every build.
type module struct {
	path, dir string
	imports   imports
	// deps holds, by import path, the imports of every package the
	// module's packages depend on, the standard library's and other
	// modules' included.
	deps map[string][]string
}

// name is a package's name in the layering: its path in the module, and
// rootName for the module's root.
func (m *module) name(importPath string) (string, bool) {
	if importPath == m.path {
		return rootName, true
	}
	rel, ok := strings.CutPrefix(importPath, m.path+"/")
	return rel, ok
}

// listModule runs go list once per build; it is shared by the tests.
var listModule = sync.OnceValues(func() (*module, error) {
	goTool, err := exec.LookPath("go") // go test puts its own go first in PATH
	if err != nil {
		return nil, err
	}
	out, err := exec.Command(goTool, "list", "-m", "-f", "{{.Path}}\n{{.Dir}}").Output()
	if err != nil {
		return nil, fmt.Errorf("go list -m: %w", err)
	}
	path, dir, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
	m := &module{path: path, dir: dir, imports: imports{}, deps: map[string][]string{}}
	for _, goos := range builds {
		// ./... holds the main module's packages only: the modules in
		// contrib/ have their own go.mod and are left out, as they should.
		cmd := exec.Command(goTool, "list", "-e", "-deps", "-json", "./...")
		cmd.Dir, cmd.Env = dir, append(os.Environ(), "GOOS="+goos)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			return nil, fmt.Errorf("GOOS=%s go list: %v\n%s", goos, err, stderr.String())
		}
		if err := m.add(json.NewDecoder(bytes.NewReader(out))); err != nil {
			return nil, fmt.Errorf("GOOS=%s go list: %w", goos, err)
		}
	}
	return m, nil
})

// add reads one build's packages.
func (m *module) add(dec *json.Decoder) error {
	for dec.More() {
		var p goPackage
		if err := dec.Decode(&p); err != nil {
			return err
		}
		if p.Error != nil {
			return fmt.Errorf("%s: %s", p.ImportPath, p.Error.Err)
		}
		m.deps[p.ImportPath] = append(m.deps[p.ImportPath], p.Imports...)
		from, ours := m.name(p.ImportPath)
		files := append(slices.Clone(p.GoFiles), p.CgoFiles...)
		if !ours || p.Standard || len(files) == 0 {
			continue // another module's, or test files only (like this one)
		}
		if m.imports[from] == nil {
			m.imports[from] = map[string][]string{}
		}
		for _, imp := range p.Imports {
			to, ok := m.name(imp)
			if !ok {
				continue
			}
			by, err := filesImporting(p.Dir, files, imp)
			if err != nil {
				return err
			}
			for _, f := range by {
				rel, _ := filepath.Rel(m.dir, f)
				rel = filepath.ToSlash(rel)
				if !slices.Contains(m.imports[from][to], rel) {
					m.imports[from][to] = append(m.imports[from][to], rel)
				}
			}
		}
	}
	return nil
}

// filesImporting names the files of a package that import path, so that
// a failure says where to look.
func filesImporting(dir string, files []string, path string) ([]string, error) {
	var out []string
	for _, name := range files {
		f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(dir, name), nil, parser.ImportsOnly)
		if err != nil {
			return nil, err
		}
		for _, spec := range f.Imports {
			if p, _ := strconv.Unquote(spec.Path.Value); p == path {
				out = append(out, filepath.Join(dir, name))
			}
		}
	}
	return out, nil
}

// readLayering reads the allowed imports from the design document.
func readLayering(t *testing.T, dir string) layering {
	t.Helper()
	doc, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(designDoc)))
	if err != nil {
		t.Fatal(err)
	}
	block, err := importsBlock(string(doc))
	if err != nil {
		t.Fatal(err)
	}
	l, err := parseLayering(block)
	if err != nil {
		t.Fatalf("%s §1: %v", designDoc, err)
	}
	return l
}

// TestImportsFollowDesign holds every import between the module's
// packages (test files aside) to docs/design.md §1, and §1 to the code.
func TestImportsFollowDesign(t *testing.T) {
	m, err := listModule()
	if err != nil {
		t.Fatal(err)
	}
	l := readLayering(t, m.dir)
	if len(m.imports) < 20 {
		t.Fatalf("go list found %d packages in the module; the listing is broken", len(m.imports))
	}
	for _, problem := range check(l, m.imports) {
		t.Error(problem)
	}
	// A pending package that has arrived is checked like the others; its
	// mark is only out of date, which is no reason to fail a merge.
	for p := range l.pending {
		if _, ok := m.imports[p]; ok {
			t.Logf("%s is in the module now: its %s mark in %s §1 can go", p, pendingMark, designDoc)
		}
	}
}

// TestFormatsImportNoGit: the document model and the agents' formats
// read no git, so that a program can read a snapshot or an agent's
// transcript without go-git; a go-git package among their dependencies
// fails, with the chain of imports that brings it in.
func TestFormatsImportNoGit(t *testing.T) {
	m, err := listModule()
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range noGit {
		start := m.path + "/" + name
		if _, ok := m.deps[start]; !ok {
			t.Errorf("%s is not in the module", name)
			continue
		}
		if chain := m.chainTo(start, "github.com/go-git/"); chain != nil {
			t.Errorf("%s imports git, which %s §1 says it does not: %s", name, designDoc, strings.Join(chain, " → "))
		}
	}
}

// chainTo finds a package with the prefix among the dependencies of
// start, and returns the imports that lead there (shortest first), or
// nil.
func (m *module) chainTo(start, prefix string) []string {
	from := map[string]string{start: ""}
	queue := []string{start}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		if strings.HasPrefix(p, prefix) {
			var chain []string
			for ; p != ""; p = from[p] {
				chain = append(chain, p)
			}
			slices.Reverse(chain)
			return chain
		}
		for _, imp := range m.deps[p] {
			if _, seen := from[imp]; !seen {
				from[imp] = p
				queue = append(queue, imp)
			}
		}
	}
	return nil
}

// TestCheck shows what the check catches, on a small layering: each case
// is one mistake, and the check must name it (so that the test over the
// real module could fail).
func TestCheck(t *testing.T) {
	const block = `
cmd       → gitsnap, store   # a comment

gitsnap (pending) → store,
            model

store     → model

model
`
	good := imports{
		"cmd":   {"store": {"cmd/main.go"}},
		"store": {"model": {"store/store.go"}},
		"model": {},
	}
	for _, tc := range []struct {
		name  string
		block string
		edit  func(imports)
		want  []string // each a part of one problem, in order
	}{
		{name: "as listed, the pending package absent", block: block},
		{name: "the pending package present, as listed", block: block, edit: func(a imports) {
			a["cmd"]["gitsnap"] = []string{"cmd/main.go"}
			a["gitsnap"] = map[string][]string{"store": {"gitsnap.go"}, "model": {"gitsnap.go"}}
		}},
		{name: "an import not listed", block: block, edit: func(a imports) {
			a["store"]["cmd"] = []string{"store/up.go"}
		}, want: []string{"store imports cmd (store/up.go), which docs/design.md §1 does not allow"}},
		{name: "an arrow the code lost", block: block, edit: func(a imports) {
			delete(a["store"], "model")
		}, want: []string{"lists store → model, but store does not import model: remove the arrow"}},
		{name: "the pending package present, its arrows checked", block: block, edit: func(a imports) {
			a["gitsnap"] = map[string][]string{"store": {"gitsnap.go"}}
		}, want: []string{"lists cmd → gitsnap, but cmd does not import gitsnap", "lists gitsnap → model, but gitsnap does not import model"}},
		{name: "a package not listed", block: block, edit: func(a imports) {
			a["viewer"] = map[string][]string{}
		}, want: []string{"package viewer is not in docs/design.md §1"}},
		{name: "a package listed that is gone", block: block + "extra\n", want: []string{"lists extra, which is no package of the module"}},
		{name: "an arrow up", block: "cmd → store\n\nstore → model, cmd\n\nmodel\n", edit: func(a imports) {
			a["store"]["cmd"] = []string{"store/up.go"}
		}, want: []string{"lists store → cmd, which does not point down"}},
		{name: "an arrow within a group", block: "cmd → store\nstore → model\n\nmodel\n",
			want: []string{"lists cmd → store, which does not point down"}},
		{name: "an arrow to a package with no line", block: "cmd → store, ghost\n\nstore → model\n\nmodel\n",
			want: []string{"lists cmd → ghost, but ghost has no line of its own", "lists cmd → ghost, but cmd does not import ghost"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			actual := imports{}
			for p, m := range good {
				actual[p] = map[string][]string{}
				for k, v := range m {
					actual[p][k] = v
				}
			}
			if tc.edit != nil {
				tc.edit(actual)
			}
			l, err := parseLayering(tc.block)
			if err != nil {
				t.Fatal(err)
			}
			got := check(l, actual)
			if len(got) != len(tc.want) {
				t.Fatalf("problems:\n%s\nwant %d", strings.Join(got, "\n"), len(tc.want))
			}
			for i, w := range tc.want {
				if !strings.Contains(got[i], w) {
					t.Errorf("problem %d: %s\nwant it to say: %s", i, got[i], w)
				}
			}
		})
	}
}

// TestParseLayeringRefuses: a mistake in the block is said, not read as
// some other layering.
func TestParseLayeringRefuses(t *testing.T) {
	for _, block := range []string{
		"",
		"a → b\na → c\n\nb\nc\n",  // a package twice
		"a → b, b\n\nb\n",         // an arrow twice
		"  b\n",                   // going on with no line before
		"a\n  b\n",                // going on with a line that has no arrow
		"a (planned) → b\n\nb\n",  // a mark that is not the pending one
		"a → b c\n\nb\nc\n",       // no comma
		"a b → c\n\nc\n",          // two names
		"a → b,\n  → c\n\nb\nc\n", // an arrow on a going-on line
	} {
		if l, err := parseLayering(block); err == nil {
			t.Errorf("%q read as %v", block, l.allowed)
		}
	}
}

// TestImportsBlockIsReadFromSection1: a block of another section is no
// part of the rule.
func TestImportsBlockIsReadFromSection1(t *testing.T) {
	doc := "# d\n\n## §1 Layout\n\ntext\n\n```imports\na → b\n\nb\n```\n\n## §2 Next\n\n```imports\nz\n```\n"
	block, err := importsBlock(doc)
	if err != nil || block != "a → b\n\nb" {
		t.Fatalf("block %q, %v", block, err)
	}
	if _, err := importsBlock(strings.Replace(doc, "## §1 Layout\n\ntext\n\n```imports\na → b\n\nb\n```\n", "## §1 Layout\n", 1)); err == nil {
		t.Error("a block in §2 was read as §1's")
	}
}
