package fsys

import (
	"errors"
	"io/fs"

	"github.com/gozie/gozie/internal/el"
)

// RegisterELFunctions defines the fs:* functions of workflow specification
// 4.2.7 in r: fs:exists, fs:isDir, fs:dirSize, fs:fileSize, fs:blockSize.
// A missing path gives false or -1 as the specification says; a path gozie
// cannot reach (hdfs://) or a malformed glob is an EL error, because
// answering false would silently send a decision down the wrong branch.
func RegisterELFunctions(r *el.Registry) {
	str := []el.Type{el.String}
	r.Define("fs", "exists", str, func(c *el.Call) (any, error) {
		m, err := Glob(c.Args[0].(string))
		if err != nil {
			return nil, err
		}
		return len(m) > 0, nil
	})
	r.Define("fs", "isDir", str, func(c *el.Call) (any, error) {
		return IsDir(c.Args[0].(string))
	})
	size := func(f func(string) (int64, error)) el.Func {
		return func(c *el.Call) (any, error) {
			n, err := f(c.Args[0].(string))
			if err == nil {
				return n, nil
			}
			var pe *fs.PathError
			if errors.Is(err, ErrUnsupported) || !errors.As(err, &pe) {
				return nil, err
			}
			return int64(-1), nil
		}
	}
	r.Define("fs", "dirSize", str, size(DirSize))
	r.Define("fs", "fileSize", str, size(FileSize))
	r.Define("fs", "blockSize", str, size(BlockSize))
}
