package server

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"slices"
	"sort"
	"strings"
	"time"
)

// Proxy-user keys, under Oozie's ProxyUserService names so that an
// oozie-site.xml works unchanged: <prefix><user>.hosts and
// <prefix><user>.groups.
const (
	proxyUserPrefix = "oozie.service.ProxyUserService.proxyuser."
	proxyHosts      = ".hosts"
	proxyGroups     = ".groups"
)

// lookupTimeout bounds the name resolution of one doAs check.
const lookupTimeout = 5 * time.Second

// ProxyUsers are the users that may act for others (the doAs parameter,
// `oozie ... -doas USER`): Oozie's ProxyUserService. A proxy user may act
// from the hosts of its .hosts key for the users who are members of a
// group of its .groups key; `*` allows any host or any user.
type ProxyUsers struct {
	rules map[string]proxyRule
	// GroupsOf lists the OS groups of a proxied user; default those of
	// the server's authorization (AuthOptions.GroupsOf).
	GroupsOf func(user string) []string
	// LookupHost resolves a host name of a .hosts key to addresses;
	// default net.DefaultResolver.
	LookupHost func(ctx context.Context, host string) ([]string, error)
	// LookupAddr names the requesting address (reverse lookup), so that a
	// host name that no longer resolves to it still matches by name;
	// default net.DefaultResolver.
	LookupAddr func(ctx context.Context, addr string) ([]string, error)
}

// proxyRule is one proxy user's hosts and groups; nil means `*`.
type proxyRule struct {
	hosts  []string // host names, lower case
	addrs  []netip.Prefix
	groups []string
}

// ProxyUsersFromConfig reads the proxy users of the configuration. As in
// Oozie, a .hosts key without its .groups key, or the reverse, is refused
// (E0551); an entry that is neither `*`, an IP address, a CIDR range nor a
// host name is refused (E0550).
func ProxyUsersFromConfig(c map[string]string) (*ProxyUsers, error) {
	p := &ProxyUsers{rules: map[string]proxyRule{}}
	keys := make([]string, 0, len(c))
	for k := range c {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if !strings.HasPrefix(k, proxyUserPrefix) || strings.Contains(k, "<") {
			continue // the documentation entries of ConfigKeys name <user>
		}
		rest := strings.TrimPrefix(k, proxyUserPrefix)
		user, ok := strings.CutSuffix(rest, proxyHosts)
		if !ok {
			if user, ok = strings.CutSuffix(rest, proxyGroups); !ok {
				continue
			}
			if _, has := c[proxyUserPrefix+user+proxyHosts]; !has {
				return nil, fmt.Errorf("E0551: Missing [%s%s%s] property", proxyUserPrefix, user, proxyHosts)
			}
			continue
		}
		groupsKey := proxyUserPrefix + user + proxyGroups
		groups, has := c[groupsKey]
		if !has {
			return nil, fmt.Errorf("E0551: Missing [%s] property", groupsKey)
		}
		if user == "" {
			return nil, fmt.Errorf("E0551: Missing [%s<user>%s] property: %s names no user", proxyUserPrefix, proxyHosts, k)
		}
		r, err := parseProxyRule(c[k], groups)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", k, err)
		}
		p.rules[user] = r
	}
	return p, nil
}

// parseProxyRule reads a .hosts and a .groups value.
func parseProxyRule(hosts, groups string) (proxyRule, error) {
	var r proxyRule
	if strings.TrimSpace(hosts) != "*" {
		r.hosts, r.addrs = []string{}, []netip.Prefix{}
		for _, h := range splitList(hosts) {
			if pfx, err := netip.ParsePrefix(h); err == nil {
				r.addrs = append(r.addrs, pfx.Masked())
				continue
			}
			if a, err := netip.ParseAddr(h); err == nil {
				r.addrs = append(r.addrs, netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen()))
				continue
			}
			if !validHostName(h) {
				return r, fmt.Errorf("E0550: Could not normalize host name [%s], not a host name, IP address or CIDR range", h)
			}
			r.hosts = append(r.hosts, strings.ToLower(strings.TrimSuffix(h, ".")))
		}
	}
	if strings.TrimSpace(groups) != "*" {
		r.groups = splitList(groups)
	}
	return r, nil
}

// splitList splits a comma list, dropping blanks.
func splitList(v string) []string {
	out := []string{}
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// validHostName reports a DNS name: letters, digits, '-' and '.'.
func validHostName(h string) bool {
	if h == "" || len(h) > 253 {
		return false
	}
	for _, c := range h {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '.') {
			return false
		}
	}
	return true
}

