package gozietest_test

import (
	"context"

	"strings"
	"testing"
	"time"

	"github.com/gozie/gozie/internal/action"
	"github.com/gozie/gozie/internal/launch"
	"github.com/gozie/gozie/internal/launch/launchtest"

	"github.com/gozie/gozie/internal/client"
	"github.com/gozie/gozie/internal/conf"
	"github.com/gozie/gozie/internal/fsys"
	_ "github.com/gozie/gozie/internal/fsys/all"
	"github.com/gozie/gozie/internal/gozietest"
	"github.com/gozie/gozie/internal/testservers"
)

// The coordinator application, its workflow and the data all live in a
// bucket of a real S3 server: the coordinator materializes an action
// whose input is an s3a:// dataset, the action waits for the instance's
// _SUCCESS object, starts when it is written, and its workflow uses
// fs:exists, the fs action, <prepare>, a <file> and a streaming
// map-reduce on s3a:// paths.
func TestCoordinatorOnS3(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end: -short")
	}
	s3, srv, ns := serverOnS3(t)
	b := "s3a://" + s3.Bucket
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Second)
	defer cancel()
	put := func(p, data string) {
		t.Helper()
		if err := ns.WriteFile(ctx, p, []byte(data)); err != nil {
			t.Fatalf("writing %s: %v", p, err)
		}
	}
	read := func(p string) string {
		t.Helper()
		data, err := ns.ReadFileLimit(ctx, p, 1<<20)
		if err != nil {
			t.Fatalf("reading %s: %v", p, err)
		}
		return string(data)
	}
	put(b+"/apps/coord/coordinator.xml", `<coordinator-app name="on-s3" frequency="${coord:hours(1)}"
    start="2026-01-01T00:00Z" end="2026-01-01T01:00Z" timezone="UTC" xmlns="uri:oozie:coordinator:0.4">
  <datasets>
    <dataset name="logs" frequency="${coord:hours(1)}" initial-instance="2025-12-01T00:00Z" timezone="UTC">
      <uri-template>`+b+`/data/logs/${YEAR}/${MONTH}/${DAY}/${HOUR}</uri-template>
    </dataset>
    <dataset name="counts" frequency="${coord:hours(1)}" initial-instance="2025-12-01T00:00Z" timezone="UTC">
      <uri-template>`+b+`/data/counts/${YEAR}${MONTH}${DAY}${HOUR}</uri-template>
    </dataset>
  </datasets>
  <input-events><data-in name="in" dataset="logs"><instance>${coord:current(0)}</instance></data-in></input-events>
  <output-events><data-out name="out" dataset="counts"><instance>${coord:current(0)}</instance></data-out></output-events>
  <action><workflow><app-path>`+b+`/apps/wf</app-path>
    <configuration>
      <property><name>input</name><value>${coord:dataIn('in')}</value></property>
      <property><name>output</name><value>${coord:dataOut('out')}</value></property>
    </configuration>
  </workflow></action>
</coordinator-app>`)
	put(b+"/apps/wf/workflow.xml", `<workflow-app name="wf-on-s3" xmlns="uri:oozie:workflow:0.5">
  <global><job-tracker>local</job-tracker><name-node>`+b+`</name-node></global>
  <start to="check"/>
  <decision name="check">
    <switch>
      <case to="files">${fs:exists(concat(input, '/_SUCCESS')) and fs:fileSize(concat(input, '/part-0')) gt 0}</case>
      <default to="fail"/>
    </switch>
  </decision>
  <action name="files">
    <fs>
      <mkdir path="${output}/tmp"/>
      <touchz path="${output}/tmp/marker"/>
      <move source="${output}/tmp/marker" target="${output}/moved-marker"/>
    </fs>
    <ok to="hello"/><error to="fail"/>
  </action>
  <action name="hello">
    <shell xmlns="uri:oozie:shell-action:0.3">
      <prepare><delete path="${output}/tmp"/></prepare>
      <exec>hello.sh</exec>
      <file>`+b+`/apps/wf/scripts/hello.sh#hello.sh</file>
      <capture-output/>
    </shell>
    <ok to="count"/><error to="fail"/>
  </action>
  <action name="count">
    <map-reduce>
      <prepare><delete path="${output}/wc"/></prepare>
      <streaming><mapper>/bin/cat</mapper><reducer>/usr/bin/wc -l</reducer></streaming>
      <configuration>
        <property><name>mapred.input.dir</name><value>${input}</value></property>
        <property><name>mapred.output.dir</name><value>${output}/wc</value></property>
      </configuration>
    </map-reduce>
    <ok to="end"/><error to="fail"/>
  </action>
  <kill name="fail"><message>failed at ${wf:lastErrorNode()}: ${wf:errorMessage(wf:lastErrorNode())}</message></kill>
  <end name="end"/>
</workflow-app>`)
	put(b+"/apps/wf/scripts/hello.sh", "#!/bin/sh\necho greeting=hello from s3\n")

	c := client.New(srv.URL, client.Options{User: "joe"})
	cf := conf.New()
	cf.Set("user.name", "joe")
	cf.Set("oozie.coord.application.path", b+"/apps/coord")
	id, _, err := c.Submit(ctx, cf, true)
	if err != nil {
		t.Fatal(err)
	}
	flag := b + "/data/logs/2026/01/01/00/_SUCCESS"
	action := waitCoordAction(ctx, t, c, id+"@1", func(a *client.CoordAction) bool {
		return a.Status == "WAITING" && strings.Contains(string(a.MissingDependencies), flag)
	})
	if action.ExternalID != "" {
		t.Fatalf("the action started before its input: %+v", action)
	}
	put(b+"/data/logs/2026/01/01/00/part-0", "a b\nc\nd e f\n")
	put(flag, "")
	action = waitCoordAction(ctx, t, c, id+"@1", func(a *client.CoordAction) bool {
		return a.Status == "SUCCEEDED" || a.Status == "KILLED" || a.Status == "FAILED"
	})
	if action.Status != "SUCCEEDED" {
		_, wf, _ := c.WorkflowInfo(ctx, string(action.ExternalID), client.InfoOptions{})
		t.Fatalf("coordinator action ended %s (%s %s); workflow: %s", action.Status, action.ErrorCode, action.ErrorMessage, wf)
	}
	out := b + "/data/counts/2026010100"
	if ok, err := ns.Exists(ctx, out+"/moved-marker"); err != nil || !ok {
		t.Errorf("the fs action's move did not land in the bucket: %v %v", ok, err)
	}
	if ok, _ := ns.Exists(ctx, out+"/tmp"); ok {
		t.Error("the shell action's <prepare> did not delete its directory")
	}
	if got := strings.TrimSpace(read(out + "/wc/part-00000")); got != "3" {
		t.Errorf("streaming output on s3a = %q, want the 3 input lines counted", got)
	}
	if ok, _ := ns.Exists(ctx, out+"/wc/_SUCCESS"); !ok {
		t.Error("the streaming job wrote no _SUCCESS in the bucket")
	}
}

