package gcs_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/gozie/gozie/internal/fsys"
	"github.com/gozie/gozie/internal/testservers"
)

// A server that accepts connections and never answers is unavailable
// once fs.gs.http.read-timeout has passed; opening a store does no I/O.
func TestHungServer(t *testing.T) {
	srv := testservers.StartGCS(t)
	ctx := context.Background()
	ns := newNS(t, with(srv.Conf, "fs.gs.http.read-timeout", "300ms", "fs.gs.http.max.retry", "0"))
	p := "gs://" + srv.Bucket + "/f"
	if err := ns.WriteFile(ctx, p, []byte("x")); err != nil {
		t.Fatal(err)
	}
	if err := srv.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	defer srv.Process.Signal(syscall.SIGCONT)
	waitState(t, srv.Process.Pid, "T") // the signal is delivered asynchronously
	if _, err := newNS(t, srv.Conf).Resolve(ctx, "gs://"+srv.Bucket+"/f"); err != nil {
		t.Fatalf("Resolve (opening the store) = %v", err)
	}
	if _, err := ns.Stat(ctx, p); !errors.Is(err, fsys.ErrUnavailable) {
		t.Fatalf("Stat on a hung server = %v, want ErrUnavailable", err)
	}
	if err := srv.Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	if _, err := ns.Stat(ctx, p); err != nil {
		t.Fatalf("Stat once the server answers again = %v", err)
	}
}

// waitState waits (up to a minute) until process pid is in state (the
// third field of /proc/PID/stat: T is stopped).
func waitState(t *testing.T, pid int, state string) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			t.Fatal(err)
		}
		// pid (comm) state ...: comm may hold spaces, so look after ")".
		if f := bytes.Fields(b[bytes.LastIndexByte(b, ')')+1:]); len(f) > 0 && string(f[0]) == state {
			return
		}
		time.Sleep(5 * time.Millisecond) // polling for the state, not timing a result
	}
	t.Fatalf("process %d not in state %s within a minute", pid, state)
}
