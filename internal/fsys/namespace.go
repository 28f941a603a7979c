package fsys

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/url"
	"path"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
)

// MountKeyPrefix starts the configuration keys of the mount table:
// gozie.fs.mount.<uri-prefix>=<uri-prefix>.
const MountKeyPrefix = "gozie.fs.mount."

// Mount maps every path under From to the same place under To, as a
// ViewFs link does: From=hdfs://localhost:8020/user/me, To=/data/me makes
// hdfs://localhost:8020/user/me/in/x the local /data/me/in/x.
type Mount struct {
	From, To string
}

// Namespace resolves the paths users write to a backend and a path in
// it: through the mount table first (the longest matching prefix wins),
// then by scheme. It keeps one backend per store and configuration, made
// on first use. The zero value is not usable; NewNamespace makes one.
type Namespace struct {
	conf   Config
	mounts []Mount // longest From first

	mu    sync.Mutex
	cache map[string]*storeEntry
	// settings is what Settings returned, for backends registered up to
	// generation settingsGen: every shell step writes them into its
	// action.xml, and walking the server's configuration for them was a
	// twentieth of the server's CPU per step.
	settings    map[string]string
	settingsGen uint64
}

type storeEntry struct {
	fs  FileSystem
	err error
}

// NewNamespace returns a namespace reading backend settings from c (nil:
// none) and applying mounts. A mount whose prefixes are not absolute
// paths or URIs with a path is refused.
func NewNamespace(c Config, mounts []Mount) (*Namespace, error) {
	if c == nil {
		c = MapConfig{}
	}
	n := &Namespace{conf: c, cache: map[string]*storeEntry{}}
	for _, m := range mounts {
		from, err := normalizeMount(m.From)
		if err != nil {
			return nil, fmt.Errorf("%s%s: %v", MountKeyPrefix, m.From, err)
		}
		to, err := normalizeMount(m.To)
		if err != nil {
			return nil, fmt.Errorf("%s%s=%s: %v", MountKeyPrefix, m.From, m.To, err)
		}
		n.mounts = append(n.mounts, Mount{From: from, To: to})
	}
	sort.SliceStable(n.mounts, func(i, j int) bool { return len(n.mounts[i].From) > len(n.mounts[j].From) })
	return n, nil
}

// MountsFromConfig reads the mount table from the keys that start with
// MountKeyPrefix and have a value.
func MountsFromConfig(keys map[string]string) []Mount {
	var out []Mount
	for k, v := range keys {
		// An empty value leaves a prefix unmounted (a documentation
		// placeholder such as gozie.fs.mount.<uri-prefix> has one).
		if from, ok := strings.CutPrefix(k, MountKeyPrefix); ok && from != "" && strings.TrimSpace(v) != "" {
			out = append(out, Mount{From: from, To: strings.TrimSpace(v)})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].From < out[j].From })
	return out
}

// Mounts returns the mount table, longest prefix first.
func (n *Namespace) Mounts() []Mount { return append([]Mount(nil), n.mounts...) }

// normalizeMount cleans a mount prefix: scheme and authority in lower
// case, the path cleaned, no trailing slash.
func normalizeMount(p string) (string, error) {
	p = strings.TrimSpace(p)
	if p == "" {
		return "", fmt.Errorf("empty prefix")
	}
	s := Scheme(p)
	if s == "" || s == "file" {
		local := p
		if s == "file" {
			l, err := Local(p)
			if err != nil {
				return "", err
			}
			local = l
		}
		if !strings.HasPrefix(local, "/") {
			return "", fmt.Errorf("prefix [%s] is not an absolute path or a URI", p)
		}
		return strings.TrimSuffix(path.Clean(local), "/"), nil
	}
	return canonical(p)
}

// canonical returns URI p with its scheme and authority in lower case and
// its path cleaned, without a trailing slash (the root keeps its "/").
func canonical(p string) (string, error) {
	s := Scheme(p)
	rest := p[len(s)+1:]
	if !strings.HasPrefix(rest, "//") {
		return "", fmt.Errorf("URI [%s] has no authority (scheme://authority/path)", p)
	}
	auth := Authority(p)
	pp := rest[2+len(auth):]
	if pp == "" {
		pp = "/"
	}
	pp = path.Clean(pp)
	if pp == "/" {
		return s + "://" + strings.ToLower(auth), nil
	}
	return s + "://" + strings.ToLower(auth) + pp, nil
}

