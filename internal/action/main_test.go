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
// shell executor can be tested without building gozie. Built-in tools run
// as steps, which never get GOZIE_* variables (stepEnv): hence the name.
const launcherEnv = "GZTEST_LAUNCHER"

// Fault injection into the launcher process (a child of the tests, so
// package variables cannot be set from the test itself).
const (
	// noSpaceFlagEnv names a file: while it exists, the launcher's
	// status writes fail with ENOSPC, as on a full disk.
	noSpaceFlagEnv = "GOZIE_TEST_LAUNCHER_NOSPACE_FLAG"
	// retryMSEnv sets the launcher's wait between status attempts.
	retryMSEnv = "GOZIE_TEST_LAUNCHER_RETRY_MS"
	// protocolEnv makes a supervisor speak another protocol version.
	protocolEnv = "GOZIE_TEST_SUPERVISOR_PROTOCOL"
	// idleMSEnv sets how long a supervisor stays idle before it exits.
	idleMSEnv = "GOZIE_TEST_SUPERVISOR_IDLE_MS"
	// buildEnv makes a supervisor take itself for another build.
	buildEnv = "GOZIE_TEST_SUPERVISOR_BUILD"
)

func TestMain(m *testing.M) {
	if os.Getenv(launcherEnv) == "1" {
		if ms, err := strconv.Atoi(os.Getenv(retryMSEnv)); err == nil {
			statusRetryWait = func(int) time.Duration { return time.Duration(ms) * time.Millisecond }
		}
		if v, err := strconv.Atoi(os.Getenv(protocolEnv)); err == nil {
			supervisorProtocol = v
		}
		if b := os.Getenv(buildEnv); b != "" {
			buildOf = func(string) string { return b }
		}
		if ms, err := strconv.Atoi(os.Getenv(idleMSEnv)); err == nil {
			supervisorIdle = time.Duration(ms) * time.Millisecond
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
func testLauncher(t testing.TB) Options {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return Options{Launcher: []string{self}}
}

// launchModes are the two ways the shell executor starts programs; tests
// of behaviour both must have run over this table.
var launchModes = []struct {
	name string
	opts func(t testing.TB) Options
}{
	{"launcher", testLauncher},
	{"supervisor", testSupervised},
}

// testSupervised is testLauncher with a launch supervisor in a directory
// of its own, stopped when the test ends.
func testSupervised(t testing.TB) Options {
	opts := testLauncher(t)
	opts.SupervisorDir = supervisorTestDir(t)
	return opts
}

// supervisorTestDir is a short temporary directory (a unix socket path
// has at most 107 bytes) whose supervisor, if any, is stopped and waited
// for when the test ends.
func supervisorTestDir(t testing.TB) string {
	dir, err := os.MkdirTemp("", "gozie-sup")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := StopSupervisor(dir, deadline); err != nil {
			t.Errorf("stopping the supervisor: %v", err)
		}
		os.RemoveAll(dir)
	})
	return dir
}
