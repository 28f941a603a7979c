package shell

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gozie/gozie/internal/action"
	"github.com/gozie/gozie/internal/launch"
)

// TestCheckWorkDirElsewhere: a RUNNING step whose work directory is not on
// this host (it ran on a server that is gone, and this one took its job
// over) is never reported OK: JA017, naming the directory, so retry-max
// runs it again here.
func TestCheckWorkDirElsewhere(t *testing.T) {
	x := NewShell(launch.Options{})
	dir := filepath.Join(t.TempDir(), "other-host", "actions", "0000001-W@s1", "0")
	res, err := x.Check(context.Background(), &action.Context{Name: "s1", Type: "shell", WorkDir: dir}, dir)
	if err != nil {
		t.Fatalf("Check: %v", err)
	}
	if !res.Done || res.Status != action.Error || res.ErrorCode != launch.CodeLauncherGone ||
		!strings.Contains(res.ErrorMessage, dir) || !strings.Contains(res.ErrorMessage, "not on this host") {
		t.Errorf("Check of a work directory elsewhere = %+v", res)
	}
}
