// Package webhdfs is the webhdfs:// and swebhdfs:// backend of fsys: HDFS
// (or HttpFS, or any WebHDFS endpoint) through the WebHDFS REST API, with
// the standard library's HTTP client only. webhdfs://host:port/p is
// http://host:port/webhdfs/v1/p?op=...; swebhdfs is the same over HTTPS.
// An authority may also name an HA nameservice whose NameNodes' HTTP
// addresses the configuration lists.
//
// Authentication is "simple" by default: user.name names the user, the
// job's by default, or the server's with doas naming the job's when
// gozie.webhdfs.doas is true. With hadoop.security.authentication=kerberos
// every NameNode request authenticates with SPNEGO as the server's
// principal (its keytab, or the ticket cache of KRB5CCNAME) and acts for
// the job's user with doas (kerberos.go); delegation tokens are not
// fetched (docs/storage.md). Importing the package registers the backend.
package webhdfs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"github.com/gozie/gozie/internal/fsys"
)

// copyingSuffix names the file Create writes before renaming it over the
// target, as Hadoop's -put does, so that readers never see part of a file.
const copyingSuffix = "._COPYING_"

func init() {
	fsys.Register(fsys.Backend{
		Name:         "WebHDFS",
		Schemes:      []string{"webhdfs", "swebhdfs"},
		ConfPrefixes: []string{"dfs.", "gozie.webhdfs.", "hadoop.security.", "oozie.service.HadoopAccessorService."},
		Open: func(_ context.Context, uri *url.URL, c fsys.Config) (fsys.FileSystem, error) {
			return open(uri, c)
		},
	})
}

// FS is one WebHDFS store. It holds no connection until the first call;
// its methods are safe for concurrent use.
type FS struct {
	set    *settings
	prefix string // scheme://authority, the start of every path handed in
	client *http.Client
	active atomic.Int32 // the NameNode that answered last
}

func open(uri *url.URL, c fsys.Config) (*FS, error) {
	scheme, auth := strings.ToLower(uri.Scheme), strings.ToLower(uri.Host)
	set, err := parseSettings(scheme, auth, c)
	if err != nil {
		return nil, fmt.Errorf("%s://%s: %w", scheme, auth, err)
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.DialContext = fsys.IdleDialer(set.connectTimeout, set.readTimeout)
	tr.ResponseHeaderTimeout = set.readTimeout
	tr.Proxy = nil // the cluster is reached directly, as Hadoop's client does
	client := &http.Client{
		Transport: tr,
		// OPEN follows the NameNode's redirect to a datanode; CREATE must
		// not (the data goes with the second request), nor any other PUT.
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if via[0].Method != http.MethodGet {
				return http.ErrUseLastResponse
			}
			if len(via) >= 10 {
				return errors.New("stopped after 10 redirects")
			}
			return nil
		},
	}
	return &FS{set: set, prefix: scheme + "://" + auth, client: client}, nil
}

// who is the identity of ctx's requests.
func (f *FS) who(ctx context.Context) identity {
	u := fsys.UserFrom(ctx)
	if f.set.krb != nil {
		// SPNEGO names the server; user.name is ignored by a secured
		// NameNode, and doas asks it to act for the job's user under its
		// proxy-user rules (hadoop.proxyuser.<server>.hosts/.groups).
		if u == "" || u == f.set.krb.shortName() {
			return identity{}
		}
		return identity{doAs: u}
	}
	if f.set.doas {
		if u == "" || u == f.set.login {
			return identity{userName: f.set.login}
		}
		return identity{userName: f.set.login, doAs: u}
	}
	if u == "" {
		u = f.set.login
	}
	return identity{userName: u}
}

// hpath returns the HDFS path of URI p.
func (f *FS) hpath(op, p string) (string, error) {
	if len(p) < len(f.prefix) || !strings.EqualFold(p[:len(f.prefix)], f.prefix) {
		return "", &fs.PathError{Op: op, Path: p, Err: fmt.Errorf("not a path of store %s", f.prefix)}
	}
	rest := p[len(f.prefix):]
	switch {
	case rest == "":
		return "/", nil
	case rest[0] != '/':
		return "", &fs.PathError{Op: op, Path: p, Err: fmt.Errorf("not a path of store %s", f.prefix)}
	}
	return rest, nil
}

// do sends c for URI p and decodes the answer with parse (nil: drop it).
func (f *FS) do(ctx context.Context, c call, p string, parse func(io.Reader) error) error {
	resp, err := f.send(ctx, c, f.who(ctx), p)
	if err != nil {
		return err
	}
	defer drain(resp)
	if parse == nil {
		return nil
	}
	if err := parse(resp.Body); err != nil {
		return &fs.PathError{Op: c.op, Path: p, Err: err}
	}
	return nil
}

