package gozietest_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gozie/gozie/internal/client"
	"github.com/gozie/gozie/internal/conf"
	"github.com/gozie/gozie/internal/gozietest"
	"github.com/gozie/gozie/internal/smtptest"
)

// TestSLAEndToEnd: a workflow whose SLA expected it to start 20 minutes
// ago misses its start and meets its end and duration on a server; the
// miss is mailed through the SMTP server of the email action's keys, every
// event reaches the notification URL, and GET /v2/sla shows the record.
func TestSLAEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end: -short")
	}
	smtp := smtptest.Start(t, smtptest.Options{})
	var mu sync.Mutex
	var notified []string
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		notified = append(notified, r.URL.Query().Get("event"))
		mu.Unlock()
	}))
	defer hook.Close()
	srv := gozietest.NewServer(t, gozietest.Options{DefaultUser: "joe", Config: map[string]string{
		"gozie.sla.check.interval.s": "1",
		"oozie.email.smtp.host":      smtp.Host, "oozie.email.smtp.port": smtp.Port,
		"gozie.sla.notification.url": hook.URL + "/?id=$jobId&event=$eventStatus",
	}})
	nominal := time.Now().UTC().Add(-30 * time.Minute).Format("2006-01-02T15:04Z")
	dir := t.TempDir()
	wf := `<workflow-app xmlns="uri:oozie:workflow:0.5" xmlns:sla="uri:oozie:sla:0.2" name="sla-e2e">
  <start to="end"/><end name="end"/>
  <sla:info><sla:nominal-time>` + nominal + `</sla:nominal-time><sla:should-start>${10 * MINUTES}</sla:should-start>
    <sla:should-end>${2 * HOURS}</sla:should-end><sla:alert-events>start_miss,end_miss</sla:alert-events>
    <sla:alert-contact>ops@example.com</sla:alert-contact><sla:notification-msg>late pipeline</sla:notification-msg></sla:info>
</workflow-app>`
	if err := os.WriteFile(filepath.Join(dir, "workflow.xml"), []byte(wf), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c := client.New(srv.URL, client.Options{User: "joe"})
	cf := conf.New()
	cf.Set("user.name", "joe")
	cf.Set("oozie.wf.application.path", dir)
	id, _, err := c.Submit(ctx, cf, true)
	if err != nil {
		t.Fatal(err)
	}
	var recs []*client.SLASummary
	for {
		if recs, _, err = c.SLA(ctx, client.SLAOptions{Filter: "id=" + id}); err != nil {
			t.Fatal(err)
		}
		if len(recs) == 1 && recs[0].SLAStatus == "MET" && len(smtp.Messages()) == 1 {
			mu.Lock()
			n := len(notified)
			mu.Unlock()
			if n == 3 {
				break
			}
		}
		if ctx.Err() != nil {
			t.Fatalf("records %+v, mails %d, notifications %v", recs, len(smtp.Messages()), notified)
		}
		time.Sleep(50 * time.Millisecond) // polling a condition, not timing it
	}
	r := recs[0]
	if string(r.AppName) != "sla-e2e" || string(r.AppType) != "WORKFLOW_JOB" || string(r.JobStatus) != "SUCCEEDED" ||
		!strings.Contains(r.EventStatus, "START_MISS") || !strings.Contains(r.EventStatus, "END_MET") {
		t.Errorf("record %+v", r)
	}
	m := smtp.Messages()[0]
	if len(m.To) != 1 || m.To[0] != "ops@example.com" || !strings.Contains(string(m.Data), "START_MISS") ||
		!strings.Contains(string(m.Data), id) || !strings.Contains(string(m.Data), "late pipeline") {
		t.Errorf("mail to %v:\n%s", m.To, m.Data)
	}
	mu.Lock()
	defer mu.Unlock()
	want := map[string]bool{"START_MISS": true, "END_MET": true, "DURATION_MET": true}
	for _, e := range notified {
		if !want[e] {
			t.Errorf("notifications %v, want START_MISS, DURATION_MET and END_MET once each", notified)
		}
		delete(want, e)
	}
}
