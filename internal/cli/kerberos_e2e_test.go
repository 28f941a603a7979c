package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gozie/gozie/internal/gozietest"
	"github.com/gozie/gozie/internal/testservers"
)

// kerberizedServer starts a KDC (alice, HTTP/127.0.0.1) and a server
// configured for SPNEGO under Oozie's key names; it returns the server's
// URL, the KDC and alice's ticket cache. KRB5_CONFIG names the KDC's
// krb5.conf for the rest of the test.
func kerberizedServer(t *testing.T) (string, *testservers.KDC, string) {
	t.Helper()
	kdc := testservers.StartKDC(t)
	kdc.AddPrincipal("HTTP/127.0.0.1", "")
	kdc.AddPrincipal("alice", "alice-pw")
	t.Setenv("KRB5_CONFIG", kdc.Krb5Conf())
	srv := gozietest.NewServer(t, gozietest.Options{DefaultUser: "tester", PollInterval: 50 * time.Millisecond,
		Config: map[string]string{
			"oozie.authentication.type":               "kerberos",
			"oozie.authentication.kerberos.principal": "HTTP/127.0.0.1@" + kdc.Realm(),
			"oozie.authentication.kerberos.keytab":    kdc.Keytab("HTTP/127.0.0.1"),
			"gozie.authentication.secret":             "kerberos-e2e-secret",
		}})
	return srv.URL, kdc, kdc.Kinit(t, "alice", "alice-pw")
}

// prepApp writes a one-action workflow and its job.properties.
func prepApp(t *testing.T) (app, props string) {
	t.Helper()
	app = t.TempDir()
	wf := `<workflow-app xmlns="uri:oozie:workflow:0.5" name="krb">
    <start to="mk"/>
    <action name="mk"><fs><mkdir path="${outDir}"/></fs><ok to="end"/><error to="fail"/></action>
    <kill name="fail"><message>mkdir failed</message></kill>
    <end name="end"/>
</workflow-app>
`
	if err := os.WriteFile(filepath.Join(app, "workflow.xml"), []byte(wf), 0o644); err != nil {
		t.Fatal(err)
	}
	props = filepath.Join(app, "job.properties")
	text := "oozie.wf.application.path=file://" + app + "\noutDir=file://" + filepath.Join(app, "made") + "\n"
	if err := os.WriteFile(props, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return app, props
}

// TestKerberosCurl: curl --negotiate (MIT's GSS-API, which checks the
// server's mutual-authentication token) submits, queries and kills a job;
// the hadoop.auth cookie it gets back carries the session alone.
func TestKerberosCurl(t *testing.T) {
	curl, err := exec.LookPath("curl")
	if err != nil {
		t.Skip("curl not installed")
	}
	if out, _ := exec.Command(curl, "-V").Output(); !bytes.Contains(out, []byte("SPNEGO")) {
		t.Skip("this curl has no SPNEGO (GSS-API)")
	}
	url, kdc, cc := kerberizedServer(t)
	app, _ := prepApp(t)
	jar := filepath.Join(t.TempDir(), "cookies")
	run := func(args ...string) (string, string) {
		t.Helper()
		cmd := exec.Command(curl, append([]string{"-sS", "-w", "\n%{http_code}", "-c", jar}, args...)...)
		cmd.Env = append(os.Environ(), "KRB5CCNAME=FILE:"+cc, "KRB5_CONFIG="+kdc.Krb5Conf())
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("curl %v: %v\n%s", args, err, stderr.String())
		}
		body, code, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
		if i := strings.LastIndexByte(string(out), '\n'); i >= 0 {
			body, code = strings.TrimSpace(string(out[:i])), strings.TrimSpace(string(out[i+1:]))
		}
		return body, code
	}
	conf := `<configuration><property><name>oozie.wf.application.path</name><value>file://` + app + `</value></property>` +
		`<property><name>outDir</name><value>file://` + app + `/made</value></property></configuration>`

	// No credentials: 401 with the Negotiate challenge.
	if body, code := run(url + "/v2/jobs"); code != "401" {
		t.Fatalf("without --negotiate: %s %s", code, body)
	}
	body, code := run("--negotiate", "-u", ":", "-X", "POST", "-H", "Content-Type: application/xml;charset=UTF-8", "--data-binary", conf, url+"/v1/jobs")
	if code != "201" {
		t.Fatalf("submit: %s %s", code, body)
	}
	var sub struct{ ID string }
	if err := json.Unmarshal([]byte(body), &sub); err != nil || sub.ID == "" {
		t.Fatalf("submit answer %q: %v", body, err)
	}
	body, code = run("--negotiate", "-u", ":", url+"/v2/job/"+sub.ID+"?show=info")
	if code != "200" || !strings.Contains(body, `"user":"alice"`) || !strings.Contains(body, `"status":"PREP"`) {
		t.Fatalf("info: %s %s", code, body)
	}
	jarText, _ := os.ReadFile(jar)
	if !strings.Contains(string(jarText), "hadoop.auth") || !strings.Contains(string(jarText), "p=alice@GOZIE.TEST&t=kerberos") {
		t.Fatalf("cookie jar:\n%s", jarText)
	}
	// The cookie alone: no Kerberos this time.
	if body, code = run("-b", jar, "-X", "PUT", url+"/v2/job/"+sub.ID+"?action=kill"); code != "200" {
		t.Fatalf("kill with the cookie: %s %s", code, body)
	}
	body, code = run("--negotiate", "-u", ":", url+"/v2/job/"+sub.ID+"?show=info")
	if code != "200" || !strings.Contains(body, `"status":"KILLED"`) {
		t.Fatalf("info after kill: %s %s", code, body)
	}
}

