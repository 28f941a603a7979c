package fsys

import (
	"context"
	"errors"
	"io/fs"

	"github.com/gozie/gozie/internal/el"
)

// RegisterELFunctions defines the fs:* functions of workflow specification
// 4.2.7 in r: fs:exists, fs:isDir, fs:dirSize, fs:fileSize, fs:blockSize;
// and hcat:exists.
// A missing path gives false or -1 as the specification says; a path gozie
// cannot reach (hdfs://) or a malformed glob is an EL error, because
// answering false would silently send a decision down the wrong branch.
//
// When the call's context can run file work for the job (a DoFiles
// method: the workflow engine's, which acts as the job's user when the
// server runs steps as their users), the lookups run through it.
func RegisterELFunctions(r *el.Registry) {
	str := []el.Type{el.String}
	r.Define("fs", "exists", str, func(c *el.Call) (any, error) {
		var m []string
		err := doFiles(c, func(ctx context.Context) (err error) { m, err = Glob(ctx, c.Args[0].(string)); return err })
		if err != nil {
			return nil, err
		}
		return len(m) > 0, nil
	})
	// hcat:exists(uri) (workflow spec, Oozie's HCatELFunctions): whether
	// an HCatalog partition exists, asked of its metastore through the
	// hcat:// backend; like Oozie's, it takes any URI a backend serves.
	r.Define("hcat", "exists", str, func(c *el.Call) (any, error) {
		var ok bool
		err := doFiles(c, func(ctx context.Context) (err error) { ok, err = Exists(ctx, c.Args[0].(string)); return err })
		if err != nil {
			return nil, err
		}
		return ok, nil
	})
	r.Define("fs", "isDir", str, func(c *el.Call) (any, error) {
		var dir bool
		err := doFiles(c, func(ctx context.Context) (err error) { dir, err = IsDir(ctx, c.Args[0].(string)); return err })
		return dir, err
	})
	size := func(f func(context.Context, string) (int64, error)) el.Func {
		return func(c *el.Call) (any, error) {
			var n int64
			err := doFiles(c, func(ctx context.Context) (err error) { n, err = f(ctx, c.Args[0].(string)); return err })
			if err == nil {
				return n, nil
			}
			var pe *fs.PathError
			// A store that did not answer or refused the credentials is
			// not a missing path.
			if errors.Is(err, ErrUnsupported) || errors.Is(err, ErrUnavailable) || errors.Is(err, ErrCredentials) || !errors.As(err, &pe) {
				return nil, err
			}
			return int64(-1), nil
		}
	}
	r.Define("fs", "dirSize", str, size(DirSize))
	r.Define("fs", "fileSize", str, size(FileSize))
	r.Define("fs", "blockSize", str, size(BlockSize))
}

// doFiles runs fn through the call context's DoFiles when it has one,
// with the context its FilesContext gives (a job's store settings and
// user).
func doFiles(c *el.Call, fn func(context.Context) error) error {
	ctx := context.Background()
	if f, ok := c.Context.(interface{ FilesContext() context.Context }); ok {
		ctx = f.FilesContext()
	}
	if d, ok := c.Context.(interface{ DoFiles(func() error) error }); ok {
		return d.DoFiles(func() error { return fn(ctx) })
	}
	return fn(ctx)
}
