package render

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/git-snap/git-snap/snapshot"
	"github.com/git-snap/git-snap/storage"
)

func sampleEntry() storage.Entry {
	return storage.Entry{
		ID:     storage.NewID("0123456789abcdef0123456789abcdef01234567"),
		Parent: storage.NewID("1111111111111111111111111111111111111111"),
		Merged: []storage.ID{storage.NewID("2222222222222222222222222222222222222222")},
		Tree:   storage.NewID("3333333333333333333333333333333333333333"),
		Header: snapshot.Header{
			Session: "fix-login", Seq: 7, Turn: 3, Label: "tests pass", Source: "claude-code",
			Message: "first line\nsecond line", Time: time.Date(2026, 3, 2, 10, 0, 0, 0, time.FixedZone("", 3600)),
			Code: "abcdefabcdefabcdefabcdefabcdefabcdefabcd", Dirty: true, Messages: 12, Events: 1, Files: 2,
		},
	}
}

func TestFormatPlaceholders(t *testing.T) {
	now := time.Date(2026, 3, 2, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct{ format, want string }{
		{"%H", "0123456789abcdef0123456789abcdef01234567"},
		{"%h %p", "0123456789ab 111111111111 222222222222"},
		{"%P", "1111111111111111111111111111111111111111 2222222222222222222222222222222222222222"},
		{"%t", "333333333333"},
		{"%(session)#%(seq) turn %(turn)", "fix-login#7 turn 3"},
		{"%(label)|%s|%(message)", "tests pass|first line|first line\nsecond line"},
		{"%(code:short) %(dirty) %(source)", "abcdefabcdef dirty claude-code"},
		{"%(messages)/%(events)/%(files)", "12/1/2"},
		{"%ad", "Mon Mar 2 10:00:00 2026 +0100"},
		{"%ci", "2026-03-02 10:00:00 +0100"},
		{"%aI", "2026-03-02T10:00:00+01:00"},
		{"%at %as", "1772442000 2026-03-02"},
		{"%ar", "3 hours ago"},
		{"%d|%D", " (snap fix-login#7, checkpoint: green)|snap fix-login#7, checkpoint: green"},
		{"%(checkpoints)", "green"},
		{"100%% %n-", "100% \n-"},
		{"%Cred%h%Creset", "0123456789ab"},
		{"%C(yellow)x%C(reset)", "x"},
		{"plain", "plain"},
	} {
		p, err := ParsePretty(tc.format, true)
		if err != nil {
			t.Errorf("ParsePretty(%q): %v", tc.format, err)
			continue
		}
		var b bytes.Buffer
		lw := &LogWriter{W: &b, Pretty: p, Now: now}
		lw.Write(sampleEntry(), []string{"green"})
		lw.End()
		if got := strings.TrimSuffix(b.String(), "\n"); got != tc.want {
			t.Errorf("%q wrote %q, want %q", tc.format, got, tc.want)
		}
	}
}

func TestFormatColoursOnlyWhenOn(t *testing.T) {
	p, err := ParsePretty("%Cred%h%Creset %C(bold)x", true)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	(&LogWriter{W: &b, Pretty: p, Color: Palette{On: true}}).Write(sampleEntry(), nil)
	if want := "\x1b[31m0123456789ab\x1b[m \x1b[1mx\n"; b.String() != want {
		t.Errorf("wrote %q, want %q", b.String(), want)
	}
}

func TestFormatSeparatorAndTerminator(t *testing.T) {
	for _, tc := range []struct{ pretty, want string }{
		{"format:%(seq)", "7\n7\n"},  // a separator, and a newline at the end
		{"tformat:%(seq)", "7\n7\n"}, // a terminator
		{"format:%(seq)%n", "7\n\n7\n\n"},
		{"%(seq)", "7\n7\n"},
	} {
		p, err := ParsePretty(tc.pretty, false)
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		lw := &LogWriter{W: &b, Pretty: p}
		lw.Write(sampleEntry(), nil)
		lw.Write(sampleEntry(), nil)
		lw.End()
		if b.String() != tc.want {
			t.Errorf("%q wrote %q, want %q", tc.pretty, b.String(), tc.want)
		}
	}
}

func TestParsePrettyRefuses(t *testing.T) {
	for _, tc := range []struct {
		v        string
		isFormat bool
		says     string
	}{
		{"%", true, "a lone % at byte 0"},
		{"%h %q", true, "%q is not a placeholder at byte 3"},
		{"%(nosuch)", true, "%(nosuch) is not a placeholder"},
		{"%(session", true, "%( is not closed"},
		{"%C(purple)", true, "%C(purple) is not a colour"},
		{"%Cx", true, "%C must be followed"},
		{"fancy", false, `--pretty "fancy" is not a form`},
	} {
		_, err := ParsePretty(tc.v, tc.isFormat)
		var fe *FormatError
		if !errors.As(err, &fe) || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("ParsePretty(%q) = %v, want a FormatError saying %q", tc.v, err, tc.says)
		}
	}
}