// TestKerberosCLI: gozie -auth KERBEROS with alice's ticket cache
// (KRB5CCNAME) submits, queries and kills a job; without a ticket it
// says to run kinit.
func TestKerberosCLI(t *testing.T) {
	pinEnv(t)
	url, kdc, cc := kerberizedServer(t)
	_, props := prepApp(t)
	t.Setenv("KRB5CCNAME", "FILE:"+cc)
	gozie := func(args ...string) string {
		t.Helper()
		var stdout, stderr bytes.Buffer
		if code := Main(append(args, "-oozie", url, "-auth", "KERBEROS"), &stdout, &stderr); code != 0 {
			t.Fatalf("gozie %v: exit %d: %s", args, code, stderr.String())
		}
		return stdout.String()
	}
	out := gozie("job", "-config", props, "-submit")
	m := regexp.MustCompile(`^job: (\S+-W)\n$`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("job -submit printed %q", out)
	}
	id := m[1]
	if info := gozie("job", "-info", id); !strings.Contains(info, "User          : alice") || !strings.Contains(info, "Status        : PREP") {
		t.Fatalf("info:\n%s", info)
	}
	gozie("job", "-kill", id)
	if info := gozie("job", "-info", id); !strings.Contains(info, "Status        : KILLED") {
		t.Fatalf("info after kill:\n%s", info)
	}
	// OOZIE_AUTH=KERBEROS works as -auth does.
	t.Setenv("OOZIE_AUTH", "KERBEROS")
	var stdout, stderr bytes.Buffer
	if code := Main([]string{"jobs", "-oozie", url}, &stdout, &stderr); code != 0 || !strings.Contains(stdout.String(), id) {
		t.Fatalf("jobs with OOZIE_AUTH: exit %d %s %s", code, stdout.String(), stderr.String())
	}

	// An expired ticket: gozie says to run kinit, and sends nothing.
	short := kdc.Kinit(t, "alice", "alice-pw", "-l", "2s")
	waitExpired(t, kdc, short)
	t.Setenv("KRB5CCNAME", "FILE:"+short)
	stdout.Reset()
	stderr.Reset()
	if code := Main([]string{"jobs", "-oozie", url, "-auth", "KERBEROS"}, &stdout, &stderr); code == 0 || !strings.Contains(stderr.String(), "ticket-granting ticket expired at") || !strings.Contains(stderr.String(), "run kinit again") {
		t.Fatalf("with an expired ticket: exit %d %s", code, stderr.String())
	}

	t.Setenv("KRB5CCNAME", "FILE:"+filepath.Join(t.TempDir(), "none"))
	stdout.Reset()
	stderr.Reset()
	if code := Main([]string{"jobs", "-oozie", url, "-auth", "KERBEROS"}, &stdout, &stderr); code == 0 || !strings.Contains(stderr.String(), "run kinit first") {
		t.Fatalf("without a ticket cache: exit %d %s", code, stderr.String())
	}
	// A principal whose name is no valid user name: refused, and the
	// reason reaches the user.
	kdc.AddPrincipal("carol+ops", "carol-pw")
	t.Setenv("KRB5CCNAME", "FILE:"+kdc.Kinit(t, "carol+ops", "carol-pw"))
	stdout.Reset()
	stderr.Reset()
	if code := Main([]string{"jobs", "-oozie", url, "-auth", "KERBEROS"}, &stdout, &stderr); code == 0 ||
		!strings.Contains(stderr.String(), "Error: AUTHENTICATION : Authentication failed, URL: "+url) ||
		!strings.Contains(stderr.String(), `status: 401, message: Authentication failed: Kerberos: the auth_to_local rules map carol+ops@GOZIE.TEST to "carol+ops", not a valid user name`) {
		t.Fatalf("invalid user name: exit %d %s", code, stderr.String())
	}

	// SIMPLE against a Kerberos-only server: refused with the reason.
	stdout.Reset()
	stderr.Reset()
	if code := Main([]string{"jobs", "-oozie", url, "-auth", "SIMPLE"}, &stdout, &stderr); code == 0 {
		t.Fatalf("SIMPLE accepted: %s", stdout.String())
	}
}

