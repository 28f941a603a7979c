package server

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gozie/gozie/internal/store"
	"github.com/gozie/gozie/internal/store/sqlite"
)

// BenchmarkSubmit measures POST /jobs (submit to PREP) over HTTP: request
// parsing, authentication, loading the application and one transaction.
func BenchmarkSubmit(b *testing.B) {
	e := newEnv(b)
	body := confXML("oozie.wf.application.path", e.app("bench"))
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			req, _ := http.NewRequest("POST", e.ts.URL+"/oozie/v2/jobs?user.name=joe", strings.NewReader(body))
			req.Header.Set("Content-Type", "application/xml")
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				b.Fatal(err)
			}
			io.Copy(io.Discard, res.Body)
			res.Body.Close()
			if res.StatusCode != 201 {
				b.Fatalf("status %d", res.StatusCode)
			}
		}
	})
}

// BenchmarkJobInfo measures GET /job/<id> of a finished fork/join job
// with a secret in its configuration, read by its owner (shown whole) and
// by an anonymous reader (masked).
func BenchmarkJobInfo(b *testing.B) {
	e := newEnv(b)
	id := e.submit("joe", "start", "oozie.wf.application.path", e.app("info"), "db.password", "hunter2-db")
	e.waitStatus(id, "SUCCEEDED")
	for _, r := range []struct{ name, query string }{{"owner", "?user.name=joe"}, {"masked", ""}} {
		b.Run(r.name, func(b *testing.B) {
			for b.Loop() {
				res, err := http.Get(e.ts.URL + "/oozie/v2/job/" + id + r.query)
				if err != nil {
					b.Fatal(err)
				}
				io.Copy(io.Discard, res.Body)
				res.Body.Close()
			}
		})
	}
}

// BenchmarkJobsList measures GET /jobs?len=50 over 10,000 stored workflow
// jobs, pages spread over the list, through the handler (no network).
func BenchmarkJobsList(b *testing.B) {
	dir := b.TempDir()
	st, err := sqlite.Open(context.Background(), filepath.Join(dir, "gozie.db"))
	if err != nil {
		b.Fatal(err)
	}
	const jobs = 10000
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	err = st.Update(context.Background(), func(tx store.Tx) error {
		for i := range jobs {
			t := base.Add(time.Duration(i) * time.Second)
			j := &store.Job{ID: fmt.Sprintf("%07d-260101000000000-oozie-bench-W", i), AppName: "bench",
				AppPath: "file:///apps/bench", User: "joe", Group: "users", Status: store.JobSucceeded,
				Conf:        "<configuration>" + strings.Repeat("<property><name>k</name><value>v</value></property>", 40) + "</configuration>",
				CreatedTime: t, StartTime: t, EndTime: t.Add(time.Minute), LastModTime: t.Add(time.Minute)}
			if err := tx.PutJob(context.Background(), j); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	e := newEnvOn(b, dir, st)
	h := e.srv.Handler()
	i := 0
	b.ResetTimer()
	for b.Loop() {
		i++
		req := localRequest("GET", fmt.Sprintf("/oozie/v2/jobs?len=50&offset=%d", 1+(i*50)%jobs))
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if w.Code != 200 {
			b.Fatalf("status %d: %s", w.Code, w.Body)
		}
	}
}
