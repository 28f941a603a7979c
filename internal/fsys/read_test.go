package fsys

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestReadFileLimit reproduces the app paths that took the server down
// (/dev/zero read until out of memory, a FIFO blocking the request forever)
// and checks every refusal is immediate and names the path.
func TestReadFileLimit(t *testing.T) {
	dir := t.TempDir()
	small := filepath.Join(dir, "small.xml")
	if err := os.WriteFile(small, []byte("<x/>"), 0o644); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big.xml")
	if err := os.WriteFile(big, []byte(strings.Repeat("a", 101)), 0o644); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		name    string
		ctx     context.Context
		path    string
		max     int64
		want    string
		wantErr error
		msg     string
	}{
		{"regular", context.Background(), small, 100, "<x/>", nil, ""},
		{"file URI", context.Background(), "file://" + small, 100, "<x/>", nil, ""},
		{"no limit", context.Background(), big, 0, strings.Repeat("a", 101), nil, ""},
		{"exactly at limit", context.Background(), big, 101, strings.Repeat("a", 101), nil, ""},
		{"over limit", context.Background(), big, 100, "", ErrTooLarge, "larger than the limit of 100 bytes"},
		{"dev zero", context.Background(), "/dev/zero", 100, "", ErrNotRegular, "[/dev/zero] is a device"},
		{"fifo", context.Background(), fifo, 100, "", ErrNotRegular, "named pipe"},
		{"directory", context.Background(), dir, 100, "", ErrNotRegular, "a directory"},
		{"missing", context.Background(), filepath.Join(dir, "nope"), 100, "", fs.ErrNotExist, ""},
		{"canceled", canceled, small, 100, "", context.Canceled, ""},
		{"hdfs", context.Background(), "hdfs://nn/x", 100, "", ErrUnsupported, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			got, err := ReadFileLimit(tc.ctx, tc.path, tc.max)
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("took %v", d) // safety bound: refusals are immediate
			}
			if tc.wantErr == nil {
				if err != nil || string(got) != tc.want {
					t.Fatalf("got %q, %v; want %q", got, err, tc.want)
				}
				return
			}
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("err = %v, want %v", err, tc.wantErr)
			}
			if !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("err = %q, want it to contain %q", err, tc.msg)
			}
		})
	}
}