// Resolved is a path resolved to its backend.
type Resolved struct {
	FS FileSystem
	// Path is the path in the backend's form.
	Path string
	// local is true for the local backend; prefix is then the form of
	// the input kept on results ("file://", "file:" or "").
	local  bool
	prefix string
	// mount is the mount the path went through, if any.
	mount *Mount
}

// Local reports whether the path is on the local file system, and where.
func (r Resolved) Local() (string, bool) { return r.Path, r.local }

// Back turns a path of the backend into the form of the path resolved:
// the same scheme prefix, and back through the mount.
func (r Resolved) Back(p string) string {
	if r.local {
		p = r.prefix + p
	}
	if r.mount == nil {
		return p
	}
	to := r.mount.To
	if r.local && r.prefix != "" {
		to = r.prefix + to
	}
	if rest, ok := strings.CutPrefix(p, to); ok && (rest == "" || rest[0] == '/') {
		return r.mount.From + rest
	}
	return p
}

// Resolve finds the backend of p and p's path in it. Job settings carried
// by ctx (WithConf) take precedence over the namespace's.
func (n *Namespace) Resolve(ctx context.Context, p string) (Resolved, error) {
	var r Resolved
	orig := p
	if m, rest, ok := n.match(p); ok {
		p = m.To + rest
		r.mount = m
	}
	s := Scheme(p)
	if s == "" || s == "file" {
		prefix, l, err := split(p)
		if err != nil {
			return r, err
		}
		if r.mount != nil {
			prefix = "" // the mount's target form is what results keep
		}
		r.FS, r.Path, r.local, r.prefix = localFS{}, l, true, prefix
		return r, nil
	}
	b := backendFor(s)
	if b == nil {
		return r, &UnsupportedError{Scheme: s, Path: orig}
	}
	cp, err := canonical(p)
	if err != nil {
		return r, fmt.Errorf("invalid path [%s]: %v", orig, err)
	}
	store := s + "://" + strings.ToLower(Authority(p))
	fsys, err := n.store(ctx, b, store)
	if err != nil {
		return r, err
	}
	r.FS, r.Path = fsys, cp
	return r, nil
}

// match finds the mount whose From is p or a parent of p.
func (n *Namespace) match(p string) (*Mount, string, bool) {
	if len(n.mounts) == 0 {
		return nil, "", false
	}
	key := p
	if s := Scheme(p); s != "" && s != "file" {
		c, err := canonical(p)
		if err != nil {
			return nil, "", false
		}
		key = c
	} else if l, err := Local(p); err == nil && strings.HasPrefix(l, "/") {
		key = path.Clean(l)
	} else {
		return nil, "", false
	}
	for i := range n.mounts {
		m := &n.mounts[i]
		if rest, ok := strings.CutPrefix(key, m.From); ok && (rest == "" || rest[0] == '/') {
			return m, rest, true
		}
	}
	return nil, "", false
}

// store returns the backend of one store for the configuration in force.
func (n *Namespace) store(ctx context.Context, b *Backend, store string) (FileSystem, error) {
	c, fp := n.conf, ""
	if job := confFrom(ctx); job != nil {
		if over, f := overlay(job, n.conf, b.ConfPrefixes); f != "" {
			c, fp = over, f
		}
	}
	key := store + "\x00" + fp
	n.mu.Lock()
	e, ok := n.cache[key]
	n.mu.Unlock()
	if ok {
		return e.fs, e.err
	}
	u, err := url.Parse(store)
	if err != nil {
		return nil, fmt.Errorf("invalid store [%s]: %v", store, err)
	}
	fs, err := b.Open(ctx, u, c)
	n.mu.Lock()
	defer n.mu.Unlock()
	if e, ok := n.cache[key]; ok { // another caller won the race
		return e.fs, e.err
	}
	n.cache[key] = &storeEntry{fs: fs, err: err}
	return fs, err
}

// Names lists the keys of a configuration that can enumerate them
// (*conf.Config, MapConfig).
type Names interface {
	Names() []string
}

