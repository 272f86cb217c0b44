package config

import (
	"github.com/git-snap/git-snap/gitstore"
	"github.com/git-snap/git-snap/snapshot"
)

// SnapshotLimits are the settings' bounds on a document as
// snapshot.Parse and the agents' readers take them.
func (c Config) SnapshotLimits() snapshot.Limits {
	l := c.Limits
	return snapshot.Limits{MaxBytes: l.MaxDocumentBytes, MaxDepth: l.MaxDepth, MaxValueBytes: l.MaxValueBytes}
}

// RetentionPolicy is the settings' retention policy, which a hook call
// applies after each snapshot and prune applies on demand.
func (c Config) RetentionPolicy() gitstore.RetentionPolicy {
	return gitstore.RetentionPolicy{MaxPerSession: c.Retention.MaxPerSession, KeepFirst: c.Retention.KeepFirst}
}
