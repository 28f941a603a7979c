package cli

import (
	"bytes"
	"testing"
)

// TestVersionFromLink: a version set at link time (-X ...cli.version=) is
// what `gozie version` prints; without one, a test binary is "devel".
func TestVersionFromLink(t *testing.T) {
	saved := version
	t.Cleanup(func() { version = saved })
	for _, c := range []struct{ linked, want string }{
		{"", "gozie devel\n"},
		{"1.4.0", "gozie 1.4.0\n"},
	} {
		version = c.linked
		var out, errb bytes.Buffer
		if code := runVersion(nil, &out, &errb); code != exitOK || out.String() != c.want {
			t.Errorf("linked %q: exit %d, output %q, want %q", c.linked, code, out.String(), c.want)
		}
	}
}
