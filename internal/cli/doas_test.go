package cli

import (
	"bytes"
	"strings"
	"testing"
)

// TestDoAsRefusedByServer is issue 26 point 11 and issue 30: `-doas USER`
// from a user who is no proxy user is refused in words (exit 255), not
// silently run as the caller.
func TestDoAsRefusedByServer(t *testing.T) {
	pinEnv(t)
	url := startServer(t)
	for _, args := range [][]string{
		{"jobs", "-oozie", url, "-doas", "bob"},
		{"job", "-oozie", url, "-info", "0000001-260101000000000-oozie-root-W", "-doas", "bob"},
		{"admin", "-oozie", url, "-status", "-doas", "bob"},
	} {
		t.Run(args[0], func(t *testing.T) {
			var out, errOut bytes.Buffer
			code := Main(args, &out, &errOut)
			if code != exitRemote {
				t.Errorf("exit %d, want %d; stdout %q", code, exitRemote, out.String())
			}
			for _, want := range []string{"Error: E1400 : ", "not defined as proxyuser"} {
				if !strings.Contains(errOut.String(), want) {
					t.Errorf("stderr lacks %q:\n%s", want, errOut.String())
				}
			}
		})
	}
}
