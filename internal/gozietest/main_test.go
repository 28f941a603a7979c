package gozietest_test

import (
	"testing"

	"github.com/gozie/gozie/internal/launch/launchtest"
)

// TestMain makes the test binary act as `gozie launch` (and its tools:
// streaming, distcp) when the servers under test start it.
func TestMain(m *testing.M) { launchtest.Main(m) }
