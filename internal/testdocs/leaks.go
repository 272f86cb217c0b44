package testdocs

import (
	"fmt"
	"html"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// Leak is one file of secrets as it sits on a developer's machine
// (redact/testdata/leaks, see SOURCE.md there).
type Leak struct {
	File    string   // its name there
	Rules   []string // the redaction rules that find its secrets
	Text    string   // its content
	Secrets []string // the secrets in it
	Kept    []string // text of it that is no secret and must stay
}

// leakFiles are the files, with regular expressions whose first group
// is a secret in the file.
var leakFiles = []struct {
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
	{"pem-base64.txt", []string{"private-key-base64"},
		[]string{`(?s)\n(LS0t.*)`}, []string{"$ base64 deploy/server.key"}},
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

// Leaks reads the files of secrets.
func Leaks() ([]Leak, error) {
	var out []Leak
	for _, f := range leakFiles {
		data, err := os.ReadFile(filepath.Join(Root(), "redact", "testdata", "leaks", f.file))
		if err != nil {
			return nil, err
		}
		l := Leak{File: f.file, Rules: f.rules, Text: string(data), Kept: f.kept}
		for _, p := range f.secrets {
			ms := regexp.MustCompile(p).FindAllStringSubmatch(l.Text, -1)
			if ms == nil {
				return nil, fmt.Errorf("%s: %s finds no secret", f.file, p)
			}
			for _, m := range ms {
				l.Secrets = append(l.Secrets, m[1])
			}
		}
		out = append(out, l)
	}
	return out, nil
}

// Leaked names a piece of a secret of leaks, 12 characters long, that
// out holds, as it is, JSON-escaped or HTML-escaped, and the text of the
// leaks around their secrets does not: a secret cut at a line's end or
// at a rule's length limit leaks the rest. It is "" when out holds none.
func Leaked(out string, leaks []Leak) string {
	var rest strings.Builder
	for _, l := range leaks {
		t := l.Text
		for _, s := range l.Secrets {
			t = strings.ReplaceAll(t, s, "")
		}
		rest.WriteString(t)
		rest.WriteByte(0)
	}
	others := rest.String()
	plain := html.UnescapeString(strings.ReplaceAll(out, `\`, ""))
	const piece = 12
	for _, l := range leaks {
		for _, s := range l.Secrets {
			for i := 0; i+piece <= len(s); i += piece / 2 {
				p := s[i : i+piece]
				if strings.Contains(others, p) || strings.ContainsAny(p, "\n\\") {
					continue
				}
				if strings.Contains(out, p) || strings.Contains(plain, p) {
					return l.File + ": " + p
				}
			}
		}
	}
	return ""
}
