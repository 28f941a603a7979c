package email

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"io"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net"
	"net/mail"
	"os"
	"os/user"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gozie/gozie/internal/action"
	"github.com/gozie/gozie/internal/launch"
	"github.com/gozie/gozie/internal/launch/launchtest"

	"github.com/gozie/gozie/internal/redact"
	"github.com/gozie/gozie/internal/smtptest"
)

const (
	email01 = `xmlns="uri:oozie:email-action:0.1"`
	email02 = `xmlns="uri:oozie:email-action:0.2"`
)

// emailSite is the server configuration pointing the email action at srv.
func emailSite(srv *smtptest.Server, kv ...string) map[string]string {
	site := map[string]string{
		"oozie.email.smtp.host":    srv.Host,
		"oozie.email.smtp.port":    srv.Port,
		"oozie.email.from.address": "gozie@example.org",
	}
	for i := 0; i+1 < len(kv); i += 2 {
		site[kv[i]] = kv[i+1]
	}
	return site
}

// emailAction is the context of an email action with the given body, its
// application in appDir and a work directory of its own.
func emailAction(t testing.TB, appDir, ns, body string) *action.Context {
	return &action.Context{
		JobID: "0000001-000000000000000-oozie-test-W", ActionID: "0000001-000000000000000-oozie-test-W@mail",
		Name: "mail", Type: "email", User: "test", AppPath: appDir,
		Element: launchtest.ActionBody(t, "<email "+ns+">"+body+"</email>"),
		WorkDir: filepath.Join(t.TempDir(), "work"),
	}
}

// parsed is a received message split into its parts.
type parsed struct {
	msg   *mail.Message
	body  string            // the text part, decoded
	ctype string            // the text part's Content-Type
	files map[string][]byte // attachments by file name, decoded
}

func parseMail(t *testing.T, data []byte) parsed {
	t.Helper()
	m, err := mail.ReadMessage(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("not a message: %v\n%s", err, data)
	}
	p := parsed{msg: m, files: map[string][]byte{}}
	media, params, err := mime.ParseMediaType(m.Header.Get("Content-Type"))
	if err != nil {
		t.Fatalf("Content-Type %q: %v", m.Header.Get("Content-Type"), err)
	}
	if media != "multipart/mixed" {
		p.ctype = m.Header.Get("Content-Type")
		// DATA ends the message with a line break of its own.
		p.body = strings.TrimSuffix(decodePart(t, m.Header.Get("Content-Transfer-Encoding"), m.Body), "\r\n")
		return p
	}
	mr := multipart.NewReader(m.Body, params["boundary"])
	for i := 0; ; i++ {
		// NextRawPart: the test decodes the transfer encoding itself, to
		// check that it is the declared one.
		part, err := mr.NextRawPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		content := decodePart(t, part.Header.Get("Content-Transfer-Encoding"), part)
		if i == 0 {
			p.ctype, p.body = part.Header.Get("Content-Type"), content
			continue
		}
		_, dp, err := mime.ParseMediaType(part.Header.Get("Content-Disposition"))
		if err != nil {
			t.Fatalf("Content-Disposition %q: %v", part.Header.Get("Content-Disposition"), err)
		}
		p.files[dp["filename"]] = []byte(content)
	}
	return p
}

func decodePart(t *testing.T, enc string, r io.Reader) string {
	t.Helper()
	var dec io.Reader
	switch strings.ToLower(enc) {
	case "quoted-printable":
		dec = quotedprintable.NewReader(r)
	case "base64":
		dec = base64.NewDecoder(base64.StdEncoding, r)
	default:
		t.Fatalf("unexpected Content-Transfer-Encoding %q", enc)
	}
	b, err := io.ReadAll(dec)
	if err != nil {
		t.Fatalf("decoding %s: %v", enc, err)
	}
	return string(b)
}

