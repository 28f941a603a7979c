package coordengine

import (
	"context"
	"net/http"
	"net/url"
	"path/filepath"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gozie/gozie/internal/engine"
	"github.com/gozie/gozie/internal/engine/enginetest"
	"github.com/gozie/gozie/internal/store"
)

func TestCoordActionNotifications(t *testing.T) {
	for name, f := range map[string]harnessFactory{"sqlite": newCoordHarness, "postgres": newPostgresCoordHarness} {
		t.Run(name, func(t *testing.T) { testCoordActionNotifications(t, f) })
	}
}

func testCoordActionNotifications(t *testing.T, newHarness harnessFactory) {
	h := newHarness(t, weekStart.Add(-time.Hour), Options{InputCheckInterval: 15 * time.Minute})
	r := newRecorder(t, nil)
	props := h.coordProps(fsWorkflow, "start", "2026-03-02T00:00Z", "end", "2026-03-02T02:00Z",
		PropCoordActionNotificationURL, r.URL+"/coord?action=$actionId&status=$status",
		"wfNotify", r.URL+"/wf?id=$jobId&status=$status&parent=$parentId")
	// The launched workflows ask for job notifications through the
	// action's configuration, so $parentId is the coordinator action.
	withWf := strings.Replace(hourlyCoord, "<configuration>",
		"<configuration><property><name>"+engine.PropWorkflowNotificationURL+"</name><value>${wfNotify}</value></property>", 1)
	writeFiles(t, filepath.Join(h.dir, "apps"), map[string]string{"coord/coordinator.xml": withWf})
	id, err := h.e.Run(context.Background(), props)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	h.settle()
	h.publish(weekStart)
	h.publish(weekStart.Add(time.Hour))
	h.advance(4*time.Hour, 15*time.Minute, nil)

	acts := h.actions(id)
	if len(acts) != 2 {
		t.Fatalf("%d actions, want 2", len(acts))
	}
	coordSeen := map[string][]string{} // action id -> statuses, in order
	wfSeen := map[string][]string{}    // parent id -> workflow statuses
	wfOfParent := map[string]string{}
	for _, u := range r.Delivered() {
		p, err := url.Parse(u)
		if err != nil {
			t.Fatal(err)
		}
		q := p.Query()
		switch p.Path {
		case "/coord":
			coordSeen[q.Get("action")] = append(coordSeen[q.Get("action")], q.Get("status"))
		case "/wf":
			wfSeen[q.Get("parent")] = append(wfSeen[q.Get("parent")], q.Get("status"))
			wfOfParent[q.Get("parent")] = q.Get("id")
		default:
			t.Errorf("unexpected notification %s", u)
		}
	}
	for _, a := range acts {
		if a.Status != store.CoordActionSucceeded {
			t.Errorf("action %s is %s", a.ID, a.Status)
		}
		// Every change after the creation in WAITING, as the job log has it.
		hist := h.histories(id)[a.Number]
		if want := []string{"READY", "SUBMITTED", "RUNNING", "SUCCEEDED"}; !reflect.DeepEqual(hist[1:], want) || !reflect.DeepEqual(coordSeen[a.ID], want) {
			t.Errorf("action %s: notified %q, history %q, want %q", a.ID, coordSeen[a.ID], hist, want)
		}
		if want := []string{"RUNNING", "SUCCEEDED"}; !reflect.DeepEqual(wfSeen[a.ID], want) {
			t.Errorf("workflow of %s: notified %q, want %q", a.ID, wfSeen[a.ID], want)
		}
		if wfOfParent[a.ID] != a.ExternalID {
			t.Errorf("workflow notification of %s names job %q, want %q", a.ID, wfOfParent[a.ID], a.ExternalID)
		}
	}
	if n := len(pendingNotifications(t, h.store)); n != 0 {
		t.Errorf("%d notifications still pending", n)
	}
	if !logHasCoord(t, h, id, "/coord?action="+acts[0].ID+"&status=SUCCEEDED] delivered") {
		t.Errorf("no delivery line in the coordinator job's log")
	}
}

