package launch

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// What a reader makes of a pid file's bytes, including the states a
// reader may see while a line is being written into the zeroed reserve.
func TestParsePID(t *testing.T) {
	pad := strings.Repeat("\x00", 64)
	claim := `{"pid":10,"pgid":0,"start":"77","supervised":true}`
	started := `{"pid":10,"pgid":12,"start":"77","childPid":12,"supervised":true}`
	for _, c := range []struct {
		name, in string
		ok       bool
		pgid     int
		child    int
	}{
		{"earlier versions: one object", `{"pid":10,"pgid":10}`, true, 10, 0},
		{"earlier versions: with a child", `{"pid":10,"pgid":10,"childPid":11}`, true, 10, 11},
		{"claim in its reserve", claim + "\n" + pad, true, 0, 0},
		{"claim and start", claim + "\n" + started + "\n" + pad, true, 12, 12},
		{"start line without its newline yet", claim + "\n" + started + pad, true, 0, 0},
		{"start line half written", claim + "\n" + started[:20] + pad, true, 0, 0},
		{"start line with a byte not yet seen", claim + "\n" + started[:30] + "\x00" + started[31:] + "\n" + pad, true, 0, 0},
		{"a later line of another process is ignored", claim + "\n" + `{"pid":99,"pgid":99}` + "\n", true, 0, 0},
		{"empty", "", false, 0, 0},
		{"zeros only", pad, false, 0, 0},
		{"claim not yet written", `{"pid":10,"pg` + pad, false, 0, 0},
		{"garbage", "not json\n", false, 0, 0},
		{"pid zero", `{"pid":0}` + "\n", false, 0, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, ok := parsePID([]byte(c.in))
			if ok != c.ok {
				t.Fatalf("ok = %v, want %v (%+v)", ok, c.ok, p)
			}
			if ok && (p.PID != 10 || p.PGID != c.pgid || p.ChildPID != c.child) {
				t.Errorf("got %+v, want pid 10 pgid %d child %d", p, c.pgid, c.child)
			}
		})
	}
}

// The claim and the started line go into the reserve the executor made:
// no inode is made or freed after the reserve, and the file keeps its
// blocks (the reserve's size).
func TestPIDFileInReserve(t *testing.T) {
	dir := t.TempDir()
	if err := ReserveLauncherFiles(dir, 0, true); err != nil {
		t.Fatal(err)
	}
	if Exists(filepath.Join(dir, LauncherLog)) {
		t.Error("a supervised step got a launcher.log before it had anything to say")
	}
	before, _ := os.Stat(filepath.Join(dir, PidReserveFile))
	pid := LauncherPID{PID: 4242, Start: "1", Supervised: true}
	ok, err := claimPID(dir, &pid)
	if !ok || err != nil {
		t.Fatalf("claim: %v %v", ok, err)
	}
	if again := (LauncherPID{PID: 4343}); true {
		if ok, err := claimPID(dir, &again); ok || err != nil {
			t.Fatalf("second claim: %v %v, want refused", ok, err)
		}
	}
	if p, ok := ReadPID(dir); !ok || p.PID != 4242 || p.PGID != 0 {
		t.Fatalf("after claim: %+v %v", p, ok)
	}
	pid.ChildPID, pid.PGID = 5000, 5000
	if err := recordStarted(dir, pid); err != nil {
		t.Fatal(err)
	}
	p, ok := ReadPID(dir)
	if !ok || p.PID != 4242 || p.PGID != 5000 || p.ChildPID != 5000 || !p.Supervised {
		t.Fatalf("after start: %+v %v", p, ok)
	}
	fi, err := os.Stat(filepath.Join(dir, PIDFile))
	if err != nil {
		t.Fatal(err)
	}
	if !os.SameFile(before, fi) || fi.Size() != pidReserveSize {
		t.Errorf("the pid file is not the reserve it was made from (size %d)", fi.Size())
	}
	names, _ := filepath.Glob(filepath.Join(dir, ".pid*"))
	if len(names) != 0 {
		t.Errorf("left behind: %v", names)
	}
}
