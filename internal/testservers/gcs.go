package testservers

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"testing"
	"time"

	"github.com/gozie/gozie/internal/fsys"
)

// GCS is a running fake-gcs-server, the Google Cloud Storage emulator,
// with one bucket made.
type GCS struct {
	// Endpoint is the emulator's root URL (http://127.0.0.1:PORT/), what
	// fs.gs.storage.root.url takes.
	Endpoint string
	// Bucket exists and is empty at start.
	Bucket string
	// Conf configures the gs backend for the emulator: the root URL and
	// no authentication. Use gs://<Bucket>/... paths with it.
	Conf fsys.MapConfig
	// Stop kills the emulator and returns once its port refuses
	// connections, for tests of an unavailable store.
	Stop func()
	// Process is the emulator's process, for tests that pause it
	// (SIGSTOP) to see a store that accepts connections and never answers.
	Process *os.Process
}

// StartGCS starts fake-gcs-server (in-memory backend) on a free loopback
// port for the rest of the test and makes a bucket in it.
func StartGCS(t testing.TB) *GCS {
	t.Helper()
	bin := Need(t, "fake-gcs-server")
	port := FreePort(t)
	addr := "127.0.0.1:" + strconv.Itoa(port)
	endpoint := "http://" + addr + "/"
	// -external-url: the address resumable uploads are told to continue
	// at. The public host is left alone: the backend reads through the
	// JSON API, which the emulator serves on any host name.
	cmd := exec.Command(bin, "-scheme", "http", "-host", "127.0.0.1", "-port", strconv.Itoa(port),
		"-backend", "memory", "-external-url", "http://"+addr, "-log-level", "warn")
	Start(t, cmd, addr)
	g := &GCS{
		Process:  cmd.Process,
		Endpoint: endpoint,
		Bucket:   "gozie-test",
		Conf: fsys.MapConfig{
			"fs.gs.storage.root.url": endpoint,
			"fs.gs.auth.type":        "UNAUTHENTICATED",
			"fs.gs.project.id":       "gozie-test",
		},
	}
	g.Stop = func() {
		cmd.Process.Kill()
		deadline := time.Now().Add(time.Minute)
		for time.Now().Before(deadline) {
			c, err := net.DialTimeout("tcp", addr, time.Second)
			if err != nil {
				return
			}
			c.Close()
			time.Sleep(10 * time.Millisecond) // polling for the exit, not timing a result
		}
		t.Fatalf("fake-gcs-server still listens on %s a minute after being killed", addr)
	}
	g.CreateBucket(t, g.Bucket)
	return g
}

// CreateBucket makes another bucket in the emulator.
func (g *GCS) CreateBucket(t testing.TB, name string) {
	t.Helper()
	body := fmt.Sprintf(`{"name":%q}`, name)
	resp, err := http.Post(g.Endpoint+"storage/v1/b?project=gozie-test", "application/json", bytes.NewBufferString(body))
	if err != nil {
		t.Fatalf("creating bucket %s: %v", name, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("creating bucket %s: %s: %s", name, resp.Status, b)
	}
}
