// Package hdfs is the hdfs:// backend of fsys: HDFS through the NameNode's
// RPC protocol and the datanodes' transfer protocol, with
// github.com/colinmarc/hdfs (pure Go) and, for Kerberos, gokrb5.
//
// An authority is a NameNode (hdfs://nn:8020, port 8020 when none is
// given) or an HA nameservice (hdfs://mycluster) whose NameNodes the
// configuration lists; the client tries them in order and fails over when
// one is down or standby. With simple authentication the client acts as
// the user of the context (fsys.WithUser), one connection per user; with
// Kerberos it acts as the server's own principal for every user, because
// the library cannot send a proxy user (docs/storage.md says what
// that means). Importing the package registers the backend.
package hdfs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path"
	"strings"
	"sync"
	"time"

	gohdfs "github.com/colinmarc/hdfs/v2"
	krbclient "github.com/jcmturner/gokrb5/v8/client"

	"github.com/gozie/gozie/internal/fsys"
)

// maxClients bounds the per-user clients of one store kept open at once.
const maxClients = 64

// copyingSuffix names the file Create writes before renaming it over the
// target, as Hadoop's -put does, so that readers never see part of a file.
const copyingSuffix = "._COPYING_"

func init() {
	fsys.Register(fsys.Backend{
		Name:         "HDFS",
		Schemes:      []string{"hdfs"},
		ConfPrefixes: []string{"fs.", "dfs.", "hadoop.", "oozie.service.HadoopAccessorService."},
		Open: func(_ context.Context, uri *url.URL, c fsys.Config) (fsys.FileSystem, error) {
			return open(uri, c, osEnviron())
		},
	})
}

// FS is one HDFS store: a NameNode or a nameservice. It connects on first
// use; its methods are safe for concurrent use.
type FS struct {
	set         *settings
	prefix      string // hdfs://authority, the start of every path handed in
	defaultUser string // who acts when the context names no user (simple auth)
	cache       *clientCache[*gohdfs.Client]

	krbMu    sync.Mutex
	krb      *krbclient.Client
	krbUntil time.Time
}

// open makes the FS of uri's store. It reads the configuration only: no
// network and no Kerberos files yet.
func open(uri *url.URL, c fsys.Config, env environ) (*FS, error) {
	auth := strings.ToLower(uri.Host)
	set, err := parseSettings(auth, c, env)
	if err != nil {
		return nil, fmt.Errorf("hdfs://%s: %w", auth, err)
	}
	f := &FS{set: set, prefix: "hdfs://" + auth, defaultUser: loginUser()}
	f.cache = newClientCache(maxClients, f.newClient)
	return f, nil
}

// newClient connects for user ("" under Kerberos: the principal acts).
func (f *FS) newClient(user string) (*gohdfs.Client, time.Time, error) {
	opts := gohdfs.ClientOptionsFromConf(f.set.datanode)
	opts.Addresses = f.set.addresses
	opts.User = user
	opts.NamenodeDialFunc = fsys.IdleDialer(f.set.connectTimeout, f.set.rpcTimeout)
	opts.DatanodeDialFunc = fsys.IdleDialer(f.set.connectTimeout, f.set.socketTimeout)
	var until time.Time
	if f.set.kerberos {
		kc, u, err := f.kerberos()
		if err != nil {
			return nil, time.Time{}, err
		}
		opts.KerberosClient, opts.KerberosServicePrincipleName, until = kc, f.set.spn, u
	}
	c, err := gohdfs.NewClient(opts)
	if err != nil {
		return nil, time.Time{}, err
	}
	// The library fetches the server defaults on the first write and keeps
	// them without a lock: fetching them now, before the client is shared,
	// keeps concurrent first writes from racing.
	if _, err := c.ServerDefaults(); err != nil {
		c.Close()
		return nil, time.Time{}, err
	}
	return c, until, nil
}

