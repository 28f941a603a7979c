package fsystest

import (
	"bytes"
	"context"
	"io"
	"io/fs"
	"net/url"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/gozie/gozie/internal/fsys"
)

// MemStore is an in-memory store with an object store's rules (a
// directory is a prefix with objects below it or a marker "prefix/";
// Rename copies then deletes), for the tests of what sits above the
// backends — the input check's prober, the coordinator engine — that
// need to count requests, see the configuration and user a request came
// with, or make a store stop answering. It stands for no real store: a
// backend is tested against its real server, never against this.
type MemStore struct {
	scheme string

	mu       sync.Mutex
	objects  map[string]memObject // by canonical URI; "uri/" is a marker
	counts   map[string]int       // requests by operation
	users    map[string]int       // requests by fsys.UserFrom
	opened   []fsys.Config
	inFlight map[string]int // by authority
	maxIn    map[string]int
	hook     func(ctx context.Context, op, p string) error
}

type memObject struct {
	data []byte
	mod  time.Time
}

// RegisterMem registers a MemStore serving scheme, reading the keys
// under "fs.<scheme>." (a job setting one gets an instance of its own,
// as with a real backend). With walker, its instances implement
// fsys.Walker. Register each scheme once per test binary.
func RegisterMem(scheme string, walker bool) *MemStore {
	m := &MemStore{scheme: scheme, objects: map[string]memObject{}, counts: map[string]int{}, users: map[string]int{},
		inFlight: map[string]int{}, maxIn: map[string]int{}}
	fsys.Register(fsys.Backend{
		Name: "memory (" + scheme + ")", Schemes: []string{scheme}, ConfPrefixes: []string{"fs." + scheme + "."},
		Open: func(_ context.Context, u *url.URL, c fsys.Config) (fsys.FileSystem, error) {
			m.mu.Lock()
			m.opened = append(m.opened, c)
			m.mu.Unlock()
			fs := &memFS{m: m, root: scheme + "://" + u.Host}
			if walker {
				return &memWalkFS{fs}, nil
			}
			return fs, nil
		},
	})
	return m
}

// SetHook makes every request call hook first, counted in flight; an
// error from it is the request's answer (an *fsys.UnavailableError
// makes the store not answer; blocking on ctx makes it hang).
func (m *MemStore) SetHook(hook func(ctx context.Context, op, p string) error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.hook = hook
}

// Put writes an object directly, without a request.
func (m *MemStore) Put(uri string, data string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.objects[uri] = memObject{[]byte(data), time.Now()}
}

// Remove deletes an object directly, without a request.
func (m *MemStore) Remove(uri string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.objects, uri)
}

// Count returns the requests of an operation ("stat", "walk", "list",
// ...) since the last Reset; "" counts them all.
func (m *MemStore) Count(op string) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	if op != "" {
		return m.counts[op]
	}
	n := 0
	for _, c := range m.counts {
		n += c
	}
	return n
}

// MaxInFlight returns the most requests to authority in flight at once
// since the last Reset.
func (m *MemStore) MaxInFlight(authority string) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.maxIn[authority]
}

// Users returns the requests by the user their context carried.
func (m *MemStore) Users() map[string]int {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := map[string]int{}
	for u, n := range m.users {
		out[u] = n
	}
	return out
}

// Opened returns the configurations instances were opened with, in
// order.
func (m *MemStore) Opened() []fsys.Config {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]fsys.Config(nil), m.opened...)
}

// Reset clears the counts of requests, users and requests in flight.
func (m *MemStore) Reset() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.counts, m.users, m.maxIn = map[string]int{}, map[string]int{}, map[string]int{}
}

