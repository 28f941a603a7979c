package coordengine

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/gozie/gozie/internal/engine"
	"github.com/gozie/gozie/internal/osuser/osusertest"
	"github.com/gozie/gozie/internal/store"
	"github.com/gozie/gozie/internal/store/sqlite"
)

// Security round 2, finding 3: with RunAsUser, a coordinator's files are
// read, and its input done-flags probed, with the coordinator user's
// rights: a done-flag in a directory only root may enter is not seen
// (the action waits) until the user may see it.
func TestCoordRunAsChecksInputsAsItsUser(t *testing.T) {
	u := osusertest.User(t)
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	h := &coordHarness{t: t, dir: osusertest.OpenDir(t), clock: newFakeClock(), hold: newHoldExec(),
		opts: Options{InputCheckInterval: time.Minute}, engineOpts: func(o *engine.Options) { o.RunAsUser = true }}
	h.clock.Set(start.Add(30 * time.Minute))
	st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "gozie.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	h.store = st
	h.startEngine()
	t.Cleanup(func() { h.e.Close() })

	props := h.coordProps(holdWorkflow, "start", "2026-01-01T00:00Z", "end", "2026-01-01T01:00Z", engine.PropUser, u.Name)
	data := filepath.Join(h.dir, "data")
	h.publish(start)
	if err := os.Chmod(data, 0o700); err != nil {
		t.Fatal(err)
	}
	id, err := h.e.Run(context.Background(), props)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	h.advance(3*time.Minute, time.Minute, nil)
	if n := h.countByStatus(id)[store.CoordActionWaiting]; n != 1 {
		t.Fatalf("actions %v: want the one action WAITING while its user cannot see the done-flag", h.countByStatus(id))
	}
	if err := os.Chmod(data, 0o755); err != nil {
		t.Fatal(err)
	}
	h.advance(3*time.Minute, time.Minute, nil)
	if n := h.countByStatus(id)[store.CoordActionWaiting]; n != 0 {
		t.Fatalf("actions %v: want the action past WAITING once its user can see the done-flag", h.countByStatus(id))
	}
}
