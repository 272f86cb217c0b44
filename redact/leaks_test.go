package redact

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// leaks are the secrets developers keep on their machines, each in the
// file it lives in (testdata/leaks, made for this test: see SOURCE.md
// there), and so in an agent's transcript as soon as it reads one.
// secrets are regular expressions whose first group is a secret in
// the file; kept is text that must stay. docs/security.md's table
// compares these with gitleaks on the same files.
var leaks = []struct {
	file    string
	rules   []string
	secrets []string
	kept    []string
}{
	{"claude-credentials.json", []string{"anthropic-oauth-token"},
		[]string{`"accessToken": "([^"]+)"`, `"refreshToken": "([^"]+)"`}, []string{`"subscriptionType": "max"`}},
	{"claude-setup-token.sh", []string{"anthropic-oauth-token"},
		[]string{`CLAUDE_CODE_OAUTH_TOKEN=(\S+)`}, nil},
	{"kubeconfig.yaml", []string{"kubeconfig-client-key"},
		[]string{`client-key-data: (\S+)`}, []string{"certificate-authority-data: LS0t", "client-certificate-data: LS0t", "server: https://127.0.0.1:40123"}},
	{"google-credentials.env", []string{"private-key-base64"},
		[]string{`GOOGLE_CREDENTIALS=(\S+)`}, []string{"GOOGLE_PROJECT=acme-ci-417512"}},
	{"pem-cut.txt", []string{"private-key"},
		[]string{`(?s)(MII.*)`}, []string{"$ head -n 8 deploy/server.key"}},
	{"app.env", []string{"key-assignment"},
		[]string{`APP_KEY=(\S+)`, `SECRET_KEY_BASE=(\S+)`, `JWT_SIGNING_KEY=(\S+)`, `PRIVATE_KEY=(\S+)`},
		[]string{"APP_URL=https://acme.example.com", "RPC_URL=https://eth-mainnet.example.org/v2", "LOG_LEVEL=debug"}},
	{"docker-config.json", []string{"docker-auth"},
		[]string{`"auth": "([^"]+)"`, `"identitytoken": "([^"]+)"`}, []string{`"credsStore": ""`, `"https://index.docker.io/v1/"`}},
	{"netrc", []string{"netrc-password"},
		[]string{`password (\S+)`}, []string{"machine api.heroku.com", "login dev@acme.example.com"}},
	{"pgpass", []string{"pgpass-password"},
		[]string{`(?m)^[^#]\S*:(\S+)$`}, []string{"# hostname:port:database:username:password", "db.internal.acme.example.com:5432:billing:billing_app:"}},
	{"aws-sts.json", []string{"aws-access-key-id", "aws-secret-access-key", "aws-session-token"},
		[]string{`"SecretAccessKey": "([^"]+)"`, `"SessionToken": "([^"]+)"`}, []string{`"Expiration": "2026-11-28T22:13:58+00:00"`}},
	{"aws-credentials", []string{"aws-access-key-id", "aws-secret-access-key", "aws-session-token"},
		[]string{`aws_secret_access_key = (\S+)`, `aws_session_token = (\S+)`}, []string{"[default]", "[ci]"}},
}

// TestLeaksAreRedacted redacts each file as it is, and inside a
// transcript line that did not parse, kept raw with its escapes:
// every secret is gone, what is not a secret stays, and the rules named
// found them.
func TestLeaksAreRedacted(t *testing.T) {
	r, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range leaks {
		data, err := os.ReadFile(filepath.Join("testdata", "leaks", l.file))
		if err != nil {
			t.Fatal(err)
		}
		text := string(data)
		var secrets []string
		for _, p := range l.secrets {
			ms := regexp.MustCompile(p).FindAllStringSubmatch(text, -1)
			if ms == nil {
				t.Fatalf("%s: %s finds no secret in the sample", l.file, p)
			}
			for _, m := range ms {
				secrets = append(secrets, m[1])
			}
		}
		rest := text // what is no secret: a piece of a secret it holds too proves nothing
		for _, sec := range secrets {
			rest = strings.ReplaceAll(rest, sec, "")
		}
		escaped, _ := json.Marshal(text)
		line := `{"type":"tool_result","content":` + string(escaped) + `,}` // a trailing comma: kept raw
		for _, in := range []string{text, line} {
			out, found := r.String(in)
			for _, s := range secrets {
				if piece := leftOf(out, s, rest); piece != "" {
					t.Errorf("%s: %q of the secret %.20s… kept:\n%s", l.file, piece, s, out)
				}
			}
			for _, k := range l.kept {
				if !strings.Contains(out, k) && !strings.Contains(out, jsonText(k)) {
					t.Errorf("%s: %q lost:\n%s", l.file, k, out)
				}
			}
			var rules []string
			for _, f := range found {
				if !slices.Contains(rules, f.Rule) {
					rules = append(rules, f.Rule)
				}
			}
			slices.Sort(rules)
			if want := slices.Sorted(slices.Values(l.rules)); !slices.Equal(rules, want) {
				t.Errorf("%s: found by %v, want %v", l.file, rules, want)
			}
		}
	}
}

// leftOf is a piece of secret, of 12 characters, that out still holds
// and rest (the text without its secrets) does not ("" when none): a
// secret cut at a line's end or a rule's length limit leaks the rest.
func leftOf(out, secret, rest string) string {
	const piece = 12
	for i := 0; i+piece <= len(secret); i += piece / 2 {
		p := secret[i : i+piece]
		if strings.Contains(rest, p) {
			continue
		}
		if strings.Contains(out, p) || strings.Contains(out, jsonText(p)) {
			return p
		}
	}
	return ""
}

// jsonText is s as it reads inside a JSON string.
func jsonText(s string) string {
	b, _ := json.Marshal(s)
	return string(b[1 : len(b)-1])
}
