package server

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// threads is the number of operating-system threads of this process.
func threads(t *testing.T) int {
	t.Helper()
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Skip("no /proc/self/status")
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "Threads:"); ok {
			n, _ := strconv.Atoi(strings.TrimSpace(v))
			return n
		}
	}
	t.Skip("no thread count")
	return 0
}

// Security round 2, findings 3 and 7: a step that replaces its stdout by a
// link to a file only root may read, and its stderr by a FIFO, makes the
// server neither serve the file (REST output endpoint, console tail, job
// log) nor block on the FIFO; many reads of the FIFO pin no threads.
func TestOutputFilesReplacedByTheStep(t *testing.T) {
	e := newEnv(t)
	secret := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(secret, []byte("root only data\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	id := e.submit("ann", "start", "oozie.wf.application.path",
		e.shellApp("swap", "rm -f stdout stderr; ln -s "+secret+" stdout; mkfifo stderr; exit 3"))
	e.waitStatus(id, "KILLED")
	get := func(path string) resp {
		done := make(chan resp, 1)
		go func() { done <- e.do("GET", path, "", "") }()
		select {
		case r := <-done:
			return r
		case <-time.After(10 * time.Second):
			t.Fatalf("GET %s still blocked after 10s", path)
			return resp{}
		}
	}
	for _, path := range []string{
		"/oozie/console/action/" + id + "@step/stdout",
		"/oozie/console/action/" + id + "@step/stderr",
		"/oozie/console/tail/" + id + "@step/stdout",
		"/oozie/console/tail/" + id + "@step/stderr",
		"/oozie/v2/job/" + id + "?show=log",
		"/oozie/console/job/" + id,
	} {
		if r := get(path); strings.Contains(string(r.body), "root only data") {
			t.Errorf("GET %s served root's file: %d %q", path, r.status, r.body)
		}
	}
	before := threads(t)
	var wg sync.WaitGroup
	for range 100 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			get("/oozie/console/action/" + id + "@step/stderr")
		}()
	}
	wg.Wait()
	if after := threads(t); after > before+20 {
		t.Errorf("threads grew from %d to %d over 100 reads of a FIFO", before, after)
	}
}
