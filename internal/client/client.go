// Package client is a Go client for the Oozie-compatible REST API that
// gozie's server speaks (and that Apache Oozie servers speak): version
// negotiation, the authentication handshake of the Java client, error
// decoding from the oozie-error-code/oozie-error-message headers, and typed
// results whose JSON keys are exactly those of the server's beans.
//
// Every method that decodes JSON also returns the raw response body, so a
// caller (gozie's -json flag) can print what the server said without a
// decode/encode round trip changing key order or dropping unknown keys.
package client

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/gozie/gozie/internal/conf"
	"github.com/gozie/gozie/internal/kerberos"
)

// Authentication kinds accepted in Options.Auth.
const (
	AuthSimple = "SIMPLE" // hadoop-auth pseudo authentication: OPTIONS ?user.name= then the hadoop.auth cookie
	AuthBasic  = "BASIC"  // HTTP basic authentication on every request
	AuthToken  = "TOKEN"  // "Authorization: Bearer <token>" on every request (a gozie addition)
	// AuthKerberos is SPNEGO with the user's Kerberos tickets (kinit),
	// then the hadoop.auth cookie the server answers with.
	AuthKerberos = "KERBEROS"
)

// Options configure a Client. The zero value talks to the server as the
// anonymous user with pseudo authentication and http.DefaultClient.
type Options struct {
	// User is the name sent as user.name in the SIMPLE handshake and as the
	// user= parameter of submit, rerun and dryrun (the Java client sends the
	// operating-system user there).
	User string
	// DoAs, when set, adds doAs=<user> to every request (proxy user).
	DoAs string
	// HTTP is the client used for every request; nil means http.DefaultClient.
	HTTP *http.Client
	// Auth is SIMPLE (default), BASIC, TOKEN or KERBEROS, case-insensitive.
	Auth string
	// CCache and Krb5Conf are the ticket cache and krb5.conf of KERBEROS;
	// blank means KRB5CCNAME (else /tmp/krb5cc_<uid>) and KRB5_CONFIG
	// (else /etc/krb5.conf), as the Kerberos tools read them.
	CCache, Krb5Conf string
	// Password is the BASIC password; BASIC uses User as the user name.
	Password string
	// Token is the bearer token for TOKEN authentication.
	Token string
	// Header holds extra headers sent with every request (the Java CLI's
	// -Dheader:NAME=VALUE).
	Header http.Header
	// Retries is how many times a refused connection is tried again, after
	// 1 s, 2 s, 4 s, … as the Java client does (it retries 4 times); 0
	// fails at once. Only refused connections are retried: the request
	// never reached the server, so retrying cannot apply it twice. A
	// server on a loopback address is retried after 0.25 s, 0.5 s, 1 s at
	// most (retryWait), so that one that is not running is reported
	// within two seconds.
	Retries int
	// Sleep waits between retries; default time.Sleep (tests replace it).
	Sleep func(time.Duration)
	// RetryLog receives one line per retry; nil discards them.
	RetryLog io.Writer
	// Debug, when set, receives "<METHOD> <URL>" for every request and the
	// configuration XML sent, as the oozie command prints with -debug.
	Debug io.Writer
}

// Client talks to one server. It is safe for concurrent use.
type Client struct {
	base string // ends with "/"
	opts Options
	http *http.Client

	mu      sync.Mutex
	version string // "v2", "v1" or "v0" once negotiated
	cookie  string // hadoop.auth token from the SIMPLE handshake or a KERBEROS answer
	krb     *kerberos.Initiator
}

// New returns a client for the server whose base URL (for example
// http://localhost:11000/oozie) is baseURL. No request is made until the
// first call.
func New(baseURL string, opts Options) *Client {
	if !strings.HasSuffix(baseURL, "/") {
		baseURL += "/"
	}
	opts.Auth = strings.ToUpper(opts.Auth)
	if opts.Auth == "" {
		opts.Auth = AuthSimple
	}
	hc := opts.HTTP
	if hc == nil {
		hc = http.DefaultClient
	}
	if opts.Sleep == nil {
		opts.Sleep = time.Sleep
	}
	return &Client{base: baseURL, opts: opts, http: hc}
}