// request counts one request and runs the hook.
func (m *MemStore) request(ctx context.Context, op, p string) (done func(), err error) {
	auth := fsys.Authority(p)
	m.mu.Lock()
	m.counts[op]++
	m.users[fsys.UserFrom(ctx)]++
	m.inFlight[auth]++
	m.maxIn[auth] = max(m.maxIn[auth], m.inFlight[auth])
	hook := m.hook
	m.mu.Unlock()
	done = func() {
		m.mu.Lock()
		m.inFlight[auth]--
		m.mu.Unlock()
	}
	if hook != nil {
		err = hook(ctx, op, p)
	}
	if err == nil {
		err = ctx.Err()
	}
	return done, err
}

// memFS is one instance of a MemStore, for one authority.
type memFS struct {
	m    *MemStore
	root string // scheme://authority
}

// key is p without a trailing slash; the root is "".
func (f *memFS) key(p string) string {
	p = strings.TrimSuffix(p, "/")
	if p == f.root {
		return ""
	}
	return p
}

// statLocked describes key k: the root, an object, or a prefix.
func (f *memFS) statLocked(k string) (*fsys.FileInfo, bool) {
	if k == "" {
		return &fsys.FileInfo{Path: f.root + "/", Dir: true}, true
	}
	if o, ok := f.m.objects[k]; ok {
		return &fsys.FileInfo{Path: k, Length: int64(len(o.data)), BlockSize: fsys.LocalBlockSize, Modified: o.mod}, true
	}
	for o := range f.m.objects {
		if strings.HasPrefix(o, k+"/") {
			return &fsys.FileInfo{Path: k, Dir: true}, true
		}
	}
	return nil, false
}

func notExist(op, p string) error { return &fs.PathError{Op: op, Path: p, Err: fs.ErrNotExist} }

// Stat describes p.
func (f *memFS) Stat(ctx context.Context, p string) (*fsys.FileInfo, error) {
	done, err := f.m.request(ctx, "stat", p)
	defer done()
	if err != nil {
		return nil, err
	}
	f.m.mu.Lock()
	defer f.m.mu.Unlock()
	fi, ok := f.statLocked(f.key(p))
	if !ok {
		return nil, notExist("stat", p)
	}
	return fi, nil
}

// List returns the entries directly below p.
func (f *memFS) List(ctx context.Context, p string) ([]*fsys.FileInfo, error) {
	done, err := f.m.request(ctx, "list", p)
	defer done()
	if err != nil {
		return nil, err
	}
	f.m.mu.Lock()
	defer f.m.mu.Unlock()
	k := f.key(p)
	fi, ok := f.statLocked(k)
	if !ok {
		return nil, notExist("list", p)
	}
	if !fi.Dir {
		return []*fsys.FileInfo{fi}, nil
	}
	base := k
	if base == "" {
		base = f.root
	}
	seen := map[string]*fsys.FileInfo{}
	for o, obj := range f.m.objects {
		rest, ok := strings.CutPrefix(o, base+"/")
		if !ok || rest == "" {
			continue
		}
		if name, _, sub := strings.Cut(rest, "/"); sub {
			seen[name] = &fsys.FileInfo{Path: base + "/" + name, Dir: true}
		} else if seen[name] == nil {
			seen[name] = &fsys.FileInfo{Path: o, Length: int64(len(obj.data)), BlockSize: fsys.LocalBlockSize, Modified: obj.mod}
		}
	}
	out := make([]*fsys.FileInfo, 0, len(seen))
	for _, e := range seen {
		out = append(out, e)
	}
	return out, nil
}

// Open reads an object.
func (f *memFS) Open(ctx context.Context, p string) (io.ReadCloser, error) {
	done, err := f.m.request(ctx, "open", p)
	defer done()
	if err != nil {
		return nil, err
	}
	f.m.mu.Lock()
	defer f.m.mu.Unlock()
	o, ok := f.m.objects[f.key(p)]
	if !ok {
		return nil, notExist("open", p)
	}
	return io.NopCloser(bytes.NewReader(o.data)), nil
}

