// Package snapshot holds what a snapshot is, apart from where it is kept:
// the document model (messages, events, captured files and everything
// else), lossless canonical JSON, validation of what comes from other
// people, the normalised view of messages (Message, read from the common
// shapes by ViewMessage; agents' own record shapes are read by a Viewer
// from package agent), semantic diffs and JSON Patch. It does no I/O
// beyond byte slices.
package snapshot
