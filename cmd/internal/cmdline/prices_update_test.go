package cmdline

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPricesUpdateRefusesAbsurdPrices: a price list with a negative
// price, one over $1 a token ($10; 9.3e18, which wrapped to a negative
// price) or one that is not a number is refused with exit 2, and the
// list kept before stays as it was.
func TestPricesUpdateRefusesAbsurdPrices(t *testing.T) {
	dir := t.TempDir()
	vars := map[string]string{"HOME": dir, "XDG_CONFIG_HOME": filepath.Join(dir, ".config")}
	run := func(args ...string) (int, string) {
		var out, errOut lockedBuffer
		e := &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errOut, dir: dir, getenv: func(k string) string { return vars[k] }}
		code := e.run(context.Background(), args)
		return code, out.String() + errOut.String()
	}
	list := func(price string) string {
		return `{"good-model": {"mode": "chat", "litellm_provider": "x", "input_cost_per_token": 3e-06, "output_cost_per_token": 1.5e-05},
		"odd-model": {"mode": "chat", "litellm_provider": "x", "input_cost_per_token": 1e-06, "output_cost_per_token": ` + price + `}}`
	}
	good := filepath.Join(dir, "good.json")
	if err := os.WriteFile(good, []byte(list("2e-06")), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out := run("prices", "update", good); code != 0 || !strings.Contains(out, "2 models priced") {
		t.Fatalf("a good list: exit %d: %s", code, out)
	}
	kept, err := os.ReadFile(filepath.Join(dir, ".config", "git-snap", "prices.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, price := range []string{"-1e-06", "10", "9300000000000000000", `"0.000002"`, `"abc"`, "1.0000001"} {
		bad := filepath.Join(dir, "bad.json")
		if err := os.WriteFile(bad, []byte(list(price)), 0o644); err != nil {
			t.Fatal(err)
		}
		code, out := run("prices", "update", bad)
		if code != 2 || !strings.Contains(out, `model "odd-model": output_cost_per_token is`) || !strings.Contains(out, "not a price from $0 to $1 a token") {
			t.Errorf("a price of %s: exit %d: %s", price, code, out)
		}
		if now, _ := os.ReadFile(filepath.Join(dir, ".config", "git-snap", "prices.json")); string(now) != string(kept) {
			t.Errorf("a price of %s: the list kept before changed", price)
		}
	}
	if code, out := run("prices", "update", filepath.Join(dir, "good.json")); code != 0 {
		t.Errorf("a good list again: exit %d: %s", code, out)
	}
}