// serverOnS3 starts an S3 server and a gozie server whose settings reach
// it, and returns a namespace on it for the test's own reads and writes.
func serverOnS3(t *testing.T) (*testservers.S3Server, *gozietest.Server, *fsys.Namespace) {
	t.Helper()
	s3 := testservers.StartS3(t)
	cfg := map[string]string{"gozie.coord.input.check.interval.s": "1"}
	for k, v := range s3.Conf {
		cfg[k] = v
	}
	// Steps are started by this test binary acting as `gozie launch`.
	reg := action.NewRegistry()
	launch.RegisterBuiltins(reg, launchtest.Launcher(t))
	srv := gozietest.NewServer(t, gozietest.Options{Config: cfg, DefaultUser: "joe", Registry: reg})
	ns, err := fsys.NewNamespace(s3.Conf, nil)
	if err != nil {
		t.Fatal(err)
	}
	return s3, srv, ns
}

// distcp copies between a bucket and the local file system both ways, by
// gozie's own copy (no hadoop is configured), and a workflow app in the
// bucket runs it.
func TestDistcpBetweenStores(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end: -short")
	}
	s3, srv, ns := serverOnS3(t)
	b := "s3a://" + s3.Bucket
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Second)
	defer cancel()
	local := t.TempDir()
	for p, data := range map[string]string{
		b + "/src/a.txt":     "alpha",
		b + "/src/sub/b.txt": "beta",
		local + "/up/c.txt":  "gamma",
		b + "/app/workflow.xml": `<workflow-app name="copies" xmlns="uri:oozie:workflow:0.5">
  <start to="down"/>
  <action name="down">
    <distcp xmlns="uri:oozie:distcp-action:0.2"><job-tracker>local</job-tracker><name-node>` + b + `</name-node>
      <arg>/src</arg><arg>file://` + local + `/down</arg></distcp>
    <ok to="up"/><error to="fail"/>
  </action>
  <action name="up">
    <distcp xmlns="uri:oozie:distcp-action:0.2"><job-tracker>local</job-tracker><name-node>` + b + `</name-node>
      <arg>file://` + local + `/up/*.txt</arg><arg>` + b + `/uploaded</arg></distcp>
    <ok to="end"/><error to="fail"/>
  </action>
  <kill name="fail"><message>${wf:errorMessage(wf:lastErrorNode())}</message></kill>
  <end name="end"/>
</workflow-app>`,
	} {
		if err := ns.WriteFile(ctx, p, []byte(data)); err != nil {
			t.Fatal(err)
		}
	}
	if err := ns.MkdirAll(ctx, b+"/uploaded"); err != nil {
		t.Fatal(err)
	}
	c := client.New(srv.URL, client.Options{User: "joe"})
	cf := conf.New()
	cf.Set("user.name", "joe")
	cf.Set("oozie.wf.application.path", b+"/app")
	id, _, err := c.Submit(ctx, cf, true)
	if err != nil {
		t.Fatal(err)
	}
	for {
		wf, raw, err := c.WorkflowInfo(ctx, id, client.InfoOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if wf.Status == "SUCCEEDED" {
			break
		}
		if wf.Status == "KILLED" || wf.Status == "FAILED" || ctx.Err() != nil {
			t.Fatalf("workflow %s: %s", wf.Status, raw)
		}
		time.Sleep(50 * time.Millisecond) // polling a condition
	}
	for p, want := range map[string]string{
		local + "/down/a.txt":     "alpha",
		local + "/down/sub/b.txt": "beta",
		b + "/uploaded/c.txt":     "gamma",
	} {
		data, err := ns.ReadFileLimit(ctx, p, 1<<20)
		if err != nil || string(data) != want {
			t.Errorf("%s = %q, %v; want %q", p, data, err, want)
		}
	}
}

// waitCoordAction polls a coordinator action until done says so.
func waitCoordAction(ctx context.Context, t *testing.T, c *client.Client, id string, done func(*client.CoordAction) bool) *client.CoordAction {
	t.Helper()
	for {
		a, _, err := c.CoordActionInfo(ctx, id)
		if err == nil && done(a) {
			return a
		}
		select {
		case <-ctx.Done():
			var wf []byte
			if a != nil && a.ExternalID != "" {
				_, wf, _ = c.WorkflowInfo(context.Background(), string(a.ExternalID), client.InfoOptions{})
			}
			t.Fatalf("waiting for %s: %v (last: %+v, %v); workflow: %s", id, ctx.Err(), a, err, wf)
		case <-time.After(50 * time.Millisecond): // polling a condition
		}
	}
}
