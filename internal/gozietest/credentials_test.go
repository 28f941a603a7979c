package gozietest_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gozie/gozie/internal/action"
	"github.com/gozie/gozie/internal/client"
	"github.com/gozie/gozie/internal/conf"
	"github.com/gozie/gozie/internal/gozietest"
	"github.com/gozie/gozie/internal/launch"
	"github.com/gozie/gozie/internal/launch/launchtest"
)

// TestCredentialsHandOff is issue 30's hand-off to a recording stand-in
// tool: a hive2 action naming a hive2 and an hcat credential runs a
// beeline that records its arguments, its Kerberos environment and its
// action configuration. Beeline's URL carries HiveServer2's principal and
// the job's user as the proxy user, the configuration the metastore's
// settings, the environment the ticket cache and HADOOP_PROXY_USER.
func TestCredentialsHandOff(t *testing.T) {
	dir := t.TempDir()
	rec := filepath.Join(dir, "rec")
	home := filepath.Join(dir, "beeline")
	os.MkdirAll(filepath.Join(home, "bin"), 0o755)
	stub := "#!/bin/sh\n" +
		"printf '%s\\n' \"$@\" > " + rec + ".args\n" +
		"echo \"KRB5CCNAME=$KRB5CCNAME HADOOP_PROXY_USER=$HADOOP_PROXY_USER\" > " + rec + ".env\n" +
		"cp \"$OOZIE_ACTION_CONF_XML\" " + rec + ".conf\n"
	if err := os.WriteFile(filepath.Join(home, "bin", "beeline"), []byte(stub), 0o755); err != nil {
		t.Fatal(err)
	}
	app := filepath.Join(dir, "app")
	os.MkdirAll(app, 0o755)
	os.WriteFile(filepath.Join(app, "q.hql"), []byte("SELECT 1;\n"), 0o644)
	wf := `<workflow-app xmlns="uri:oozie:workflow:0.5" name="creds">
  <credentials>
    <credential name="hs2" type="hive2">
      <property><name>hive2.jdbc.url</name><value>jdbc:hive2://hs2:10000/default</value></property>
      <property><name>hive2.server.principal</name><value>hive/hs2@GOZIE.TEST</value></property>
    </credential>
    <credential name="meta" type="hcat">
      <property><name>hcat.metastore.uri</name><value>thrift://${metastore}:9083</value></property>
      <property><name>hcat.metastore.principal</name><value>hive/ms@GOZIE.TEST</value></property>
    </credential>
  </credentials>
  <start to="q"/>
  <action name="q" cred="hs2,meta"><hive2 xmlns="uri:oozie:hive2-action:0.1"><job-tracker>local</job-tracker><name-node>file:///</name-node>
    <jdbc-url>jdbc:hive2://hs2:10000/default</jdbc-url><script>q.hql</script></hive2>
    <ok to="end"/><error to="fail"/></action>
  <kill name="fail"><message>failed</message></kill>
  <end name="end"/>
</workflow-app>`
	if err := os.WriteFile(filepath.Join(app, "workflow.xml"), []byte(wf), 0o644); err != nil {
		t.Fatal(err)
	}
	site := map[string]string{"gozie.beeline.home": home, launch.LaunchKerberos: "cache", launch.LaunchKerberosCache: "/var/run/gozie/krb5cc",
		"oozie.service.HadoopAccessorService.kerberos.principal": "gozie/localhost@GOZIE.TEST"}
	opts := launchtest.Launcher(t)
	opts.Site = site
	reg := action.NewRegistry()
	launch.RegisterBuiltins(reg, opts)
	srv := gozietest.NewServer(t, gozietest.Options{Registry: reg, Config: site})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	c := client.New(srv.URL, client.Options{User: "alice"})
	cf := conf.New()
	cf.Set("user.name", "alice")
	cf.Set("oozie.wf.application.path", app)
	cf.Set("metastore", "ms1")
	id, _, err := c.Submit(ctx, cf, true)
	if err != nil {
		t.Fatal(err)
	}
	for {
		st, err := c.JobStatus(ctx, id)
		if err == nil && st != "RUNNING" && st != "PREP" {
			if st != "SUCCEEDED" {
				a, _, _ := c.WorkflowActionInfo(ctx, id+"@q")
				t.Fatalf("job %s: action %+v", st, a)
			}
			break
		}
		select {
		case <-ctx.Done():
			t.Fatalf("job %s: %v", st, err)
		case <-time.After(20 * time.Millisecond):
		}
	}
	args, _ := os.ReadFile(rec + ".args")
	if !strings.Contains(string(args), "jdbc:hive2://hs2:10000/default;principal=hive/hs2@GOZIE.TEST;hive.server2.proxy.user=alice\n") {
		t.Errorf("beeline arguments:\n%s", args)
	}
	env, _ := os.ReadFile(rec + ".env")
	if strings.TrimSpace(string(env)) != "KRB5CCNAME=FILE:/var/run/gozie/krb5cc HADOOP_PROXY_USER=alice" {
		t.Errorf("beeline environment: %s", env)
	}
	cfx, _ := os.ReadFile(rec + ".conf")
	flat := strings.Join(strings.Fields(string(cfx)), "")
	for _, want := range []string{"<name>hive.metastore.uris</name><value>thrift://ms1:9083</value>",
		"<name>hive.metastore.kerberos.principal</name><value>hive/ms@GOZIE.TEST</value>",
		"<name>hive.metastore.sasl.enabled</name><value>true</value>"} {
		if !strings.Contains(flat, want) {
			t.Errorf("action configuration lacks %s:\n%s", want, cfx)
		}
	}
}
