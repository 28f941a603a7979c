// Package email is the email action: a synchronous send through SMTP,
// with an outcome file so that a repeated Start reports instead of
// sending again.
package email

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net"
	"net/mail"
	"net/smtp"
	"net/textproto"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gozie/gozie/internal/action"
	"github.com/gozie/gozie/internal/launch"

	"github.com/gozie/gozie/internal/fsys"
	"github.com/gozie/gozie/internal/osuser"
	"github.com/gozie/gozie/internal/vocab"
	"github.com/gozie/gozie/internal/workflow"
)

// The email action (uri:oozie:email-action:0.1 and 0.2) sends one message
// over SMTP from inside Start: it is synchronous, like Oozie's, so the
// workflow moves on only once the mail server has accepted the message.
//
// Error codes are Oozie's (EmailActionExecutor). Every one makes the
// action take its error transition, as in Oozie: retrying a refused
// recipient or a wrong password does not help, and a user who wants
// retries for an unreachable mail server sets retry-max on the action.
const (
	// CodeEmailNoTo: <to> names no address.
	CodeEmailNoTo = "EM001"
	// CodeEmailBadFrom: oozie.email.from.address is not an address.
	CodeEmailBadFrom = "EM002"
	// CodeEmailBadAddress: an address of <to>, <cc> or <bcc> is malformed.
	CodeEmailBadAddress = "EM004"
	// CodeEmailMessage: the message cannot be built (a malformed
	// <content_type>).
	CodeEmailMessage = "EM005"
	// CodeEmailTransport: the server's SMTP settings are unusable (a port
	// that is not a number, an unreadable CA file). Oozie uses the code
	// when Java finds no SMTP transport, the nearest equivalent.
	CodeEmailTransport = "EM006"
	// CodeEmailSend: the SMTP conversation failed: no connection, TLS or
	// authentication refused, a recipient or the message refused; the
	// message carries the server's reply.
	CodeEmailSend = "EM007"
	// CodeEmailAttachment: an <attachment> cannot be read.
	CodeEmailAttachment = "EM008"
)

// Server keys of the email action. The oozie.* names are Oozie's own, so
// the mail settings of an existing oozie-site.xml carry over unchanged.
var (
	emailHost = action.DeclareSiteKey("oozie.email.smtp.host", "localhost",
		"host of the SMTP server the email action sends through")
	emailPort = action.DeclareSiteKey("oozie.email.smtp.port", "25",
		"port of the SMTP server (25; 587 for submission with STARTTLS; 465 with gozie.email.smtp.ssl.enable)")
	emailFrom = action.DeclareSiteKey("oozie.email.from.address", "oozie@localhost",
		"sender of every email action's message (From header and envelope)")
	emailAuth = action.DeclareSiteKey("oozie.email.smtp.auth", "false",
		"authenticate to the SMTP server (AUTH PLAIN, or LOGIN when that is all it offers) with oozie.email.smtp.username and oozie.email.smtp.password; refused over an unencrypted connection except to a loopback address")
	emailUser = action.DeclareSiteKey("oozie.email.smtp.username", "",
		"user name for oozie.email.smtp.auth")
	emailPassword = action.DeclareSiteKey("oozie.email.smtp.password", "",
		"password for oozie.email.smtp.auth (never shown by admin/configuration nor written to a log)")
	emailStartTLS = action.DeclareSiteKey("oozie.email.smtp.starttls.enable", "false",
		"upgrade the connection with STARTTLS when the server offers it (JavaMail's meaning); see gozie.email.smtp.starttls.required")
	emailStartTLSRequired = action.DeclareSiteKey("gozie.email.smtp.starttls.required", "false",
		"fail the action (EM007) instead of sending in clear when the server does not offer STARTTLS")
	emailSSL = action.DeclareSiteKey("gozie.email.smtp.ssl.enable", "false",
		"connect with TLS from the first byte (SMTPS, usually port 465) instead of plain SMTP")
	emailCA = action.DeclareSiteKey("gozie.email.smtp.tls.ca", "",
		"PEM file of certificate authorities trusted for the SMTP server's certificate, in addition to the system's")
	emailTimeout = action.DeclareSiteKey("oozie.email.smtp.socket.timeout.ms", "10000",
		"timeout of connecting to the SMTP server and of each read or write on the connection, in milliseconds")
	emailAttachEnabled = action.DeclareSiteKey("oozie.email.attachment.enabled", "true",
		"attach the files named by <attachment>; false sends the message without them and with a note saying so appended to the body")
	emailAttachMax = action.DeclareSiteKey("gozie.email.attachment.max.bytes", "10485760",
		"largest total size of the attachments of one message, in bytes (EM008 above it); 0: no limit")
)

