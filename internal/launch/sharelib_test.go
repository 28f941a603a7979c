package launch

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// TestShareLibRoot is issue 26 point 12: the share library of Oozie's
// layout (share/lib/lib_<timestamp>/...) is read from its newest copy,
// the one admin -sharelibupdate reports; a plain root is used as it is.
func TestShareLibRoot(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name string
		dirs []string
		want string // relative to the root; "" is the root itself
	}{
		{"plain library directories", []string{"pig", "oozie"}, ""},
		{"one copy", []string{"lib_20260101000000/pig"}, "lib_20260101000000"},
		{"newest copy", []string{"lib_20250101000000/pig", "lib_20260301120000/pig", "lib_20260101000000/pig"}, "lib_20260301120000"},
		{"not a timestamp", []string{"lib_new/pig", "lib_2026/pig"}, ""},
		{"empty", nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			for _, d := range tt.dirs {
				if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			want := filepath.Join(root, tt.want)
			if got := ShareLibRoot(ctx, root); filepath.Clean(got) != want {
				t.Errorf("ShareLibRoot = %s, want %s", got, want)
			}
		})
	}
	missing := filepath.Join(t.TempDir(), "nothing")
	if got := ShareLibRoot(ctx, missing); got != missing {
		t.Errorf("a root that cannot be listed: %s, want it unchanged", got)
	}
}