// kerberos returns the server's Kerberos client, logging in again when a
// ticket cache's ticket has run out.
func (f *FS) kerberos() (*krbclient.Client, time.Time, error) {
	f.krbMu.Lock()
	defer f.krbMu.Unlock()
	now := time.Now()
	if f.krb != nil && (f.krbUntil.IsZero() || now.Before(f.krbUntil)) {
		return f.krb, f.krbUntil, nil
	}
	kc, until, err := f.set.login.kerberosClient(f.set.store, now)
	if err != nil {
		return nil, time.Time{}, err
	}
	f.krb, f.krbUntil = kc, until
	return kc, until, nil
}

// userKey is the client cache key of ctx's user.
func (f *FS) userKey(ctx context.Context) string {
	if f.set.kerberos {
		return "" // one client: the principal acts for everyone
	}
	if u := fsys.UserFrom(ctx); u != "" {
		return u
	}
	return f.defaultUser
}

// hpath returns the HDFS path of URI p.
func (f *FS) hpath(p string) (string, error) {
	if len(p) < len(f.prefix) || !strings.EqualFold(p[:len(f.prefix)], f.prefix) {
		return "", fmt.Errorf("not a path of store %s", f.prefix)
	}
	rest := p[len(f.prefix):]
	switch {
	case rest == "":
		return "/", nil
	case rest[0] != '/':
		return "", fmt.Errorf("not a path of store %s", f.prefix)
	}
	return rest, nil
}

// call runs fn with the client of ctx's user and the HDFS path of p, and
// maps its error for operation op.
func (f *FS) call(ctx context.Context, op, p string, fn func(c *gohdfs.Client, hp string) error) error {
	hp, err := f.hpath(p)
	if err != nil {
		return &fs.PathError{Op: op, Path: p, Err: err}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	c, release, err := f.cache.acquire(ctx, f.userKey(ctx))
	if err != nil {
		return mapErr(f.set.store, op, p, err)
	}
	defer release()
	err = fn(c, hp)
	var se stopErr
	if errors.As(err, &se) {
		return se.err
	}
	return mapErr(f.set.store, op, p, err)
}

// stopErr carries a callback's own error through call unmapped.
type stopErr struct{ err error }

func (e stopErr) Error() string { return e.err.Error() }

// info describes p from the library's file information.
func info(p string, fi os.FileInfo) *fsys.FileInfo {
	out := &fsys.FileInfo{Path: p, Length: fi.Size(), Dir: fi.IsDir(), Modified: fi.ModTime(), Perm: fi.Mode().Perm()}
	if st, ok := fi.Sys().(*gohdfs.FileStatus); ok {
		if st.GetPermission().GetPerm()&0o1000 != 0 {
			out.Perm |= fs.ModeSticky
		}
		out.Owner, out.Group = st.GetOwner(), st.GetGroup()
		if !out.Dir {
			out.BlockSize, out.Replication = int64(st.GetBlocksize()), int(st.GetBlockReplication())
		}
	}
	return out
}

// child is the URI of name in directory URI dir.
func child(dir, name string) string { return strings.TrimSuffix(dir, "/") + "/" + name }

// Stat describes p.
func (f *FS) Stat(ctx context.Context, p string) (*fsys.FileInfo, error) {
	var out *fsys.FileInfo
	err := f.call(ctx, "stat", p, func(c *gohdfs.Client, hp string) error {
		fi, err := c.Stat(hp)
		if err == nil {
			out = info(p, fi)
		}
		return err
	})
	return out, err
}

// List returns the entries of directory p, or p itself for a file: one
// getFileInfo and one getListing per page of entries.
func (f *FS) List(ctx context.Context, p string) ([]*fsys.FileInfo, error) {
	var out []*fsys.FileInfo
	err := f.call(ctx, "list", p, func(c *gohdfs.Client, hp string) error {
		r, err := c.Open(hp)
		if err != nil {
			return err
		}
		defer r.Close()
		if !r.Stat().IsDir() {
			out = []*fsys.FileInfo{info(p, r.Stat())}
			return nil
		}
		entries, err := r.Readdir(0)
		for _, e := range entries {
			out = append(out, info(child(p, e.Name()), e))
		}
		return err
	})
	return out, err
}

// Open opens file p for reading; the client stays with the reader until
// it is closed.
func (f *FS) Open(ctx context.Context, p string) (io.ReadCloser, error) {
	hp, err := f.hpath(p)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: p, Err: err}
	}
	c, release, err := f.cache.acquire(ctx, f.userKey(ctx))
	if err != nil {
		return nil, mapErr(f.set.store, "open", p, err)
	}
	r, err := c.Open(hp)
	if err != nil {
		release()
		return nil, mapErr(f.set.store, "open", p, err)
	}
	if r.Stat().IsDir() {
		r.Close()
		release()
		return nil, &fs.PathError{Op: "open", Path: p, Err: errors.New("is a directory")}
	}
	return &reader{r: r, release: release, store: f.set.store, path: p}, nil
}

