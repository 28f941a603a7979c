package action

import (
	"os"
	"testing"
)

// launcherEnv makes the test binary act as `gozie launch`, so that the
// shell executor can be tested without building gozie.
const launcherEnv = "GOZIE_TEST_LAUNCHER"

func TestMain(m *testing.M) {
	if os.Getenv(launcherEnv) == "1" {
		os.Exit(RunLauncher(os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Setenv(launcherEnv, "1")
	os.Exit(m.Run())
}

// testLauncher is the launcher command of the tests: this very binary.
func testLauncher(t testing.TB) ShellOptions {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return ShellOptions{Launcher: []string{self}}
}
