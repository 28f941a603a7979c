package action

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
