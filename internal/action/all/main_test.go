package all

import (
	"testing"

	"github.com/gozie/gozie/internal/launch/launchtest"
)

// TestMain makes the test binary act as `gozie launch` when the
// executors under test start it as their launcher.
func TestMain(m *testing.M) { launchtest.Main(m) }