func TestEmailSend(t *testing.T) {
	app := t.TempDir()
	launchtest.MkTree(t, app, "out/")
	report := []byte("id,value\n1,2\n")
	binary := make([]byte, 1000)
	for i := range binary {
		binary[i] = byte(i * 7)
	}
	if err := os.WriteFile(filepath.Join(app, "out", "report.csv"), report, 0o644); err != nil {
		t.Fatal(err)
	}
	abs := filepath.Join(t.TempDir(), "data.bin")
	if err := os.WriteFile(abs, binary, 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		ns      string
		body    string
		rcpts   []string          // envelope, in order
		headers map[string]string // "" means absent
		ctype   string
		text    string
		files   map[string][]byte
	}{
		{
			name: "0.1 to cc bcc",
			ns:   email01,
			body: `<to>bob@initech.com, the.other.bob@initech.com</to><cc>will@initech.com</cc><bcc>yet.another.bob@initech.com</bcc>` +
				`<subject>Email notifications for W</subject><body>The wf W successfully completed.</body>`,
			rcpts: []string{"bob@initech.com", "the.other.bob@initech.com", "will@initech.com", "yet.another.bob@initech.com"},
			headers: map[string]string{
				"From": "<gozie@example.org>", "To": "<bob@initech.com>, <the.other.bob@initech.com>",
				"Cc": "<will@initech.com>", "Bcc": "", "Subject": "Email notifications for W", "Mime-Version": "1.0",
			},
			ctype: "text/plain; charset=utf-8",
			text:  "The wf W successfully completed.",
		},
		{
			name:    "0.2 html, names, no cc, duplicate recipient once",
			ns:      email02,
			body:    `<to>Bob Slydell &lt;bob@initech.com&gt;,bob@initech.com</to><subject>Bericht für März</subject><body><![CDATA[<p>done</p>]]></body><content_type>text/html</content_type>`,
			rcpts:   []string{"bob@initech.com"},
			headers: map[string]string{"To": `"Bob Slydell" <bob@initech.com>, <bob@initech.com>`, "Cc": "", "Subject": "Bericht für März"},
			ctype:   "text/html; charset=utf-8",
			text:    "<p>done</p>",
		},
		{
			name:    "long subjects fold",
			ns:      email02,
			body:    "<to>a@x.org</to><subject>" + strings.Repeat("weekly report ", 80) + strings.Repeat("für März ", 80) + "</subject><body>b</body>",
			rcpts:   []string{"a@x.org"},
			headers: map[string]string{"Subject": strings.TrimSpace(strings.Repeat("weekly report ", 80) + strings.Repeat("für März ", 80))},
			ctype:   "text/plain; charset=utf-8",
			text:    "b",
		},
		{
			name: "0.2 long body with line breaks",
			ns:   email02,
			body: "<to>a@x.org</to><subject>s</subject><body>line one\nline two " + strings.Repeat("é", 100) + "</body>" +
				"<content_type>text/plain; charset=UTF-8</content_type>",
			rcpts: []string{"a@x.org"},
			ctype: "text/plain; charset=UTF-8",
			text:  "line one\r\nline two " + strings.Repeat("é", 100),
		},
		{
			name: "0.2 attachments relative and file://",
			ns:   email02,
			body: `<to>a@x.org</to><subject>files</subject><body>see attached</body>` +
				`<attachment>out/report.csv, file://` + abs + `</attachment>`,
			rcpts: []string{"a@x.org"},
			ctype: "text/plain; charset=utf-8",
			text:  "see attached",
			files: map[string][]byte{"report.csv": report, "data.bin": binary},
		},
	}
	srv := smtptest.Start(t, smtptest.Options{})
	e := NewEmail(launch.Options{Site: emailSite(srv)})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := len(srv.Messages())
			a := emailAction(t, app, tt.ns, tt.body)
			res, err := e.Start(context.Background(), a)
			if err != nil {
				t.Fatalf("Start: %v", err)
			}
			if !res.Done || res.Status != action.OK || res.ExternalID == "" {
				t.Fatalf("result %+v", res)
			}
			msgs := srv.Messages()
			if len(msgs) != before+1 {
				t.Fatalf("%d messages arrived, want 1", len(msgs)-before)
			}
			got := msgs[len(msgs)-1]
			if got.From != "gozie@example.org" || !slices.Equal(got.To, tt.rcpts) {
				t.Errorf("envelope from %q to %q, want gozie@example.org to %q", got.From, got.To, tt.rcpts)
			}
			p := parseMail(t, got.Data)
			dec := new(mime.WordDecoder)
			for h, want := range tt.headers {
				v, err := dec.DecodeHeader(p.msg.Header.Get(h))
				if err != nil {
					t.Fatal(err)
				}
				if _, ok := p.msg.Header[h]; want == "" && ok || v != want {
					t.Errorf("header %s = %q (present %v), want %q", h, v, ok, want)
				}
			}
			if p.msg.Header.Get("Message-Id") == "" || p.msg.Header.Get("Date") == "" {
				t.Errorf("no Message-ID or Date: %v", p.msg.Header)
			}
			if p.ctype != tt.ctype || p.body != tt.text {
				t.Errorf("body %q of type %q, want %q of type %q", p.body, p.ctype, tt.text, tt.ctype)
			}
			if len(p.files) != len(tt.files) {
				t.Errorf("attachments %v, want %d", keys(p.files), len(tt.files))
			}
			for name, want := range tt.files {
				if !bytes.Equal(p.files[name], want) {
					t.Errorf("attachment %s: %d bytes differ from the file's %d", name, len(p.files[name]), len(want))
				}
			}
			for _, line := range bytes.Split(got.Data, []byte("\r\n")) {
				if len(line) > 998 {
					t.Errorf("line of %d bytes", len(line))
				}
			}
		})
	}
}

