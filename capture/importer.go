package capture

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"golang.org/x/sync/semaphore"

	"github.com/git-snap/git-snap/agent"
	"github.com/git-snap/git-snap/gitstore"
	"github.com/git-snap/git-snap/snapshot"
	"github.com/git-snap/git-snap/storage"
)

// DefaultPackBytes is Importer.PackBytes when zero: about a thousand
// real sessions in one pack, and what a kill can cost of an import's
// work (what is in place stays, and the next import goes on from there).
const DefaultPackBytes = 256 << 20

// Importer imports many agent transcripts at once, as git fast-import
// writes: the sessions are read by several goroutines, each with a store
// of one batch (gitstore.Batch), whose objects go to one pack. Once the
// pack holds PackBytes, and at the end, it is put in place and the
// sessions' refs move, each to a whole session. A process killed at any
// point leaves each session as it was or whole; importing again skips
// what is in place (Ingest.Import adds only what a transcript gained)
// and goes on with the rest.
type Importer struct {
	Store        *gitstore.Store
	Adapter      agent.Adapter
	Limits       snapshot.Limits
	MaxReadBytes int64
	// MaxDocumentBytes bounds what one session's transcripts may hold
	// together (limits.max_document_bytes); 0 bounds nothing. A larger
	// one is refused before anything is written.
	MaxDocumentBytes int64
	// Workers is how many sessions are read at once; GOMAXPROCS when 0.
	Workers int
	// PackBytes is how large a pack grows before it is put in place;
	// DefaultPackBytes when 0.
	PackBytes int64
	// Warn, when set, is told of what an import went on without, and of
	// a transcript imported as another session than planned (see
	// Ingest.Claim).
	Warn func(msg string)
	// Progress, when set, is told after each session is read.
	Progress func(ImportProgress)
	// Done, when set, is told of each session once its snapshot is in
	// place (or it had nothing new), in the plan's order within a pack.
	Done func(ImportResult)
	// NewDeflater makes the pack's zlib compressor (see
	// gitstore.BatchOptions); the standard library's when nil.
	NewDeflater func(w io.Writer) gitstore.Deflater
}

// ImportProgress says how far an import is.
type ImportProgress struct {
	Sessions, Of int   // sessions read, of all
	Bytes, Total int64 // bytes of their main transcripts
}

// ImportResult is one session imported.
type ImportResult struct {
	Item  agent.ImportItem // Session as imported
	Entry storage.Entry    // its new snapshot, when Added
	Added bool
}

// Run imports the items of a plan (agent.PlanImport). On an error or a
// cancelled context it stops reading, puts in place the sessions read
// whole so far, and returns the error (the first, wrapped with its
// transcript's path).
func (im Importer) Run(ctx context.Context, items []agent.ImportItem) error {
	if err := im.checkSizes(items); err != nil {
		return err
	}
	b, err := im.Store.NewBatch(ctx, gitstore.BatchOptions{NewDeflater: im.NewDeflater})
	if err != nil {
		return err
	}
	defer b.Abort() // a pack left unfinished by an error
	r := newImportRun(im, b, items)
	work, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	for range r.workers() {
		wg.Go(func() {
			if err := r.work(work); err != nil {
				r.fail(err)
				cancel()
			}
		})
	}
	wg.Wait()
	// What was read whole is kept, whatever stopped the import.
	if err := r.flush(context.WithoutCancel(ctx), true); err != nil {
		r.fail(err)
	}
	if err := r.err(); err != nil {
		return err
	}
	return ctx.Err()
}

// checkSizes refuses the import when a session's transcripts (its own
// and its subagents') hold more than MaxDocumentBytes together: an
// import reads a transcript in steps, so no one read would see it whole.
func (im Importer) checkSizes(items []agent.ImportItem) error {
	if im.MaxDocumentBytes <= 0 {
		return nil
	}
	for _, it := range items {
		files := []string{it.Path}
		extra, _ := im.Adapter.Transcripts(agent.Payload{Agent: im.Adapter.Name(), SessionID: it.Session, TranscriptPath: it.Path})
		for _, f := range extra {
			files = append(files, f)
		}
		var total int64
		for _, f := range files {
			if fi, err := os.Stat(f); err == nil {
				total += fi.Size()
			}
		}
		if total > im.MaxDocumentBytes {
			return &agent.ImportError{Msg: fmt.Sprintf("%s: session %s's transcripts hold %d bytes, more than limits.max_document_bytes (%d); nothing was imported: raise the limit in .git-snap.yaml to import it, or leave the file out",
				it.Path, it.Session, total, im.MaxDocumentBytes)}
		}
	}
	return nil
}

// importRun is the state of one Importer.Run.
type importRun struct {
	im    Importer
	b     *gitstore.Batch
	items []agent.ImportItem
	sizes []int64
	total int64
	room  *semaphore.Weighted // bytes being read at once: memory stays bounded
	max   int64               // of room
	next  atomic.Int64        // the next item to take: no goroutine hands them out

	// gate is held shared while a session is read and exclusively while
	// the batch is committed: no store writes into a pack being finished.
	gate sync.RWMutex

	mu       sync.Mutex // everything below, and the calls to Warn, Progress and Done
	read     int
	readB    int64
	ready    []int // items read whole, not yet in place
	results  []ImportResult
	claimed  map[string]string // session → transcript, claimed by this run
	firstErr error
}

