package cli

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestDryrunNotCheckedYet: the input check stops at the first missing
// dependency, as Oozie's does, so the text dry run calls the first one
// missing and the ones after it "not checked yet" (hour 01 of action 2
// exists) (issue 13, point 20).
func TestDryrunNotCheckedYet(t *testing.T) {
	code, out, errOut := run(t, exampleArgs(t, "-len", "3")...)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	data := filepath.ToSlash(filepath.Dir(exampleProps(t))) + "/data/2026/01/01/"
	tests := []struct {
		action string
		want   []string
		absent []string
	}{
		{"Action 1", nil, []string{"missing:", "not checked yet:"}},
		{"Action 2", []string{"  missing: " + data + "02/_SUCCESS\n", "  not checked yet: " + data + "01/_SUCCESS\n"},
			[]string{"missing: " + data + "01/_SUCCESS"}},
		{"Action 3", []string{"  missing: " + data + "03/_SUCCESS\n", "  not checked yet: " + data + "02/_SUCCESS\n"},
			[]string{"missing: " + data + "02/_SUCCESS"}},
	}
	for _, tt := range tests {
		t.Run(tt.action, func(t *testing.T) {
			i := strings.Index(out, tt.action+"  ")
			if i < 0 {
				t.Fatalf("no %s in:\n%s", tt.action, out)
			}
			block := out[i:]
			if j := strings.Index(block[1:], "\nAction "); j >= 0 {
				block = block[:j+1]
			}
			for _, w := range tt.want {
				if !strings.Contains(block, w) {
					t.Errorf("%s lacks %q:\n%s", tt.action, w, block)
				}
			}
			for _, a := range tt.absent {
				if strings.Contains(block, a) {
					t.Errorf("%s has %q:\n%s", tt.action, a, block)
				}
			}
		})
	}
}
