package gitsnap

import (
	"context"

	"github.com/git-snap/git-snap/agent"
	"github.com/git-snap/git-snap/storage"
)

// RecordResume records, after plan was written, where the session's
// transcript files now are, so that the agent's next lines are read on
// from there (see agent.ResumePlan.Moved): a snapshot labelled "resume"
// with no new record. It does so only when resumed is still the
// session's tip; a resume of an earlier snapshot starts the transcript
// over, which the next hook call records as a rewritten file. It
// reports whether it recorded.
func (r *Repository) RecordResume(ctx context.Context, session string, resumed storage.ID, source string, plan agent.ResumePlan) (bool, error) {
	tip, err := r.SessionTip(session)
	if err != nil || tip != resumed {
		return false, err
	}
	_, added, err := r.Append(ctx, storage.SaveOptions{Session: session, Label: "resume", Source: source}, func(tipRest map[string]any) (storage.Delta, error) {
		rest, ok, err := plan.Moved(tipRest)
		if err != nil || !ok {
			return storage.Delta{Rest: tipRest}, err // nothing new: not recorded
		}
		return storage.Delta{Rest: rest}, nil
	})
	return added, err
}
