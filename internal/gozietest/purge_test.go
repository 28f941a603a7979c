package gozietest_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/gozie/gozie/internal/gozietest"
	"github.com/gozie/gozie/internal/purge"
	"github.com/gozie/gozie/internal/store"
)

// TestAdminPurge: PUT /v2/admin/purge (gozie admin -purge) starts a purge
// with the request's ages and answers at once as Oozie does; the
// periodic purge is off (interval -1) so only the request deletes.
func TestAdminPurge(t *testing.T) {
	srv := gozietest.NewServer(t, gozietest.Options{Config: map[string]string{purge.KeyInterval: "-1", "gozie.authorization.enabled": "false"}})
	ctx := context.Background()
	end := time.Now().Add(-3 * 24 * time.Hour)
	err := srv.Store.Update(ctx, func(tx store.Tx) error {
		return tx.PutJob(ctx, &store.Job{ID: "0000001-260101000000000-oozie-test-W", Status: store.JobSucceeded, EndTime: end, LastModTime: end})
	})
	if err != nil {
		t.Fatal(err)
	}
	call := func(method, query string) (int, map[string]string) {
		t.Helper()
		req, _ := http.NewRequest(method, srv.URL+"/v2/admin/purge?user.name=admin&"+query, nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		var v map[string]string
		_ = json.Unmarshal(body, &v)
		if v == nil {
			v = map[string]string{"body": string(body), "code": resp.Header.Get("oozie-error-code")}
		}
		return resp.StatusCode, v
	}
	if code, v := call(http.MethodPut, "wf=x"); code != http.StatusBadRequest {
		t.Fatalf("wf=x: %d %v, want 400", code, v)
	}
	// Older than 30 days (the default): the job stays.
	if code, v := call(http.MethodPut, ""); code != http.StatusOK || v["purge"] != "Purge command executed successfully" {
		t.Fatalf("purge: %d %v", code, v)
	}
	code, v := call(http.MethodPut, "wf=2&coord=1&bundle=1&limit=10&oldcoordaction=false")
	if code != http.StatusOK || v["purge"] != "Purge command executed successfully" {
		t.Fatalf("purge wf=2: %d %v", code, v)
	}
	// The purge runs in the background: wait for it.
	deadline := time.Now().Add(20 * time.Second)
	for {
		var err error
		_ = srv.Store.View(ctx, func(tx store.Tx) error { _, err = tx.Job(ctx, "0000001-260101000000000-oozie-test-W"); return nil })
		if errors.Is(err, store.ErrNotFound) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the job ended 3 days ago is still there after purge wf=2: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
