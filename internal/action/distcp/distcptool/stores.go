package distcptool

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/gozie/gozie/internal/fsys"
)

// allLocal reports whether every path of the copy is on the local file
// system, where the full local tool (preserve, filters, -delete) runs.
func (c *localDistcp) allLocal(o *distcpOptions) bool {
	for _, p := range append(append([]string{}, o.Sources...), o.Target) {
		if !IsLocalPath(p, c.defaultFS) {
			return false
		}
	}
	return o.SourceList == "" || IsLocalPath(o.SourceList, c.defaultFS)
}

// runStores copies between any stores through the file-system layer:
// sources (globs allowed) to the target with DistCp's placement rules
// (several sources, or a target that exists as a directory: each source
// goes below the target under its own name; else the one source becomes
// the target). -update skips files whose target has the same length;
// -overwrite replaces. The local tool's other options (preserve, filters,
// -delete, -f) need every path local; here they are refused, and a
// configured hadoop runs such copies instead.
func (c *localDistcp) runStores(ctx context.Context, o *distcpOptions) (int, error) {
	switch {
	case o.SourceList != "":
		return distcpExitInvalid, fmt.Errorf("-f needs local paths in gozie's own copy; configure hadoop (gozie.hadoop.home) for it")
	case o.filters != "", o.delete, o.preserve != "":
		return distcpExitInvalid, fmt.Errorf("-filters, -delete and -p need local paths in gozie's own copy; configure hadoop (gozie.hadoop.home) for them")
	}
	ns := fsys.Default()
	target := Qualify(o.Target, c.defaultFS)
	var srcs []string
	for _, s := range o.Sources {
		s = Qualify(s, c.defaultFS)
		m, err := ns.Glob(ctx, s)
		if err != nil {
			return distcpExitInvalid, err
		}
		if len(m) == 0 {
			return distcpExitInvalid, fmt.Errorf("input source [%s] does not exist", s)
		}
		srcs = append(srcs, m...)
	}
	tdir, err := ns.IsDir(ctx, target)
	if err != nil {
		return distcpExitFailed, err
	}
	for _, src := range srcs {
		dst := target
		if len(srcs) > 1 || tdir {
			dst = strings.TrimSuffix(target, "/") + "/" + baseOf(src)
		}
		if err := c.copyStoreTree(ctx, ns, src, dst, o); err != nil {
			return distcpExitFailed, err
		}
	}
	return 0, nil
}

// copyStoreTree copies a file or a tree, counting as the local tool does.
func (c *localDistcp) copyStoreTree(ctx context.Context, ns *fsys.Namespace, src, dst string, o *distcpOptions) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	fi, err := ns.Stat(ctx, src)
	if err != nil {
		return err
	}
	if fi.IsDir() {
		if err := ns.MkdirAll(ctx, dst); err != nil {
			return err
		}
		c.count("DIR_COPY", 1)
		list, err := ns.ListInfo(ctx, src)
		if err != nil {
			return err
		}
		for _, e := range list {
			if err := c.copyStoreTree(ctx, ns, e.Path, strings.TrimSuffix(dst, "/")+"/"+baseOf(e.Path), o); err != nil {
				return err
			}
		}
		return nil
	}
	c.count("BYTESEXPECTED", fi.Size())
	if t, err := ns.Stat(ctx, dst); err == nil {
		if o.update && t.Size() == fi.Size() || !o.update && !o.overwrite {
			c.count("SKIP", 1)
			c.count("BYTESSKIPPED", fi.Size())
			return nil
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	rc, err := ns.Open(ctx, src)
	if err != nil {
		return err
	}
	defer rc.Close()
	if err := ns.Create(ctx, dst, rc); err != nil {
		c.count("FAIL", 1)
		c.count("BYTESFAILED", fi.Size())
		return fmt.Errorf("copying [%s] to [%s]: %w", src, dst, err)
	}
	c.count("COPY", 1)
	c.count("BYTESCOPIED", fi.Size())
	c.logf("copied %s to %s (%d bytes)", src, dst, fi.Size())
	return nil
}

// baseOf is the last element of a path or URI.
func baseOf(p string) string {
	p = strings.TrimSuffix(p, "/")
	return p[strings.LastIndexByte(p, '/')+1:]
}

// StoreCopyable reports whether runStores can run o: no option that needs
// local paths or a cluster.
func StoreCopyable(o *distcpOptions) bool {
	return len(o.unsupported) == 0 && o.SourceList == "" && o.filters == "" && !o.delete && o.preserve == ""
}
