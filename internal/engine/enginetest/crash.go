package enginetest

import (
	"os/exec"
	"testing"
	"time"
)

// KillMidRun starts a helper process once per count in atLines and
// SIGKILLs it as soon as the log holds that many lines.
func KillMidRun(t testing.TB, helper func() *exec.Cmd, logPath string, atLines ...int) {
	t.Helper()
	for _, n := range atLines {
		cmd := helper()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(30 * time.Second)
		for {
			lines, _ := ReadLines(logPath)
			if len(lines) >= n {
				break
			}
			if time.Now().After(deadline) {
				cmd.Process.Kill()
				t.Fatalf("run did not reach %d steps", n)
			}
			time.Sleep(time.Millisecond) // polling the log
		}
		if err := cmd.Process.Kill(); err != nil { // SIGKILL
			t.Fatal(err)
		}
		_ = cmd.Wait()
	}
}
