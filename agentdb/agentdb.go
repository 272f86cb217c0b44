// Package agentdb reads the sessions agents keep in SQLite, OpenCode's
// and its fork Kilo's (opencode.db, kilo.db), as the export documents the
// agents themselves print ({info, messages: [{info, parts}]}, what
// opencode export and kilo export write), so that git snap import takes
// sessions from the database as it takes exports. It opens the database
// read-only, with a pure-Go driver (modernc.org/sqlite, no cgo), and
// never writes to it or holds a write lock: the agent goes on using it.
// The hook program does not link it: only import does.
package agentdb

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"strings"

	_ "modernc.org/sqlite" // the "sqlite" driver
)

// DB is an agent's session database, open read-only.
type DB struct{ db *sql.DB }

// Open opens the database at path read-only; a file that is not one of
// OpenCode's databases (no session, message and part tables) is an
// error saying so.
func Open(ctx context.Context, path string) (*DB, error) {
	if _, err := os.Stat(path); err != nil {
		return nil, err
	}
	// mode=ro: no write, so no write lock; a reader in WAL mode does not
	// stop the agent writing. busy_timeout: wait out a checkpoint.
	dsn := "file:" + (&url.URL{Path: path}).EscapedPath() + "?mode=ro&_pragma=busy_timeout(5000)&_pragma=query_only(1)"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, err
	}
	var n int
	err = db.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN ('session', 'message', 'part')`).Scan(&n)
	if err != nil || n != 3 {
		db.Close()
		if err == nil {
			err = fmt.Errorf("%s holds no session, message and part tables: it is not an OpenCode or Kilo database", path)
		}
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return &DB{db: db}, nil
}

// Close closes the database.
func (d *DB) Close() error { return d.db.Close() }

// Sessions lists the sessions' ids, oldest first.
func (d *DB) Sessions(ctx context.Context) ([]string, error) {
	rows, err := d.db.QueryContext(ctx, `SELECT id FROM session ORDER BY time_created, id`)
	if err != nil {
		return nil, fmt.Errorf("list sessions: %w", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		out = append(out, id)
	}
	return out, rows.Err()
}

// Export is a session as the agent's export prints it: its info, and its
// messages in order, each with its parts.
func (d *DB) Export(ctx context.Context, id string) (map[string]any, error) {
	info, err := d.info(ctx, id)
	if err != nil {
		return nil, err
	}
	parts, err := d.parts(ctx, id)
	if err != nil {
		return nil, err
	}
	rows, err := d.db.QueryContext(ctx, `SELECT id, data FROM message WHERE session_id = ? ORDER BY time_created, id`, id)
	if err != nil {
		return nil, fmt.Errorf("read the messages of %s: %w", id, err)
	}
	defer rows.Close()
	messages := []any{}
	for rows.Next() {
		var mid, data string
		if err := rows.Scan(&mid, &data); err != nil {
			return nil, err
		}
		m, err := object(data, "message "+mid)
		if err != nil {
			return nil, err
		}
		m["id"], m["sessionID"] = mid, id
		ps := parts[mid]
		if ps == nil {
			ps = []any{}
		}
		messages = append(messages, map[string]any{"info": m, "parts": ps})
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return map[string]any{"info": info, "messages": messages}, nil
}

// parts are a session's parts by message, in order.
func (d *DB) parts(ctx context.Context, session string) (map[string][]any, error) {
	rows, err := d.db.QueryContext(ctx, `SELECT id, message_id, data FROM part WHERE session_id = ? ORDER BY message_id, id`, session)
	if err != nil {
		return nil, fmt.Errorf("read the parts of %s: %w", session, err)
	}
	defer rows.Close()
	out := map[string][]any{}
	for rows.Next() {
		var id, mid, data string
		if err := rows.Scan(&id, &mid, &data); err != nil {
			return nil, err
		}
		p, err := object(data, "part "+id)
		if err != nil {
			return nil, err
		}
		p["id"], p["sessionID"], p["messageID"] = id, session, mid
		out[mid] = append(out[mid], p)
	}
	return out, rows.Err()
}

// info is a session's row as the export's info: its columns, under the
// names and in the nesting the export gives them; a column that is NULL
// is left out, as the export leaves it.
func (d *DB) info(ctx context.Context, id string) (map[string]any, error) {
	var (
		projectID, slug, directory, title, version             string
		workspace, parent, path, shareURL, diffs, revert, perm sql.NullString
		agent, model, metadata                                 sql.NullString
		additions, deletions, files                            sql.NullInt64
		cost                                                   float64
		input, output, reasoning, cacheRead, cacheWrite        int64
		created, updated                                       int64
		compacting, archived                                   sql.NullInt64
	)
	err := d.db.QueryRowContext(ctx, `SELECT project_id, workspace_id, parent_id, slug, directory, path, title, version, share_url,
		summary_additions, summary_deletions, summary_files, summary_diffs, cost, tokens_input, tokens_output, tokens_reasoning,
		tokens_cache_read, tokens_cache_write, revert, permission, agent, model, metadata, time_created, time_updated, time_compacting, time_archived
		FROM session WHERE id = ?`, id).Scan(&projectID, &workspace, &parent, &slug, &directory, &path, &title, &version, &shareURL,
		&additions, &deletions, &files, &diffs, &cost, &input, &output, &reasoning, &cacheRead, &cacheWrite, &revert, &perm, &agent, &model,
		&metadata, &created, &updated, &compacting, &archived)
	if err != nil {
		return nil, fmt.Errorf("read session %s: %w", id, err)
	}
	info := map[string]any{"id": id, "slug": slug, "projectID": projectID, "directory": directory, "title": title, "version": version,
		"cost": cost, "tokens": map[string]any{"input": input, "output": output, "reasoning": reasoning,
			"cache": map[string]any{"read": cacheRead, "write": cacheWrite}}}
	tm := map[string]any{"created": created, "updated": updated}
	if compacting.Valid {
		tm["compacting"] = compacting.Int64
	}
	if archived.Valid {
		tm["archived"] = archived.Int64
	}
	info["time"] = tm
	for k, v := range map[string]sql.NullString{"workspaceID": workspace, "parentID": parent, "path": path, "agent": agent} {
		if v.Valid {
			info[k] = v.String
		}
	}
	if shareURL.Valid {
		info["share"] = map[string]any{"url": shareURL.String}
	}
	if additions.Valid {
		summary := map[string]any{"additions": additions.Int64, "deletions": deletions.Int64, "files": files.Int64}
		if diffs.Valid {
			if err := setJSON(summary, "diffs", diffs.String); err != nil {
				return nil, err
			}
		}
		info["summary"] = summary
	}
	for k, v := range map[string]sql.NullString{"revert": revert, "permission": perm, "model": model, "metadata": metadata} {
		if v.Valid {
			if err := setJSON(info, k, v.String); err != nil {
				return nil, fmt.Errorf("session %s: %w", id, err)
			}
		}
	}
	return info, nil
}

// setJSON sets m[k] to the JSON value text holds.
func setJSON(m map[string]any, k, text string) error {
	var v any
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return fmt.Errorf("%s is not JSON: %w", k, err)
	}
	m[k] = v
	return nil
}

// object decodes a row's JSON data, which must be an object.
func object(text, what string) (map[string]any, error) {
	m := map[string]any{}
	if err := setJSON(m, "v", text); err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	o, ok := m["v"].(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s: its data is not a JSON object", what)
	}
	return o, nil
}