// emailDefaultContentType is used when <content_type> is absent (and
// always with email-action:0.1, which has no such element).
const emailDefaultContentType = "text/plain"

// emailAttachmentsOff is appended to the body when attachments are
// disabled on the server, so that a recipient knows files are missing.
const emailAttachmentsOff = "\n\n[gozie: the files named in this email action's <attachment> were not attached: the server has attachments disabled (oozie.email.attachment.enabled=false).]"

// emailResultFile records, in the action's work directory, the outcome of
// the send, so that Start called again for the same attempt after a
// server restart reports it instead of sending the message a second time.
const emailResultFile = "email-result.json"

func init() {
	launch.Register("email", func(l *launch.Runtime) action.Executor { return emailExecutor{opts: l.Opts} })
}

// emailExecutor sends the message of an email action.
type emailExecutor struct{ opts launch.Options }

// NewEmail returns the executor of the email action for the server
// configuration in opts.Site.
func NewEmail(opts launch.Options) action.Executor { return emailExecutor{opts: opts} }

// emailOutcome is what emailResultFile holds: no code means sent.
type emailOutcome struct {
	Code      string           `json:"code,omitempty"`
	Msg       string           `json:"msg,omitempty"`
	Kind      action.ErrorKind `json:"kind,omitempty"`
	MessageID string           `json:"messageId,omitempty"`
}

// Start builds and sends the message and returns Done. A message whose
// outcome was recorded for this attempt is not sent again. The guarantee
// is at-least-once: a crash after the mail server accepted the message
// and before the outcome file is written sends it again on recovery.
func (e emailExecutor) Start(ctx context.Context, a *action.Context) (action.Result, error) {
	res := action.Result{ExternalID: "-", ExternalStatus: "OK", Done: true, Status: action.OK} // "-" as Oozie's synchronous actions: no external job
	if res.ExternalID == "" {
		res.ExternalID = "-"
	}
	if out, ok := readEmailOutcome(a.WorkDir); ok {
		return emailReport(res, out)
	}
	id, err := e.send(ctx, a)
	out := emailOutcome{MessageID: id}
	if err != nil {
		xe := vocab.Classified(err) // only an executor's verdict, not any coded error
		if xe == nil {
			xe = &action.ExecError{Kind: action.ErrorKindError, Code: CodeEmailSend, Msg: err.Error(), Err: err}
		}
		if xe.Kind == action.Transient {
			// Nothing was sent (the server is stopping): run again.
			return action.Result{ExternalID: res.ExternalID}, xe
		}
		out.Code, out.Msg, out.Kind = xe.Code, xe.Msg, xe.Kind
	}
	writeEmailOutcome(a.WorkDir, out)
	return emailReport(res, out)
}

// Check reports the outcome Start recorded: nothing runs after Start.
func (e emailExecutor) Check(_ context.Context, a *action.Context, externalID string) (action.Result, error) {
	res := action.Result{ExternalID: externalID, ExternalStatus: "OK", Done: true, Status: action.OK}
	if out, ok := readEmailOutcome(a.WorkDir); ok {
		return emailReport(res, out)
	}
	return res, nil
}

// Kill does nothing: the message went out (or not) inside Start.
func (emailExecutor) Kill(context.Context, *action.Context, string) error { return nil }

func emailReport(res action.Result, out emailOutcome) (action.Result, error) {
	if out.Code == "" {
		return res, nil
	}
	return action.Result{ExternalID: res.ExternalID}, &action.ExecError{Kind: out.Kind, Code: out.Code, Msg: out.Msg}
}

