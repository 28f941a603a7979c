package launch

import (
	"errors"
	"strings"
	"testing"

	"github.com/gozie/gozie/internal/action"
)

// TestFindToolMissingWords is issue 26 point 13: a tool missing from PATH
// is reported as such, not as missing from "the server's PATH", which
// under gozie run (no server) sends people looking for a server.
func TestFindToolMissingWords(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	_, err := Options{}.FindTool("no-such-tool-gozie", "gozie.nosuch.home")
	var xe *action.ExecError
	if !errors.As(err, &xe) || xe.Code != CodeToolMissing {
		t.Fatalf("error %v, want %s", err, CodeToolMissing)
	}
	if strings.Contains(xe.Msg, "server") {
		t.Errorf("message %q speaks of a server", xe.Msg)
	}
	want := "no-such-tool-gozie not found on PATH; install it or set gozie.nosuch.home to its home directory (the one holding bin/no-such-tool-gozie)"
	if xe.Msg != want {
		t.Errorf("message %q, want %q", xe.Msg, want)
	}
}
