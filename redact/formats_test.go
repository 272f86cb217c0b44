package redact

import (
	"strings"
	"testing"
)

// formats are 46 token formats, each a fake but well-formed example in
// the surroundings it turns up in: the 29 the first rule table caught
// and the 17 it missed. The count caught is the measure rule sets are
// compared by (docs/security.md, "Why a table of our own").
var formats = []struct{ name, text, secret string }{
	{"aws-access-key-id", "export AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE", "AKIAIOSFODNN7EXAMPLE"},
	{"aws-sts-key-id", `"AccessKeyId": "ASIAY34FZKBOKMUTVV7A"`, "ASIAY34FZKBOKMUTVV7A"},
	{"aws-secret-access-key", "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"},
	{"github-classic-in-url", "git clone https://ghp_" + strings.Repeat("a1B2", 9) + "@github.com/x/y", "ghp_" + strings.Repeat("a1B2", 9)},
	{"github-oauth", "GH_TOKEN=gho_16C7e42F292c6912E7710c838347Ae178B4a", "gho_16C7e42F292c6912E7710c838347Ae178B4a"},
	{"github-app", "installation token ghs_FAKE" + strings.Repeat("x7Y9", 8), "ghs_FAKE" + strings.Repeat("x7Y9", 8)},
	{"github-fine-grained", "token github_pat_11ABCDEFG0" + strings.Repeat("xY9_", 18), "github_pat_11ABCDEFG0" + strings.Repeat("xY9_", 18)},
	{"gitlab-pat", "PRIVATE-TOKEN: glpat-Xk3b9ZqLw2Rt7YpMn4Vc", "glpat-Xk3b9ZqLw2Rt7YpMn4Vc"},
	{"gitlab-runner", "gitlab-runner register --token glrt-FAKEt0k3nAbCdEfGh1234", "glrt-FAKEt0k3nAbCdEfGh1234"},
	{"slack-bot", "SLACK_BOT_TOKEN=xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx", "xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx"},
	{"slack-user", "xoxp-123456789012-123456789012-123456789012-0123456789abcdef0123456789abcdef", "xoxp-123456789012-123456789012-123456789012-0123456789abcdef0123456789abcdef"},
	{"slack-webhook", "curl https://hooks.slack.com/services/T0ABCDEFG/B0HIJKLMN/abcdefghijklmnopqrstuvwx", "https://hooks.slack.com/services/T0ABCDEFG/B0HIJKLMN/abcdefghijklmnopqrstuvwx"},
	{"anthropic-api", "ANTHROPIC_API_KEY=sk-ant-api03-" + strings.Repeat("Ab3_x-", 15) + "AAAAAA", "sk-ant-api03-" + strings.Repeat("Ab3_x-", 15) + "AAAAAA"},
	{"anthropic-admin", "x-api-key: sk-ant-admin01-" + strings.Repeat("FaK3", 22) + "AA", "sk-ant-admin01-" + strings.Repeat("FaK3", 22) + "AA"},
	{"openai-project", "OPENAI_API_KEY=sk-proj-" + strings.Repeat("Qw7e", 12) + "T3BlbkFJ" + strings.Repeat("Zx9c", 6), "sk-proj-" + strings.Repeat("Qw7e", 12) + "T3BlbkFJ" + strings.Repeat("Zx9c", 6)},
	{"openai-legacy", "key: sk-" + strings.Repeat("Ab9z", 5) + "T3BlbkFJ" + strings.Repeat("Qr5t", 5), "sk-" + strings.Repeat("Ab9z", 5) + "T3BlbkFJ" + strings.Repeat("Qr5t", 5)},
	{"openai-service-account", "sk-svcacct-" + strings.Repeat("FaKe0_", 8) + "EXAMPLE", "sk-svcacct-" + strings.Repeat("FaKe0_", 8) + "EXAMPLE"},
	{"google-api", "https://maps.googleapis.com/maps/api/js?key=AIzaSyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY", "AIzaSyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY"},
	{"stripe-secret", "Stripe.api_key = 'sk_live_4eC39HqLyjWDarjtT1zdp7dc'", "sk_live_4eC39HqLyjWDarjtT1zdp7dc"},
	{"stripe-restricted", "rk_test_51H8aBcDeFgHiJkLmNoPqRsTu", "rk_test_51H8aBcDeFgHiJkLmNoPqRsTu"},
	{"rsa-private-key", "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7\n-----END RSA PRIVATE KEY-----", "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7\n-----END RSA PRIVATE KEY-----"},
	{"openssh-private-key", "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----", "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----"},
	{"jwt", "Authorization: Bearer eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U", "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"},
	{"postgres-url", "DATABASE_URL=postgres://app:s3cr3tP4ss@db.internal:5432/app", "s3cr3tP4ss"},
	{"https-url", "git remote add origin https://alice:hunter2xyz@git.example.com/r.git", "hunter2xyz"},
	{"json-password-random", `{"password": "Zq8#mV2!rT9x@Lw4"}`, "Zq8#mV2!rT9x@Lw4"},
	{"env-password-random", "DB_PASSWORD=9fK2mX7qLp3vR8tZ", "9fK2mX7qLp3vR8tZ"},
	{"yaml-client-secret", "client_secret: Xy7Qp2Lm9Vt4Rn8W", "Xy7Qp2Lm9Vt4Rn8W"},
	{"twilio-auth-token-env", "TWILIO_AUTH_TOKEN=f3a9c1e07b5d24e8a6c0f9b3d71e5a28", "f3a9c1e07b5d24e8a6c0f9b3d71e5a28"},
	// Missed by the first table.
	{"slack-app", "socket mode app-level xapp-1-A0FAKE12345-1234567890123-0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef", "xapp-1-A0FAKE12345-1234567890123-0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"},
	{"stripe-webhook-secret", "endpoint secret whsec_FAKEa1b2C3d4E5f6G7h8I9j0K1l2M3n4", "whsec_FAKEa1b2C3d4E5f6G7h8I9j0K1l2M3n4"},
	{"google-oauth-access", "access token ya29.a0AfB_byFAKE" + strings.Repeat("x9Yz-8", 12), "ya29.a0AfB_byFAKE" + strings.Repeat("x9Yz-8", 12)},
	{"redis-url-no-user", "REDIS_URL=redis://:p4ssw0rdFAKE@cache.internal:6379/0", "p4ssw0rdFAKE"},
	{"json-password-short", `{"user": "admin", "password": "Tr0ub4dor&3"}`, "Tr0ub4dor&3"},
	{"env-password-words", "KEYSTORE_PASSWORD=correct-horse-battery-staple", "correct-horse-battery-staple"},
	{"bearer-header", "curl -H 'Authorization: Bearer FAKEopaqueT0kenAbCdEfGhIjKlMnOpQr' https://api.example.com", "FAKEopaqueT0kenAbCdEfGhIjKlMnOpQr"},
	{"bearer-json", `{"headers": {"Authorization": "Bearer 8f14e45fceea167a5a36dedd4bea2543"}}`, "8f14e45fceea167a5a36dedd4bea2543"},
	{"basic-auth", "Authorization: Basic YWRtaW46c3VwZXJzZWNyZXRGQUtFOQ==", "YWRtaW46c3VwZXJzZWNyZXRGQUtFOQ=="},
	{"base64-wrapped-token", "echo Z2hwX0ZBS0VhMUIyYzNENGU1RjZnN0g4aTlKMGsxTDJtM040bzVQNg== | base64 -d", "Z2hwX0ZBS0VhMUIyYzNENGU1RjZnN0g4aTlKMGsxTDJtM040bzVQNg=="},
	{"npm", "npm publish worked with npm_FAKEa1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6", "npm_FAKEa1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6"},
	{"pypi", "twine upload -u __token__ -p pypi-AgEIcHlwaS5vcmcCJDAwMDAwMDAwLTAwMDAtMDAwMC0wMDAwLTAwMDAwMDAwMDAwMAACKlsz" + strings.Repeat("FaKe", 10), "pypi-AgEIcHlwaS5vcmcCJDAwMDAwMDAwLTAwMDAtMDAwMC0wMDAwLTAwMDAwMDAwMDAwMAACKlsz" + strings.Repeat("FaKe", 10)},
	{"huggingface", "HF_TOKEN=hf_FAKEaBcDeFgHiJkLmNoPqRsTuVwXyZabcd", "hf_FAKEaBcDeFgHiJkLmNoPqRsTuVwXyZabcd"},
	{"sendgrid", "sendgrid.SendGridAPIClient(\"SG.FAKEa1b2c3d4e5f6g7h8i9.FAKEa1b2c3d4e5f6g7h8i9j0k1l2m3n4o5p6q7r8s9t\")", "SG.FAKEa1b2c3d4e5f6g7h8i9.FAKEa1b2c3d4e5f6g7h8i9j0k1l2m3n4o5p6q7r8s9t"},
	{"azure-storage", "DefaultEndpointsProtocol=https;AccountName=fakeacct;AccountKey=" + strings.Repeat("Fa9kE+k3Y/", 8) + "Fa9kE+==;EndpointSuffix=core.windows.net", strings.Repeat("Fa9kE+k3Y/", 8) + "Fa9kE+=="},
	{"twilio-api-key", "twilio api:core:keys SK0123456789abcdef0123456789abcdef", "SK0123456789abcdef0123456789abcdef"},
	{"twilio-account-and-token", "curl -u AC0123456789abcdef0123456789abcdef:8f14e45fceea167a5a36dedd4bea2543 https://api.twilio.com", "8f14e45fceea167a5a36dedd4bea2543"},
}

// TestFormatsCaught counts the formats the rules catch: all of them,
// the secret gone from the text and a rule named.
func TestFormatsCaught(t *testing.T) {
	if len(formats) != 46 {
		t.Fatalf("%d formats, want the 46 docs/security.md counts", len(formats))
	}
	r, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	caught := 0
	for _, f := range formats {
		out, found := r.String(f.text)
		if strings.Contains(out, f.secret) || len(found) == 0 {
			t.Errorf("%s: kept in %q", f.name, out)
			continue
		}
		caught++
	}
	t.Logf("caught %d of %d formats", caught, len(formats))
}
