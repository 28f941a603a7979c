//go:build unix

package fsys

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestReadPrivateFile: a secret is read only from a regular file no other
// user may read or change, and every refusal says why and how to fix it.
func TestReadPrivateFile(t *testing.T) {
	dir := t.TempDir()
	file := func(name string, mode os.FileMode, size int) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(strings.Repeat("s", size)), mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
		return p
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	foreign := file("foreign", 0o600, 8)
	tests := []struct {
		name    string
		path    string
		root    bool // the case needs root (chown)
		wantErr error
		msg     []string
	}{
		{name: "0600", path: file("rw", 0o600, 8)},
		{name: "0400", path: file("r", 0o400, 8)},
		{name: "file URI", path: "file://" + file("uri", 0o600, 8)},
		{name: "group-readable", path: file("g", 0o640, 8), wantErr: ErrNotPrivate, msg: []string{"mode 0640", "chmod 600 " + filepath.Join(dir, "g")}},
		{name: "world-writable", path: file("w", 0o602, 8), wantErr: ErrNotPrivate, msg: []string{"mode 0602"}},
		{name: "too large", path: file("big", 0o600, 101), wantErr: ErrTooLarge, msg: []string{"larger than the limit of 100 bytes"}},
		{name: "fifo", path: fifo, wantErr: ErrNotRegular, msg: []string{"named pipe"}},
		{name: "directory", path: dir, wantErr: ErrNotRegular, msg: []string{"a directory"}},
		{name: "missing", path: filepath.Join(dir, "nope"), wantErr: os.ErrNotExist},
		{name: "another user's", path: foreign, root: true, wantErr: ErrNotPrivate, msg: []string{"belongs to uid 4242", "chown 0 " + foreign}},
	}
	if os.Geteuid() == 0 {
		if err := os.Chown(foreign, 4242, 4242); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.root && os.Geteuid() != 0 {
				t.Skip("needs root to give the file to another user")
			}
			got, err := ReadPrivateFile(context.Background(), tc.path, 100)
			if tc.wantErr == nil {
				if err != nil || string(got) != "ssssssss" {
					t.Fatalf("= %q, %v", got, err)
				}
				return
			}
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("error %v, want %v", err, tc.wantErr)
			}
			for _, m := range tc.msg {
				if !strings.Contains(err.Error(), m) {
					t.Errorf("error %q lacks %q", err, m)
				}
			}
		})
	}
}
