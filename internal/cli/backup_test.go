package cli

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gozie/gozie/internal/action"
	"github.com/gozie/gozie/internal/conf"
	"github.com/gozie/gozie/internal/gozietest"
	"github.com/gozie/gozie/internal/purge"
	"github.com/gozie/gozie/internal/store"
	"github.com/gozie/gozie/internal/store/sqlite"
	"github.com/gozie/gozie/internal/vocab"
)

// slowAction runs for a while outside the server: its external id is the
// time it ends, so that whichever server checks it, the one that started
// it or one restored from a backup, sees the same run.
type slowAction struct{ d time.Duration }

func (s slowAction) Start(ctx context.Context, a *action.Context) (action.Result, error) {
	end := time.Now().Add(s.d).UnixMilli()
	return action.Result{ExternalID: strconv.FormatInt(end, 10), ExternalStatus: "RUNNING"}, nil
}

func (slowAction) Check(ctx context.Context, a *action.Context, id string) (action.Result, error) {
	end, err := strconv.ParseInt(id, 10, 64)
	if err != nil {
		return action.Result{}, err
	}
	if time.Now().UnixMilli() < end {
		return action.Result{ExternalID: id, ExternalStatus: "RUNNING"}, nil
	}
	return action.Result{ExternalID: id, ExternalStatus: "SUCCEEDED", Done: true, Status: action.OK}, nil
}

func (slowAction) Kill(ctx context.Context, a *action.Context, id string) error { return nil }

// TestBackupRestore: `gozie admin -backup FILE` copies the store of a
// server while its workflows run; the copy, put into a new data
// directory, is a store on which a server goes on and brings every job
// to SUCCEEDED.
func TestBackupRestore(t *testing.T) {
	ctx := context.Background()
	reg := action.NewRegistry()
	reg.Register("slow", slowAction{d: 300 * time.Millisecond})
	opts := gozietest.Options{Registry: reg, DefaultUser: "tester", PollInterval: 20 * time.Millisecond,
		Config: map[string]string{purge.KeyInterval: "-1"}}
	a := gozietest.NewServer(t, opts)

	app := filepath.Join(t.TempDir(), "app")
	var nodes strings.Builder
	for i := 1; i <= 4; i++ {
		next := fmt.Sprintf("a%d", i+1)
		if i == 4 {
			next = "end"
		}
		fmt.Fprintf(&nodes, `<action name="a%d"><s:slow/><ok to="%s"/><error to="fail"/></action>`, i, next)
	}
	wf := `<workflow-app xmlns="uri:oozie:workflow:1.0" xmlns:s="uri:gozie:slow:1.0" name="slow"><start to="a1"/>` +
		nodes.String() + `<kill name="fail"><message>failed</message></kill><end name="end"/></workflow-app>`
	if err := os.MkdirAll(app, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(app, "workflow.xml"), []byte(wf), 0o644); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for range 5 {
		c := conf.New()
		c.Set(vocab.PropAppPath, app)
		id, err := a.Engine.Run(ctx, c)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	// Back up once an action of each job is running.
	waitFor(t, func() bool {
		var running []*store.Action
		_ = a.Store.View(ctx, func(tx store.Tx) (err error) {
			running, err = tx.ActionsByStatus(ctx, store.ActionRunning)
			return err
		})
		return len(running) >= len(ids)
	})
	dest := filepath.Join(t.TempDir(), "gozie-backup.db")
	var out, errOut bytes.Buffer
	if code := Main([]string{"admin", "-backup", dest, "-data", a.DataDir}, &out, &errOut); code != exitOK {
		t.Fatalf("admin -backup: exit %d: %s%s", code, out.String(), errOut.String())
	}
	t.Logf("%s", strings.TrimSpace(out.String()))
	if fi, err := os.Stat(dest); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("backup file: %v %v, want mode 0600", fi, err)
	}
	// A second backup to the same file is refused: nothing is overwritten.
	if code := Main([]string{"admin", "-backup", dest, "-data", a.DataDir}, io.Discard, io.Discard); code == exitOK {
		t.Errorf("backup over an existing file succeeded")
	}

	// Restore: the copy is gozie.db of a new data directory.
	dir := t.TempDir()
	b, err := os.ReadFile(dest)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "gozie.db"), b, 0o600); err != nil {
		t.Fatal(err)
	}
	unfinished := 0
	s, err := sqlite.Open(ctx, filepath.Join(dir, "gozie.db"))
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range ids {
		_ = s.View(ctx, func(tx store.Tx) error {
			j, err := tx.Job(ctx, id)
			if err == nil && !store.Terminal(j.Status) {
				unfinished++
			}
			return err
		})
	}
	s.Close()
	if unfinished == 0 {
		t.Fatalf("the backup holds no running job: taken too late to show anything")
	}
	opts.DataDir = dir
	restored := gozietest.NewServer(t, opts)
	for _, id := range ids {
		wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		j, err := restored.Engine.Wait(wctx, id)
		cancel()
		if err != nil || j.Status != store.JobSucceeded {
			t.Errorf("job %s on the restored store: %v %v, want SUCCEEDED", id, j, err)
		}
	}
	t.Logf("%d of %d jobs were running in the backup; all succeeded on the restored store", unfinished, len(ids))
}

// TestBackupRefusals: a PostgreSQL store and a data directory without a
// store are refused with a clear message.
func TestBackupRefusals(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-db", "postgres://u@h/db"}, "pg_dump"},
		{[]string{"-data", t.TempDir()}, "no such file"},
		{nil, "needs the file"},
	} {
		var errOut bytes.Buffer
		args := append([]string{"admin"}, tc.args...)
		if tc.want != "needs the file" {
			args = append(args, "-backup", filepath.Join(t.TempDir(), "b.db"))
		} else {
			args = append(args, "-backup", "")
		}
		if code := Main(args, io.Discard, &errOut); code == exitOK || !strings.Contains(errOut.String(), tc.want) {
			t.Errorf("%v: exit %d, %q; want a failure naming %q", args, code, errOut.String(), tc.want)
		}
	}
}

// waitFor polls cond until it holds, failing the test after 20 seconds.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not reached in 20s")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestAdminPurgeServer: `gozie admin -purge` against a server deletes
// what the ages given select and prints Oozie's answer.
func TestAdminPurgeServer(t *testing.T) {
	ctx := context.Background()
	srv := gozietest.NewServer(t, gozietest.Options{Config: map[string]string{purge.KeyInterval: "-1", "gozie.authorization.enabled": "false"}})
	end := time.Now().Add(-2 * 24 * time.Hour)
	const id = "0000001-260101000000000-oozie-test-W"
	err := srv.Store.Update(ctx, func(tx store.Tx) error {
		return tx.PutJob(ctx, &store.Job{ID: id, Status: store.JobKilled, EndTime: end, LastModTime: end})
	})
	if err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	if code := Main([]string{"admin", "-purge", "wf=1;coord=1;bundle=1;limit=5", "-oozie", srv.URL}, &out, &errOut); code != exitOK ||
		out.String() != "Purge command executed successfully\n" {
		t.Fatalf("admin -purge: exit %d, %q %q", code, out.String(), errOut.String())
	}
	waitFor(t, func() bool {
		var err error
		_ = srv.Store.View(ctx, func(tx store.Tx) error { _, err = tx.Job(ctx, id); return nil })
		return err != nil
	})
}
