package launch

import (
	"os"
	"path/filepath"
	"testing"
)

func TestWorkDir(t *testing.T) {
	data := t.TempDir()
	// An attempt an earlier version started, laid out as it did.
	legacy := filepath.Join(data, "actions", "0000002-W@b", "1")
	if err := os.MkdirAll(legacy, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		id      string
		attempt int
		want    string
	}{
		{"0000001-W@a", 0, "actions/0000001-W@a.0"},
		{"0000001-W@a", 12, "actions/0000001-W@a.12"},
		{"0000002-W@b", 1, "actions/0000002-W@b/1"}, // the earlier layout, found
		{"0000002-W@b", 2, "actions/0000002-W@b.2"}, // a new attempt of that action
	} {
		if got := WorkDir(data, c.id, c.attempt); got != filepath.Join(data, c.want) {
			t.Errorf("WorkDir(%s, %d) = %s, want DATA/%s", c.id, c.attempt, got, c.want)
		}
	}
	for dir, want := range map[string]string{
		filepath.Join(data, "actions", "0000001-W@a.0"): "local:0000001-W@a.0",
		legacy: "local:0000002-W@b/1",
	} {
		if got, ok := LocalExternalID(dir, dir); !ok || got != want {
			t.Errorf("LocalExternalID(%s) = %s %v, want %s", dir, got, ok, want)
		}
	}
}

func TestRunDir(t *testing.T) {
	data := t.TempDir()
	other := filepath.Join(t.TempDir(), "b")
	for _, c := range []struct {
		name, ext, want string
		attempt         int
	}{
		{"no external id", "", filepath.Join(data, "actions", "1-W@a.0"), 0},
		{"own directory", filepath.Join(data, "actions", "1-W@a.0"), filepath.Join(data, "actions", "1-W@a.0"), 0},
		{"another data directory", filepath.Join(other, "actions", "1-W@a.0"), filepath.Join(other, "actions", "1-W@a.0"), 0},
		{"not cleaned", other + "/actions/./1-W@a.0/", filepath.Join(other, "actions", "1-W@a.0"), 0},
		{"earlier layout elsewhere", filepath.Join(other, "actions", "1-W@a", "2"), filepath.Join(other, "actions", "1-W@a", "2"), 2},
		{"another attempt", filepath.Join(other, "actions", "1-W@a.0"), filepath.Join(data, "actions", "1-W@a.1"), 1},
		{"another action", filepath.Join(other, "actions", "1-W@b.0"), filepath.Join(data, "actions", "1-W@a.0"), 0},
		{"not under actions", filepath.Join(other, "tmp", "1-W@a.0"), filepath.Join(data, "actions", "1-W@a.0"), 0},
		{"relative", "actions/1-W@a.0", filepath.Join(data, "actions", "1-W@a.0"), 0},
		{"a hadoop job id", "job_1_0001", filepath.Join(data, "actions", "1-W@a.0"), 0},
		{"a sub-workflow id", "0000002-W", filepath.Join(data, "actions", "1-W@a.0"), 0},
	} {
		if got := RunDir(data, "1-W@a", c.attempt, c.ext); got != c.want {
			t.Errorf("%s: RunDir(%q) = %s, want %s", c.name, c.ext, got, c.want)
		}
	}
}

func TestDataDirID(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	idA, err := DataDirID(a)
	if err != nil || len(idA) != 32 {
		t.Fatalf("DataDirID = %q, %v", idA, err)
	}
	if again, err := DataDirID(a); err != nil || again != idA {
		t.Errorf("DataDirID again = %q, %v; want the same %q", again, err, idA)
	}
	idB, err := DataDirID(b)
	if err != nil || idB == idA {
		t.Fatalf("DataDirID of another directory = %q, %v", idB, err)
	}
	// Another directory at a path of the same name on another host is
	// what a copy of b's identity file elsewhere is not.
	lookalike := t.TempDir()
	if err := os.WriteFile(filepath.Join(lookalike, DataIDFile), []byte("someone-else\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, dir, id string
		want          bool
	}{
		{"itself", a, idA, true},
		{"through a longer path", a + "/.", idA, true},
		{"another directory", b, idA, false},
		{"a directory with another identity", lookalike, idA, false},
		{"missing here", filepath.Join(a, "gone"), idA, false},
		{"no identity recorded", a, "", false},
		{"no directory recorded", "", idA, false},
		{"relative", "data", idA, false},
	} {
		if got := SameDataDir(c.dir, c.id); got != c.want {
			t.Errorf("%s: SameDataDir(%q, %q) = %v, want %v", c.name, c.dir, c.id, got, c.want)
		}
	}
	// A garbled file is an error, not an identity.
	bad := t.TempDir()
	if err := os.WriteFile(filepath.Join(bad, DataIDFile), []byte("  \n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if id, err := DataDirID(bad); err == nil {
		t.Errorf("DataDirID of an empty identity file = %q, want an error", id)
	}
	if SameDataDir(bad, "") {
		t.Error("SameDataDir matched an empty identity")
	}
}
