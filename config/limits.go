package config

import (
	"github.com/git-snap/git-snap/gitstore"
	"github.com/git-snap/git-snap/snapshot"
)

// SnapshotLimits returns the settings' bounds on a document, in the form
// that snapshot.Parse and the agents' readers expect.
func (c Config) SnapshotLimits() snapshot.Limits {
	l := c.Limits
	return snapshot.Limits{MaxBytes: l.MaxDocumentBytes, MaxDepth: l.MaxDepth, MaxValueBytes: l.MaxValueBytes}
}

// RetentionPolicy returns the settings' retention policy, which a hook
// call applies after each snapshot and prune applies on demand.
func (c Config) RetentionPolicy() gitstore.RetentionPolicy {
	return gitstore.RetentionPolicy{MaxPerSession: c.Retention.MaxPerSession, KeepFirst: c.Retention.KeepFirst}
}
