package cli

import (
	"bytes"
	"encoding/base64"
	"io"
	"mime"
	"mime/multipart"
	"net/mail"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gozie/gozie/internal/smtptest"
)

// emailExampleSite starts a loopback SMTP server and writes a
// gozie-site.xml pointing the email action at it: the example's own
// gozie-site.xml names a fixed port the test cannot count on.
func emailExampleSite(t *testing.T, o smtptest.Options) (*smtptest.Server, string) {
	t.Helper()
	srv := smtptest.Start(t, o)
	site := filepath.Join(t.TempDir(), "gozie-site.xml")
	xml := `<configuration>
<property><name>oozie.email.smtp.host</name><value>` + srv.Host + `</value></property>
<property><name>oozie.email.smtp.port</name><value>` + srv.Port + `</value></property>
<property><name>oozie.email.from.address</name><value>gozie@example.org</value></property>
</configuration>`
	if err := os.WriteFile(site, []byte(xml), 0o644); err != nil {
		t.Fatal(err)
	}
	return srv, site
}

// TestRunEmailExample runs examples/apps/email with `gozie run -site` and
// checks the message the SMTP server received.
func TestRunEmailExample(t *testing.T) {
	repoRoot(t)
	srv, site := emailExampleSite(t, smtptest.Options{})
	var out, errOut bytes.Buffer
	code := runRun([]string{"-config", "examples/apps/email/job.properties", "-site", site, "-data", t.TempDir()}, &out, &errOut)
	if code != 0 || !strings.Contains(out.String(), "Status : SUCCEEDED") {
		t.Fatalf("exit %d\n%s\n%s", code, out.String(), errOut.String())
	}
	msgs := srv.Messages()
	if len(msgs) != 1 {
		t.Fatalf("%d messages arrived, want 1", len(msgs))
	}
	want := []string{"ops@example.org", "oncall@example.org", "team@example.org", "audit@example.org"}
	if msgs[0].From != "gozie@example.org" || !slices.Equal(msgs[0].To, want) {
		t.Errorf("envelope from %q to %q, want %q", msgs[0].From, msgs[0].To, want)
	}
	m, err := mail.ReadMessage(bytes.NewReader(msgs[0].Data))
	if err != nil {
		t.Fatal(err)
	}
	if s := m.Header.Get("Subject"); !strings.HasPrefix(s, "Workflow email ") || !strings.HasSuffix(s, "-W done") {
		t.Errorf("Subject %q", s)
	}
	if m.Header.Get("Bcc") != "" || !strings.Contains(m.Header.Get("Cc"), "team@example.org") {
		t.Errorf("Cc %q Bcc %q", m.Header.Get("Cc"), m.Header.Get("Bcc"))
	}
	_, params, err := mime.ParseMediaType(m.Header.Get("Content-Type"))
	if err != nil {
		t.Fatal(err)
	}
	mr := multipart.NewReader(m.Body, params["boundary"])
	var attached []byte
	for {
		p, err := mr.NextRawPart()
		if err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		if p.FileName() == "report.txt" {
			if attached, err = io.ReadAll(base64.NewDecoder(base64.StdEncoding, p)); err != nil {
				t.Fatal(err)
			}
		}
	}
	file, err := os.ReadFile("examples/apps/email/report.txt")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(attached, file) {
		t.Errorf("attachment %q, want the file's %q", attached, file)
	}
}

// TestRunEmailRefused: a recipient the mail server refuses fails the
// action (EM007, with the server's reply) and the workflow takes its error
// transition.
func TestRunEmailRefused(t *testing.T) {
	repoRoot(t)
	srv, site := emailExampleSite(t, smtptest.Options{Refuse: map[string]string{"audit@example.org": "mailbox unavailable"}})
	var out, errOut bytes.Buffer
	code := runRun([]string{"-config", "examples/apps/email/job.properties", "-site", site, "-data", t.TempDir()}, &out, &errOut)
	all := out.String() + errOut.String()
	if code == 0 || !strings.Contains(all, "KILLED") || !strings.Contains(all, "EM007") || !strings.Contains(all, "mailbox unavailable") {
		t.Fatalf("exit %d, want a KILLED job naming EM007 and the server's reply:\n%s", code, all)
	}
	if n := len(srv.Messages()); n != 0 {
		t.Fatalf("%d messages delivered", n)
	}
}