func readEmailOutcome(dir string) (emailOutcome, bool) {
	var out emailOutcome
	if dir == "" {
		return out, false
	}
	b, err := os.ReadFile(filepath.Join(dir, emailResultFile))
	if err != nil || json.Unmarshal(b, &out) != nil {
		return out, false
	}
	return out, true
}

// writeEmailOutcome records the outcome; failing to record it only loses
// the protection against a second send after a crash, so it is not an
// error of the action (the message has been sent by then).
func writeEmailOutcome(dir string, out emailOutcome) {
	if dir == "" {
		return
	}
	b, err := json.Marshal(out)
	if err != nil || os.MkdirAll(dir, 0o755) != nil {
		return
	}
	_ = launch.WriteFileAtomic(filepath.Join(dir, emailResultFile), b)
}

// conf returns a server key, its declared default when unset or blank
// (an embedder may pass a Site without the defaults LoadConfig adds).
func (e emailExecutor) conf(key string) string {
	if v := e.opts.Setting(key); v != "" {
		return v
	}
	for _, k := range action.SiteKeys() {
		if k.Name == key {
			return k.Default
		}
	}
	return ""
}

// flag reads a boolean key as Hadoop's Configuration.getBoolean does:
// true or false in any case, anything else the default.
func (e emailExecutor) flag(key string) bool {
	switch strings.ToLower(e.conf(key)) {
	case "true":
		return true
	case "false":
		return false
	}
	for _, k := range action.SiteKeys() {
		if k.Name == key {
			return k.Default == "true"
		}
	}
	return false
}

// emailMessage is an email action's body, parsed and checked.
type emailMessage struct {
	from        *mail.Address
	to, cc, bcc []*mail.Address
	subject     string
	body        string
	contentType string // with parameters, charset added for text
	attachments []string
}

// send builds the message from the action body and delivers it; it
// returns the Message-ID.
func (e emailExecutor) send(ctx context.Context, a *action.Context) (string, error) {
	m, err := e.parse(a.Element)
	if err != nil {
		return "", err
	}
	var files []emailFile
	if len(m.attachments) > 0 {
		if e.flag(emailAttachEnabled) {
			if files, err = e.readAttachments(ctx, a, m.attachments); err != nil {
				return "", err
			}
		} else {
			m.body += emailAttachmentsOff
		}
	}
	s, err := e.smtpSettings()
	if err != nil {
		return "", err
	}
	id := messageID(m.from.Address)
	data, err := m.render(id, files, time.Now())
	if err != nil {
		return "", err
	}
	var rcpts []string
	for _, l := range [][]*mail.Address{m.to, m.cc, m.bcc} {
		for _, r := range l {
			if !slices.Contains(rcpts, r.Address) {
				rcpts = append(rcpts, r.Address)
			}
		}
	}
	return id, deliver(ctx, s, m.from.Address, rcpts, data)
}

// parse reads the action body. The schema has already required <to>,
// <subject> and <body>; their text is trimmed, as Oozie does.
func (e emailExecutor) parse(el *workflow.Element) (*emailMessage, error) {
	if el == nil {
		return nil, action.Errorf(action.ErrorKindError, launch.CodeSchema, "email action without body")
	}
	m := &emailMessage{
		subject: el.ChildText("subject"),
		body:    el.ChildText("body"),
	}
	from, err := mail.ParseAddress(e.conf(emailFrom))
	if err != nil {
		return nil, action.Errorf(action.ErrorKindError, CodeEmailBadFrom, "bad from address [%s] in oozie.email.from.address: %v", e.conf(emailFrom), err)
	}
	m.from = from
	for _, f := range []struct {
		name string
		dst  *[]*mail.Address
	}{{"to", &m.to}, {"cc", &m.cc}, {"bcc", &m.bcc}} {
		for _, s := range strings.Split(el.ChildText(f.name), ",") {
			if s = strings.TrimSpace(s); s == "" {
				continue // "a@x," and an empty <cc/> name no one
			}
			addr, err := mail.ParseAddress(s)
			if err != nil {
				return nil, action.Errorf(action.ErrorKindError, CodeEmailBadAddress, "bad address [%s] in <%s>: %v", s, f.name, err)
			}
			*f.dst = append(*f.dst, addr)
		}
	}
	if len(m.to) == 0 {
		return nil, action.Errorf(action.ErrorKindError, CodeEmailNoTo, "no recipients were specified in <to>")
	}
	ct := el.ChildText("content_type")
	if ct == "" {
		ct = emailDefaultContentType
	}
	media, params, err := mime.ParseMediaType(ct)
	if err != nil || !strings.Contains(media, "/") {
		return nil, action.Errorf(action.ErrorKindError, CodeEmailMessage, "bad <content_type> [%s]: want type/subtype such as text/plain or text/html", ct)
	}
	if strings.HasPrefix(media, "text/") && params["charset"] == "" {
		// The body is the workflow's text, which is UTF-8.
		params["charset"] = "utf-8"
	}
	m.contentType = mime.FormatMediaType(media, params)
	for _, p := range strings.Split(el.ChildText("attachment"), ",") {
		if p = strings.TrimSpace(p); p != "" {
			m.attachments = append(m.attachments, p)
		}
	}
	return m, nil
}

