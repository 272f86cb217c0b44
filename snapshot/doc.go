// Package snapshot defines what a snapshot is, independent of where it
// is stored. It holds the document model (messages, events, captured
// files and all other members), lossless canonical JSON, validation of
// input that comes from other people, a normalised view of messages,
// semantic diffs and JSON Patch. ViewMessage reads messages in the
// common shapes into a Message; for an agent's own record shapes, package
// agent provides a Viewer. The package does no I/O; it works on byte
// slices.
package snapshot
