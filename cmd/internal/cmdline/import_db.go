package cmdline

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/git-snap/git-snap/agentdb"
)

// fromDatabase lists the agents whose sessions an import can read from
// their SQLite database (opencode.db, kilo.db): each session is taken as
// the agent's export prints it.
var fromDatabase = map[string]bool{"opencode": true, "kilo": true}

// exportDatabases replaces each .db file among files, for an agent that
// keeps its sessions in SQLite, by a folder of its sessions' exports,
// written from the database read-only; done removes the folders.
func exportDatabases(ctx context.Context, from, dir string, files []string) (out []string, done func(), err error) {
	var tmp []string
	done = func() {
		for _, d := range tmp {
			os.RemoveAll(d)
		}
	}
	for _, f := range files {
		if !fromDatabase[from] || !strings.HasSuffix(f, ".db") {
			out = append(out, f)
			continue
		}
		path := f
		if !filepath.IsAbs(path) {
			path = filepath.Join(dir, path)
		}
		// Named by the database, so that the same import again reads
		// the same paths, and skips what is in place.
		sum := sha256.Sum256([]byte(path))
		d := filepath.Join(os.TempDir(), fmt.Sprintf("git-snap-%s-%x", from, sum[:8]))
		if err := os.MkdirAll(d, 0o700); err != nil {
			return nil, done, err
		}
		tmp = append(tmp, d)
		if err := exportDatabase(ctx, path, d); err != nil {
			done()
			return nil, func() {}, usagef("%s: %v", f, err)
		}
		out = append(out, d)
	}
	return out, done, nil
}

// exportDatabase writes every session of the database at path to dir,
// as <id>.json.
func exportDatabase(ctx context.Context, path, dir string) error {
	db, err := agentdb.Open(ctx, path)
	if err != nil {
		return err
	}
	defer db.Close()
	ids, err := db.Sessions(ctx)
	if err != nil {
		return err
	}
	for _, id := range ids {
		if strings.ContainsAny(id, `/\`) || id == "" || id[0] == '.' {
			return fmt.Errorf("session id %q is not a file name", id)
		}
		doc, err := db.Export(ctx, id)
		if err != nil {
			return err
		}
		data, err := json.Marshal(doc)
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, id+".json"), data, 0o600); err != nil {
			return err
		}
	}
	return nil
}