// BaseURL returns the server base URL, ending with "/".
func (c *Client) BaseURL() string { return c.base }

// CallError is a failed call: the server's Oozie error code and message (from the
// oozie-error-code and oozie-error-message headers), or a client-side code
// (IO_ERROR, UNSUPPORTED_VERSION, AUTHENTICATION, "HTTP error code: <n>") when
// the server gave none.
type CallError struct {
	Status  int // HTTP status; 0 when no response arrived
	Code    string
	Message string
}

// Error renders the error as the oozie command prints it after "Error: ".
func (e *CallError) Error() string { return e.Code + " : " + e.Message }

// IsNotFound reports whether err is an Oozie "does not exist" error (E0604
// job, E0605 action).
func IsNotFound(err error) bool {
	var e *CallError
	return errors.As(err, &e) && (e.Code == "E0604" || e.Code == "E0605")
}

// request is one REST call below the negotiated version prefix (or at the
// base when path starts with "/").
type request struct {
	method string
	path   string // "jobs", "job/<id>", "admin/status"; "/versions" for the base
	query  url.Values
	body   []byte
	ctype  string
	ok     []int // accepted statuses; default 200
}

// response is a successful call.
type response struct {
	status int
	header http.Header
	body   []byte
}

// Versions returns the API versions the server supports (GET /versions).
func (c *Client) Versions(ctx context.Context) ([]int, error) {
	resp, err := c.send(ctx, &request{method: http.MethodGet, path: "/versions"})
	if err != nil {
		return nil, err
	}
	var vs []int
	if err := json.Unmarshal(resp.body, &vs); err != nil {
		return nil, &CallError{Status: resp.status, Code: "UNSUPPORTED_VERSION", Message: "versions response is not an integer array: " + err.Error()}
	}
	return vs, nil
}

// apiVersion negotiates once: the highest of v2, v1, v0 the server lists.
func (c *Client) apiVersion(ctx context.Context) (string, error) {
	c.mu.Lock()
	v := c.version
	c.mu.Unlock()
	if v != "" {
		return v, nil
	}
	vs, err := c.Versions(ctx)
	if err != nil {
		return "", err
	}
	for _, want := range []int{2, 1, 0} {
		if slices.Contains(vs, want) {
			v = fmt.Sprintf("v%d", want)
			break
		}
	}
	if v == "" {
		return "", &CallError{Code: "UNSUPPORTED_VERSION", Message: fmt.Sprintf("Supported version [2] or less, Unsupported versions%v", vs)}
	}
	c.mu.Lock()
	c.version = v
	c.mu.Unlock()
	return v, nil
}

// call negotiates the version and performs r.
func (c *Client) call(ctx context.Context, r *request) (*response, error) {
	if !strings.HasPrefix(r.path, "/") {
		v, err := c.apiVersion(ctx)
		if err != nil {
			return nil, err
		}
		r.path = v + "/" + r.path
	}
	return c.send(ctx, r)
}

// endpoint is the absolute URL of r including its query.
func (c *Client) endpoint(r *request) string {
	u := c.base + strings.TrimPrefix(r.path, "/")
	q := url.Values{}
	for k, v := range r.query {
		q[k] = v
	}
	if c.opts.DoAs != "" {
		q.Set("doAs", c.opts.DoAs)
	}
	if len(q) > 0 {
		u += "?" + q.Encode()
	}
	return u
}