// reader maps the errors of a file being read and gives its client back
// on Close.
type reader struct {
	r           *gohdfs.FileReader
	release     func()
	once        sync.Once
	store, path string
}

func (r *reader) Read(b []byte) (int, error) {
	n, err := r.r.Read(b)
	if err != nil && err != io.EOF {
		err = mapErr(r.store, "read", r.path, err)
	}
	return n, err
}

func (r *reader) Close() error {
	err := r.r.Close()
	r.once.Do(r.release)
	return err
}

// Create writes p: the missing parents, then "<p>._COPYING_", renamed
// over p once complete (HDFS's rename replaces a file atomically), so that
// readers see the old content or the new. A failed write removes its
// temporary file.
func (f *FS) Create(ctx context.Context, p string, r io.Reader) error {
	return f.call(ctx, "create", p, func(c *gohdfs.Client, hp string) error {
		if dir := path.Dir(hp); dir != "/" {
			if err := c.MkdirAll(dir, 0o755); err != nil {
				return err
			}
		}
		tmp := hp + copyingSuffix
		if err := c.RemoveAll(tmp); err != nil { // a crashed writer's leftover
			return err
		}
		w, err := c.Create(tmp)
		if err != nil {
			return err
		}
		if err := writeAll(ctx, w, r); err != nil {
			c.Remove(tmp)
			return err
		}
		if err := c.Rename(tmp, hp); err != nil {
			c.Remove(tmp)
			return err
		}
		return nil
	})
}