func keys(m map[string][]byte) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// TestEmailErrors: every refusal is an error of the action (its error
// transition) with Oozie's code, and what the mail server said.
func TestEmailErrors(t *testing.T) {
	app := t.TempDir()
	big := filepath.Join(app, "big.bin")
	if err := os.WriteFile(big, make([]byte, 2048), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := smtptest.Start(t, smtptest.Options{Refuse: map[string]string{"nobody@initech.com": "no such mailbox here"}})
	authSrv := smtptest.Start(t, smtptest.Options{User: "oozie", Password: "s3cret"})
	// A port nothing listens on: listen, then close.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	_, closedPort, _ := net.SplitHostPort(l.Addr().String())
	l.Close()

	ok := `<subject>s</subject><body>b</body>`
	tests := []struct {
		name string
		site map[string]string
		body string
		code string
		msg  []string // substrings of the message
	}{
		{"empty to", emailSite(srv), `<to> , </to>` + ok, CodeEmailNoTo, []string{"<to>"}},
		{"bad to", emailSite(srv), `<to>a@x.org,not an address</to>` + ok, CodeEmailBadAddress, []string{"[not an address]", "<to>"}},
		{"bad bcc", emailSite(srv), `<to>a@x.org</to><bcc>b@@x</bcc>` + ok, CodeEmailBadAddress, []string{"<bcc>"}},
		{"bad from", emailSite(srv, "oozie.email.from.address", "oozie at localhost"), `<to>a@x.org</to>` + ok, CodeEmailBadFrom, []string{"oozie.email.from.address"}},
		{"bad content type", emailSite(srv), `<to>a@x.org</to>` + ok + `<content_type>html</content_type>`, CodeEmailMessage, []string{"[html]"}},
		{"refused recipient", emailSite(srv), `<to>a@x.org</to><cc>nobody@initech.com</cc>` + ok, CodeEmailSend,
			[]string{"<nobody@initech.com>", "550", "no such mailbox here"}},
		{"connection refused", emailSite(srv, "oozie.email.smtp.port", closedPort), `<to>a@x.org</to>` + ok, CodeEmailSend,
			[]string{"cannot connect", "127.0.0.1:" + closedPort, "refused"}},
		{"bad port", emailSite(srv, "oozie.email.smtp.port", "smtp"), `<to>a@x.org</to>` + ok, CodeEmailTransport, []string{"oozie.email.smtp.port"}},
		{"auth required, not configured", emailSite(authSrv), `<to>a@x.org</to>` + ok, CodeEmailSend, []string{"sender <gozie@example.org> refused", "authenticate"}},
		{"wrong password", emailSite(authSrv, "oozie.email.smtp.auth", "true", "oozie.email.smtp.username", "oozie", "oozie.email.smtp.password", "wrong-pw"),
			`<to>a@x.org</to>` + ok, CodeEmailSend, []string{"authentication as [oozie]", "535"}},
		{"starttls required, not offered", emailSite(srv, "gozie.email.smtp.starttls.required", "true"), `<to>a@x.org</to>` + ok, CodeEmailSend,
			[]string{"does not offer STARTTLS"}},
		{"hdfs attachment", emailSite(srv), `<to>a@x.org</to>` + ok + `<attachment>hdfs://nn:8020/user/x/f.csv</attachment>`, CodeEmailAttachment,
			[]string{"hdfs://nn:8020/user/x/f.csv", "gozie.fs.mount."}},
		{"missing attachment", emailSite(srv), `<to>a@x.org</to>` + ok + `<attachment>nothere.csv</attachment>`, CodeEmailAttachment,
			[]string{"[nothere.csv]", "no such file"}},
		{"directory attachment", emailSite(srv), `<to>a@x.org</to>` + ok + `<attachment>` + app + `</attachment>`, CodeEmailAttachment,
			[]string{"directory"}},
		{"attachments too large", emailSite(srv, "gozie.email.attachment.max.bytes", "3000"), `<to>a@x.org</to>` + ok + `<attachment>big.bin,big.bin</attachment>`,
			CodeEmailAttachment, []string{"gozie.email.attachment.max.bytes=3000"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := len(srv.Messages()) + len(authSrv.Messages())
			_, err := NewEmail(launch.Options{Site: tt.site}).Start(context.Background(), emailAction(t, app, email02, tt.body))
			var xe *action.ExecError
			if !errors.As(err, &xe) {
				t.Fatalf("error %v, want an ExecError %s", err, tt.code)
			}
			if xe.Code != tt.code || xe.Kind != action.ErrorKindError {
				t.Errorf("code %s kind %v, want %s and an error of the action: %v", xe.Code, xe.Kind, tt.code, xe)
			}
			for _, s := range tt.msg {
				if !strings.Contains(xe.Msg, s) {
					t.Errorf("message %q lacks %q", xe.Msg, s)
				}
			}
			if strings.Contains(xe.Msg, "wrong-pw") {
				t.Errorf("message shows the password: %q", xe.Msg)
			}
			if n := len(srv.Messages()) + len(authSrv.Messages()); n != before {
				t.Errorf("%d messages were delivered", n-before)
			}
		})
	}
}

// TestEmailTLSAndAuth: AUTH PLAIN after STARTTLS and over implicit TLS,
// the server's certificate checked against gozie.email.smtp.tls.ca; and
// in clear on loopback, where a password may go unencrypted.
func TestEmailTLSAndAuth(t *testing.T) {
	serverTLS, ca := smtptest.SelfSigned(t)
	auth := []string{"oozie.email.smtp.auth", "true", "oozie.email.smtp.username", "oozie", "oozie.email.smtp.password", "p w!"}
	tests := []struct {
		name    string
		opts    smtptest.Options
		site    []string
		wantTLS bool
	}{
		{"starttls", smtptest.Options{TLS: serverTLS}, []string{"oozie.email.smtp.starttls.enable", "true", "gozie.email.smtp.tls.ca", ca}, true},
		{"starttls required", smtptest.Options{TLS: serverTLS}, []string{"gozie.email.smtp.starttls.required", "true", "gozie.email.smtp.tls.ca", ca}, true},
		{"implicit tls", smtptest.Options{TLS: serverTLS, Implicit: true}, []string{"gozie.email.smtp.ssl.enable", "true", "gozie.email.smtp.tls.ca", ca}, true},
		{"clear on loopback", smtptest.Options{}, nil, false},
		{"login only", smtptest.Options{Mechanisms: []string{"LOGIN"}}, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.opts.User, tt.opts.Password = "oozie", "p w!"
			srv := smtptest.Start(t, tt.opts)
			site := emailSite(srv, append(tt.site, auth...)...)
			a := emailAction(t, t.TempDir(), email02, `<to>a@x.org</to><subject>s</subject><body>b</body>`)
			if _, err := NewEmail(launch.Options{Site: site}).Start(context.Background(), a); err != nil {
				t.Fatalf("Start: %v", err)
			}
			msgs := srv.Messages()
			if len(msgs) != 1 || msgs[0].AuthUser != "oozie" || msgs[0].TLS != tt.wantTLS {
				t.Fatalf("messages %+v, want one sent as oozie with TLS %v", msgs, tt.wantTLS)
			}
		})
	}
	t.Run("untrusted certificate", func(t *testing.T) {
		srv := smtptest.Start(t, smtptest.Options{TLS: serverTLS})
		a := emailAction(t, t.TempDir(), email02, `<to>a@x.org</to><subject>s</subject><body>b</body>`)
		_, err := NewEmail(launch.Options{Site: emailSite(srv, "oozie.email.smtp.starttls.enable", "true")}).Start(context.Background(), a)
		var xe *action.ExecError
		if !errors.As(err, &xe) || xe.Code != CodeEmailSend || !strings.Contains(xe.Msg, "STARTTLS") || !strings.Contains(xe.Msg, "certificate") {
			t.Fatalf("error %v, want EM007 naming STARTTLS and the certificate", err)
		}
		if len(srv.Messages()) != 0 {
			t.Fatal("a message was delivered")
		}
	})
}