func TestPrettyForms(t *testing.T) {
	e := sampleEntry()
	for _, tc := range []struct {
		form        string
		has, hasNot []string
	}{
		{"oneline", []string{"0123456789ab fix-login#7 2026-03-02 10:00 (green) first line\n"}, []string{"Label:"}},
		{"short", []string{"snapshot 0123456789abcdef", "Merge:    111111111111 222222222222\n", "Label:    tests pass\n", "    first line\n    second line\n"}, []string{"Source:", "Turn:"}},
		{"medium", []string{"Merge:", "Turn:     3\n", "Source:   claude-code\n", "Contents: 12 messages, 1 event, 2 files\n"}, []string{"Tree:"}},
		{"full", []string{"Parent:   1111111111111111111111111111111111111111\n", "Tree:     3333333333333333333333333333333333333333\n"}, nil},
	} {
		p, err := ParsePretty(tc.form, false)
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		(&LogWriter{W: &b, Pretty: p}).Write(e, []string{"green"})
		out := b.String()
		for _, s := range tc.has {
			if !strings.Contains(out, s) {
				t.Errorf("%s: %q lacks %q", tc.form, out, s)
			}
		}
		for _, s := range tc.hasNot {
			if strings.Contains(out, s) {
				t.Errorf("%s: %q has %q", tc.form, out, s)
			}
		}
		for _, line := range strings.Split(out, "\n") {
			if strings.TrimRight(line, " ") != line {
				t.Errorf("%s: trailing space in %q", tc.form, line)
			}
		}
	}
}

func TestRelativeDate(t *testing.T) {
	now := time.Date(2026, 3, 2, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		ago  time.Duration
		want string
	}{
		{0, "0 seconds ago"},
		{time.Second, "1 second ago"},
		{89 * time.Second, "89 seconds ago"},
		{2 * time.Minute, "2 minutes ago"},
		{time.Hour, "60 minutes ago"},
		{2 * time.Hour, "2 hours ago"},
		{35 * time.Hour, "35 hours ago"},
		{3 * 24 * time.Hour, "3 days ago"},
		{20 * 24 * time.Hour, "3 weeks ago"},
		{100 * 24 * time.Hour, "3 months ago"},
		{400 * 24 * time.Hour, "1 year, 1 month ago"},
		{730 * 24 * time.Hour, "2 years ago"},
		{3000 * 24 * time.Hour, "8 years ago"},
		{-time.Hour, "in the future"},
	} {
		if got := RelativeDate(now.Add(-tc.ago), now); got != tc.want {
			t.Errorf("RelativeDate(%v ago) = %q, want %q", tc.ago, got, tc.want)
		}
	}
}

func TestColourResetsBeforeTheNewline(t *testing.T) {
	p := Palette{On: true}
	if got, want := p.Green("+added\n"), "\x1b[32m+added\x1b[m\n"; got != want {
		t.Errorf("Green = %q, want %q", got, want)
	}
	if got, want := p.Red("x"), "\x1b[31mx\x1b[m"; got != want {
		t.Errorf("Red = %q, want %q", got, want)
	}
}

// FuzzParsePretty: any format parses into parts that write without
// panicking, or gives a FormatError.
func FuzzParsePretty(f *testing.F) {
	for _, seed := range []string{"%h %s", "%", "%(", "%()", "%C(", "%C(red", "%ad%ar%aI", "%(code:short)", "format:%n", "tformat:", "%%%"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, v string) {
		p, err := ParsePretty(v, true)
		var fe *FormatError
		if err != nil {
			if !errors.As(err, &fe) {
				t.Fatalf("%q: %v is not a FormatError", v, err)
			}
			return
		}
		var b bytes.Buffer
		e := sampleEntry()
		e.Header.Code = ""
		(&LogWriter{W: &b, Pretty: p, Color: Palette{On: true}}).Write(e, nil)
	})
}
