package webhdfs

import (
	"fmt"
	"net"
	"os"
	"os/user"
	"strconv"
	"strings"
	"time"

	"github.com/gozie/gozie/internal/fsys"
)

// The configuration keys the backend reads. docs/storage.md lists
// them with examples.
const (
	keyNameservices   = "dfs.nameservices"
	keyHANamenodes    = "dfs.ha.namenodes."          // + <nameservice>
	keyHTTPAddress    = "dfs.namenode.http-address"  // + ".<nameservice>.<namenode>"
	keyHTTPSAddress   = "dfs.namenode.https-address" // + ".<nameservice>.<namenode>"
	keyConnectTimeout = "dfs.webhdfs.socket.connect-timeout"
	keyReadTimeout    = "dfs.webhdfs.socket.read-timeout"
	keyCSRFEnabled    = "dfs.webhdfs.rest-csrf.enabled"
	keyCSRFHeader     = "dfs.webhdfs.rest-csrf.custom-header"
	keyCSRFIgnore     = "dfs.webhdfs.rest-csrf.methods-to-ignore"
	// keyDoAs makes requests authenticate as the server's user and act for
	// the job's user through doas, as Oozie's proxy user does (the cluster
	// must allow it: hadoop.proxyuser.<server user>.hosts and .groups).
	keyDoAs = "gozie.webhdfs.doas"
)

// Default HTTP ports of a NameNode (Hadoop 3).
const (
	defaultHTTPPort  = "9870"
	defaultHTTPSPort = "9871"
)

// settings is what Open makes of the configuration for one store.
type settings struct {
	store string   // scheme://authority, for errors
	bases []string // http(s)://host:port of the NameNodes, in failover order
	// doas: user.name is login and doas the job's user; otherwise user.name
	// is the job's user (login when the context names none).
	doas  bool
	login string
	// csrf is the header sent on methods not in csrfIgnore, "" for none.
	csrf                        string
	csrfIgnore                  map[string]bool
	connectTimeout, readTimeout time.Duration
	// krb, when the cluster is Kerberized (hadoop.security.authentication
	// =kerberos), authenticates every NameNode request with SPNEGO as
	// the server's principal; the job's user is then always sent as doas.
	krb *kerberosLogin
}

// parseSettings reads the settings of store scheme://auth from c.
func parseSettings(scheme, auth string, c fsys.Config) (*settings, error) {
	s := &settings{store: scheme + "://" + auth, login: loginUser()}
	var err error
	if s.bases, err = bases(scheme, auth, c); err != nil {
		return nil, err
	}
	if s.connectTimeout, err = duration(c, keyConnectTimeout, time.Minute); err != nil {
		return nil, err
	}
	if s.readTimeout, err = duration(c, keyReadTimeout, time.Minute); err != nil {
		return nil, err
	}
	if s.doas, err = boolean(c, keyDoAs); err != nil {
		return nil, err
	}
	if s.krb, err = parseKerberos(c, os.Getenv); err != nil {
		return nil, err
	}
	csrf, err := boolean(c, keyCSRFEnabled)
	if err != nil {
		return nil, err
	}
	if csrf {
		s.csrf = "X-XSRF-HEADER"
		if h, ok := c.Get(keyCSRFHeader); ok && strings.TrimSpace(h) != "" {
			s.csrf = strings.TrimSpace(h)
		}
		ignore := "GET,OPTIONS,HEAD,TRACE"
		if v, ok := c.Get(keyCSRFIgnore); ok {
			ignore = v
		}
		s.csrfIgnore = map[string]bool{}
		for _, m := range splitList(ignore) {
			s.csrfIgnore[strings.ToUpper(m)] = true
		}
	}
	return s, nil
}

// bases returns the HTTP base URLs the authority names: a nameservice's
// NameNodes in the order of dfs.ha.namenodes.<ns>, or host:port.
func bases(scheme, auth string, c fsys.Config) ([]string, error) {
	proto, addrKey, port := "http", keyHTTPAddress, defaultHTTPPort
	if scheme == "swebhdfs" {
		proto, addrKey, port = "https", keyHTTPSAddress, defaultHTTPSPort
	}
	if auth == "" {
		return nil, fmt.Errorf("%s:/// names no NameNode: write %s://host:port/path", scheme, scheme)
	}
	if ns, ok := nameservice(auth, c); ok {
		list, _ := c.Get(keyHANamenodes + ns)
		var out []string
		for _, nn := range splitList(list) {
			key := addrKey + "." + ns + "." + nn
			a, ok := c.Get(key)
			a = strings.TrimSpace(a)
			if !ok || a == "" {
				return nil, fmt.Errorf("NameNode %s of nameservice %s has no HTTP address: set %s (host:port)", nn, ns, key)
			}
			if _, _, err := net.SplitHostPort(a); err != nil {
				return nil, fmt.Errorf("%s=%s: want host:port", key, a)
			}
			out = append(out, proto+"://"+strings.ToLower(a))
		}
		if len(out) == 0 {
			return nil, fmt.Errorf("nameservice %s has no NameNodes: set %s%s and %s.%s.<namenode>", ns, keyHANamenodes, ns, addrKey, ns)
		}
		return out, nil
	}
	if _, _, err := net.SplitHostPort(auth); err != nil {
		auth = net.JoinHostPort(auth, port)
	}
	return []string{proto + "://" + auth}, nil
}

// nameservice finds the HA nameservice the authority names, in the
// spelling of the configuration.
func nameservice(auth string, c fsys.Config) (string, bool) {
	if strings.Contains(auth, ":") {
		return "", false
	}
	if list, ok := c.Get(keyNameservices); ok {
		for _, ns := range splitList(list) {
			if strings.EqualFold(ns, auth) {
				if _, ok := c.Get(keyHANamenodes + ns); ok {
					return ns, true
				}
			}
		}
	}
	if _, ok := c.Get(keyHANamenodes + auth); ok {
		return auth, true
	}
	return "", false
}

// duration reads a Hadoop time duration: a number with a unit (ns, us,
// ms, s, m, h, d), milliseconds without one.
func duration(c fsys.Config, key string, def time.Duration) (time.Duration, error) {
	v, ok := c.Get(key)
	v = strings.TrimSpace(v)
	if !ok || v == "" {
		return def, nil
	}
	units := []struct {
		suffix string
		unit   time.Duration
	}{{"ns", time.Nanosecond}, {"us", time.Microsecond}, {"ms", time.Millisecond}, {"s", time.Second}, {"m", time.Minute}, {"h", time.Hour}, {"d", 24 * time.Hour}}
	num, unit := v, time.Millisecond
	for _, u := range units {
		if n, ok := strings.CutSuffix(strings.ToLower(v), u.suffix); ok {
			num, unit = strings.TrimSpace(n), u.unit
			break
		}
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("%s=%s: want a duration such as 60s or 60000 (milliseconds)", key, v)
	}
	return time.Duration(n) * unit, nil
}

func boolean(c fsys.Config, key string) (bool, error) {
	v, ok := c.Get(key)
	v = strings.ToLower(strings.TrimSpace(v))
	switch {
	case !ok || v == "" || v == "false":
		return false, nil
	case v == "true":
		return true, nil
	}
	return false, fmt.Errorf("%s=%s: want true or false", key, v)
}

func splitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// loginUser is the server's own user name: HADOOP_USER_NAME, as Hadoop's
// client honours it, else the operating-system user.
func loginUser() string {
	if u := os.Getenv("HADOOP_USER_NAME"); u != "" {
		return u
	}
	if u, err := user.Current(); err == nil {
		return u.Username
	}
	return "gozie"
}
