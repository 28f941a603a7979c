package client

import (
	"encoding/json"
	"fmt"
	"html"
	"net/http"
	"os"
	"strings"

	"github.com/gozie/gozie/internal/kerberos"
)

// negotiate adds a fresh SPNEGO token for HTTP/<host of the URL> to req,
// as hadoop-auth's KerberosAuthenticator does, and returns what checks
// the server's mutual-authentication answer. The ticket cache is read
// once per client.
func (c *Client) negotiate(req *http.Request) (*kerberos.Pending, error) {
	c.mu.Lock()
	in := c.krb
	c.mu.Unlock()
	if in == nil {
		cc := c.opts.CCache
		if cc == "" {
			var err error
			if cc, err = kerberos.CCachePath(os.Getenv); err != nil {
				return nil, &CallError{Code: "AUTHENTICATION", Message: err.Error()}
			}
		}
		conf := c.opts.Krb5Conf
		if conf == "" {
			conf = kerberos.Krb5ConfPath(os.Getenv)
		}
		var err error
		if in, err = kerberos.NewInitiator(cc, conf); err != nil {
			return nil, &CallError{Code: "AUTHENTICATION", Message: err.Error()}
		}
		c.mu.Lock()
		c.krb = in
		c.mu.Unlock()
	}
	h, pending, err := in.Negotiate("HTTP/" + strings.ToLower(req.URL.Hostname()))
	if err != nil {
		return nil, &CallError{Code: "AUTHENTICATION", Message: err.Error()}
	}
	req.Header.Set("Authorization", h)
	return pending, nil
}

// kerberosAnswer keeps the hadoop.auth cookie of a KERBEROS answer and,
// when a token was sent and the server accepted it, checks the server's
// mutual-authentication token: a server that cannot show it decrypted
// the ticket is not the one the ticket was for.
func (c *Client) kerberosAnswer(resp *http.Response, pending *kerberos.Pending) error {
	if pending != nil && resp.StatusCode != http.StatusUnauthorized {
		if h := negotiateHeader(resp.Header); h != "" {
			if err := pending.Verify(h); err != nil {
				return &CallError{Status: resp.StatusCode, Code: "AUTHENTICATION", Message: "Kerberos mutual authentication with " + c.base + " failed: " + err.Error()}
			}
		}
	}
	c.keepCookie(resp)
	return nil
}

// negotiateHeader is the WWW-Authenticate value carrying a Negotiate
// token, "" when there is none.
func negotiateHeader(h http.Header) string {
	for _, v := range h.Values("WWW-Authenticate") {
		if scheme, tok, ok := strings.Cut(strings.TrimSpace(v), " "); ok && strings.EqualFold(scheme, "Negotiate") && strings.TrimSpace(tok) != "" {
			return v
		}
	}
	return ""
}

// dropCookie forgets the hadoop.auth cookie, reporting whether there was
// one.
func (c *Client) dropCookie() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	had := c.cookie != ""
	c.cookie = ""
	return had
}

// kerberosRefused words a 401 answer to a Kerberos token as the Java
// client's AuthenticationException does, with the server's reason from
// the error body (hadoop-auth's 401 carries no Oozie code).
func kerberosRefused(target string, resp *response) *CallError {
	msg := http.StatusText(resp.status)
	var body struct {
		ErrorMessage string `json:"errorMessage"`
	}
	if json.Unmarshal(resp.body, &body) == nil && body.ErrorMessage != "" {
		msg = html.UnescapeString(body.ErrorMessage)
	}
	if code := resp.header.Get("oozie-error-code"); code != "" {
		return &CallError{Status: resp.status, Code: code, Message: resp.header.Get("oozie-error-message")}
	}
	return &CallError{Status: resp.status, Code: "AUTHENTICATION",
		Message: fmt.Sprintf("Authentication failed, URL: %s, status: %d, message: %s", target, resp.status, msg)}
}