func newImportRun(im Importer, b *gitstore.Batch, items []agent.ImportItem) *importRun {
	if im.MaxReadBytes <= 0 {
		im.MaxReadBytes = agent.DefaultMaxReadBytes
	}
	if im.PackBytes <= 0 {
		im.PackBytes = DefaultPackBytes
	}
	r := &importRun{im: im, b: b, items: items, sizes: make([]int64, len(items)), results: make([]ImportResult, len(items)), claimed: map[string]string{}}
	for i, it := range items {
		if fi, err := os.Stat(it.Path); err == nil {
			r.sizes[i] = fi.Size()
			r.total += fi.Size()
		}
	}
	// Sessions read at once hold at most one step's bytes together: two
	// long sessions are read one after the other.
	r.max = im.MaxReadBytes
	r.room = semaphore.NewWeighted(r.max)
	return r
}

func (r *importRun) workers() int {
	n := r.im.Workers
	if n <= 0 {
		n = runtime.GOMAXPROCS(0)
	}
	return max(1, min(n, len(r.items)))
}

// work imports the next items in turn with a store of its own.
func (r *importRun) work(ctx context.Context) error {
	s, err := r.b.Open(ctx)
	if err != nil {
		return err
	}
	defer s.Close()
	in := Ingest{Store: s, Adapter: r.im.Adapter, Limits: r.im.Limits, MaxReadBytes: r.im.MaxReadBytes, Warn: r.warn}
	for i := int(r.next.Add(1) - 1); i < len(r.items) && ctx.Err() == nil; i = int(r.next.Add(1) - 1) {
		weight := min(max(r.sizes[i], 1), r.max)
		if err := r.room.Acquire(ctx, weight); err != nil {
			return nil // stopped: the context says why
		}
		r.gate.RLock()
		res, err := r.one(ctx, in, i)
		r.gate.RUnlock()
		r.room.Release(weight)
		if err != nil {
			r.b.Forget(res.Item.Session)
			if ctx.Err() != nil {
				return nil // stopped mid-session: what it wrote is dropped
			}
			return fmt.Errorf("import %s: %w", r.items[i].Path, err)
		}
		r.done(i, res)
		if r.b.Size() >= r.im.PackBytes {
			if err := r.flush(ctx, false); err != nil {
				return err
			}
		}
	}
	return nil
}

// one imports item i: claims its session's name, then reads it.
func (r *importRun) one(ctx context.Context, in Ingest, i int) (ImportResult, error) {
	it := r.items[i]
	session, err := r.claim(ctx, in, it)
	res := ImportResult{Item: agent.ImportItem{Session: session, Path: it.Path}}
	if err != nil {
		return res, err
	}
	res.Entry, res.Added, err = in.Import(ctx, session, it.Path)
	return res, err
}

// claim names item's session as Ingest.Claim does, one name to one
// transcript across the goroutines of the run.
func (r *importRun) claim(ctx context.Context, in Ingest, it agent.ImportItem) (string, error) {
	reserve := func(name string) bool {
		r.mu.Lock()
		defer r.mu.Unlock()
		if p, ok := r.claimed[name]; ok && p != it.Path {
			return false
		}
		r.claimed[name] = it.Path
		return true
	}
	name, renamed, err := in.claim(ctx, it.Session, it.Path, reserve)
	if err == nil && renamed {
		r.warn(fmt.Sprintf("session %s holds another transcript than %s: imported as session %s", it.Session, it.Path, name))
	}
	return name, err
}

// done notes item i read whole.
func (r *importRun) done(i int, res ImportResult) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.results[i] = res
	r.ready = append(r.ready, i)
	r.read++
	r.readB += r.sizes[i]
	if r.im.Progress != nil {
		r.im.Progress(ImportProgress{Sessions: r.read, Of: len(r.items), Bytes: r.readB, Total: r.total})
	}
}

// flush commits the batch, unless it is small and final is false (another
// goroutine flushed it meanwhile), and reports the sessions now in place.
// A session another writer moved meanwhile is imported again on its new
// tip, outside the batch.
func (r *importRun) flush(ctx context.Context, final bool) error {
	r.gate.Lock()
	defer r.gate.Unlock()
	if !final && r.b.Size() < r.im.PackBytes {
		return nil
	}
	r.mu.Lock()
	ready := r.ready
	r.ready = nil
	r.mu.Unlock()
	_, lost, err := r.b.Commit(ctx)
	if err != nil {
		return err
	}
	slices.Sort(ready)
	for _, i := range ready {
		res := r.results[i]
		if slices.Contains(lost, r.im.Store.SessionRef(res.Item.Session)) {
			in := Ingest{Store: r.im.Store, Adapter: r.im.Adapter, Limits: r.im.Limits, MaxReadBytes: r.im.MaxReadBytes, Warn: r.warn}
			if res.Entry, res.Added, err = in.Import(ctx, res.Item.Session, res.Item.Path); err != nil {
				return fmt.Errorf("import %s: %w", res.Item.Path, err)
			}
		}
		r.report(res)
	}
	return nil
}

func (r *importRun) report(res ImportResult) {
	if r.im.Done == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.im.Done(res)
}

func (r *importRun) warn(msg string) {
	if r.im.Warn == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.im.Warn(msg)
}

// fail keeps the first error.
func (r *importRun) fail(err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.firstErr == nil && !errors.Is(err, context.Canceled) {
		r.firstErr = err
	}
}

func (r *importRun) err() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.firstErr
}