// TestEmailSilentServer: a server that accepts the connection and never
// answers holds the action for oozie.email.smtp.socket.timeout.ms only;
// a server stopping (the context cancelled) makes the error transient, so
// that the action runs again after the restart.
func TestEmailSilentServer(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	accepted := make(chan net.Conn, 4)
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			accepted <- c
		}
	}()
	t.Cleanup(func() {
		l.Close()
		close(accepted)
		for c := range accepted {
			c.Close()
		}
	})
	host, port, _ := net.SplitHostPort(l.Addr().String())
	site := map[string]string{"oozie.email.smtp.host": host, "oozie.email.smtp.port": port, "oozie.email.smtp.socket.timeout.ms": "300"}
	body := `<to>a@x.org</to><subject>s</subject><body>b</body>`

	start := time.Now()
	_, err = NewEmail(launch.Options{Site: site}).Start(context.Background(), emailAction(t, t.TempDir(), email02, body))
	var xe *action.ExecError
	if !errors.As(err, &xe) || xe.Code != CodeEmailSend || xe.Kind != action.ErrorKindError || !strings.Contains(xe.Msg, "timeout") {
		t.Fatalf("error %v, want EM007 naming the timeout", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("took %v with a 300 ms timeout", d)
	}

	site["oozie.email.smtp.socket.timeout.ms"] = "60000"
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		// Stop once the executor is connected and waiting.
		if c, ok := <-accepted; ok {
			accepted <- c
			cancel()
		}
	}()
	a := emailAction(t, t.TempDir(), email02, body)
	_, err = NewEmail(launch.Options{Site: site}).Start(ctx, a)
	if !errors.As(err, &xe) || xe.Kind != action.Transient {
		t.Fatalf("error %v, want a transient one", err)
	}
	if _, ok := readEmailOutcome(a.WorkDir); ok {
		t.Fatal("an interrupted send was recorded: it would not run again")
	}
}

