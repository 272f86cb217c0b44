package programs

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
)

// MissingError is a program of git-snap's that is not installed: the
// call cannot run here, and nothing was done.
type MissingError struct {
	Program Program
	What    string // what needs it: "git snap view", "--jq"
	Beside  string // the folder of the program that looked, "" when unknown
}

// Error names the program and where it was looked for.
func (e *MissingError) Error() string {
	where := "on PATH"
	if e.Beside != "" {
		where = "beside " + e.Beside + " nor on PATH"
	}
	return fmt.Sprintf("%s runs in the program %s, which is not installed (not %s)", e.What, e.Program, where)
}

// UserError marks the error as one the user corrects, by installing the
// program.
func (e *MissingError) UserError() {}

// Hint says how to install the program, with the version of the one
// that looked when it is a release.
func (e *MissingError) Hint(version string) string {
	at := "latest"
	if strings.HasPrefix(version, "v") && !strings.ContainsAny(version, " ()") {
		at = version
	}
	return fmt.Sprintf("install it beside git-snap, as the README's Install does for every program: go install github.com/git-snap/git-snap/cmd/%s@%s (or go build ./cmd/%s in a checkout)", e.Program, at, e.Program)
}

// Find is the path of program p: the one beside this process's
// executable (installed with it), else the first on PATH.
func Find(p Program) (string, error) {
	name := string(p)
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	beside := ""
	if exe, err := os.Executable(); err == nil {
		beside = filepath.Dir(exe)
		path := filepath.Join(beside, name)
		if fi, err := os.Stat(path); err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0 {
			return path, nil
		}
	}
	path, err := exec.LookPath(name)
	if err != nil {
		return "", &MissingError{Program: p, Beside: beside}
	}
	return path, nil
}

// Need is Find, whose error says that what needs p.
func Need(p Program, what string) (string, error) {
	path, err := Find(p)
	var missing *MissingError
	if errors.As(err, &missing) {
		missing.What = what
	}
	return path, err
}

// CallerVersion is the variable Exec gives the program it runs: the
// version of the program that ran it, which the two should share (see
// VersionWarning).
const CallerVersion = "GIT_SNAP_CALLER_VERSION"

// VersionWarning is what a program run by Exec says when the program
// that ran it is of another version (one installed without the other:
// their command lines may differ), "" when they agree or it was not run
// by Exec. caller is CallerVersion's value.
func VersionWarning(self, caller, version string) string {
	if caller == "" || caller == version {
		return ""
	}
	return fmt.Sprintf("%s is version %s, the git-snap that ran it %s: install every program again, as the README's Install does", self, version, caller)
}

// Exec runs program p in place of this process with args (without the
// program's name) and this process's variables, plus CallerVersion set
// to version, as git runs its programs: what the command prints and its
// exit status are the program's. what says what needs p, for the error
// when it is missing. Exec returns only when p cannot be run.
func Exec(p Program, what string, args []string, version string) error {
	path, err := Need(p, what)
	if err != nil {
		return err
	}
	// A program that was to run this itself would run itself for ever.
	if exe, err := os.Executable(); err == nil && strings.TrimSuffix(filepath.Base(exe), ".exe") == string(p) {
		return fmt.Errorf("%s does not link what %s needs: build it again from this version", p, what)
	}
	return execProgram(path, append([]string{string(p)}, args...), append(os.Environ(), CallerVersion+"="+version))
}