// Users lists the configured proxy users, sorted.
func (p *ProxyUsers) Users() []string {
	out := make([]string, 0, len(p.rules))
	for u := range p.rules {
		out = append(out, u)
	}
	sort.Strings(out)
	return out
}

// Validate checks that proxy may act for doAs from the address remote
// (an IP address, as http.Request.RemoteAddr without its port). The error
// is Oozie's message for E1400.
func (p *ProxyUsers) Validate(ctx context.Context, proxy, remote, doAs string) error {
	r, ok := p.rules[proxy]
	if proxy == "" || !ok {
		return fmt.Errorf("User [%s] not defined as proxyuser", proxy)
	}
	if !p.hostAllowed(ctx, r, remote) {
		return fmt.Errorf("Unauthorized host [%s] for proxyuser [%s]", remote, proxy)
	}
	if r.groups != nil {
		groupsOf := p.GroupsOf
		if groupsOf == nil {
			groupsOf = osGroups
		}
		member := false
		for _, g := range groupsOf(doAs) {
			if slices.Contains(r.groups, g) {
				member = true
				break
			}
		}
		if !member {
			return fmt.Errorf("Unauthorized proxyuser [%s] for user [%s], not in proxyuser groups", proxy, doAs)
		}
	}
	return nil
}

// hostAllowed matches remote against a rule's hosts: by address or range,
// then by the addresses the named hosts resolve to, then by the names the
// address resolves back to (Oozie compares canonical host names).
func (p *ProxyUsers) hostAllowed(ctx context.Context, r proxyRule, remote string) bool {
	if r.hosts == nil {
		return true
	}
	a, err := netip.ParseAddr(remote)
	if err != nil {
		return false
	}
	a = a.Unmap()
	for _, pfx := range r.addrs {
		if pfx.Contains(a) {
			return true
		}
	}
	if len(r.hosts) == 0 {
		return false
	}
	ctx, cancel := context.WithTimeout(ctx, lookupTimeout)
	defer cancel()
	lookupHost, lookupAddr := p.LookupHost, p.LookupAddr
	if lookupHost == nil {
		lookupHost = net.DefaultResolver.LookupHost
	}
	if lookupAddr == nil {
		lookupAddr = net.DefaultResolver.LookupAddr
	}
	for _, h := range r.hosts {
		addrs, err := lookupHost(ctx, h)
		if err != nil {
			continue
		}
		for _, s := range addrs {
			if b, err := netip.ParseAddr(s); err == nil && b.Unmap() == a {
				return true
			}
		}
	}
	names, _ := lookupAddr(ctx, a.String())
	for _, n := range names {
		if slices.Contains(r.hosts, strings.ToLower(strings.TrimSuffix(n, "."))) {
			return true
		}
	}
	return false
}

// doAs resolves the doAs parameter of a request authenticated as user: it
// returns the user the request acts as and, when that is another user, the
// proxy user acting for it. A doAs naming the caller itself changes
// nothing. Otherwise the caller must be a proxy user allowed to act for
// doAs from the request's address; refusals are Oozie's 401 E1400.
func (s *Server) doAs(r *http.Request, user string) (effective, proxy string, err *apiError) {
	as := strings.TrimSpace(r.URL.Query().Get("doAs"))
	if as == "" || as == user {
		return user, "", nil
	}
	if !validUserName(as) {
		return "", "", errParamValue("doAs", fmt.Sprintf("%q", as))
	}
	if user == "" {
		return "", "", errorf(http.StatusUnauthorized, "E1400",
			"doAs (proxyuser) failure, an anonymous request cannot act as [%s]: authenticate as a proxy user (oozie.service.ProxyUserService.proxyuser.<user>.hosts and .groups)", as)
	}
	host, _, splitErr := net.SplitHostPort(r.RemoteAddr)
	if splitErr != nil {
		host = r.RemoteAddr
	}
	if verr := s.proxyUsers.Validate(r.Context(), user, host, as); verr != nil {
		return "", "", errorf(http.StatusUnauthorized, "E1400", "%s", verr.Error())
	}
	return as, user, nil
}

// logUser is how a request's user appears in the request log and audit
// lines: the user acted for, and the proxy user when one acted.
func (c *call) logUser() string {
	if c.proxy == "" {
		return c.user
	}
	return c.user + " (proxy " + c.proxy + ")"
}
