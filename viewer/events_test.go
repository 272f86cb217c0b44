package viewer

import (
	"bufio"
	"context"
	"net/http"
	"strings"
	"testing"
	"time"
)

// A page made before a ref moved, whose event stream connects after, is
// told at once that it is behind: the stream compares the tips the page
// was made from with the ones it sees.
func TestEventsTellAStalePageAtOnce(t *testing.T) {
	f := testFixture(t)
	for _, c := range []struct {
		tips string
		want bool
	}{{"0000000000000000", true}, {"", false}} {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, f.url+"/events?tips="+c.tips, nil)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		got := false
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() { // ends when the context does
			if strings.HasPrefix(sc.Text(), "event: refs") {
				got = true
				break
			}
		}
		resp.Body.Close()
		cancel()
		if got != c.want {
			t.Errorf("tips %q: an event at once = %v, want %v", c.tips, got, c.want)
		}
	}
}
