package cli

import (
	"bytes"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestLocalFilesNotRegular: the offline commands read their files through
// the bounded reader, so /dev/zero and a FIFO are refused at once, naming
// the path, instead of filling memory or blocking.
func TestLocalFilesNotRegular(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "pipe.xml")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		args     []string
		mentions string
	}{
		{"validate /dev/zero", []string{"validate", "/dev/zero"}, "[/dev/zero] is a device"},
		{"validate FIFO", []string{"validate", fifo}, "named pipe"},
		{"dryrun -config FIFO", []string{"dryrun", "-config", fifo}, "named pipe"},
		{"run -config /dev/zero", []string{"run", "-config", "/dev/zero"}, "[/dev/zero] is a device"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			start := time.Now()
			if code := Main(tc.args, &stdout, &stderr); code == 0 {
				t.Fatalf("exit 0; stdout %s", stdout.String())
			}
			if out := stdout.String() + stderr.String(); !strings.Contains(out, tc.mentions) {
				t.Errorf("output %q does not mention %q", out, tc.mentions)
			}
			if d := time.Since(start); d > 5*time.Second { // safety bound only
				t.Errorf("took %v", d)
			}
		})
	}
}
