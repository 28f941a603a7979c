package server

import (
	"io"
	"net/http"
	"strings"
	"testing"
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

// BenchmarkJobInfo measures GET /job/<id> of a finished fork/join job.
func BenchmarkJobInfo(b *testing.B) {
	e := newEnv(b)
	id := e.submit("joe", "start", "oozie.wf.application.path", e.app("info"))
	e.waitStatus(id, "SUCCEEDED")
	b.ResetTimer()
	for b.Loop() {
		res, err := http.Get(e.ts.URL + "/oozie/v2/job/" + id)
		if err != nil {
			b.Fatal(err)
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
	}
}
