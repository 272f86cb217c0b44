package cmdline

import "testing"

func TestPagerCommand(t *testing.T) {
	for _, tc := range []struct {
		name string
		env  map[string]string
		cfg  map[string]string
		want string
	}{
		{"nothing set", nil, nil, "less"},
		{"PAGER", map[string]string{"PAGER": "more"}, nil, "more"},
		{"core.pager over PAGER", map[string]string{"PAGER": "more"}, map[string]string{"core.pager": "most"}, "most"},
		{"GIT_PAGER over core.pager", map[string]string{"GIT_PAGER": "lv"}, map[string]string{"core.pager": "most"}, "lv"},
		{"GIT_PAGER empty: none", map[string]string{"GIT_PAGER": "", "PAGER": "more"}, nil, ""},
		{"PAGER empty: none", map[string]string{"PAGER": ""}, nil, ""},
		{"pager.snap names one", map[string]string{"GIT_PAGER": "lv"}, map[string]string{"pager.snap": "less -S"}, "less -S"},
		{"pager.snap false", map[string]string{"GIT_PAGER": "lv"}, map[string]string{"pager.snap": "false"}, ""},
		{"pager.snap off", nil, map[string]string{"pager.snap": "off"}, ""},
		{"pager.snap true: the usual choice", map[string]string{"GIT_PAGER": "lv"}, map[string]string{"pager.snap": "true"}, "lv"},
		{"pager.snap with no value is true", nil, map[string]string{"pager.snap": ""}, "less"},
	} {
		lookup := func(k string) (string, bool) { v, ok := tc.env[k]; return v, ok }
		if got := pagerCommand(lookup, tc.cfg); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestUseColor(t *testing.T) {
	for _, tc := range []struct {
		flag, ui          string
		noColor, terminal bool
		want              bool
	}{
		{"auto", "", false, true, true},
		{"auto", "", false, false, false},
		{"auto", "", true, true, false},
		{"always", "never", true, false, true},
		{"never", "always", false, true, false},
		{"auto", "always", true, false, true},
		{"auto", "never", false, true, false},
		{"auto", "false", false, true, false},
		{"auto", "true", false, false, false}, // true means auto, as in git
		{"auto", "true", false, true, true},
		{"auto", "auto", true, true, false},
	} {
		if got := useColor(tc.flag, tc.ui, tc.noColor, tc.terminal); got != tc.want {
			t.Errorf("useColor(%q, %q, NO_COLOR %v, terminal %v) = %v, want %v", tc.flag, tc.ui, tc.noColor, tc.terminal, got, tc.want)
		}
	}
}
