package launch

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// TestTruncateOnlyWhatHoldsSomething checks the two ways the launcher's
// files are (re)made: a file is emptied only when it holds something
// (truncating an empty one costs a write-back at its close on ext4), and
// a reserve is left with exactly its size in zeros whatever was there.
func TestTruncateOnlyWhatHoldsSomething(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name   string
		before []byte // nil: no file
	}{
		{name: "absent"},
		{name: "empty", before: []byte{}},
		{name: "holds output", before: []byte("a line of an earlier attempt\n")},
	}
	for _, tt := range tests {
		t.Run("OpenOwn/"+tt.name, func(t *testing.T) {
			p := filepath.Join(dir, "out-"+tt.name)
			if tt.before != nil {
				if err := os.WriteFile(p, tt.before, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			f, err := OpenOwn(p, os.O_RDWR|os.O_CREATE, true)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if fi, err := f.Stat(); err != nil || fi.Size() != 0 {
				t.Fatalf("size after OpenOwn with trunc: %v %v, want 0", fi.Size(), err)
			}
		})
		for _, n := range []int{pidReserveSize, statusReserveSize(0)} {
			t.Run(fmt.Sprintf("writeZeros/%d/%s", n, tt.name), func(t *testing.T) {
				p := filepath.Join(dir, fmt.Sprintf("reserve-%d-%s", n, tt.name))
				if tt.before != nil {
					// Whatever was there, and longer than the reserve
					// when it holds something: none of it may stay.
					if err := os.WriteFile(p, bytes.Repeat(tt.before, n), 0o600); err != nil {
						t.Fatal(err)
					}
				}
				if err := writeZeros(p, n); err != nil {
					t.Fatal(err)
				}
				got, err := os.ReadFile(p)
				if err != nil {
					t.Fatal(err)
				}
				if len(got) != n || !bytes.Equal(got, make([]byte, n)) {
					t.Fatalf("reserve of %d bytes: got %d bytes, zeros %v", n, len(got), bytes.Count(got, []byte{0}) == len(got))
				}
			})
		}
	}
}
