package redact

import (
	"encoding/base64"
	"strings"
	"testing"

	"github.com/git-snap/git-snap/snapshot"
)

func TestLeavesOrdinaryTextAlone(t *testing.T) {
	r, _ := New(Config{})
	for _, s := range []string{
		"The password must be at least 12 characters long.",
		"password: correct horse battery staple",
		"token = ${GITHUB_TOKEN}",
		"see commit 4d5611e5241a462a8d155122611a95694d5611e5",
		"session 4d5611e5-241a-462a-8d15-5122611a9569",
		"task-list and mask-image and desk-lamp",
		"https://github.com/go-git/go-git/blob/main/README.md",
		"ssh://git@github.com/org/repo.git",
		"api_key: REDACTED",
		"const apiKeyHeader = \"X-Api-Key\"",
		"the private key is kept in the vault",
		// Code, not secrets: a false positive is data lost for good.
		"token = Base.url_encode64(:crypto.strong_rand_bytes(32))",
		"pwd=/home/user/src2",
		"token = get_token_from_vault2()",
		"secret_name: prod-db-credentials-v2",
		`{"password": "string", "token_type": "Bearer"}`,
		"password = get_password2()",
		"password=password_from_env",
		`DB_PASSWORD="${DB_PASSWORD}"`,
		"PASSWORD=$(cat /run/secrets/db)",
		"Bearer authentication uses an access token",
		"basic auth is configured in settings.py",
		"bypass: true",
		`{"pass": "test_login_2", "pwd": "src/app-v2"}`,
		"commit 4d5611e5241a462a8d155122611a95694d5611e5 and 0123456789abcdef0123456789abcdef",
		// Near the shapes of the rules for keys, .netrc, .pgpass and
		// docker's config.
		"private_key: certs/server2048.key",
		"PRIVATE_KEY_PATH=/etc/ssl/private/server2.key",
		"signing_key = load_signing_key_v2(path)",
		`"appKey": "com.example.app2"`,
		"JWT_SIGNING_KEY=${JWT_SIGNING_KEY_2024}",
		"-----BEGIN RSA PRIVATE KEY----- starts the file; paste yours below",
		"the machine learning login flow: password reset by mail",
		"on the build machine ci7 login as root with password hunter2",
		"12:30:45:00:99 and 00:1a:2b:3c:4d:5e and fe80::1:2:3:4",
		`{"ts":"2026-11-28T10:54:32.123Z","at":"main.go:12:5:"}`,
		"main.go:12:5: undefined: x",
		`{"auth": "required", "auths": {}}`,
	} {
		if out, found := r.String(s); len(found) > 0 {
			t.Errorf("%q: redacted as %v → %q", s, found, out)
		}
	}
}

func TestConfigRulesAllowAndOff(t *testing.T) {
	r, err := New(Config{Rules: map[string]string{"internal-id": `\bINT-[0-9]{6}\b`}, Allow: []string{`^AKIAIOSFODNN7EXAMPLE$`}})
	if err != nil {
		t.Fatal(err)
	}
	out, found := r.String("ticket INT-123456, key AKIAIOSFODNN7EXAMPLE, other AKIAI44QH8DHBEXAMPLE")
	if len(found) != 2 || found[0].Rule != "aws-access-key-id" || found[1].Rule != "internal-id" {
		t.Errorf("found %+v", found)
	}
	if !strings.Contains(out, "AKIAIOSFODNN7EXAMPLE") || strings.Contains(out, "INT-123456") || strings.Contains(out, "AKIAI44QH8DHBEXAMPLE") {
		t.Errorf("out %q", out)
	}
	off, _ := New(Config{Disabled: true})
	if _, found := off.String("AKIAI44QH8DHBEXAMPLE"); len(found) != 0 {
		t.Error("disabled redactor redacted")
	}
	if _, err := New(Config{Rules: map[string]string{"bad": "("}}); err == nil {
		t.Error("bad rule accepted")
	}
}

func TestDocumentRedactsEveryStringAndNamesThePlace(t *testing.T) {
	r, _ := New(Config{})
	doc := map[string]any{
		"config":   map[string]any{"env": []any{"A=1", "GH_TOKEN=gho_16C7e42F292c6912E7710c838347Ae178B4a"}},
		"messages": []any{map[string]any{"content": "use AKIAIOSFODNN7EXAMPLE"}},
		"files":    map[string]any{".env": map[string]any{"content": "STRIPE=sk_live_4eC39HqLyjWDarjtT1zdp7dc\n"}},
		"n":        snapshot.Number("1"),
	}
	out, found := r.Document(doc)
	var paths []string
	for _, f := range found {
		paths = append(paths, f.Path)
	}
	want := `$.config.env[1] $.files[".env"].content $.messages[0].content`
	if strings.Join(paths, " ") != want {
		t.Errorf("paths %q, want %q", strings.Join(paths, " "), want)
	}
	b, _ := snapshot.Marshal(out)
	if strings.Contains(string(b), "AKIA") || strings.Contains(string(b), "gho_") || strings.Contains(string(b), "sk_live") {
		t.Errorf("secret left: %s", b)
	}
	if orig, _ := snapshot.Marshal(doc); !strings.Contains(string(orig), "AKIA") {
		t.Error("the input document was changed")
	}
}

