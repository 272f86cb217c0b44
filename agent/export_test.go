package agent

// unregister removes an agent a test registered, so that a test can add
// an agent as an agent's file does (register, in its init) and leave the
// registry as the package's own files made it. Outside tests the
// registry is written only while packages initialise; a test that uses
// this must not run in parallel with tests that read the registry.
func unregister(name string) { delete(registry, name) }
