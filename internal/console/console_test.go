package console

import (
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

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

// TestDuration checks the duration column's short form, and that a job
// still running is measured to now.
func TestDuration(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name       string
		start, end time.Time
		want       string
	}{
		{"not started", time.Time{}, time.Time{}, "-"},
		{"instant", t0, t0.Add(300 * time.Millisecond), "<1s"},
		{"seconds", t0, t0.Add(42 * time.Second), "42s"},
		{"minutes", t0, t0.Add(3*time.Minute + 5*time.Second), "3m 05s"},
		{"hours", t0, t0.Add(2*time.Hour + 4*time.Minute + 59*time.Second), "2h 04m"},
		{"days", t0, t0.Add(75 * time.Hour), "3d 03h"},
		{"running: until now", t0, time.Time{}, "1h 00m"},
		{"clock behind the start", t0.Add(2 * time.Hour), time.Time{}, "-"},
	} {
		if got := duration(tc.start, tc.end, t0.Add(time.Hour)); got != tc.want {
			t.Errorf("%s: duration = %q, want %q", tc.name, got, tc.want)
		}
	}
}

// TestWhen checks the one date format of the console: UTC whatever the
// zone given, in a <time> with the instant.
func TestWhen(t *testing.T) {
	paris, err := time.LoadLocation("Europe/Paris")
	if err != nil {
		t.Skip(err)
	}
	for _, tc := range []struct {
		t    time.Time
		want string
	}{
		{time.Time{}, "-"},
		{time.Date(2026, 1, 1, 2, 0, 0, 0, time.UTC), `<time datetime="2026-01-01T02:00:00Z"><span class="nw">2026-01-01</span> <span class="nw">02:00:00</span></time>`},
		{time.Date(2026, 7, 1, 2, 0, 0, 0, paris), `<time datetime="2026-07-01T00:00:00Z"><span class="nw">2026-07-01</span> <span class="nw">00:00:00</span></time>`},
	} {
		if got := string(when(tc.t)); got != tc.want {
			t.Errorf("when(%v) = %s, want %s", tc.t, got, tc.want)
		}
	}
}

// TestParentFilter checks which jobs the jobs page's parent filter keeps.
func TestParentFilter(t *testing.T) {
	for _, tc := range []struct{ parent, id, prefix string }{
		{"", "", ""},
		{"0000001-260101000000000-oozie-x-C", "", "0000001-260101000000000-oozie-x-C@"},
		{"0000001-260101000000000-oozie-x-C@3", "0000001-260101000000000-oozie-x-C@3", ""},
		{"0000002-260101000000000-oozie-x-W", "0000002-260101000000000-oozie-x-W", ""},
	} {
		if id, prefix := parentFilter(tc.parent); id != tc.id || prefix != tc.prefix {
			t.Errorf("parentFilter(%q) = %q, %q, want %q, %q", tc.parent, id, prefix, tc.id, tc.prefix)
		}
	}
}