func TestEscapedAndBase64WrappedSecrets(t *testing.T) {
	r, _ := New(Config{})
	tok := "ghp_FAKEa1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6"
	for _, s := range []string{
		// a transcript line the strict parser rejected (a trailing comma),
		// kept raw: the escape hides the token from the pattern
		`{"type":"user","content":"\u0067hp_FAKEa1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6",}`,
		`{"url":"https:\/\/alice:hunter2xyz@git.example.com\/r.git"}`,
		"token in base64: Z2hwX0ZBS0VhMUIyYzNENGU1RjZnN0g4aTlKMGsxTDJtM040bzVQNg==",
	} {
		out, found := r.String(s)
		if len(found) == 0 || strings.Contains(out, "FAKEa1B2") || strings.Contains(out, "hunter2") || strings.Contains(out, "Z2hwX0") {
			t.Errorf("%q → %q, %v", s, out, found)
		}
	}
	_ = tok
	// escapes elsewhere stay as they are
	s := `{"a":"caf\u00e9 \/ ok","b":"x"}`
	if out, _ := r.String(s); out != s {
		t.Errorf("%q changed to %q", s, out)
	}
}

func TestPreviewShowsLittle(t *testing.T) {
	for _, s := range []string{"Tr0ub4dor&3xyz", "ghp_FAKEa1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6", "abcdefgh", "short"} {
		p := mask(s)
		shown := len(strings.ReplaceAll(p, "*", ""))
		if shown > 4 || shown*4 > len(s) {
			t.Errorf("mask(%q) = %q shows %d characters", s, p, shown)
		}
	}
	if got := mask("Tr0ub4dor&3xyz"); got != "T************z" {
		t.Errorf("mask of 14 characters: %q", got)
	}
}

func TestBytesRedactsMostlyText(t *testing.T) {
	r, _ := New(Config{})
	text := []byte("# config\nGH_TOKEN=gho_16C7e42F292c6912E7710c838347Ae178B4a\n")
	for _, b := range [][]byte{
		append(append([]byte{}, text...), 0xff),    // one byte that is not UTF-8
		append(append([]byte{}, text...), 0, '\n'), // a NUL
	} {
		out, found := r.Bytes(b)
		if len(found) != 1 || strings.Contains(string(out), "gho_") || out[len(out)-1] != b[len(b)-1] {
			t.Errorf("%q → %q, %v", b, out, found)
		}
	}
	bin := append([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x01\x00"), text...)
	if out, found := r.Bytes(bin); len(found) != 0 || string(out) != string(bin) {
		t.Errorf("binary changed: %v", found)
	}
	// in a document, as save and save --dry-run see a captured file
	content := base64.StdEncoding.EncodeToString(append(append([]byte{}, text...), 0))
	doc := map[string]any{"files": map[string]any{"bin/.env": map[string]any{"encoding": "base64", "content": content}}}
	out, found := r.Document(doc)
	if len(found) != 1 || found[0].Path != `$.files["bin/.env"].content` {
		t.Fatalf("found %+v", found)
	}
	got := out["files"].(map[string]any)["bin/.env"].(map[string]any)["content"].(string)
	if raw, _ := base64.StdEncoding.DecodeString(got); strings.Contains(string(raw), "gho_") || raw[len(raw)-1] != 0 {
		t.Errorf("content %q", raw)
	}
}

func TestKeysAreRedacted(t *testing.T) {
	r, _ := New(Config{})
	doc := map[string]any{
		"cache": map[string]any{
			"https://alice:hunter2xyz@git.example.com/r.git": "fetched",
			"https://bob:s3cr3tP4ss@git.example.com/r.git":   "fetched too",
		},
		"AKIAIOSFODNN7EXAMPLE": 1,
	}
	out, found := r.Document(doc)
	b, _ := snapshot.Marshal(out)
	if strings.Contains(string(b), "hunter2") || strings.Contains(string(b), "s3cr3t") || strings.Contains(string(b), "AKIA") {
		t.Errorf("secret in a key: %s", b)
	}
	if len(out["cache"].(map[string]any)) != 2 || len(found) != 3 {
		t.Errorf("members lost or findings %+v: %s", found, b)
	}
	for _, f := range found {
		if strings.Contains(f.Path, "hunter2") || !strings.HasSuffix(f.Path, "(key)") {
			t.Errorf("path %q", f.Path)
		}
	}
}
