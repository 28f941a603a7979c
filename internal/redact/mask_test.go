package redact

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

func TestSecretNameExtended(t *testing.T) {
	secret := []string{
		// The finding's names.
		"db.password", "fs.s3a.secret.key", "oozie.email.smtp.password",
		"fs.azure.account.key.acct.blob.core.windows.net", "ssl.server.keystore.password",
		"hadoop.security.credstore.java-keystore-provider.password-file",
		"javax.jdo.option.ConnectionPassword", "fs.s3a.session.token",
		"fs.s3a.encryption.key", "fs.s3a.server-side-encryption.key",
		"fs.gs.auth.service.account.private.key", "datadog.api_key", "x-api-key",
		"fs.azure.account.keyprovider",
		// Where a keytab is, and Azure SAS tokens (storage, issue 25).
		"oozie.service.HadoopAccessorService.keytab.file", "gozie.fs.hdfs.keytab",
		"fs.azure.sas.data.acct.blob.core.windows.net",
		// Oozie masks names containing "pass": the parts that are or end in it.
		"oozie.https.keystore.pass", "ssl.keypass", "trustStorePass", "DB_PASS",
		"db.pwd", "DB_PWD", "--password", "-Ddb.password",
	}
	// An access key id names the key; words that merely contain "pass"
	// or "pwd" are no secrets.
	plain := []string{
		"fs.s3a.access.key", "AWS_ACCESS_KEY_ID", "hive.fetch.task.conversion.bypass",
		"compass.url", "tests.passed", "PWD", "OLDPWD", "user.name",
		"oozie.wf.application.path", "mapreduce.job.queuename", "keytab",
	}
	for _, name := range secret {
		if !SecretName(name) {
			t.Errorf("SecretName(%q) = false, want true", name)
		}
	}
	for _, name := range plain {
		if SecretName(name) {
			t.Errorf("SecretName(%q) = true, want false", name)
		}
	}
}

func TestMaskerExtraNames(t *testing.T) {
	m, err := NewMasker(" vault , *.jdbc.url,acme.[kK]ey ,")
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]bool{
		"my.VAULT.path": true, "hive.jdbc.url": true, "jdbc.url.x": false, "acme.key": true,
		"db.password": true, "queue": false,
	} {
		if got := m.SecretName(name); got != want {
			t.Errorf("SecretName(%q) = %v, want %v", name, got, want)
		}
	}
	if _, err := NewMasker("a,[b"); err == nil || !strings.Contains(err.Error(), `"[b"`) {
		t.Errorf("bad pattern: %v", err)
	}
	var none *Masker
	if none.SecretName("db.password") || none.Text("password=x") != "password=x" || none.XML("<a>b</a>") != "<a>b</a>" ||
		none.Properties("password=x") != "password=x" || none.Value("db.password", "x") != "x" || none.WithValues("abcdef") != nil {
		t.Error("a nil masker masked something")
	}
}