// status returns the FileStatus of HDFS path hp (URI p).
func (f *FS) status(ctx context.Context, hp, p string) (*fileStatus, error) {
	var st *fileStatus
	err := f.do(ctx, statCall(hp), p, func(r io.Reader) (err error) {
		st, err = parseFileStatus(r)
		return err
	})
	return st, err
}

// Stat describes p.
func (f *FS) Stat(ctx context.Context, p string) (*fsys.FileInfo, error) {
	hp, err := f.hpath("stat", p)
	if err != nil {
		return nil, err
	}
	st, err := f.status(ctx, hp, p)
	if err != nil {
		return nil, err
	}
	return st.info(p), nil
}

// List returns the entries of directory p, or p itself for a file (whose
// one entry has an empty pathSuffix).
func (f *FS) List(ctx context.Context, p string) ([]*fsys.FileInfo, error) {
	hp, err := f.hpath("list", p)
	if err != nil {
		return nil, err
	}
	var list []fileStatus
	err = f.do(ctx, listCall(hp), p, func(r io.Reader) (err error) {
		list, err = parseFileStatuses(r)
		return err
	})
	if err != nil {
		return nil, err
	}
	out := make([]*fsys.FileInfo, 0, len(list))
	for i := range list {
		if list[i].PathSuffix == "" {
			out = append(out, list[i].info(p))
		} else {
			out = append(out, list[i].info(child(p, list[i].PathSuffix)))
		}
	}
	return out, nil
}

func child(dir, name string) string { return strings.TrimSuffix(dir, "/") + "/" + name }

// Open opens file p for reading, following the redirect to a datanode.
func (f *FS) Open(ctx context.Context, p string) (io.ReadCloser, error) {
	hp, err := f.hpath("open", p)
	if err != nil {
		return nil, err
	}
	resp, err := f.send(ctx, openCall(hp), f.who(ctx), p)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, responseError(f.set.store, "OPEN", p, resp)
	}
	return &reader{body: resp.Body, store: f.set.store, path: p}, nil
}

// reader maps the errors of a body being read.
type reader struct {
	body        io.ReadCloser
	store, path string
}

func (r *reader) Read(b []byte) (int, error) {
	n, err := r.body.Read(b)
	if err != nil && err != io.EOF {
		err = unavailable(r.store, "read", r.path, err)
	}
	return n, err
}

func (r *reader) Close() error { return r.body.Close() }

// Create writes p: "<p>._COPYING_" in WebHDFS's two steps (the NameNode
// names a datanode, the data goes there; missing parents are made), then
// a rename over p that replaces it atomically. A failed write removes its
// temporary file.
func (f *FS) Create(ctx context.Context, p string, r io.Reader) error {
	hp, err := f.hpath("create", p)
	if err != nil {
		return err
	}
	tmp, tmpURI := hp+copyingSuffix, p+copyingSuffix
	resp, err := f.send(ctx, createCall(tmp), f.who(ctx), p)
	if err != nil {
		return err
	}
	loc := resp.Header.Get("Location")
	status := resp.StatusCode
	drain(resp)
	if status != http.StatusTemporaryRedirect || loc == "" {
		return &fs.PathError{Op: "create", Path: p, Err: fmt.Errorf("the NameNode answered CREATE with HTTP %d and no redirect to a datanode", status)}
	}
	if err := f.putData(ctx, loc, r, p); err != nil {
		f.Delete(context.WithoutCancel(ctx), tmpURI)
		return err
	}
	if err := f.replace(ctx, tmp, hp, p); err != nil {
		f.Delete(context.WithoutCancel(ctx), tmpURI)
		return err
	}
	return nil
}

// replace renames tmp over hp. An endpoint that ignores renameoptions
// (HttpFS) answers false when hp exists: then hp, a file, is deleted and
// the rename tried again, which is not atomic.
func (f *FS) replace(ctx context.Context, tmp, hp, p string) error {
	var ok bool
	err := f.do(ctx, renameCall(tmp, hp, true), p, func(r io.Reader) (err error) {
		ok, err = parseBoolean(r)
		return err
	})
	if err != nil || ok {
		return err
	}
	st, err := f.status(ctx, hp, p)
	if err != nil {
		return err
	}
	if st.Type == "DIRECTORY" {
		return &fs.PathError{Op: "create", Path: p, Err: errors.New("is a directory")}
	}
	if err := f.do(ctx, deleteCall(hp), p, nil); err != nil {
		return err
	}
	err = f.do(ctx, renameCall(tmp, hp, false), p, func(r io.Reader) (err error) {
		ok, err = parseBoolean(r)
		return err
	})
	if err == nil && !ok {
		err = &fs.PathError{Op: "create", Path: p, Err: errors.New("the rename of the written file failed")}
	}
	return err
}