// emailFile is one attachment read into memory.
type emailFile struct {
	name string
	data []byte
}

// readAttachments reads the files of <attachment>: plain paths and
// file:// URIs, relative ones against the application directory (Oozie
// resolves them against the default file system, which for gozie is the
// local one). Their total size is bounded by gozie.email.attachment.max.bytes.
// When programs run as the job's user, that user must be able to read
// the file: the server reads it, and must not hand out what the user
// could not read.
func (e emailExecutor) readAttachments(ctx context.Context, a *action.Context, paths []string) ([]emailFile, error) {
	total, err := strconv.ParseInt(e.conf(emailAttachMax), 10, 64)
	used := int64(0)
	if err != nil {
		return nil, action.Errorf(action.ErrorKindError, CodeEmailTransport, "%s: [%s] is not a number", emailAttachMax, e.conf(emailAttachMax))
	}
	runAs, err := launch.RunAsIf(e.opts, a.User)
	if err != nil {
		return nil, err
	}
	// The files are opened with the job user's permission checks: the
	// server must not mail out what the user could not read.
	ctx = launch.FilesContext(osuser.NewContext(ctx, runAs), a)
	var appDir string
	var files []emailFile
	for _, p := range paths {
		local := p
		if fsys.Scheme(p) == "file" {
			if local, err = fsys.Local(p); err != nil {
				return nil, action.Errorf(action.ErrorKindError, CodeEmailAttachment, "cannot attach [%s]: %v", p, err)
			}
		} else if fsys.Scheme(p) != "" {
			if _, err := fsys.Default().Resolve(ctx, p); err != nil {
				return nil, action.Errorf(action.ErrorKindError, CodeEmailAttachment, "cannot attach [%s]: %v", p, err)
			}
		}
		if fsys.Scheme(local) == "" && !filepath.IsAbs(local) {
			if appDir == "" {
				if appDir, err = launch.AppDirOf(a.AppPath); err != nil || appDir == "" {
					return nil, action.Errorf(action.ErrorKindError, CodeEmailAttachment, "cannot attach [%s]: a relative path needs the application directory", p)
				}
			}
			if fsys.Scheme(appDir) != "" {
				local = strings.TrimSuffix(appDir, "/") + "/" + local
			} else {
				local = filepath.Join(appDir, local)
			}
		}
		// A limit of one byte more than what is left lets an empty file
		// through when the budget is spent, and a bigger one is refused
		// below without reading it whole.
		limit := int64(0) // no limit
		if total > 0 {
			limit = max(total-used, 1)
		}
		data, err := fsys.ReadFileLimit(ctx, local, limit)
		if err != nil {
			if ctx.Err() != nil {
				return nil, action.Errorf(action.Transient, CodeEmailAttachment, "reading [%s]: %v", p, ctx.Err())
			}
			if !errors.Is(err, fsys.ErrTooLarge) {
				return nil, action.Errorf(action.ErrorKindError, CodeEmailAttachment, "cannot attach [%s]: %v", p, err)
			}
		}
		if err != nil || total > 0 && used+int64(len(data)) > total {
			return nil, action.Errorf(action.ErrorKindError, CodeEmailAttachment, "cannot attach [%s]: the attachments exceed %s=%d bytes", p, emailAttachMax, total)
		}
		used += int64(len(data))
		files = append(files, emailFile{name: filepath.Base(local), data: data})
	}
	return files, nil
}