func TestCoordNotificationKillAndRestart(t *testing.T) {
	if testing.Short() {
		t.Skip("slow end-to-end test: runs without -short, e.g. in .ci/run")
	}
	for name, f := range map[string]harnessFactory{"sqlite": newCoordHarness, "postgres": newPostgresCoordHarness} {
		t.Run(name, func(t *testing.T) { testCoordNotificationKillAndRestart(t, f) })
	}
}

func testCoordNotificationKillAndRestart(t *testing.T, newHarness harnessFactory) {
	// Killing the job kills its actions: each is notified KILLED. The
	// listener is down then, and the server restarts while the retry
	// waits: the new engine delivers each notification once, in order.
	h := newHarness(t, weekStart.Add(-time.Hour), Options{InputCheckInterval: 15 * time.Minute})
	var down atomic.Bool
	r := newRecorder(t, func(uri string, n int) int {
		if down.Load() {
			return http.StatusServiceUnavailable
		}
		return http.StatusOK
	})
	props := h.coordProps(holdWorkflow, "start", "2026-03-02T00:00Z", "end", "2026-03-02T02:00Z",
		PropCoordActionNotificationURL, r.URL+"/c/$actionId/$status")
	id, err := h.e.Run(context.Background(), props)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	h.publish(weekStart)
	h.advance(2*time.Hour, 15*time.Minute, nil)
	down.Store(true)
	if err := h.e.Kill(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	h.settle()
	if p := pendingNotifications(t, h.store); len(p) != 2 || p[0].Attempt != 1 || !p[0].NotBefore.After(h.clock.Now()) {
		t.Fatalf("after the failure: %d pending, want 2 with the first retried later", len(p))
	}
	h.restart()
	down.Store(false)
	h.advance(2*time.Minute, time.Minute, nil)
	a1, a2 := CoordActionID(id, 1), CoordActionID(id, 2)
	want := []string{a1 + "/READY", a1 + "/SUBMITTED", a1 + "/RUNNING", a1 + "/KILLED", a2 + "/KILLED"}
	var got []string
	for _, u := range r.Delivered() {
		got = append(got, strings.TrimPrefix(u, "/c/"))
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("delivered %q, want %q", got, want)
	}
	if n := len(pendingNotifications(t, h.store)); n != 0 {
		t.Errorf("%d notifications still pending", n)
	}
}

func TestCoordNoNotificationURL(t *testing.T) {
	h := newCoordHarness(t, weekStart.Add(-time.Hour), Options{InputCheckInterval: 15 * time.Minute})
	cs := &countingStore{Store: h.store, Kind: engine.EffectHTTPNotify}
	h.store = cs
	h.e.Close()
	h.startEngine()
	props := h.coordProps(fsWorkflow, "start", "2026-03-02T00:00Z", "end", "2026-03-02T01:00Z")
	id, err := h.e.Run(context.Background(), props)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	h.publish(weekStart)
	h.advance(2*time.Hour, 15*time.Minute, nil)
	if c := h.countByStatus(id); c[store.CoordActionSucceeded] != 1 {
		t.Fatalf("actions %v", c)
	}
	if n := cs.Added(); n != 0 {
		t.Errorf("%d notification effects written without a URL", n)
	}
}

func logHasCoord(t *testing.T, h *coordHarness, jobID, s string) bool {
	t.Helper()
	var logs []*store.LogEntry
	err := h.store.View(context.Background(), func(tx store.Tx) (err error) {
		logs, err = tx.Logs(context.Background(), jobID, 0, 0)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range logs {
		if strings.Contains(l.Message, s) {
			return true
		}
	}
	return false
}

// countingStore counts the notification effects written, done or not.
type countingStore = enginetest.CountingStore

// pendingNotifications lists the notification effects not yet done.
func pendingNotifications(t *testing.T, s store.Store) []*store.Effect {
	return enginetest.Pending(t, s, engine.EffectHTTPNotify)
}
