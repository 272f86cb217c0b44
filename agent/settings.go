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

// hookLister is a hookWriter whose file is not a settings file of hooks
// by event (OpenCode's plugin): it reads git-snap's commands back itself.
type hookLister interface {
	// HookCommands lists git-snap's commands in file by event, as
	// HookCommands does; none where file is missing or not git-snap's.
	HookCommands(file string) (map[string][]string, error)
}

// HookCommandsOf lists the commands of git-snap's hooks in an agent's
// settings file, by event, for doctor; a file that does not exist has
// none.
func HookCommandsOf(a Adapter, file string) (map[string][]string, error) {
	if l, ok := a.(hookLister); ok {
		return l.HookCommands(file)
	}
	return HookCommands(file, a.Name())
}