// send performs r, authenticating first when needed, and turns any status
// not in r.ok into a *CallError.
func (c *Client) send(ctx context.Context, r *request) (*response, error) {
	target := c.endpoint(r)
	if c.opts.Auth == AuthSimple {
		if err := c.handshake(ctx, target, false); err != nil {
			return nil, err
		}
	}
	resp, err := c.do(ctx, r, target)
	if err != nil {
		return nil, err
	}
	if c.opts.Auth == AuthSimple && (resp.status == http.StatusUnauthorized || resp.status == http.StatusForbidden) && c.authCookie() != "" {
		// The server forgot or expired our token: authenticate again once.
		if err := c.handshake(ctx, target, true); err != nil {
			return nil, err
		}
		if resp, err = c.do(ctx, r, target); err != nil {
			return nil, err
		}
	}
	if c.opts.Auth == AuthKerberos && resp.status == http.StatusUnauthorized && c.dropCookie() {
		// The cookie expired (or the server's secret changed): a new
		// Kerberos token, once.
		if resp, err = c.do(ctx, r, target); err != nil {
			return nil, err
		}
	}
	if c.opts.Auth == AuthKerberos && resp.status == http.StatusUnauthorized {
		return nil, kerberosRefused(target, resp)
	}
	ok := r.ok
	if len(ok) == 0 {
		ok = []int{http.StatusOK}
	}
	if resp.status == http.StatusNotFound && r.path == "/versions" {
		return nil, c.notOozie()
	}
	if !slices.Contains(ok, resp.status) {
		return nil, statusError(resp)
	}
	return resp, nil
}

// notOozie is the answer to a 404 where the Oozie REST API should be: the
// usual cause is a URL without the /oozie context, which the message says
// rather than reporting a failed authentication.
func (c *Client) notOozie() *CallError {
	msg := fmt.Sprintf("no Oozie REST API at %s (the server answered 404 Not Found)", c.base)
	if u, err := url.Parse(c.base); err == nil && !strings.HasSuffix(strings.TrimSuffix(u.Path, "/"), "/oozie") {
		msg += "; the URL must end with /oozie, e.g. " + suggestBase(u)
	}
	return &CallError{Status: http.StatusNotFound, Code: "HTTP error code: 404", Message: msg}
}

// suggestBase is the base URL a user probably meant when u does not end
// with /oozie: a last path element that is a misspelling of "oozie"
// (/ozie, /Oozie, /oozi) is replaced, not kept in front of it, since
// .../ozie/oozie is never what anybody meant; anything else (a proxy's
// prefix, no path) gets /oozie added.
func suggestBase(u *url.URL) string {
	s := *u
	s.RawQuery, s.Fragment, s.RawPath = "", "", ""
	p := strings.TrimSuffix(s.Path, "/")
	dir, last := "", p
	if i := strings.LastIndex(p, "/"); i >= 0 {
		dir, last = p[:i], p[i+1:]
	}
	if last != "" && nearOozie(strings.ToLower(last)) {
		s.Path = dir + "/oozie"
	} else {
		s.Path = p + "/oozie"
	}
	return s.String()
}