func newTestMasker(t testing.TB) *Masker {
	t.Helper()
	m, err := NewMasker("")
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestMaskText(t *testing.T) {
	m := newTestMasker(t)
	cases := []struct{ name, in, want string }{
		{"name=value starting a line", "db.password=hunter2 and more", "db.password=*****"},
		{"name=value inside a line", "run -Ddb.password=hunter2 -Dx=1", "run -Ddb.password=***** -Dx=1"},
		{"quoted", `export DB_PASSWORD="a b c"; next`, `export DB_PASSWORD="*****"; next`},
		{"quoted, not a password", `export API_TOKEN="a b c"; next`, `export API_TOKEN="*****"; next`},
		{"blank after the sign", "password= next", "password= *****"},
		{"json", `{"token": "abc", "user": "joe"}`, `{"token": "*****", "user": "joe"}`},
		{"flag", "sqoop import --connect jdbc:x --password hunter2 --table t", "sqoop import --connect jdbc:x --password ***** --table t"},
		{"flag in xml", "<arg>--password</arg><arg>hunter2</arg>", "<arg>--password</arg><arg>*****</arg>"},
		{"url password", "jdbc:postgresql://u:pw@h/db", "jdbc:postgresql://u:*****@h/db"},
		{"url of a secret-named host", "see https://secret.example.com/x", "see https://secret.example.com/x"},
		{"nothing secret", "Action [step] status [OK] TOKEN[] USER[joe]", "Action [step] status [OK] TOKEN[] USER[joe]"},
		{"access key id", "fs.s3a.access.key=AKIA123", "fs.s3a.access.key=AKIA123"},
		{"xml property on one line", "<property><name>db.password</name><value>x1</value></property><property><name>a</name><value>b</value></property>",
			"<property><name>db.password</name><value>*****</value></property><property><name>a</name><value>b</value></property>"},
		{"diff of a secret property", "   <property>\n     <name>db.password</name>\n-    <value>old-pw</value>\n+    <value>new-pw</value>\n   </property>\n   <property>\n     <name>x</name>\n-    <value>1</value>\n+    <value>2</value>",
			"   <property>\n     <name>db.password</name>\n-    <value>*****</value>\n+    <value>*****</value>\n   </property>\n   <property>\n     <name>x</name>\n-    <value>1</value>\n+    <value>2</value>"},
		{"multi-line secret value", "<name>ssl.private.key</name>\n<value>BEGIN\nAAAA\nEND</value>\n<name>x</name><value>y</value>",
			"<name>ssl.private.key</name>\n<value>*****\n*****\n*****</value>\n<name>x</name><value>y</value>"},
		{"escaped name", "<name>db.pass&#119;ord</name><value>x1</value>", "<name>db.pass&#119;ord</name><value>*****</value>"},
		{"crlf kept", "password=x\r\nok\r\n", "password=*****\r\nok\r\n"},
		{"delimiters kept", "echo db.password=$PW; echo x.token=y, z", "echo db.password=*****; echo x.token=*****, z"},
	}
	for _, c := range cases {
		if got := m.Text(c.in); got != c.want {
			t.Errorf("%s: Text(%q)\n = %q\nwant %q", c.name, c.in, got, c.want)
		}
	}
}

// wellFormed reports whether doc parses as XML.
func wellFormed(doc string) error {
	d := xml.NewDecoder(strings.NewReader(doc))
	for {
		if _, err := d.Token(); err == io.EOF {
			return nil
		} else if err != nil {
			return err
		}
	}
}

func TestMaskXML(t *testing.T) {
	m := newTestMasker(t)
	cases := []struct{ name, in, want string }{
		{"hadoop configuration",
			"<?xml version=\"1.0\"?>\n<configuration>\n  <property>\n    <name>db.password</name>\n    <value>hunter&amp;2</value>\n  </property>\n  <property>\n    <name>fs.s3a.access.key</name>\n    <value>AKIA</value>\n  </property>\n</configuration>\n",
			"<?xml version=\"1.0\"?>\n<configuration>\n  <property>\n    <name>db.password</name>\n    <value>*****</value>\n  </property>\n  <property>\n    <name>fs.s3a.access.key</name>\n    <value>AKIA</value>\n  </property>\n</configuration>\n"},
		{"value before name", "<configuration><property><value>x1</value><name>token</name></property></configuration>",
			"<configuration><property><value>*****</value><name>token</name></property></configuration>"},
		{"cdata value", "<c><property><name>a.secret</name><value><![CDATA[<x>]]>tail</value></property></c>",
			"<c><property><name>a.secret</name><value>*****</value></property></c>"},
		{"entity in the name", "<c><property><name>db.pass&#119;ord</name><value>x1</value></property></c>",
			"<c><property><name>db.pass&#119;ord</name><value>*****</value></property></c>"},
		{"empty secret", "<c><property><name>db.password</name><value></value></property></c>",
			"<c><property><name>db.password</name><value></value></property></c>"},
		{"sqoop arguments", `<sqoop xmlns="uri:oozie:sqoop-action:1.0"><arg>import</arg><arg>--password</arg><arg>hunter2</arg><arg>--table</arg><arg>t</arg></sqoop>`,
			`<sqoop xmlns="uri:oozie:sqoop-action:1.0"><arg>import</arg><arg>--password</arg><arg>*****</arg><arg>--table</arg><arg>t</arg></sqoop>`},
		{"flag then another element", `<a><arg>--password</arg><file>f</file><arg>x</arg></a>`, `<a><arg>--password</arg><file>f</file><arg>x</arg></a>`},
		{"sqoop command", `<sqoop><command>import --password hunter2 --table t</command></sqoop>`,
			`<sqoop><command>import --password ***** --table t</command></sqoop>`},
		{"environment and java options", `<shell><env-var>DB_PASSWORD=a&lt;b</env-var><java-opts>-Xmx1g -Dx.secret=s1 -Dy=2</java-opts></shell>`,
			`<shell><env-var>DB_PASSWORD=*****</env-var><java-opts>-Xmx1g -Dx.secret=***** -Dy=2</java-opts></shell>`},
		{"comment", `<a><!-- password=hunter2 --><b/></a>`, `<a><!-- password=***** --><b/></a>`},
		{"namespaced prefix", `<h:configuration xmlns:h="x"><h:property><h:name>db.password</h:name><h:value>v</h:value></h:property></h:configuration>`,
			`<h:configuration xmlns:h="x"><h:property><h:name>db.password</h:name><h:value>*****</h:value></h:property></h:configuration>`},
		{"not xml: masked as text", `<a><name>db.password</name><value>x1</value>`, `<a><name>db.password</name><value>*****</value>`},
		{"nothing to mask", `<a b="c">d</a>`, `<a b="c">d</a>`},
	}
	for _, c := range cases {
		got := m.XML(c.in)
		if got != c.want {
			t.Errorf("%s: XML(%q)\n = %q\nwant %q", c.name, c.in, got, c.want)
		}
		if wellFormed(c.in) == nil {
			if err := wellFormed(got); err != nil {
				t.Errorf("%s: masked document is not XML: %v\n%s", c.name, err, got)
			}
		}
	}
}

func TestMaskProperties(t *testing.T) {
	m := newTestMasker(t)
	cases := []struct{ name, in, want string }{
		{"equals", "a=1\ndb.password=hunter 2\nb=2\n", "a=1\ndb.password=*****\nb=2\n"},
		{"colon and blanks", "db.password : x y\ntoken\tabc\n", "db.password : *****\ntoken\t*****\n"},
		{"continuation", "db.password=aa\\\n  bb\\\n  cc\nnext=1\n", "db.password=*****\nnext=1\n"},
		{"escaped key", "db\\.password=x\n", "db\\.password=*****\n"},
		{"comments and empty values", "# password=x\n!token=y\ndb.password=\n", "# password=x\n!token=y\ndb.password=\n"},
		{"other lines as text", "cmd=run --password x\n", "cmd=run --password *****\n"},
	}
	for _, c := range cases {
		if got := m.Properties(c.in); got != c.want {
			t.Errorf("%s: Properties(%q)\n = %q\nwant %q", c.name, c.in, got, c.want)
		}
	}
}

func TestMaskValues(t *testing.T) {
	m := newTestMasker(t)
	conf := `<configuration><property><name>db.password</name><value>hunter2-db</value></property>` +
		`<property><name>pin.password</name><value>123</value></property>` +
		`<property><name>x</name><value>plain</value></property></configuration>`
	action := `<sqoop><arg>--password</arg><arg>arg-secret</arg><arg>--table</arg><arg>t</arg></sqoop>`
	vals := m.SecretValues(conf, action, "not xml <", "")
	if strings.Join(vals, ",") != "hunter2-db,123,arg-secret" {
		t.Fatalf("SecretValues = %q", vals)
	}
	mv := m.WithValues(append(vals, "-----BEGIN KEY-----\nabcdefgh\n-----END KEY-----")...)
	cases := []struct{ in, want string }{
		{"connect hunter2-db now", "connect ***** now"},
		{"positional arg-secret and 123", "positional ***** and 123"}, // too short to mask everywhere
		{"key line abcdefgh", "key line *****"},
		{"plain", "plain"},
	}
	for _, c := range cases {
		if got := mv.Text(c.in); got != c.want {
			t.Errorf("Text(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	if got := mv.XML(`<a><arg>hunter2-db</arg></a>`); got != `<a><arg>*****</arg></a>` {
		t.Errorf("XML with values: %s", got)
	}
	if m.Text("hunter2-db") != "hunter2-db" {
		t.Error("WithValues changed its receiver")
	}
}

func TestMaskReader(t *testing.T) {
	m := newTestMasker(t).WithValues("hunter2-db")
	in := "line one\n<name>db.password</name>\n<value>multi\nline</value>\nconnect hunter2-db\npassword=x"
	want := "line one\n<name>db.password</name>\n<value>*****\n*****</value>\nconnect *****\npassword=*****"
	for name, r := range map[string]io.Reader{
		"whole":       strings.NewReader(in),
		"byte a time": iotest.OneByteReader(strings.NewReader(in)),
	} {
		got, err := io.ReadAll(m.Reader(r))
		if err != nil || string(got) != want {
			t.Errorf("%s: %q %v\nwant %q", name, got, err, want)
		}
	}
	long := strings.Repeat("a", 70<<10) + " password=x\n"
	got, err := io.ReadAll(m.Reader(strings.NewReader(long)))
	if err != nil || !strings.HasSuffix(string(got), " password=*****\n") || len(got) != len(long)+4 {
		t.Errorf("long line: %d bytes, %v, ends %q", len(got), err, got[len(got)-30:])
	}
	var none *Masker
	if r := strings.NewReader("x"); none.Reader(r) != r {
		t.Error("a nil masker wrapped the reader")
	}
}

// FuzzMask: no input makes the masker panic, a well-formed document stays
// well-formed, and a secret property's value never survives XML masking.
func FuzzMask(f *testing.F) {
	for _, s := range []string{
		`<configuration><property><name>db.password</name><value>x1</value></property></configuration>`,
		`<a><arg>--password</arg><arg>p</arg><!-- token=t --><![CDATA[password=y]]></a>`,
		"db.password=a\\\n b\n<name>token</name>\n<value>v\nw</value>",
		`<h:p xmlns:h="u"><h:name>secret</h:name><h:value>&amp;&#65;</h:value></h:p>`,
	} {
		f.Add(s)
	}
	m, err := NewMasker("vault,*.url")
	if err != nil {
		f.Fatal(err)
	}
	m = m.WithValues("hunter2-db")
	f.Fuzz(func(t *testing.T, s string) {
		out := m.XML(s)
		m.Text(s)
		m.Properties(s)
		m.SecretValues(s)
		if _, err := io.ReadAll(m.Reader(strings.NewReader(s))); err != nil {
			t.Fatal(err)
		}
		if wellFormed(s) == nil {
			if err := wellFormed(out); err != nil {
				t.Fatalf("XML(%q) = %q: %v", s, out, err)
			}
		}
		if strings.Contains(out, "hunter2-db") {
			t.Fatalf("XML(%q) = %q keeps a known secret", s, out)
		}
	})
}

// BenchmarkMask measures what a masked page costs: the secrets of a job
// configuration of 40 properties (SecretValues), then masking it (XML)
// and 100 log lines (Text).
func BenchmarkMask(b *testing.B) {
	var conf strings.Builder
	conf.WriteString("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<configuration>\n")
	for i := range 40 {
		name := fmt.Sprintf("app.setting.%d", i)
		if i%10 == 0 {
			name = fmt.Sprintf("db.%d.password", i)
		}
		fmt.Fprintf(&conf, "  <property>\n    <name>%s</name>\n    <value>value-%d-${nameNode}/x</value>\n  </property>\n", name, i)
	}
	conf.WriteString("</configuration>\n")
	doc := conf.String()
	line := "2026-01-02 03:04:05,123  INFO gozie - USER[joe] GROUP[-] TOKEN[] APP[x] JOB[0000001-260102030405123-oozie-test-W] ACTION[0000001-260102030405123-oozie-test-W@step] Action [step] ended with status [OK], external status [SUCCEEDED], transition [end]\n"
	log := strings.Repeat(line, 100)
	base := newTestMasker(b)
	b.ReportAllocs()
	for b.Loop() {
		m := base.WithValues(base.SecretValues(doc)...)
		_ = m.XML(doc)
		_ = m.Text(log)
	}
}
