package viewer

import (
	"context"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/git-snap/git-snap/gitstore"
	"github.com/git-snap/git-snap/snapshot"
)

// locked is the viewer's store for a reader that reads while it writes
// a page (report.Open and EachTurn): each call takes the store's lock
// for itself alone, so that a long timeline sent to a slow client holds
// no other request, and no record is read while the client has left.
type locked struct{ s *Server }

func (l locked) do(ctx context.Context, fn func(st gitstore.Reader) error) error {
	return l.s.read(ctx, fn)
}

func (l locked) Resolve(ctx context.Context, rev string) (h plumbing.Hash, err error) {
	err = l.do(ctx, func(st gitstore.Reader) error { h, err = st.Resolve(ctx, rev); return err })
	return h, err
}

func (l locked) Entry(ctx context.Context, id plumbing.Hash) (e gitstore.Entry, err error) {
	err = l.do(ctx, func(st gitstore.Reader) error { e, err = st.Entry(ctx, id); return err })
	return e, err
}

func (l locked) Walk(ctx context.Context, starts []plumbing.Hash, fn func(gitstore.Entry) error) error {
	return l.do(ctx, func(st gitstore.Reader) error { return st.Walk(ctx, starts, fn) })
}

func (l locked) Checkpoints(ctx context.Context, session string, moved bool) (cps []gitstore.Checkpoint, err error) {
	err = l.do(ctx, func(st gitstore.Reader) error { cps, err = st.Checkpoints(ctx, session, moved); return err })
	return cps, err
}

func (l locked) Read(ctx context.Context, id plumbing.Hash) (doc map[string]any, e gitstore.Entry, err error) {
	err = l.do(ctx, func(st gitstore.Reader) error { doc, e, err = st.Read(ctx, id); return err })
	return doc, e, err
}

func (l locked) ReadRest(ctx context.Context, id plumbing.Hash) (doc map[string]any, e gitstore.Entry, err error) {
	err = l.do(ctx, func(st gitstore.Reader) error { doc, e, err = st.ReadRest(ctx, id); return err })
	return doc, e, err
}

func (l locked) Diff(ctx context.Context, a, b plumbing.Hash) (d *snapshot.Diff, err error) {
	err = l.do(ctx, func(st gitstore.Reader) error { d, err = st.Diff(ctx, a, b); return err })
	return d, err
}

func (l locked) MessageBlocks(ctx context.Context, e gitstore.Entry) (ids []gitstore.BlockID, err error) {
	err = l.do(ctx, func(st gitstore.Reader) error { ids, err = st.MessageBlocks(ctx, e); return err })
	return ids, err
}

func (l locked) HasFirstRecords(ctx context.Context, e gitstore.Entry, key gitstore.FirstKey) (ok bool, err error) {
	err = l.do(ctx, func(st gitstore.Reader) error { ok, err = st.HasFirstRecords(ctx, e, key); return err })
	return ok, err
}

func (l locked) BlockMessages(ctx context.Context, b gitstore.BlockID) (refs []gitstore.MessageRef, err error) {
	err = l.do(ctx, func(st gitstore.Reader) error { refs, err = st.BlockMessages(ctx, b); return err })
	return refs, err
}

func (l locked) Message(ctx context.Context, id gitstore.MessageID) (m any, err error) {
	err = l.do(ctx, func(st gitstore.Reader) error { m, err = st.Message(ctx, id); return err })
	return m, err
}

func (l locked) Files(ctx context.Context, e gitstore.Entry) (fs gitstore.FileSet, err error) {
	err = l.do(ctx, func(st gitstore.Reader) error { fs, err = st.Files(ctx, e); return err })
	return fs, err
}

func (l locked) Blob(ctx context.Context, id plumbing.Hash) (b []byte, err error) {
	err = l.do(ctx, func(st gitstore.Reader) error { b, err = st.Blob(ctx, id); return err })
	return b, err
}
