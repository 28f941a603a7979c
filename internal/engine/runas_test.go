package engine

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gozie/gozie/internal/osuser/osusertest"
	"github.com/gozie/gozie/internal/store"
)

// Security round 2, finding 3 (files a job names): with RunAsUser the
// engine reads a job's application, its config-default.xml and <job-xml>,
// and probes fs:* paths with the job user's rights, so a job cannot make
// the server read, or learn about, what only root may.
func TestRunAsReadsTheJobsFilesAsItsUser(t *testing.T) {
	u := osusertest.User(t)
	root := osusertest.OpenDir(t)
	h := newHarness(t, func(o *Options) { o.RunAsUser = true })
	write := func(rel, data string, mode os.FileMode) string {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), mode); err != nil {
			t.Fatal(err)
		}
		return p
	}
	flow := wf(`<start to="a"/>` + testAction("a", "end", "fail") + `<kill name="fail"><message>x</message></kill><end name="end"/>`)
	write("ok/workflow.xml", flow, 0o644)
	write("hidden/workflow.xml", flow, 0o600)
	write("defaults/workflow.xml", flow, 0o644)
	write("defaults/config-default.xml", `<configuration><property><name>a</name><value>b</value></property></configuration>`, 0o600)
	write("jobxml/workflow.xml", wf(`<start to="a"/><action name="a"><test xmlns="uri:gozie:test:1.0"><job-xml>secret.xml</job-xml></test><ok to="end"/><error to="fail"/></action>`+
		`<kill name="fail"><message>x</message></kill><end name="end"/>`), 0o644)
	write("jobxml/secret.xml", `<configuration><property><name>db.password</name><value>pw</value></property></configuration>`, 0o600)
	locked := filepath.Join(root, "locked")
	write("locked/data/_SUCCESS", "", 0o644)
	os.Chmod(locked, 0o700)
	write("probe/workflow.xml", wf(`<start to="d"/><decision name="d"><switch>
		<case to="found">${fs:exists('`+locked+`/data/_SUCCESS')}</case><default to="end"/></switch></decision>
		<kill name="found"><message>root's file seen</message></kill><end name="end"/>`), 0o644)

	cases := []struct {
		name, app, user string
		refused         string // error text of a refused submission
		status          string // else the job's end
		want            string // in the failed action's error or the job's
	}{
		{"readable application", "ok", u.Name, "", store.JobSucceeded, ""},
		{"workflow.xml only root may read", "hidden", u.Name, "permission denied", "", ""},
		{"config-default.xml only root may read", "defaults", u.Name, "permission denied", "", ""},
		{"job-xml only root may read", "jobxml", u.Name, "", store.JobKilled, "permission denied"},
		{"fs:exists under a directory only root may enter", "probe", u.Name, "", store.JobSucceeded, ""},
		{"unknown user", "ok", "no-such-user-gozie", "JA002", "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			id, err := h.e.Run(context.Background(), props(filepath.Join(root, c.app), PropUser, c.user))
			if c.refused != "" {
				if err == nil || !strings.Contains(err.Error(), c.refused) {
					t.Fatalf("Run = %v, want a refusal saying %q", err, c.refused)
				}
				return
			}
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			j := h.wait(id)
			if j.Status != c.status {
				t.Fatalf("status %s, want %s: %s", j.Status, c.status, h.describe(id))
			}
			if c.want != "" && !strings.Contains(h.describe(id)+j.ErrorMessage, c.want) {
				t.Errorf("job %s: %s, want %q", j.ErrorMessage, h.describe(id), c.want)
			}
		})
	}
	// As root (without RunAsUser) the probe sees the file: what the user
	// did not see above is the user's rights, not a broken path.
	plain := newHarness(t)
	id := plain.run(props(filepath.Join(root, "probe"), PropUser, u.Name))
	if j := plain.wait(id); j.Status != store.JobKilled {
		t.Fatalf("probe as root: %s %s", j.Status, plain.describe(id))
	}
}