// Create writes one object.
func (f *memFS) Create(ctx context.Context, p string, r io.Reader) error {
	done, err := f.m.request(ctx, "create", p)
	defer done()
	if err != nil {
		return err
	}
	data, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	f.m.mu.Lock()
	defer f.m.mu.Unlock()
	k := f.key(p)
	if fi, ok := f.statLocked(k); ok && fi.Dir {
		return &fs.PathError{Op: "create", Path: p, Err: fs.ErrExist}
	}
	f.m.objects[k] = memObject{data, time.Now()}
	return nil
}

// MkdirAll writes the marker of p.
func (f *memFS) MkdirAll(ctx context.Context, p string) error {
	done, err := f.m.request(ctx, "mkdir", p)
	defer done()
	if err != nil {
		return err
	}
	f.m.mu.Lock()
	defer f.m.mu.Unlock()
	k := f.key(p)
	if k == "" {
		return nil
	}
	for q := k; len(q) > len(f.root); q = q[:strings.LastIndexByte(q, '/')] {
		if _, ok := f.m.objects[q]; ok {
			return &fs.PathError{Op: "mkdir", Path: q, Err: fs.ErrExist}
		}
	}
	f.m.objects[k+"/"] = memObject{mod: time.Now()}
	return nil
}

// Delete removes p and everything below it.
func (f *memFS) Delete(ctx context.Context, p string) error {
	done, err := f.m.request(ctx, "delete", p)
	defer done()
	if err != nil {
		return err
	}
	f.m.mu.Lock()
	defer f.m.mu.Unlock()
	k := f.key(p)
	for o := range f.m.objects {
		if o == k || k == "" || strings.HasPrefix(o, k+"/") {
			delete(f.m.objects, o)
		}
	}
	return nil
}

// Rename copies every object of src to dst, then deletes src.
func (f *memFS) Rename(ctx context.Context, src, dst string) error {
	done, err := f.m.request(ctx, "rename", src)
	defer done()
	if err != nil {
		return err
	}
	f.m.mu.Lock()
	defer f.m.mu.Unlock()
	s, d := f.key(src), f.key(dst)
	if _, ok := f.statLocked(s); !ok {
		return notExist("rename", src)
	}
	if _, ok := f.statLocked(d); ok {
		return &fs.PathError{Op: "rename", Path: dst, Err: fs.ErrExist}
	}
	if parent := d[:strings.LastIndexByte(d, '/')]; len(parent) > len(f.root) {
		if fi, ok := f.statLocked(parent); !ok || !fi.Dir {
			return notExist("rename", dst)
		}
	}
	moved := map[string]memObject{}
	for o, obj := range f.m.objects {
		if o == s {
			moved[d] = obj
		} else if rest, ok := strings.CutPrefix(o, s+"/"); ok {
			moved[d+"/"+rest] = obj
		} else {
			continue
		}
		delete(f.m.objects, o)
	}
	for o, obj := range moved {
		f.m.objects[o] = obj
	}
	return nil
}

// memWalkFS is a memFS that walks a prefix in one request.
type memWalkFS struct{ *memFS }

// Walk calls fn for every object below p, in key order; a marker is
// given as a directory.
func (f *memWalkFS) Walk(ctx context.Context, p string, fn func(*fsys.FileInfo) error) error {
	done, err := f.m.request(ctx, "walk", p)
	defer done()
	if err != nil {
		return err
	}
	k := f.key(p)
	if k == "" {
		k = f.root
	}
	f.m.mu.Lock()
	var list []*fsys.FileInfo
	for o, obj := range f.m.objects {
		if strings.HasPrefix(o, k+"/") {
			list = append(list, &fsys.FileInfo{Path: strings.TrimSuffix(o, "/"), Length: int64(len(obj.data)), Dir: strings.HasSuffix(o, "/"), Modified: obj.mod})
		}
	}
	f.m.mu.Unlock()
	sort.Slice(list, func(i, j int) bool { return list[i].Path < list[j].Path })
	for _, fi := range list {
		if err := fn(fi); err != nil {
			return err
		}
	}
	return nil
}
