package console

import (
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gozie/gozie/internal/conf"
)

func TestRedirect(t *testing.T) {
	for _, tc := range []struct {
		method, target, accept, want string
	}{
		{"GET", "/", "", Prefix},
		{"POST", "/", "", Prefix},
		// Oozie answers its console at /oozie whatever the client accepts.
		{"GET", "/oozie", "", Prefix},
		{"GET", "/oozie", "application/json", Prefix},
		{"GET", "/oozie/", "", Prefix},
		{"GET", "/oozie/", "application/json", Prefix},
		{"GET", "/oozie/", "text/html,application/xhtml+xml,*/*;q=0.8", Prefix},
		{"HEAD", "/oozie", "text/html", Prefix},
		{"PUT", "/oozie/", "text/html", ""},
		{"POST", "/oozie", "", ""},
		{"GET", "/oozie?job=0000001-260101000000000-oozie-x-W", "", Prefix + "job/0000001-260101000000000-oozie-x-W"},
		{"GET", "/oozie?job=0000001-260101000000000-oozie-x-C@3", "", Prefix + "job/0000001-260101000000000-oozie-x-C@3"},
		{"GET", "/oozie?job=a/b", "", Prefix + "job/a%2Fb"},
		{"GET", "/oozie/?job=x", "", Prefix + "job/x"},
		{"GET", "/oozie/v2/jobs", "text/html", ""},
	} {
		r := httptest.NewRequest(tc.method, tc.target, nil)
		if tc.accept != "" {
			r.Header.Set("Accept", tc.accept)
		}
		if got := Redirect(r); got != tc.want {
			t.Errorf("%s %s (Accept %q) = %q, want %q", tc.method, tc.target, tc.accept, got, tc.want)
		}
	}
}

func TestReadTail(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "stdout")
	var b strings.Builder
	for i := range 100 {
		b.WriteString(strings.Repeat("x", i%7) + "line\n")
	}
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		n   int64
		cut bool
	}{{1 << 20, false}, {int64(b.Len()), false}, {40, true}, {3, true}} {
		got, cut, err := readTail(p, tc.n)
		if err != nil {
			t.Fatal(err)
		}
		if cut != tc.cut || !strings.HasSuffix(b.String(), got) || int64(len(got)) > tc.n {
			t.Errorf("readTail(%d) = %q, %v", tc.n, got, cut)
		}
		// A cut tail starts at a line start.
		if cut && got != "" && !strings.HasPrefix(b.String()[b.Len()-len(got)-1:], "\n") {
			t.Errorf("readTail(%d) starts mid-line: %q", tc.n, got)
		}
	}
	if got, cut, err := readTail(filepath.Join(dir, "none"), 10); got != "" || cut || err != nil {
		t.Errorf("missing file: %q %v %v", got, cut, err)
	}
}

// TestConfXML checks the configuration the console sends with a rerun
// reads back as the properties given, whatever characters they hold.
func TestConfXML(t *testing.T) {
	for _, tc := range []struct {
		name string
		kv   []string
	}{
		{"none", nil},
		{"skip list", []string{"oozie.wf.rerun.skip.nodes", "a,b"}},
		{"markup in a value", []string{"k", `<x a="1"> & </x>`}},
		{"empty value", []string{"oozie.wf.rerun.skip.nodes", ""}},
	} {
		x := confXML(tc.kv...)
		cfg, err := conf.ParseXML(strings.NewReader(x), "test")
		if err != nil {
			t.Errorf("%s: %v in %s", tc.name, err, x)
			continue
		}
		if got := len(cfg.Names()); got != len(tc.kv)/2 {
			t.Errorf("%s: %d properties, want %d", tc.name, got, len(tc.kv)/2)
		}
		for i := 0; i+1 < len(tc.kv); i += 2 {
			if v, ok := cfg.Raw(tc.kv[i]); !ok || v != tc.kv[i+1] {
				t.Errorf("%s: %s = %q %v, want %q", tc.name, tc.kv[i], v, ok, tc.kv[i+1])
			}
		}
	}
}