// writeAll copies r into w and closes w, waiting while the NameNode has
// not yet seen the last block replicated, as Hadoop's client does (five
// tries, 400 ms doubling).
func writeAll(ctx context.Context, w *gohdfs.FileWriter, r io.Reader) error {
	if _, err := io.Copy(w, r); err != nil {
		w.Close() // gives the lease back; the copy's error is the one to report
		return err
	}
	wait := 400 * time.Millisecond
	for try := 1; ; try++ {
		err := w.Close()
		if !gohdfs.IsErrReplicating(err) || try == 5 {
			return err
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
		wait *= 2
	}
}

// MkdirAll creates directory p and its parents; a file there is fs.ErrExist.
func (f *FS) MkdirAll(ctx context.Context, p string) error {
	return f.call(ctx, "mkdir", p, func(c *gohdfs.Client, hp string) error {
		return c.MkdirAll(hp, 0o755)
	})
}

// Delete removes p and everything below it; a missing p is no error. It
// deletes outright: HDFS's trash is a client-side convention gozie, like
// Oozie's fs action, does not follow.
func (f *FS) Delete(ctx context.Context, p string) error {
	return f.call(ctx, "delete", p, func(c *gohdfs.Client, hp string) error {
		return c.RemoveAll(hp)
	})
}

// Rename moves src to dst, refusing an existing dst. The library's rename
// overwrites, so dst is checked first: a dst made between the check and
// the rename is replaced (a window of one call).
func (f *FS) Rename(ctx context.Context, src, dst string) error {
	hdst, err := f.hpath(dst)
	if err != nil {
		return &fs.PathError{Op: "rename", Path: dst, Err: err}
	}
	return f.call(ctx, "rename", src, func(c *gohdfs.Client, hsrc string) error {
		if _, err := c.Stat(hdst); err == nil {
			return &fs.PathError{Op: "rename", Path: dst, Err: fs.ErrExist}
		} else if !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		err := c.Rename(hsrc, hdst)
		if errors.Is(err, fs.ErrNotExist) {
			if _, serr := c.Stat(hsrc); serr == nil {
				return &fs.PathError{Op: "rename", Path: dst, Err: fmt.Errorf("parent directory missing: %w", fs.ErrNotExist)}
			}
		}
		return err
	})
}

// Chmod sets the permission bits of p (and the sticky bit).
func (f *FS) Chmod(ctx context.Context, p string, mode fs.FileMode) error {
	perm := mode.Perm()
	if mode&fs.ModeSticky != 0 {
		perm |= 0o1000
	}
	return f.call(ctx, "chmod", p, func(c *gohdfs.Client, hp string) error {
		return c.Chmod(hp, perm)
	})
}

// Chgrp sets the group of p. The library always sends an owner, and the
// NameNode lets only a superuser send another owner than the caller, so
// the current owner is read first and sent back unchanged.
func (f *FS) Chgrp(ctx context.Context, p, group string) error {
	return f.call(ctx, "chgrp", p, func(c *gohdfs.Client, hp string) error {
		fi, err := c.Stat(hp)
		if err != nil {
			return err
		}
		owner := ""
		if hf, ok := fi.(*gohdfs.FileInfo); ok {
			owner = hf.Owner()
		}
		return c.Chown(hp, owner, group)
	})
}

// SetReplication sets the replication factor of file p. A directory is
// left as it is without error, as Oozie's setrep ignores directories.
func (f *FS) SetReplication(ctx context.Context, p string, n int16) error {
	return f.call(ctx, "setrep", p, func(c *gohdfs.Client, hp string) error {
		ok, err := setReplication(c, hp, n)
		if err != nil || ok {
			return err
		}
		_, err = c.Stat(hp) // false: a directory, or a missing path on some versions
		return err
	})
}

// Touch sets the modification (and access) time of p to now.
func (f *FS) Touch(ctx context.Context, p string) error {
	return f.call(ctx, "touchz", p, func(c *gohdfs.Client, hp string) error {
		now := time.Now()
		return c.Chtimes(hp, now, now)
	})
}

// DirSize returns the bytes below p from the NameNode's content summary:
// one call whatever the tree's size.
func (f *FS) DirSize(ctx context.Context, p string) (int64, error) {
	var n int64
	err := f.call(ctx, "dirsize", p, func(c *gohdfs.Client, hp string) error {
		cs, err := c.GetContentSummary(hp)
		if err == nil {
			n = cs.Size()
		}
		return err
	})
	return n, err
}

// Walk calls fn for every file and directory below directory p, at every
// depth, breadth first: one listing per directory. A missing p, or a file,
// has nothing below it. An error of fn stops the walk and is returned.
func (f *FS) Walk(ctx context.Context, p string, fn func(*fsys.FileInfo) error) error {
	return f.call(ctx, "walk", p, func(c *gohdfs.Client, hp string) error {
		type dir struct{ h, uri string }
		queue := []dir{{hp, p}}
		for len(queue) > 0 {
			if err := ctx.Err(); err != nil {
				return stopErr{err}
			}
			d := queue[0]
			queue = queue[1:]
			entries, err := readDir(c, d.h)
			if errors.Is(err, fs.ErrNotExist) {
				continue // p missing, or a directory removed meanwhile
			}
			if err != nil {
				return err
			}
			for _, e := range entries {
				fi := info(child(d.uri, e.Name()), e)
				if err := fn(fi); err != nil {
					return stopErr{err}
				}
				if fi.Dir {
					queue = append(queue, dir{path.Join(d.h, e.Name()), fi.Path})
				}
			}
		}
		return nil
	})
}

// readDir lists directory hp; a file has no entries.
func readDir(c *gohdfs.Client, hp string) ([]os.FileInfo, error) {
	r, err := c.Open(hp)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	if !r.Stat().IsDir() {
		return nil, nil
	}
	return r.Readdir(0)
}