// messageID makes a unique Message-ID in the sender's domain.
func messageID(from string) string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	domain := "localhost"
	if i := strings.LastIndexByte(from, '@'); i >= 0 && i < len(from)-1 {
		domain = from[i+1:]
	}
	return "<" + hex.EncodeToString(b[:]) + ".gozie@" + domain + ">"
}

// render writes the message in RFC 5322 / MIME form with CRLF line ends:
// the body quoted-printable in its content type, and with attachments a
// multipart/mixed message whose files are base64. Bcc addresses are in
// the envelope only.
func (m *emailMessage) render(id string, files []emailFile, now time.Time) ([]byte, error) {
	var buf bytes.Buffer
	header := func(name, value string) { buf.WriteString(name + ": " + value + "\r\n") }
	header("From", m.from.String())
	header("To", addressList(m.to))
	if len(m.cc) > 0 {
		header("Cc", addressList(m.cc))
	}
	header("Subject", fold(mime.QEncoding.Encode("utf-8", oneLine(m.subject)), len("Subject: ")))
	header("Date", now.Format(time.RFC1123Z))
	header("Message-ID", id)
	header("MIME-Version", "1.0")
	if len(files) == 0 {
		header("Content-Type", m.contentType)
		header("Content-Transfer-Encoding", "quoted-printable")
		buf.WriteString("\r\n")
		if err := writeQP(&buf, m.body); err != nil {
			return nil, err
		}
		return buf.Bytes(), nil
	}
	mw := multipart.NewWriter(&buf)
	header("Content-Type", mime.FormatMediaType("multipart/mixed", map[string]string{"boundary": mw.Boundary()}))
	buf.WriteString("\r\n")
	w, err := mw.CreatePart(textproto.MIMEHeader{
		"Content-Type":              {m.contentType},
		"Content-Transfer-Encoding": {"quoted-printable"},
	})
	if err != nil {
		return nil, err
	}
	if err := writeQP(w, m.body); err != nil {
		return nil, err
	}
	for _, f := range files {
		ct := mime.TypeByExtension(filepath.Ext(f.name))
		if ct == "" {
			ct = "application/octet-stream"
		}
		w, err := mw.CreatePart(textproto.MIMEHeader{
			"Content-Type":              {ct},
			"Content-Disposition":       {mime.FormatMediaType("attachment", map[string]string{"filename": f.name})},
			"Content-Transfer-Encoding": {"base64"},
		})
		if err != nil {
			return nil, err
		}
		if err := writeBase64Lines(w, f.data); err != nil {
			return nil, err
		}
	}
	if err := mw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// addressList formats a header's addresses, one per folded line so that
// a long list never makes a line over SMTP's limit.
func addressList(l []*mail.Address) string {
	s := make([]string, len(l))
	for i, a := range l {
		s[i] = a.String()
	}
	return strings.Join(s, ",\r\n ")
}

// oneLine keeps a header value on one logical line: a subject from EL may
// hold line breaks, which would otherwise end the header (or inject one).
func oneLine(s string) string {
	return strings.Join(strings.FieldsFunc(s, func(r rune) bool { return r == '\r' || r == '\n' }), " ")
}

// fold breaks a header value at spaces into lines of at most 78
// characters where it can (a word longer than that stays whole), so that
// a long subject keeps within SMTP's line limit; readers join the lines
// back with the space. used is what the line already holds (the name).
func fold(v string, used int) string {
	var b strings.Builder
	n := used
	for i, w := range strings.Split(v, " ") {
		if i > 0 {
			if n+1+len(w) > 78 {
				b.WriteString("\r\n")
				n = 0
			}
			b.WriteByte(' ')
			n++
		}
		b.WriteString(w)
		n += len(w)
	}
	return b.String()
}

func writeQP(w io.Writer, s string) error {
	qw := quotedprintable.NewWriter(w)
	if _, err := io.WriteString(qw, s); err != nil {
		return err
	}
	return qw.Close()
}

// writeBase64Lines writes data in base64 lines of 76 characters (MIME's
// limit).
func writeBase64Lines(w io.Writer, data []byte) error {
	enc := base64.StdEncoding.EncodeToString(data)
	for len(enc) > 76 {
		if _, err := io.WriteString(w, enc[:76]+"\r\n"); err != nil {
			return err
		}
		enc = enc[76:]
	}
	_, err := io.WriteString(w, enc+"\r\n")
	return err
}

// smtpSettings is how to reach and talk to the mail server.
type smtpSettings struct {
	host, port          string
	auth                bool
	user, password      string
	startTLS, tlsNeeded bool
	ssl                 bool
	timeout             time.Duration
	tls                 *tls.Config
}

func (e emailExecutor) smtpSettings() (smtpSettings, error) {
	s := smtpSettings{
		host:      e.conf(emailHost),
		port:      e.conf(emailPort),
		auth:      e.flag(emailAuth),
		user:      e.conf(emailUser),
		password:  e.opts.Site[emailPassword], // as written: spaces may be part of it
		startTLS:  e.flag(emailStartTLS),
		tlsNeeded: e.flag(emailStartTLSRequired),
		ssl:       e.flag(emailSSL),
	}
	if p, err := strconv.Atoi(s.port); err != nil || p <= 0 || p > 65535 {
		return s, action.Errorf(action.ErrorKindError, CodeEmailTransport, "%s: [%s] is not a port number", emailPort, s.port)
	}
	ms, err := strconv.Atoi(e.conf(emailTimeout))
	if err != nil || ms <= 0 {
		return s, action.Errorf(action.ErrorKindError, CodeEmailTransport, "%s: [%s] is not a positive number of milliseconds", emailTimeout, e.conf(emailTimeout))
	}
	s.timeout = time.Duration(ms) * time.Millisecond
	if s.tlsNeeded {
		s.startTLS = true
	}
	s.tls = &tls.Config{ServerName: s.host, MinVersion: tls.VersionTLS12}
	if ca := e.conf(emailCA); ca != "" {
		pem, err := os.ReadFile(ca)
		if err != nil {
			return s, action.Errorf(action.ErrorKindError, CodeEmailTransport, "%s: %v", emailCA, err)
		}
		pool, err := x509.SystemCertPool()
		if err != nil {
			pool = x509.NewCertPool()
		}
		if !pool.AppendCertsFromPEM(pem) {
			return s, action.Errorf(action.ErrorKindError, CodeEmailTransport, "%s: no PEM certificate in [%s]", emailCA, ca)
		}
		s.tls.RootCAs = pool
	}
	return s, nil
}

// timeoutConn gives every read and write its own deadline, the meaning of
// oozie.email.smtp.socket.timeout.ms (JavaMail's per-operation timeouts):
// a mail server that stops answering cannot hold the action forever.
type timeoutConn struct {
	net.Conn
	d time.Duration
}

func (c *timeoutConn) Read(b []byte) (int, error) {
	_ = c.SetReadDeadline(time.Now().Add(c.d))
	return c.Conn.Read(b)
}

func (c *timeoutConn) Write(b []byte) (int, error) {
	_ = c.SetWriteDeadline(time.Now().Add(c.d))
	return c.Conn.Write(b)
}

// deliver sends msg from from to rcpts over one SMTP session. A refusal
// carries the server's reply (code and text); a cancelled ctx (the
// server stopping) is Transient so that the action runs again.
func deliver(ctx context.Context, s smtpSettings, from string, rcpts []string, msg []byte) (err error) {
	addr := net.JoinHostPort(s.host, s.port)
	fail := func(format string, args ...any) error {
		if ctx.Err() != nil {
			return action.Errorf(action.Transient, CodeEmailSend, "sending to the SMTP server at %s interrupted: %v", addr, ctx.Err())
		}
		return action.Errorf(action.ErrorKindError, CodeEmailSend, format, args...)
	}
	d := net.Dialer{Timeout: s.timeout}
	raw, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return fail("cannot connect to the SMTP server at %s (%s, %s): %v", addr, emailHost, emailPort, err)
	}
	defer context.AfterFunc(ctx, func() { raw.Close() })()
	var conn net.Conn = &timeoutConn{Conn: raw, d: s.timeout}
	if s.ssl {
		// The *tls.Conn itself goes to the client, so that it knows the
		// connection is encrypted and allows authentication on it.
		tc := tls.Client(conn, s.tls)
		if err := tc.HandshakeContext(ctx); err != nil {
			raw.Close()
			return fail("TLS with the SMTP server at %s (%s): %v", addr, emailSSL, err)
		}
		conn = tc
	}
	c, err := smtp.NewClient(conn, s.host)
	if err != nil {
		raw.Close()
		return fail("SMTP server at %s: %v", addr, err)
	}
	defer c.Close()
	helo, err := os.Hostname()
	if err != nil || helo == "" || strings.ContainsAny(helo, " \r\n") {
		helo = "localhost"
	}
	if err := c.Hello(helo); err != nil {
		return fail("SMTP server at %s refused the greeting: %v", addr, err)
	}
	if s.startTLS {
		if ok, _ := c.Extension("STARTTLS"); ok {
			if err := c.StartTLS(s.tls); err != nil {
				return fail("STARTTLS with the SMTP server at %s: %v", addr, err)
			}
		} else if s.tlsNeeded {
			return fail("the SMTP server at %s does not offer STARTTLS and %s is true", addr, emailStartTLSRequired)
		}
	}
	if s.auth {
		ok, mechs := c.Extension("AUTH")
		if !ok {
			return fail("%s is true but the SMTP server at %s does not offer AUTH (many offer it only after STARTTLS: see %s)", emailAuth, addr, emailStartTLS)
		}
		var a smtp.Auth = smtp.PlainAuth("", s.user, s.password, s.host)
		if m := strings.Fields(strings.ToUpper(mechs)); !slices.Contains(m, "PLAIN") && slices.Contains(m, "LOGIN") {
			a = &loginAuth{user: s.user, password: s.password, host: s.host}
		}
		if err := c.Auth(a); err != nil {
			return fail("authentication as [%s] to the SMTP server at %s failed: %v", s.user, addr, err)
		}
	}
	if err := c.Mail(from); err != nil {
		return fail("sender <%s> refused by the SMTP server at %s: %v", from, addr, err)
	}
	for _, r := range rcpts {
		if err := c.Rcpt(r); err != nil {
			return fail("recipient <%s> refused by the SMTP server at %s: %v", r, addr, err)
		}
	}
	w, err := c.Data()
	if err != nil {
		return fail("SMTP server at %s refused the message data: %v", addr, err)
	}
	if _, err := w.Write(msg); err != nil {
		return fail("sending the message to the SMTP server at %s: %v", addr, err)
	}
	if err := w.Close(); err != nil {
		return fail("SMTP server at %s refused the message: %v", addr, err)
	}
	// The message is accepted; a failing QUIT changes nothing.
	_ = c.Quit()
	return nil
}

// loginAuth is the LOGIN mechanism, for servers that offer it and not
// PLAIN. Like smtp.PlainAuth it refuses to send the password over an
// unencrypted connection except to a loopback address.
type loginAuth struct {
	user, password, host string
	step                 int
}

func (a *loginAuth) Start(server *smtp.ServerInfo) (string, []byte, error) {
	if !server.TLS && !isLoopback(server.Name) {
		return "", nil, errors.New("unencrypted connection: refusing to send the password")
	}
	if server.Name != a.host {
		return "", nil, errors.New("wrong host name")
	}
	return "LOGIN", nil, nil
}

func (a *loginAuth) Next(fromServer []byte, more bool) ([]byte, error) {
	if !more {
		return nil, nil
	}
	a.step++
	switch a.step {
	case 1:
		return []byte(a.user), nil
	case 2:
		return []byte(a.password), nil
	}
	return nil, fmt.Errorf("unexpected server challenge %q", fromServer)
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
