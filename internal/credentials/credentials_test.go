package credentials

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gozie/gozie/internal/conf"
	"github.com/gozie/gozie/internal/vocab"
	"github.com/gozie/gozie/internal/workflow"
)

// app parses a workflow of one shell action with cred="cred" and the
// given <credentials> body.
func app(t *testing.T, creds, cred string) *workflow.App {
	t.Helper()
	data := `<workflow-app xmlns="uri:oozie:workflow:0.5" name="w"><credentials>` + creds + `</credentials>
<start to="a"/><action name="a" cred="` + cred + `"><fs><mkdir path="/tmp/x"/></fs><ok to="end"/><error to="fail"/></action>
<kill name="fail"><message>x</message></kill><end name="end"/></workflow-app>`
	a, err := workflow.Parse([]byte(data), workflow.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func cred(name, typ string, kv ...string) string {
	var b strings.Builder
	b.WriteString(`<credential name="` + name + `" type="` + typ + `">`)
	for i := 0; i+1 < len(kv); i += 2 {
		b.WriteString("<property><name>" + kv[i] + "</name><value>" + kv[i+1] + "</value></property>")
	}
	b.WriteString("</credential>")
	return b.String()
}

// TestCheck is the submission check: each name of cred= must be a
// credential of the workflow (JA021), of a type the server offers
// (JA020, naming the type).
func TestCheck(t *testing.T) {
	custom, err := FromConfig(map[string]string{KeyExecutablePrefix + "vault": "/bin/true"})
	if err != nil {
		t.Fatal(err)
	}
	only, err := FromConfig(map[string]string{KeyClasses: "hcat=org.apache.oozie.action.hadoop.HCatCredentials, hive2=x"})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name        string
		p           *Providers
		creds, cred string
		code, msg   string
	}{
		{"defined built-in", Default(), cred("hs2", "hive2"), "hs2", "", ""},
		{"several, case-insensitive", Default(), cred("hs2", "hive2") + cred("meta", "hcat"), "HS2, meta", "", ""},
		{"no cred", Default(), "", "", "", ""},
		{"undefined", Default(), cred("hs2", "hive2"), "hs2,nope", "JA021", "Could not load credentials with name [nope] for action [a]: the workflow's <credentials> defines [hs2]"},
		{"undefined, none defined", Default(), "", "x", "JA021", "defines none"},
		{"unknown type", Default(), cred("v", "vault"), "v", "JA020", "Could not load credentials of type [vault] with name [v]"},
		{"custom type configured", custom, cred("v", "vault"), "v", "", ""},
		{"built-in not listed in credentialclasses", only, cred("h", "hbase"), "h", "JA020", "type [hbase]"},
		{"built-in listed in credentialclasses", only, cred("h", "hcat"), "h", "", ""},
	}
	for _, tt := range tests {
		err := tt.p.Check(app(t, tt.creds, tt.cred))
		if tt.code == "" {
			if err != nil {
				t.Errorf("%s: %v", tt.name, err)
			}
			continue
		}
		if vocab.CodeOf(err) != tt.code || !strings.Contains(err.Error(), tt.msg) {
			t.Errorf("%s: %v, want %s %q", tt.name, err, tt.code, tt.msg)
		}
	}
}

// TestApplyBuiltins hands each built-in type's settings to the action's
// configuration; missing required properties are E0510 with Oozie's
// words.
func TestApplyBuiltins(t *testing.T) {
	tests := []struct {
		name, creds string
		before      map[string]string
		want        map[string]string
		err         string
	}{
		{"hcat", cred("c", "hcat", "hcat.metastore.uri", "thrift://ms:9083", "hcat.metastore.principal", "hive/_HOST@R"), nil,
			map[string]string{"hive.metastore.uris": "thrift://ms:9083", "hive.metastore.kerberos.principal": "hive/_HOST@R", "hive.metastore.sasl.enabled": "true"}, ""},
		{"hcat with Hive's names", cred("c", "hcat", "hive.metastore.uris", "thrift://ms:9083", "hive.metastore.kerberos.principal", "hive/h@R"), nil,
			map[string]string{"hive.metastore.uris": "thrift://ms:9083", "hive.metastore.kerberos.principal": "hive/h@R"}, ""},
		{"hcat without principal", cred("c", "hcat", "hcat.metastore.uri", "thrift://ms:9083"), nil, nil,
			"Unable to get Credential [c] of type [hcat]: hcat.metastore.principal is required to get hcat credential"},
		{"hive2", cred("c", "hive2", "hive2.jdbc.url", "jdbc:hive2://hs2:10000/default", "hive2.server.principal", "hive/hs2@R"), nil,
			map[string]string{"hive2.server.principal": "hive/hs2@R", "hive2.jdbc.url": "jdbc:hive2://hs2:10000/default"}, ""},
		{"hive2 without url", cred("c", "hive2", "hive2.server.principal", "p"), nil, nil, "hive2.jdbc.url is required"},
		{"filesystem adds name nodes", cred("c", "filesystem", "filesystem.path", "hdfs://nn2:8020, hdfs://nn1:8020"),
			map[string]string{"mapreduce.job.hdfs-servers": "hdfs://nn1:8020"},
			map[string]string{"mapreduce.job.hdfs-servers": "hdfs://nn1:8020,hdfs://nn2:8020"}, ""},
		{"hdfs without path", cred("c", "hdfs"), nil, nil, "filesystem.path property is required"},
		{"hbase copies", cred("c", "hbase", "hbase.security.authentication", "kerberos", "hbase.zookeeper.quorum", "${zk}"),
			map[string]string{"zk": "zk1,zk2"},
			map[string]string{"hbase.security.authentication": "kerberos", "hbase.zookeeper.quorum": "zk1,zk2"}, ""},
		{"jhs", cred("c", "jhs", "mapreduce.jobhistory.principal", "jhs/h@R"), nil, map[string]string{"mapreduce.jobhistory.principal": "jhs/h@R"}, ""},
	}
	for _, tt := range tests {
		c := conf.FromMap(tt.before)
		err := Default().Apply(context.Background(), app(t, tt.creds, "c"), "c", c, Info{User: "alice"})
		if tt.err != "" {
			if vocab.CodeOf(err) != CodeObtain || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%s: %v, want E0510 %q", tt.name, err, tt.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		for k, want := range tt.want {
			if got, _ := c.Get(k); got != want {
				t.Errorf("%s: %s = %q, want %q", tt.name, k, got, want)
			}
		}
	}
	// Applying twice (a start performed again) adds nothing twice.
	c := conf.New()
	a := app(t, cred("c", "hdfs", "filesystem.path", "hdfs://nn2:8020"), "c")
	for range 2 {
		if err := Default().Apply(context.Background(), a, "c", c, Info{}); err != nil {
			t.Fatal(err)
		}
	}
	if got, _ := c.Get("mapreduce.job.hdfs-servers"); got != "hdfs://nn2:8020" {
		t.Errorf("twice: %q", got)
	}
}

// TestApplyExecutable runs a custom type's executable, a recording
// stand-in: it sees the credential's properties on stdin and who it
// obtains for in its environment, and what it prints joins the action's
// configuration; a failing one is E0510 with its stderr.
func TestApplyExecutable(t *testing.T) {
	dir := t.TempDir()
	rec := filepath.Join(dir, "rec")
	exe := filepath.Join(dir, "vault-cred")
	script := "#!/bin/sh\n" +
		"cat > " + rec + ".stdin\n" +
		"env | grep '^GOZIE_' | sort > " + rec + ".env\n" +
		"if grep -q fail " + rec + ".stdin; then echo 'vault sealed' >&2; exit 3; fi\n" +
		"echo 'vault.token=s.abc123'\n" +
		"echo 'vault.addr: https://vault:8200'\n"
	if err := os.WriteFile(exe, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	p, err := FromConfig(map[string]string{KeyExecutablePrefix + "vault": exe, KeyTimeout: "10"})
	if err != nil {
		t.Fatal(err)
	}
	c := conf.FromMap(map[string]string{"role": "etl"})
	a := app(t, cred("v", "vault", "vault.role", "${role}"), "v")
	if err := p.Apply(context.Background(), a, "v", c, Info{User: "alice", JobID: "0000001-x-W", ActionID: "0000001-x-W@a"}); err != nil {
		t.Fatal(err)
	}
	for k, want := range map[string]string{"vault.token": "s.abc123", "vault.addr": "https://vault:8200"} {
		if got, _ := c.Get(k); got != want {
			t.Errorf("%s = %q, want %q", k, got, want)
		}
	}
	stdin, _ := os.ReadFile(rec + ".stdin")
	if !strings.Contains(string(stdin), "vault.role=etl") {
		t.Errorf("stdin %q", stdin)
	}
	env, _ := os.ReadFile(rec + ".env")
	for _, want := range []string{"GOZIE_ACTION_ID=0000001-x-W@a", "GOZIE_CREDENTIAL_NAME=v", "GOZIE_CREDENTIAL_TYPE=vault", "GOZIE_JOB_ID=0000001-x-W", "GOZIE_JOB_USER=alice"} {
		if !strings.Contains(string(env), want+"\n") {
			t.Errorf("env lacks %s:\n%s", want, env)
		}
	}
	failing := app(t, cred("v", "vault", "x", "fail"), "v")
	err = p.Apply(context.Background(), failing, "v", conf.New(), Info{})
	if vocab.CodeOf(err) != CodeObtain || !strings.Contains(err.Error(), "vault sealed") {
		t.Errorf("failing executable: %v", err)
	}
}

// TestFromConfig refuses a bad timeout and ignores the documentation
// entry of ConfigKeys.
func TestFromConfig(t *testing.T) {
	if _, err := FromConfig(map[string]string{KeyTimeout: "0"}); err == nil {
		t.Error("timeout 0 accepted")
	}
	p, err := FromConfig(map[string]string{KeyExecutablePrefix + "<type>": "", KeyTimeout: "60"})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(p.Types(), ","); got != "filesystem,hbase,hcat,hdfs,hive2,jhs" {
		t.Errorf("types %s", got)
	}
}