// TestKerberosJavaGSS: the JDK's GSS-API, driven as hadoop-auth's
// KerberosAuthenticator drives it (testdata/kerberos/SpnegoProbe.java:
// JAAS login from the ticket cache, OPTIONS challenge, SPNEGO with mutual
// authentication, the server's token fed back), establishes the context,
// which proves the server's AP-REP is what Java's Kerberos expects; the
// hadoop.auth cookie then submits, queries and kills a job. (Oozie's own
// client jars are not available to the tests; this is the authenticator
// part of it, on the same JDK classes.)
func TestKerberosJavaGSS(t *testing.T) {
	if testing.Short() {
		t.Skip("java: slow")
	}
	for _, tool := range []string{"javac", "java"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not installed", tool)
		}
	}
	url, kdc, cc := kerberizedServer(t)
	app, _ := prepApp(t)
	classes := t.TempDir()
	src, err := filepath.Abs("testdata/kerberos/SpnegoProbe.java")
	if err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("javac", "-d", classes, src).CombinedOutput(); err != nil {
		t.Fatalf("javac: %v\n%s", err, out)
	}
	java := func(method, path, body string) (string, string) {
		t.Helper()
		args := []string{"-Djava.security.krb5.conf=" + kdc.Krb5Conf(), "-Djavax.security.auth.useSubjectCredsOnly=true",
			"-cp", classes, "SpnegoProbe", cc, "HTTP/127.0.0.1@" + kdc.Realm(), url + path, method}
		if body != "" {
			args = append(args, body)
		}
		out, err := exec.Command("java", args...).CombinedOutput()
		if err != nil {
			t.Fatalf("java SpnegoProbe %s %s: %v\n%s", method, path, err, out)
		}
		head, rest, _ := strings.Cut(string(out), "\n")
		return head, rest
	}
	conf := `<configuration><property><name>oozie.wf.application.path</name><value>file://` + app + `</value></property></configuration>`
	head, body := java("POST", "/v1/jobs", conf)
	if head != "mutual=true status=201" {
		t.Fatalf("submit: %s\n%s", head, body)
	}
	var sub struct{ ID string }
	if err := json.Unmarshal([]byte(body), &sub); err != nil || sub.ID == "" {
		t.Fatalf("submit answer %q: %v", body, err)
	}
	if head, body = java("GET", "/v2/job/"+sub.ID+"?show=info", ""); head != "mutual=true status=200" || !strings.Contains(body, `"user":"alice"`) {
		t.Fatalf("info: %s\n%s", head, body)
	}
	if head, body = java("PUT", "/v2/job/"+sub.ID+"?action=kill", ""); head != "mutual=true status=200" {
		t.Fatalf("kill: %s\n%s", head, body)
	}
}

// waitExpired waits (at most 20 s) until the ticket cache's TGT has
// expired, as klist -s reports it: the KDC's shortest lifetimes are
// seconds, and an expired ticket is what the test needs.
func waitExpired(t *testing.T, kdc *testservers.KDC, ccache string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		cmd := exec.Command("klist", "-s", "-c", "FILE:"+ccache)
		cmd.Env = append(os.Environ(), kdc.Env()...)
		if cmd.Run() != nil {
			return // klist -s fails once no ticket is valid
		}
		if time.Now().After(deadline) {
			t.Fatal("the short ticket did not expire within 20 s")
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// TestKerberosMITGSSAPI: MIT Kerberos's own GSS-API (python-gssapi, the
// library under Hue's requests-kerberos/requests-gssapi clients) with
// mutual authentication required accepts the server's answer token:
// MIT checks the AP-REP, which curl 7.88 does not. It submits, queries
// and kills a job.
func TestKerberosMITGSSAPI(t *testing.T) {
	const python = "/usr/bin/python3" // Debian's, where python3-gssapi installs
	if err := exec.Command(python, "-c", "import gssapi").Run(); err != nil {
		t.Skip("no python3-gssapi (apt-get install python3-gssapi; .ci/run does it as root)")
	}
	url, kdc, cc := kerberizedServer(t)
	app, _ := prepApp(t)
	probe := func(method, path, body string) (string, string) {
		t.Helper()
		args := []string{"testdata/kerberos/spnego_probe.py", url + path, method}
		if body != "" {
			args = append(args, body)
		}
		cmd := exec.Command(python, args...)
		cmd.Env = append(os.Environ(), "KRB5CCNAME=FILE:"+cc, "KRB5_CONFIG="+kdc.Krb5Conf())
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("spnego_probe %s %s: %v\n%s", method, path, err, out)
		}
		head, rest, _ := strings.Cut(string(out), "\n")
		return head, rest
	}
	conf := `<configuration><property><name>oozie.wf.application.path</name><value>file://` + app + `</value></property></configuration>`
	head, body := probe("POST", "/v1/jobs", conf)
	if head != "mutual=True status=201" {
		t.Fatalf("submit: %s\n%s", head, body)
	}
	var sub struct{ ID string }
	if err := json.Unmarshal([]byte(body), &sub); err != nil || sub.ID == "" {
		t.Fatalf("submit answer %q: %v", body, err)
	}
	if head, body = probe("GET", "/v2/job/"+sub.ID+"?show=info", ""); head != "mutual=True status=200" || !strings.Contains(body, `"user":"alice"`) {
		t.Fatalf("info: %s\n%s", head, body)
	}
	if head, body = probe("PUT", "/v2/job/"+sub.ID+"?action=kill", ""); head != "mutual=True status=200" {
		t.Fatalf("kill: %s\n%s", head, body)
	}
}
