package action

import (
	"errors"
	"os"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// launcherEnv makes the test binary act as `gozie launch`, so that the
// shell executor can be tested without building gozie.
const launcherEnv = "GOZIE_TEST_LAUNCHER"

// Fault injection into the launcher process (a child of the tests, so
// package variables cannot be set from the test itself).
const (
	// noSpaceFlagEnv names a file: while it exists, the launcher's
	// status writes fail with ENOSPC, as on a full disk.
	noSpaceFlagEnv = "GOZIE_TEST_LAUNCHER_NOSPACE_FLAG"
	// retryMSEnv sets the launcher's wait between status attempts.
	retryMSEnv = "GOZIE_TEST_LAUNCHER_RETRY_MS"
)

func TestMain(m *testing.M) {
	if os.Getenv(launcherEnv) == "1" {
		if ms, err := strconv.Atoi(os.Getenv(retryMSEnv)); err == nil {
			statusRetryWait = func(int) time.Duration { return time.Duration(ms) * time.Millisecond }
		}
		if flag := os.Getenv(noSpaceFlagEnv); flag != "" {
			real := writeStatus
			writeStatus = func(dir string, data []byte) error {
				if _, err := os.Stat(flag); err == nil {
					return &os.PathError{Op: "write", Path: dir + "/" + StatusFile, Err: syscall.ENOSPC}
				} else if !errors.Is(err, os.ErrNotExist) {
					return err
				}
				return real(dir, data)
			}
		}
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
