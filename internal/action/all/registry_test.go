package all

import (
	"strings"
	"testing"

	"github.com/gozie/gozie/internal/action"
	"github.com/gozie/gozie/internal/launch"
)

func TestRegisterBuiltins(t *testing.T) {
	r := action.NewRegistry()
	launch.RegisterBuiltins(r, launch.Options{})
	// Each action type registers itself; the registry gets every one.
	got, want := strings.Join(r.Types(), ","), strings.Join(launch.BuiltinTypes(), ",")
	if got != want || !strings.Contains(","+got+",", ",fs,") || !strings.Contains(","+got+",", ",shell,") {
		t.Errorf("types = %s, want %s (with fs and shell)", got, want)
	}
}
