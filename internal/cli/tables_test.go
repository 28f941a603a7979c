package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gozie/gozie/internal/client"
)

// TestInfoTableShortExternalIDs is issue 14 point 11: a local process
// action's external id is short in -info (it was the 90-character work
// directory; an fs step's was its 44-character action id), so every row of the actions table keeps its columns.
func TestInfoTableShortExternalIDs(t *testing.T) {
	pinEnv(t)
	url := startServer(t)
	app := writeApp(t, `<workflow-app xmlns="uri:oozie:workflow:0.5" name="short"><start to="mk"/>
  <action name="mk"><fs><mkdir path="${wf:conf('out')}"/></fs><ok to="say"/><error to="fail"/></action>
  <action name="say"><shell xmlns="uri:oozie:shell-action:0.3"><job-tracker>local</job-tracker><name-node>file:///</name-node>
    <exec>true</exec></shell><ok to="end"/><error to="fail"/></action>
  <kill name="fail"><message>failed</message></kill><end name="end"/></workflow-app>`)
	props := filepath.Join(app, "job.properties")
	if err := os.WriteFile(props, []byte("oozie.wf.application.path=.\nout="+filepath.Join(t.TempDir(), "o")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	if code := Main([]string{"job", "-oozie", url, "-config", props, "-run"}, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	id := strings.TrimSpace(strings.TrimPrefix(out.String(), "job: "))
	deadline := time.Now().Add(30 * time.Second)
	for st := e2eStatus(t, url, id); st != "SUCCEEDED"; st = e2eStatus(t, url, id) {
		if time.Now().After(deadline) || st == "KILLED" || st == "FAILED" {
			t.Fatalf("status %s", st)
		}
		time.Sleep(20 * time.Millisecond) // polling a real server, not timing
	}
	out.Reset()
	if code := Main([]string{"job", "-oozie", url, "-info", id}, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	row := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(id) + `@say +OK +(\S+) +SUCCEEDED +- +$`).FindStringSubmatch(out.String())
	if row == nil || !regexp.MustCompile(`^local:\d+$`).MatchString(row[1]) {
		t.Fatalf("say row lacks a short local external id:\n%s", out.String())
	}
	if !regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(id) + `@mk +OK +- +OK +- +$`).MatchString(out.String()) {
		t.Errorf("fs row: want external id -, as Oozie's synchronous actions:\n%s", out.String())
	}
	header := regexp.MustCompile(`(?m)^ID +Status +Ext ID +Ext Status +Err Code *$`).FindString(out.String())
	for _, l := range strings.Split(out.String(), "\n") {
		if strings.HasPrefix(l, id+"@") && len(l) != len(header) {
			t.Errorf("row %q is %d wide, header %d", l, len(l), len(header))
		}
	}
	out.Reset()
	if code := Main([]string{"job", "-oozie", url, "-info", id + "@say"}, &out, &errOut); code != 0 || !strings.Contains(out.String(), "External ID       : "+row[1]+"\n") {
		t.Errorf("-info of the action: exit %d:\n%s", code, out.String())
	}
}

// TestKillListZone is issue 14 point 11: the nominal times of -kill,
// -rerun and -ignore answers are in the zone of -info's dates.
func TestKillListZone(t *testing.T) {
	pinEnv(t)
	nominal := client.Time{Time: time.Date(2026, 1, 1, 5, 0, 0, 0, time.UTC)}
	acts := []client.CoordAction{{ID: "0000003-260101000000000-oozie-root-C@1", NominalTime: nominal, Status: "KILLED"}}
	r := &remoteFlags{timezone: "America/New_York"}
	var out bytes.Buffer
	printActionList(&out, acts, r.dates())
	printIgnored(&out, acts, r.dates())
	if n := strings.Count(out.String(), "2026-01-01 00:00 EST"); n != 2 {
		t.Errorf("want the New York time twice:\n%s", out.String())
	}
}