// MkdirAll creates directory p and its parents; a file there is fs.ErrExist.
func (f *FS) MkdirAll(ctx context.Context, p string) error {
	hp, err := f.hpath("mkdir", p)
	if err != nil {
		return err
	}
	var ok bool
	err = f.do(ctx, mkdirCall(hp), p, func(r io.Reader) (err error) {
		ok, err = parseBoolean(r)
		return err
	})
	if err != nil || ok {
		return err
	}
	if st, err := f.status(ctx, hp, p); err == nil && st.Type != "DIRECTORY" {
		return &fs.PathError{Op: "mkdir", Path: p, Err: fs.ErrExist}
	}
	return &fs.PathError{Op: "mkdir", Path: p, Err: errors.New("the NameNode did not make the directory")}
}

// Delete removes p and everything below it; a missing p (an answer of
// false) is no error. HDFS's trash is not used, as by Oozie's fs action.
func (f *FS) Delete(ctx context.Context, p string) error {
	hp, err := f.hpath("delete", p)
	if err != nil {
		return err
	}
	return f.do(ctx, deleteCall(hp), p, nil)
}

// Rename moves src to dst, refusing an existing dst. dst is checked first
// (for endpoints that ignore renameoptions and would move src into an
// existing directory); the NameNode's rename2 refuses it again itself.
func (f *FS) Rename(ctx context.Context, src, dst string) error {
	hsrc, err := f.hpath("rename", src)
	if err != nil {
		return err
	}
	hdst, err := f.hpath("rename", dst)
	if err != nil {
		return err
	}
	if _, err := f.status(ctx, hdst, dst); err == nil {
		return &fs.PathError{Op: "rename", Path: dst, Err: fs.ErrExist}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	var ok bool
	err = f.do(ctx, renameCall(hsrc, hdst, false), src, func(r io.Reader) (err error) {
		ok, err = parseBoolean(r)
		return err
	})
	if err != nil || ok {
		return err
	}
	// A plain rename's false: the source is missing, or dst's parent.
	if _, err := f.status(ctx, hsrc, src); err != nil {
		return err
	}
	return &fs.PathError{Op: "rename", Path: dst, Err: fmt.Errorf("parent directory missing: %w", fs.ErrNotExist)}
}

// Chmod sets the permission bits of p (and the sticky bit).
func (f *FS) Chmod(ctx context.Context, p string, mode fs.FileMode) error {
	hp, err := f.hpath("chmod", p)
	if err != nil {
		return err
	}
	return f.do(ctx, chmodCall(hp, mode), p, nil)
}

// Chgrp sets the group of p, keeping its owner.
func (f *FS) Chgrp(ctx context.Context, p, group string) error {
	hp, err := f.hpath("chgrp", p)
	if err != nil {
		return err
	}
	return f.do(ctx, chgrpCall(hp, group), p, nil)
}

// SetReplication sets the replication factor of file p; a directory (an
// answer of false) is left as it is, as Oozie's setrep ignores them.
func (f *FS) SetReplication(ctx context.Context, p string, n int16) error {
	hp, err := f.hpath("setrep", p)
	if err != nil {
		return err
	}
	var ok bool
	err = f.do(ctx, setrepCall(hp, n), p, func(r io.Reader) (err error) {
		ok, err = parseBoolean(r)
		return err
	})
	if err != nil || ok {
		return err
	}
	_, err = f.status(ctx, hp, p) // false: a directory, or a missing path
	return err
}

// Touch sets the modification time of p to now.
func (f *FS) Touch(ctx context.Context, p string) error {
	hp, err := f.hpath("touchz", p)
	if err != nil {
		return err
	}
	return f.do(ctx, touchCall(hp, time.Now()), p, nil)
}

// DirSize returns the bytes below p from the NameNode's content summary.
func (f *FS) DirSize(ctx context.Context, p string) (int64, error) {
	hp, err := f.hpath("dirsize", p)
	if err != nil {
		return 0, err
	}
	var n int64
	err = f.do(ctx, summaryCall(hp), p, func(r io.Reader) (err error) {
		n, err = parseContentSummary(r)
		return err
	})
	return n, err
}

// Walk calls fn for every file and directory below directory p, at every
// depth, breadth first: one LISTSTATUS per directory. A missing p, or a
// file, has nothing below it. An error of fn stops the walk and is
// returned.
func (f *FS) Walk(ctx context.Context, p string, fn func(*fsys.FileInfo) error) error {
	if _, err := f.hpath("walk", p); err != nil {
		return err
	}
	queue := []string{p}
	for len(queue) > 0 {
		d := queue[0]
		queue = queue[1:]
		list, err := f.List(ctx, d)
		if errors.Is(err, fs.ErrNotExist) {
			continue // p missing, or a directory removed meanwhile
		}
		if err != nil {
			return err
		}
		for _, fi := range list {
			if fi.Path == d {
				break // d is a file: nothing below it
			}
			if err := fn(fi); err != nil {
				return err
			}
			if fi.Dir {
				queue = append(queue, fi.Path)
			}
		}
	}
	return nil
}
