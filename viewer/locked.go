package viewer

import (
	"context"

	"github.com/git-snap/git-snap/snapshot"
	"github.com/git-snap/git-snap/storage"
)

// locked is the viewer's store for a reader that reads while it writes
// a page (report.Open and EachTurn): each call takes the store's lock
// for itself alone, so that a long timeline sent to a slow client holds
// no other request, and no record is read while the client has left.
type locked struct{ s *Server }

func (l locked) do(ctx context.Context, fn func(st storage.Reader) error) error {
	return l.s.read(ctx, fn)
}

func (l locked) Resolve(ctx context.Context, rev string) (h storage.ID, err error) {
	err = l.do(ctx, func(st storage.Reader) error { h, err = st.Resolve(ctx, rev); return err })
	return h, err
}

func (l locked) Entry(ctx context.Context, id storage.ID) (e storage.Entry, err error) {
	err = l.do(ctx, func(st storage.Reader) error { e, err = st.Entry(ctx, id); return err })
	return e, err
}

func (l locked) Walk(ctx context.Context, starts []storage.ID, fn func(storage.Entry) error) error {
	return l.do(ctx, func(st storage.Reader) error { return st.Walk(ctx, starts, fn) })
}

func (l locked) Checkpoints(ctx context.Context, session string, moved bool) (cps []storage.Checkpoint, err error) {
	err = l.do(ctx, func(st storage.Reader) error { cps, err = st.Checkpoints(ctx, session, moved); return err })
	return cps, err
}

func (l locked) Read(ctx context.Context, id storage.ID) (doc map[string]any, e storage.Entry, err error) {
	err = l.do(ctx, func(st storage.Reader) error { doc, e, err = st.Read(ctx, id); return err })
	return doc, e, err
}

func (l locked) ReadWithoutMessages(ctx context.Context, id storage.ID) (doc map[string]any, e storage.Entry, err error) {
	err = l.do(ctx, func(st storage.Reader) error { doc, e, err = st.ReadWithoutMessages(ctx, id); return err })
	return doc, e, err
}

func (l locked) Diff(ctx context.Context, a, b storage.ID) (d *snapshot.Diff, err error) {
	err = l.do(ctx, func(st storage.Reader) error { d, err = st.Diff(ctx, a, b); return err })
	return d, err
}

func (l locked) MessageBlocks(ctx context.Context, e storage.Entry) (ids []storage.BlockID, err error) {
	err = l.do(ctx, func(st storage.Reader) error { ids, err = st.MessageBlocks(ctx, e); return err })
	return ids, err
}

func (l locked) FirstBlocks(ctx context.Context, e storage.Entry, n int) (ids []storage.BlockID, err error) {
	err = l.do(ctx, func(st storage.Reader) error { ids, err = st.FirstBlocks(ctx, e, n); return err })
	return ids, err
}

func (l locked) Others(ctx context.Context, id storage.ID) (rest map[string]any, err error) {
	err = l.do(ctx, func(st storage.Reader) error { rest, err = st.Others(ctx, id); return err })
	return rest, err
}

func (l locked) BlockMessages(ctx context.Context, b storage.BlockID) (refs []storage.MessageRef, err error) {
	err = l.do(ctx, func(st storage.Reader) error { refs, err = st.BlockMessages(ctx, b); return err })
	return refs, err
}

func (l locked) Message(ctx context.Context, id storage.MessageID) (m any, err error) {
	err = l.do(ctx, func(st storage.Reader) error { m, err = st.Message(ctx, id); return err })
	return m, err
}

func (l locked) Files(ctx context.Context, e storage.Entry) (fs storage.FileSet, err error) {
	err = l.do(ctx, func(st storage.Reader) error { fs, err = st.Files(ctx, e); return err })
	return fs, err
}

func (l locked) Blob(ctx context.Context, id storage.ID) (b []byte, err error) {
	err = l.do(ctx, func(st storage.Reader) error { b, err = st.Blob(ctx, id); return err })
	return b, err
}