// Names returns the keys of m.
func (m MapConfig) Names() []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// overlay returns job over base when job sets keys under prefixes, with a
// fingerprint of those keys; "" when it sets none.
func overlay(job, base Config, prefixes []string) (Config, string) {
	nm, ok := job.(Names)
	if !ok {
		return nil, ""
	}
	var set []string
	for _, k := range nm.Names() {
		for _, p := range prefixes {
			if strings.HasPrefix(k, p) {
				v, _ := job.Get(k)
				set = append(set, k+"="+v)
				break
			}
		}
	}
	if len(set) == 0 {
		return nil, ""
	}
	sort.Strings(set)
	h := sha256.Sum256([]byte(strings.Join(set, "\x00")))
	return layered{job, base}, hex.EncodeToString(h[:12])
}

// layered looks a key up in top, then in base.
type layered struct{ top, base Config }

// Layer returns a Config looking keys up in top, then in base (an
// action's configuration over its job's).
func Layer(top, base Config) Config { return layered{top, base} }

// Names lists the keys of both layers that can enumerate theirs.
func (l layered) Names() []string {
	var out []string
	for _, c := range []Config{l.top, l.base} {
		if n, ok := c.(Names); ok {
			out = append(out, n.Names()...)
		}
	}
	return out
}

func (l layered) Get(k string) (string, bool) {
	if v, ok := l.top.Get(k); ok {
		return v, true
	}
	return l.base.Get(k)
}

type ctxKey int

const (
	confKey ctxKey = iota
	userKey
)

// WithConf returns a context whose file operations use the store settings
// of c (a job's configuration) over the namespace's.
func WithConf(ctx context.Context, c Config) context.Context {
	if c == nil {
		return ctx
	}
	return context.WithValue(ctx, confKey, c)
}

func confFrom(ctx context.Context) Config {
	c, _ := ctx.Value(confKey).(Config)
	return c
}

// WithUser returns a context whose file operations act for user on stores
// that know users (HDFS and WebHDFS: as a proxy user).
func WithUser(ctx context.Context, user string) context.Context {
	if user == "" {
		return ctx
	}
	return context.WithValue(ctx, userKey, user)
}

// UserFrom returns the user set by WithUser, or "".
func UserFrom(ctx context.Context) string {
	u, _ := ctx.Value(userKey).(string)
	return u
}

var defaultNS atomic.Pointer[Namespace]

// Default returns the process's namespace: the one SetDefault installed,
// or one with no mounts and no settings.
func Default() *Namespace {
	if n := defaultNS.Load(); n != nil {
		return n
	}
	n, _ := NewNamespace(nil, nil)
	defaultNS.CompareAndSwap(nil, n)
	return defaultNS.Load()
}

// SetDefault installs n as the process's namespace (the server does at
// start, from its configuration) and returns the one it replaces.
func SetDefault(n *Namespace) *Namespace {
	return defaultNS.Swap(n)
}

// Settings returns what a child process needs to build the same
// namespace: the keys of the namespace's configuration under any
// registered backend's prefixes, and the mount table as gozie.fs.mount.*
// keys. Actions write them into their action.xml, so that the tools they
// run (distcp, streaming, Hadoop's own) reach the same stores. The map is
// kept for the next call (the configuration does not change under a
// namespace; a backend registered since makes it anew): read only.
func (n *Namespace) Settings() map[string]string {
	regMu.RLock()
	gen := regGen
	regMu.RUnlock()
	n.mu.Lock()
	if n.settings != nil && n.settingsGen == gen {
		defer n.mu.Unlock()
		return n.settings
	}
	n.mu.Unlock()
	out := n.settingsOf()
	n.mu.Lock()
	n.settings, n.settingsGen = out, gen
	n.mu.Unlock()
	return out
}

// settingsOf computes Settings.
func (n *Namespace) settingsOf() map[string]string {
	out := map[string]string{}
	for _, m := range n.mounts {
		out[MountKeyPrefix+m.From] = m.To
	}
	nm, ok := n.conf.(Names)
	if !ok {
		return out
	}
	regMu.RLock()
	var prefixes []string
	for _, b := range backends {
		prefixes = append(prefixes, b.ConfPrefixes...)
	}
	regMu.RUnlock()
	for _, k := range nm.Names() {
		for _, p := range prefixes {
			if strings.HasPrefix(k, p) {
				out[k], _ = n.conf.Get(k)
				break
			}
		}
	}
	return out
}