// TestEmailAttachmentsDisabled: with oozie.email.attachment.enabled=false
// the message goes out without the files and says so.
func TestEmailAttachmentsDisabled(t *testing.T) {
	srv := smtptest.Start(t, smtptest.Options{})
	a := emailAction(t, t.TempDir(), email02, `<to>a@x.org</to><subject>s</subject><body>b</body><attachment>/etc/hostname,hdfs://nn/x</attachment>`)
	if _, err := NewEmail(launch.Options{Site: emailSite(srv, "oozie.email.attachment.enabled", "false")}).Start(context.Background(), a); err != nil {
		t.Fatal(err)
	}
	msgs := srv.Messages()
	if len(msgs) != 1 {
		t.Fatalf("%d messages", len(msgs))
	}
	p := parseMail(t, msgs[0].Data)
	if len(p.files) != 0 || !strings.HasPrefix(p.body, "b\r\n") || !strings.Contains(p.body, "oozie.email.attachment.enabled=false") {
		t.Fatalf("body %q, files %v", p.body, keys(p.files))
	}
}

// TestEmailStartOnce: Start again for the same attempt (a server restart
// before the engine recorded the end) reports the recorded outcome and
// sends nothing; a new attempt (another work directory) sends again.
func TestEmailStartOnce(t *testing.T) {
	srv := smtptest.Start(t, smtptest.Options{Refuse: map[string]string{"no@x.org": "gone"}})
	e := NewEmail(launch.Options{Site: emailSite(srv)})
	a := emailAction(t, t.TempDir(), email02, `<to>a@x.org</to><subject>s</subject><body>b</body>`)
	for i := 0; i < 2; i++ {
		res, err := e.Start(context.Background(), a)
		if err != nil || !res.Done || res.Status != action.OK {
			t.Fatalf("Start %d: %+v %v", i, res, err)
		}
	}
	if res, err := e.Check(context.Background(), a, "x"); err != nil || !res.Done || res.Status != action.OK {
		t.Fatalf("Check: %+v %v", res, err)
	}
	if n := len(srv.Messages()); n != 1 {
		t.Fatalf("%d messages sent, want 1", n)
	}
	a.WorkDir = filepath.Join(t.TempDir(), "attempt1")
	if _, err := e.Start(context.Background(), a); err != nil {
		t.Fatal(err)
	}
	if n := len(srv.Messages()); n != 2 {
		t.Fatalf("%d messages after a new attempt, want 2", n)
	}

	bad := emailAction(t, t.TempDir(), email02, `<to>no@x.org</to><subject>s</subject><body>b</body>`)
	_, err1 := e.Start(context.Background(), bad)
	srv2 := smtptest.Start(t, smtptest.Options{}) // would accept it now
	_, err2 := NewEmail(launch.Options{Site: emailSite(srv2)}).Start(context.Background(), bad)
	if err1 == nil || err2 == nil || err1.Error() != err2.Error() || len(srv2.Messages()) != 0 {
		t.Fatalf("recorded failure not reported again: %v / %v, %d sent", err1, err2, len(srv2.Messages()))
	}
}

