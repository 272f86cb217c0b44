package agent

// hookWriter is an Installer whose settings do not hold hooks the way
// Claude Code's do (matcher groups with a timeout in seconds): it writes
// and removes git-snap's own entries itself.
type hookWriter interface {
	// InstallHook adds git-snap's hook running command to file, keeping
	// everything else; it reports whether the file changed.
	InstallHook(file, command string) (bool, error)
	// UninstallHook removes git-snap's hook, and only it, from file.
	UninstallHook(file string) (bool, error)
}

// hookLister is a hookWriter whose settings are no JSON file of hooks
// (OpenCode's plugin): it reads git-snap's hooks back itself.
type hookLister interface {
	// HookCommands lists the commands of git-snap's hooks in file, by
	// event; a file that does not exist, or is not git-snap's, has none.
	HookCommands(file string) (map[string][]string, error)
}

// HooksIn lists the commands of git-snap's hooks for a in a settings
// file, by event, for doctor (see HookCommands).
func HooksIn(a Adapter, file string) (map[string][]string, error) {
	if l, ok := a.(hookLister); ok {
		return l.HookCommands(file)
	}
	return HookCommands(file, a.Name())
}

// Install adds git-snap's hooks, running command, to an agent's settings
// file (see Installer.SettingsFile), keeping every other setting. It
// reports whether the file changed: installing twice changes nothing.
func Install(a Adapter, file, command string) (bool, error) {
	if w, ok := a.(hookWriter); ok {
		return w.InstallHook(file, command)
	}
	return InstallFor(a, file, command)
}

// Uninstall removes git-snap's hooks, and only those, from an agent's
// settings file.
func Uninstall(a Adapter, file string) (bool, error) {
	if w, ok := a.(hookWriter); ok {
		return w.UninstallHook(file)
	}
	return UninstallHooks(file, a.Name())
}
