package redact

import (
	"strings"
	"testing"

	"github.com/git-snap/git-snap/internal/testdocs"
	"github.com/git-snap/git-snap/snapshot"
)

// knownTokens are well-formed examples of each format (not live
// credentials), in the surroundings they turn up in.
var knownTokens = []struct{ rule, text, secret string }{
	{"aws-access-key-id", "export AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE", "AKIAIOSFODNN7EXAMPLE"},
	{"aws-access-key-id", `"AccessKeyId": "ASIAY34FZKBOKMUTVV7A"`, "ASIAY34FZKBOKMUTVV7A"},
	{"aws-secret-access-key", "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"},
	{"github-token", "git clone https://ghp_" + strings.Repeat("a1B2", 9) + "@github.com/x/y", "ghp_" + strings.Repeat("a1B2", 9)},
	{"github-token", "GH_TOKEN=gho_16C7e42F292c6912E7710c838347Ae178B4a", "gho_16C7e42F292c6912E7710c838347Ae178B4a"},
	{"github-fine-grained-token", "token github_pat_11ABCDEFG0" + strings.Repeat("xY9_", 18), "github_pat_11ABCDEFG0" + strings.Repeat("xY9_", 18)},
	{"gitlab-token", "PRIVATE-TOKEN: glpat-Xk3b9ZqLw2Rt7YpMn4Vc", "glpat-Xk3b9ZqLw2Rt7YpMn4Vc"},
	{"slack-token", "SLACK_BOT_TOKEN=xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx", "xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx"},
	{"slack-webhook", "curl https://hooks.slack.com/services/T0ABCDEFG/B0HIJKLMN/abcdefghijklmnopqrstuvwx", "https://hooks.slack.com/services/T0ABCDEFG/B0HIJKLMN/abcdefghijklmnopqrstuvwx"},
	{"anthropic-api-key", "ANTHROPIC_API_KEY=sk-ant-api03-" + strings.Repeat("Ab3_x-", 15) + "AAAAAA", "sk-ant-api03-" + strings.Repeat("Ab3_x-", 15) + "AAAAAA"},
	{"openai-api-key", "OPENAI_API_KEY=sk-proj-" + strings.Repeat("Qw7e", 12) + "T3BlbkFJ" + strings.Repeat("Zx9c", 6), "sk-proj-" + strings.Repeat("Qw7e", 12) + "T3BlbkFJ" + strings.Repeat("Zx9c", 6)},
	{"openai-api-key", "key: sk-" + strings.Repeat("Ab9z", 5) + "T3BlbkFJ" + strings.Repeat("Qr5t", 5), "sk-" + strings.Repeat("Ab9z", 5) + "T3BlbkFJ" + strings.Repeat("Qr5t", 5)},
	{"google-api-key", "https://maps.googleapis.com/maps/api/js?key=AIzaSyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY", "AIzaSyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY"},
	{"stripe-key", "Stripe.api_key = 'sk_live_4eC39HqLyjWDarjtT1zdp7dc'", "sk_live_4eC39HqLyjWDarjtT1zdp7dc"},
	{"stripe-key", "rk_test_51H8aBcDeFgHiJkLmNoPqRsTu", "rk_test_51H8aBcDeFgHiJkLmNoPqRsTu"},
	{"private-key", "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7\n-----END RSA PRIVATE KEY-----", "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7\n-----END RSA PRIVATE KEY-----"},
	{"private-key", "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----", "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----"},
	{"jwt", "Authorization: Bearer eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U", "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"},
	{"url-credentials", "DATABASE_URL=postgres://app:s3cr3tP4ss@db.internal:5432/app", "s3cr3tP4ss"},
	{"url-credentials", "git remote add origin https://alice:hunter2xyz@git.example.com/r.git", "hunter2xyz"},
	{"password-assignment", `{"password": "Zq8#mV2!rT9x@Lw4"}`, "Zq8#mV2!rT9x@Lw4"},
	{"password-assignment", "DB_PASSWORD=9fK2mX7qLp3vR8tZ", "9fK2mX7qLp3vR8tZ"},
	{"password-assignment", "client_secret: Xy7Qp2Lm9Vt4Rn8W", "Xy7Qp2Lm9Vt4Rn8W"},
}

func TestCatchesKnownTokenFormats(t *testing.T) {
	r, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	caught := 0
	for _, k := range knownTokens {
		out, found := r.String(k.text)
		if strings.Contains(out, k.secret) {
			t.Errorf("%s: secret kept in %q", k.rule, out)
			continue
		}
		if len(found) == 0 || found[0].Rule != k.rule {
			t.Errorf("%s: found %+v in %q", k.rule, found, k.text)
			continue
		}
		if !strings.Contains(out, Placeholder(k.rule)) {
			t.Errorf("%s: no placeholder in %q", k.rule, out)
		}
		caught++
	}
	t.Logf("caught %d of %d known token formats", caught, len(knownTokens))
}

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

// The real transcripts had their tokens removed before publication, so
// what the rules find in them is a false positive. Count them.
func TestFalsePositivesOnRealTranscripts(t *testing.T) {
	r, _ := New(Config{})
	ts, err := testdocs.Transcripts()
	if err != nil {
		t.Fatal(err)
	}
	total, strings_ := 0, 0
	byRule := map[string]int{}
	for _, tr := range ts {
		doc, err := tr.Document(len(tr.Lines))
		if err != nil {
			t.Fatal(err)
		}
		_, found := r.Document(doc)
		for _, f := range found {
			byRule[f.Rule]++
			t.Logf("%s %s %s %s", tr.Name, f.Rule, f.Path, f.Preview)
		}
		total += len(found)
		strings_ += len(tr.Lines)
	}
	t.Logf("%d findings in %d transcript records: %v", total, strings_, byRule)
	if total > 0 {
		t.Errorf("%d false positives on the real transcripts", total)
	}
}
