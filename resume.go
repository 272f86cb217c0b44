package gitsnap

import (
	"context"

	"github.com/git-snap/git-snap/agent"
	"github.com/git-snap/git-snap/storage"
)

// RecordResume records where the session's transcript files are after
// plan was written, so that the agent's next lines are read from there
// (see agent.ResumePlan.Moved). It saves a snapshot labelled "resume"
// with no new records, and only when resumed is still the session's
// newest snapshot. Resuming an earlier snapshot starts the transcript
// over, and the next hook call records that as a rewritten file.
// RecordResume reports whether it saved a snapshot.
func (r *Repository) RecordResume(ctx context.Context, session string, resumed storage.ID, source string, plan agent.ResumePlan) (bool, error) {
	tip, err := r.SessionTip(session)
	if err != nil || tip != resumed {
		return false, err
	}
	_, added, err := r.Append(ctx, storage.SaveOptions{Session: session, Label: "resume", Source: source}, func(tipRest map[string]any) (storage.Delta, error) {
		rest, ok, err := plan.Moved(tipRest)
		if err != nil || !ok {
			return storage.Delta{Others: tipRest}, err // nothing changed, so nothing is saved
		}
		return storage.Delta{Others: rest}, nil
	})
	return added, err
}
