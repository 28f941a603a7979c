package server

import (
	"context"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/gozie/gozie/internal/store"
)

// The Host check defends a server that listens on a machine where people
// browse (a laptop, a build host) against DNS rebinding: a page of
// evil.example whose name is then made to resolve to 127.0.0.1 talks to
// the local server with the browser's blessing, since to the browser it is
// evil.example's own server. The request still says Host: evil.example,
// which no name of this server matches, so it is refused before anything
// else happens. Addresses need no check: a rebinding page cannot make the
// browser send an address it did not load the page from.

// hostPeersRefresh is how often, at most, a Host that matches nothing else
// makes the server read the live servers again: a server that joined since
// is then allowed, and a flood of bad names costs one store query per
// interval.
const hostPeersRefresh = 10 * time.Second

// canonicalLookupTimeout bounds the one lookup of the host's canonical
// name (its FQDN) at start.
const canonicalLookupTimeout = 5 * time.Second

// hostGuard decides which Host headers the server answers: IP addresses,
// localhost, the host's names, its base URL's host, the other live
// servers' base URL hosts and the names of gozie.http.allowed.hosts.
type hostGuard struct {
	any     bool     // "*" allows every Host
	domains []string // ".example.com": the domain and every name below it
	now     func() time.Time
	// live lists the servers sharing the store; nil for a server of its
	// own.
	live func(ctx context.Context) ([]store.ServerInfo, error)

	mu      sync.RWMutex
	names   map[string]bool // lower case, no port, no final dot
	peers   map[string]bool // the live servers' hosts when last read
	peersAt time.Time       // when they were read; zero: never
	reading sync.Mutex      // one reader of the live servers at a time
}

// newHostGuard builds the guard of a server at baseURL, with the extra
// names of gozie.http.allowed.hosts.
func newHostGuard(baseURL string, extra []string, now func() time.Time, live func(context.Context) ([]store.ServerInfo, error)) *hostGuard {
	g := &hostGuard{now: now, live: live, names: map[string]bool{"localhost": true}}
	if h, err := os.Hostname(); err == nil {
		g.addName(h)
	}
	if u, err := url.Parse(baseURL); err == nil {
		g.addName(u.Hostname())
	}
	for _, n := range extra {
		n = strings.TrimSpace(n)
		switch {
		case n == "*":
			g.any = true
		case strings.HasPrefix(n, "."):
			if d := hostName(n); len(d) > 1 {
				g.domains = append(g.domains, d)
			}
		default:
			g.addName(n)
		}
	}
	return g
}

// hostName is the comparable form of a name: lower case, without the
// final dot of a fully qualified name.
func hostName(n string) string {
	return strings.TrimSuffix(strings.ToLower(strings.TrimSpace(n)), ".")
}

// addName allows one more name.
func (g *hostGuard) addName(n string) {
	if n = hostName(n); n == "" {
		return
	}
	g.mu.Lock()
	g.names[n] = true
	g.mu.Unlock()
}

// learnCanonical allows the host's canonical name (its FQDN, e.g.
// web1.corp.example for web1) as lookup reports it. Called once at start:
// never a lookup per request.
func (g *hostGuard) learnCanonical(ctx context.Context, lookup func(context.Context, string) (string, error)) {
	h, err := os.Hostname()
	if err != nil || h == "" {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, canonicalLookupTimeout)
	defer cancel()
	if name, err := lookup(ctx, h); err == nil {
		g.addName(name)
	}
}

// splitHost reads a Host header: the name without its port, or whether it
// is an IP address (v4, or v6 in brackets, with or without a port). ok is
// false for a header that is neither.
func splitHost(h string) (name string, ip, ok bool) {
	if strings.HasPrefix(h, "[") {
		end := strings.IndexByte(h, ']')
		if end < 0 {
			return "", false, false
		}
		rest := h[end+1:]
		if rest != "" && !strings.HasPrefix(rest, ":") {
			return "", false, false
		}
		// A zone is percent-encoded in a Host header (fe80::1%25eth0).
		addr := h[1:end]
		if z, err := url.PathUnescape(addr); err == nil {
			addr = z
		}
		_, err := netip.ParseAddr(addr)
		return "", err == nil, err == nil
	}
	if i := strings.LastIndexByte(h, ':'); i >= 0 && strings.Count(h, ":") == 1 {
		h = h[:i]
	}
	if _, err := netip.ParseAddr(h); err == nil {
		return "", true, true
	}
	return hostName(h), false, h != ""
}

// allowed reports whether a request naming host may be answered.
func (g *hostGuard) allowed(ctx context.Context, host string) bool {
	if g.any || host == "" {
		// No Host at all (HTTP/1.0): no name to have been misdirected.
		return true
	}
	name, ip, ok := splitHost(host)
	if ip {
		return true
	}
	if !ok {
		return false
	}
	g.mu.RLock()
	known := g.names[name]
	g.mu.RUnlock()
	if known {
		return true
	}
	for _, d := range g.domains {
		if name == d[1:] || strings.HasSuffix(name, d) {
			return true
		}
	}
	return g.peer(ctx, name)
}

// peer reports whether name is the host of a live server's base URL,
// reading the live servers again when the last read is older than
// hostPeersRefresh. A failed read keeps the last list until the next
// interval.
func (g *hostGuard) peer(ctx context.Context, name string) bool {
	if g.live == nil {
		return false
	}
	if ok, fresh := g.knownPeer(name); ok || fresh {
		return ok
	}
	g.reading.Lock()
	defer g.reading.Unlock()
	if ok, fresh := g.knownPeer(name); ok || fresh {
		return ok // another request read them meanwhile
	}
	live, err := g.live(ctx)
	g.mu.Lock()
	defer g.mu.Unlock()
	g.peersAt = g.now()
	if err == nil {
		g.peers = map[string]bool{}
		for _, s := range live {
			if u, err := url.Parse(s.URL); err == nil && u.Hostname() != "" {
				g.peers[hostName(u.Hostname())] = true
			}
		}
	}
	return g.peers[name]
}

// knownPeer reports whether name is a peer's host as last read, and
// whether that read is recent enough to trust a no.
func (g *hostGuard) knownPeer(name string) (ok, fresh bool) {
	g.mu.RLock()
	defer g.mu.RUnlock()
	return g.peers[name], !g.peersAt.IsZero() && g.now().Sub(g.peersAt) < hostPeersRefresh
}

// errHostNotAllowed refuses a request whose Host is not a name of this
// server: 421 Misdirected Request, the status for "this server does not
// answer for that name" (403 would suggest that a credential could help).
// The message does not list the allowed names: a rebinding page can read
// the answer.
func errHostNotAllowed(host string) *apiError {
	if len(host) > 256 {
		host = host[:256] + "..."
	}
	return errorf(http.StatusMisdirectedRequest, "E0303",
		"Invalid parameter value, [Host] = [%s]: not a name of this server; if clients reach it by this name, add it to gozie.http.allowed.hosts", host)
}