// nearOozie reports whether word is at most two edits away from "oozie".
func nearOozie(word string) bool {
	const want = "oozie"
	if len(word) > len(want)+2 {
		return false
	}
	prev := make([]int, len(want)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(word); i++ {
		cur := make([]int, len(want)+1)
		cur[0] = i
		for j := 1; j <= len(want); j++ {
			cost := 1
			if word[i-1] == want[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(want)] <= 2
}

// PlainError words a transport error for people: Go's context and
// network errors ("context deadline exceeded", "context canceled") become
// what happened ("no answer within ...", "interrupted").
func PlainError(err error) string {
	var ne net.Error
	switch {
	case errors.Is(err, context.Canceled):
		return "interrupted before the server answered"
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, os.ErrDeadlineExceeded), errors.As(err, &ne) && ne.Timeout():
		return "the server did not answer in time"
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused (is the server running, and is the host and port right?)"
	case errors.Is(err, syscall.ECONNRESET):
		return "the connection was reset before the server answered"
	case errors.Is(err, syscall.EHOSTUNREACH), errors.Is(err, syscall.ENETUNREACH):
		return "the server's host cannot be reached from here (no route)"
	}
	var dns *net.DNSError
	if errors.As(err, &dns) {
		if dns.IsNotFound {
			return "unknown host [" + dns.Name + "] (is the host name in the URL right?)"
		}
		return "cannot look up host [" + dns.Name + "]: " + dns.Err
	}
	// Go's own wording ("Get \"URL\": dial tcp 127.0.0.1:1: connect: ...")
	// names the socket call; what happened is the innermost error.
	var op *net.OpError
	if errors.As(err, &op) && op.Err != nil {
		return op.Err.Error()
	}
	var ue *url.Error
	if errors.As(err, &ue) && ue.Err != nil {
		return ue.Err.Error()
	}
	return err.Error()
}

func statusError(resp *response) *CallError {
	e := &CallError{Status: resp.status, Code: resp.header.Get("oozie-error-code"), Message: resp.header.Get("oozie-error-message")}
	if e.Code == "" {
		e.Code = fmt.Sprintf("HTTP error code: %d", resp.status)
	}
	if e.Message == "" {
		e.Message = http.StatusText(resp.status)
	}
	return e
}

func (c *Client) authCookie() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.cookie
}

// keepCookie keeps the hadoop.auth cookie resp sets, if any: the token
// later requests send instead of authenticating again (hadoop-auth's
// AuthenticatedURL.Token).
func (c *Client) keepCookie(resp *http.Response) {
	for _, ck := range resp.Cookies() {
		if ck.Name == "hadoop.auth" && ck.Value != "" {
			c.mu.Lock()
			c.cookie = strings.Trim(ck.Value, `"`)
			c.mu.Unlock()
		}
	}
}

// handshake performs the pseudo-authentication step of the Java client:
// OPTIONS <url>?user.name=<user>, keeping the hadoop.auth cookie the server
// sets. A server that sets no cookie still works; requests are then
// anonymous, as with Oozie.
func (c *Client) handshake(ctx context.Context, target string, force bool) error {
	c.mu.Lock()
	done := c.cookie != "" && !force
	c.mu.Unlock()
	if done || c.opts.User == "" {
		return nil
	}
	sep := "?"
	if strings.Contains(target, "?") {
		sep = "&"
	}
	probe := target + sep + "user.name=" + url.QueryEscape(c.opts.User)
	req, err := http.NewRequestWithContext(ctx, http.MethodOptions, probe, nil)
	if err != nil {
		return &CallError{Code: "IO_ERROR", Message: err.Error()}
	}
	c.addHeaders(req, false)
	resp, err := c.doRetry(req)
	if err != nil {
		return err
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	switch resp.StatusCode {
	case http.StatusOK, http.StatusCreated, http.StatusAccepted:
	case http.StatusNotFound:
		return c.notOozie()
	default:
		return &CallError{Status: resp.StatusCode, Code: "AUTHENTICATION",
			Message: fmt.Sprintf("Authentication failed, URL: %s, status: %d, message: %s", probe, resp.StatusCode, http.StatusText(resp.StatusCode))}
	}
	c.keepCookie(resp)
	return nil
}

func (c *Client) addHeaders(req *http.Request, withAuth bool) {
	for k, vs := range c.opts.Header {
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	switch c.opts.Auth {
	case AuthBasic:
		req.Header.Set("Authorization", "Basic "+base64.StdEncoding.EncodeToString([]byte(c.opts.User+":"+c.opts.Password)))
	case AuthToken:
		req.Header.Set("Authorization", "Bearer "+c.opts.Token)
	default:
		if ck := c.authCookie(); withAuth && ck != "" {
			req.Header.Set("Cookie", `hadoop.auth="`+ck+`"`)
		}
	}
}

func (c *Client) do(ctx context.Context, r *request, target string) (*response, error) {
	var body io.Reader
	if r.body != nil {
		body = bytes.NewReader(r.body)
	}
	req, err := http.NewRequestWithContext(ctx, r.method, target, body)
	if err != nil {
		return nil, &CallError{Code: "IO_ERROR", Message: err.Error()}
	}
	if r.ctype != "" {
		req.Header.Set("Content-Type", r.ctype)
	}
	if c.opts.Debug != nil {
		fmt.Fprintf(c.opts.Debug, "%s %s\n", r.method, target)
		if len(r.body) > 0 {
			c.opts.Debug.Write(r.body)
			fmt.Fprintln(c.opts.Debug)
		}
	}
	c.addHeaders(req, true)
	var pending *kerberos.Pending
	if c.opts.Auth == AuthKerberos && c.authCookie() == "" {
		if pending, err = c.negotiate(req); err != nil {
			return nil, err
		}
	}
	resp, err := c.doRetry(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if c.opts.Auth == AuthKerberos {
		if err := c.kerberosAnswer(resp, pending); err != nil {
			return nil, err
		}
	}
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, &CallError{Status: resp.StatusCode, Code: "IO_ERROR", Message: err.Error()}
	}
	return &response{status: resp.StatusCode, header: resp.Header, body: data}, nil
}

// doRetry sends req, trying again after a refused connection with the
// Java client's back-off (1 s, 2 s, 4 s, …), and words the final failure
// as it does.
func (c *Client) doRetry(req *http.Request) (*http.Response, error) {
	for n := 0; ; n++ {
		if n > 0 && req.GetBody != nil {
			body, err := req.GetBody()
			if err != nil {
				return nil, &CallError{Code: "IO_ERROR", Message: err.Error()}
			}
			req.Body = body
		}
		resp, err := c.http.Do(req)
		if err == nil {
			return resp, nil
		}
		wait, again := retryWait(req.URL.Hostname(), n, c.opts.Retries)
		if !again || !errors.Is(err, syscall.ECONNREFUSED) || req.Context().Err() != nil {
			return nil, &CallError{Code: "IO_ERROR", Message: fmt.Sprintf("Error while connecting Oozie server. No of retries = %d. Exception = %s [%s]", n, PlainError(err), c.base)}
		}
		if c.opts.RetryLog != nil {
			fmt.Fprintf(c.opts.RetryLog, "Connection exception has occurred [ %s ]. Trying after %s sec. Retry count = %d\n",
				PlainError(err), strconv.FormatFloat(wait.Seconds(), 'f', -1, 64), n+1)
		}
		c.opts.Sleep(wait)
	}
}

// loopbackRetryBudget bounds the waits after refused connections to a
// server on this machine: nothing listening on a loopback address is
// almost always a server that is not running, which the user should hear
// within two seconds; a restart of a server here takes about that long.
const loopbackRetryBudget = 1750 * time.Millisecond

// retryWait is the wait before retry n+1 (n counts from 0) of a refused
// connection to host, with at most retries retries; again is false when
// no retry is left. A remote host gets the Java client's 1 s, 2 s, 4 s,
// ...; a loopback one a quarter of each, as long as they add up to at
// most loopbackRetryBudget.
func retryWait(host string, n, retries int) (wait time.Duration, again bool) {
	if n >= retries {
		return 0, false
	}
	if !isLoopback(host) {
		return time.Second << n, true
	}
	spent := time.Duration(0)
	for i := 0; i <= n; i++ {
		wait = 250 * time.Millisecond << i
		spent += wait
	}
	return wait, spent <= loopbackRetryBudget
}

// isLoopback reports whether host (a URL's host name, without port) is
// this machine: localhost or a loopback address.
func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") || strings.HasSuffix(strings.ToLower(host), ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// xmlContentType is what the Java client sends with configuration bodies.
const xmlContentType = "application/xml;charset=UTF-8"

// confBody renders c as the Hadoop configuration XML body of submit and
// rerun; a nil c is the empty configuration.
func confBody(c *conf.Config) ([]byte, error) {
	if c == nil {
		c = conf.New()
	}
	var buf bytes.Buffer
	if err := c.WriteXML(&buf); err != nil {
		return nil, &CallError{Code: "INVALID_INPUT", Message: err.Error()}
	}
	return buf.Bytes(), nil
}

// decode unmarshals a JSON body into v, naming the call on failure.
func decode(resp *response, v any) error {
	if err := json.Unmarshal(resp.body, v); err != nil {
		return &CallError{Status: resp.status, Code: "OTHER", Message: "cannot decode server response: " + err.Error()}
	}
	return nil
}

// getJSON performs a GET and decodes the JSON answer into v.
func (c *Client) getJSON(ctx context.Context, path string, q url.Values, v any) (json.RawMessage, error) {
	resp, err := c.call(ctx, &request{method: http.MethodGet, path: path, query: q})
	if err != nil {
		return nil, err
	}
	if err := decode(resp, v); err != nil {
		return resp.body, err
	}
	return resp.body, nil
}
