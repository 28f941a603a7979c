// Package testservers starts the real store servers the file-system
// backends are tested against (an S3 server, the GCS emulator, Azurite)
// as child processes of a test, each on a free loopback port with its
// data in the test's temporary directory. The programs are installed by
// .ci/tools.sh and found on PATH.
//
// Where a program is missing, the test is skipped with a message saying
// how to install it, except under CI (CI=true), where it fails: the
// suites must run there.
package testservers

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// Need returns the path of program on PATH, skipping (or, in CI, failing)
// t when it is not there.
func Need(t testing.TB, program string) string {
	t.Helper()
	if p, err := exec.LookPath(program); err == nil {
		return p
	}
	for _, dir := range toolDirs() {
		p := filepath.Join(dir, program)
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
			return p
		}
	}
	msg := fmt.Sprintf("%s is neither on PATH nor in %v: run `bash .ci/tools.sh` (it installs the test store servers into ~/.cache/gozie-tools/bin)", program, toolDirs())
	if os.Getenv("CI") != "" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}

// toolDirs are where .ci/tools.sh installs the servers: $GOZIE_TOOLS/bin,
// else ~/.cache/gozie-tools/bin.
func toolDirs() []string {
	var out []string
	if d := os.Getenv("GOZIE_TOOLS"); d != "" {
		out = append(out, filepath.Join(d, "bin"))
	}
	if home, err := os.UserHomeDir(); err == nil {
		out = append(out, filepath.Join(home, ".cache", "gozie-tools", "bin"))
	}
	return out
}

// FreePort returns a loopback TCP port nothing listens on now.
func FreePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// Start runs cmd until the test ends, waiting (up to a minute) until
// addr accepts connections. Its output goes to the test log on failure.
func Start(t testing.TB, cmd *exec.Cmd, addr string) {
	t.Helper()
	log, err := os.CreateTemp(t.TempDir(), "server-*.log")
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", cmd.Path, err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-done
		if t.Failed() {
			if b, err := os.ReadFile(log.Name()); err == nil {
				t.Logf("%s output:\n%s", cmd.Path, b)
			}
		}
	})
	deadline := time.Now().Add(time.Minute)
	for {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
			return
		}
		select {
		case err := <-done:
			b, _ := os.ReadFile(log.Name())
			t.Fatalf("%s exited before listening on %s: %v\n%s", cmd.Path, addr, err, b)
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s did not listen on %s within a minute", cmd.Path, addr)
		}
	}
}
