// Package smtptest runs a real SMTP server on a loopback port for tests:
// the email action's tests and the workflow-level run of the email example
// talk to it over TCP exactly as they would to a mail server, and then
// read what it received. It is built on github.com/emersion/go-smtp's
// server, a library made for the job; only tests import this package, so
// the gozie binary does not link it.
package smtptest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"io"
	"log"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"
)

// Options shape the server's behaviour.
type Options struct {
	// Refuse maps recipient addresses to the text of a 550 reply to their
	// RCPT command.
	Refuse map[string]string
	// User and Password, when User is set, make the server offer AUTH
	// PLAIN and refuse MAIL before a successful authentication with them.
	User, Password string
	// TLS, when set, is offered with STARTTLS (or, with Implicit, from the
	// first byte); without it AUTH is allowed in clear on loopback.
	TLS      *tls.Config
	Implicit bool
	// Mechanisms are the AUTH mechanisms offered: PLAIN (the default),
	// LOGIN, or both.
	Mechanisms []string
}

// Message is one message the server accepted.
type Message struct {
	From     string
	To       []string // envelope recipients, in RCPT order
	Data     []byte
	AuthUser string // user that authenticated, "" when none
	TLS      bool   // whether the session was encrypted
}

// Server is a running test SMTP server.
type Server struct {
	Host, Port string
	opts       Options
	mu         sync.Mutex
	msgs       []Message
}

// Start runs a server on 127.0.0.1:0 until the test ends.
func Start(t testing.TB, o Options) *Server {
	t.Helper()
	s := &Server{opts: o}
	srv := smtp.NewServer(smtp.BackendFunc(func(c *smtp.Conn) (smtp.Session, error) {
		_, isTLS := c.TLSConnectionState()
		return &session{srv: s, tls: isTLS, conn: c}, nil
	}))
	srv.Domain = "localhost"
	// Clients the tests make fail on purpose (an untrusted certificate)
	// would otherwise fill the test output with the server's complaints.
	srv.ErrorLog = log.New(io.Discard, "", 0)
	srv.ReadTimeout = 30 * time.Second
	srv.WriteTimeout = 30 * time.Second
	srv.TLSConfig = o.TLS
	srv.AllowInsecureAuth = o.TLS == nil
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if o.Implicit {
		if o.TLS == nil {
			t.Fatal("smtptest: Implicit needs TLS")
		}
		l = tls.NewListener(l, o.TLS)
		srv.TLSConfig = nil // no STARTTLS inside TLS
	}
	s.Host, s.Port, _ = net.SplitHostPort(l.Addr().String())
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := srv.Serve(l); err != nil && !errors.Is(err, smtp.ErrServerClosed) {
			t.Errorf("smtptest: %v", err)
		}
	}()
	t.Cleanup(func() {
		srv.Close()
		// Close only closes the listeners Serve has registered: one whose
		// goroutine has not run yet would be left accepting.
		l.Close()
		<-done
	})
	return s
}

// Addr is host:port.
func (s *Server) Addr() string { return net.JoinHostPort(s.Host, s.Port) }

// Messages returns the messages accepted so far.
func (s *Server) Messages() []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Message(nil), s.msgs...)
}

type session struct {
	srv      *Server
	tls      bool
	conn     *smtp.Conn
	authUser string
	from     string
	to       []string
}

func (s *session) AuthMechanisms() []string {
	if s.srv.opts.User == "" {
		return nil
	}
	if len(s.srv.opts.Mechanisms) > 0 {
		return s.srv.opts.Mechanisms
	}
	return []string{sasl.Plain}
}

func (s *session) Auth(mech string) (sasl.Server, error) {
	check := func(user, password string) error {
		if user != s.srv.opts.User || password != s.srv.opts.Password {
			return smtp.ErrAuthFailed
		}
		s.authUser = user
		return nil
	}
	if mech == sasl.Login {
		return &loginServer{check: check}, nil
	}
	return sasl.NewPlainServer(func(_, user, password string) error { return check(user, password) }), nil
}

// loginServer is the server side of the LOGIN mechanism, which go-sasl
// provides only as a client: it asks for the user name (unless the client
// sent it with AUTH), then the password.
type loginServer struct {
	step  int
	user  string
	check func(user, password string) error
}

func (l *loginServer) Next(response []byte) ([]byte, bool, error) {
	l.step++
	switch {
	case l.step == 1 && response == nil:
		return []byte("Username:"), false, nil
	case l.step == 1:
		l.step++
		l.user = string(response)
		return []byte("Password:"), false, nil
	case l.step == 2:
		l.user = string(response)
		return []byte("Password:"), false, nil
	}
	return nil, true, l.check(l.user, string(response))
}

func (s *session) Mail(from string, _ *smtp.MailOptions) error {
	if s.srv.opts.User != "" && s.authUser == "" {
		return smtp.ErrAuthRequired
	}
	s.from = from
	return nil
}

func (s *session) Rcpt(to string, _ *smtp.RcptOptions) error {
	if msg, ok := s.srv.opts.Refuse[to]; ok {
		return &smtp.SMTPError{Code: 550, EnhancedCode: smtp.EnhancedCode{5, 1, 1}, Message: msg}
	}
	s.to = append(s.to, to)
	return nil
}

func (s *session) Data(r io.Reader) error {
	b, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	_, isTLS := s.conn.TLSConnectionState()
	s.srv.mu.Lock()
	s.srv.msgs = append(s.srv.msgs, Message{From: s.from, To: s.to, Data: b, AuthUser: s.authUser, TLS: isTLS || s.tls})
	s.srv.mu.Unlock()
	return nil
}

func (s *session) Reset() { s.from, s.to = "", nil }

func (s *session) Logout() error { return nil }

// SelfSigned makes a certificate for 127.0.0.1 and localhost, valid for an
// hour, and returns the server's TLS configuration and the path of a PEM
// file holding the certificate, for a client to trust.
func SelfSigned(t testing.TB) (*tls.Config, string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(time.Now().UnixNano()),
		Subject:               pkix.Name{CommonName: "smtptest"},
		NotBefore:             time.Now().Add(-time.Minute),
		NotAfter:              time.Now().Add(time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
		IPAddresses:           []net.IP{net.ParseIP("127.0.0.1")},
		DNSNames:              []string{"localhost"},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	ca := filepath.Join(t.TempDir(), "smtp-ca.pem")
	if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644); err != nil {
		t.Fatal(err)
	}
	cert := tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
	return &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}, ca
}