// TestEmailRunAsUser: when programs run as the job's user, an attachment
// must be readable by that user, not just by the server (root).
func TestEmailRunAsUser(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to own files the job's user cannot read")
	}
	if _, err := user.Lookup("nobody"); err != nil {
		t.Skip("no user nobody")
	}
	dir := t.TempDir()
	// t.TempDir makes its directories 0700: open them to the user.
	for _, d := range []string{dir, filepath.Dir(dir)} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	secret, public := filepath.Join(dir, "secret"), filepath.Join(dir, "public")
	if err := os.WriteFile(secret, []byte("root only"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(public, []byte("anyone"), 0o644); err != nil {
		t.Fatal(err)
	}
	for p := filepath.Dir(dir); ; p = filepath.Dir(p) {
		if fi, err := os.Stat(p); err != nil || fi.Mode().Perm()&0o001 == 0 {
			t.Skipf("%s is not searchable by others", p)
		}
		if p == filepath.Dir(p) {
			break
		}
	}
	srv := smtptest.Start(t, smtptest.Options{})
	e := NewEmail(launch.Options{Site: emailSite(srv), RunAsUser: true})
	a := emailAction(t, dir, email02, `<to>a@x.org</to><subject>s</subject><body>b</body><attachment>`+public+`</attachment>`)
	a.User = "nobody"
	if _, err := e.Start(context.Background(), a); err != nil {
		t.Fatalf("readable attachment: %v", err)
	}
	a = emailAction(t, dir, email02, `<to>a@x.org</to><subject>s</subject><body>b</body><attachment>`+secret+`</attachment>`)
	a.User = "nobody"
	_, err := e.Start(context.Background(), a)
	var xe *action.ExecError
	if !errors.As(err, &xe) || xe.Code != CodeEmailAttachment || !strings.Contains(xe.Msg, "permission denied") {
		t.Fatalf("error %v, want EM008 saying nobody may not read it (permission denied)", err)
	}
	if n := len(srv.Messages()); n != 1 {
		t.Fatalf("%d messages, want 1", n)
	}
}

func TestEmailRegistered(t *testing.T) {
	r := action.NewRegistry()
	launch.RegisterBuiltins(r, launch.Options{})
	if _, ok := r.Lookup("email"); !ok {
		t.Fatalf("email not registered: %v", r.Types())
	}
	var names []string
	for _, k := range action.SiteKeys() {
		names = append(names, k.Name)
	}
	for _, k := range []string{"oozie.email.smtp.host", "oozie.email.smtp.port", "oozie.email.from.address", "oozie.email.smtp.auth",
		"oozie.email.smtp.username", "oozie.email.smtp.password", "oozie.email.smtp.starttls.enable",
		"oozie.email.smtp.socket.timeout.ms", "oozie.email.attachment.enabled"} {
		if !slices.Contains(names, k) {
			t.Errorf("server key %s not declared", k)
		}
	}
	// admin/configuration and admin/os-env mask what redact calls secret.
	for _, k := range []string{"oozie.email.smtp.password", "GOZIE_OOZIE_EMAIL_SMTP_PASSWORD"} {
		if !redact.SecretName(k) {
			t.Errorf("%s would be shown by admin/configuration", k)
		}
	}
}
