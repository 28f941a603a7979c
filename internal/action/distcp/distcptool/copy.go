package distcptool

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"time"
)

// copyBuffer copies with an optional bandwidth cap and stops when ctx
// ends. Read errors are source errors.
func copyBuffer(ctx context.Context, dst io.Writer, src io.Reader, buf []byte, limit *throttle) (int64, error) {
	var n int64
	for {
		if ctx.Err() != nil {
			return n, errDistcpKilled
		}
		r, rerr := src.Read(buf)
		if r > 0 {
			w, werr := dst.Write(buf[:r])
			n += int64(w)
			if werr != nil {
				return n, werr
			}
			if limit != nil {
				limit.wait(ctx, int64(r))
			}
		}
		if rerr == io.EOF {
			return n, nil
		}
		if rerr != nil {
			return n, &distcpSourceError{rerr}
		}
	}
}

// copyAll creates the directories, copies the files with up to -m (else
// as many as cores) at a time, then sets the preserved attributes of the
// directories (last, since copying into them changes their times).
func (c *localDistcp) copyAll(ctx context.Context, entries []distcpEntry, overwrite bool) error {
	var dirs, files []distcpEntry
	for _, e := range entries {
		if e.fi.IsDir() {
			dirs = append(dirs, e)
		} else {
			files = append(files, e)
		}
	}
	for _, e := range dirs {
		tp := c.targetOf(e.rel)
		if fi, err := os.Stat(tp); err == nil && !fi.IsDir() {
			return fmt.Errorf("can't replace [%s]: target is %s, source is dir", tp, fileType(fi))
		}
		if err := os.MkdirAll(tp, 0o755); err != nil {
			return fmt.Errorf("mkdir failed for [%s]: %v", tp, err)
		}
		c.count("DIR_COPY", 1)
	}
	workers := c.o.maps
	if workers <= 0 {
		workers = runtime.NumCPU()
	}
	workers = min(workers, max(len(files), 1))
	bufSize := c.o.bufferSize
	if bufSize <= 0 {
		bufSize = 128 << 10
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	jobs := make(chan distcpEntry)
	var wg sync.WaitGroup
	var firstErr error
	var errOnce sync.Once
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			buf := make([]byte, bufSize)
			buf2 := make([]byte, bufSize)
			var limit *throttle
			if c.o.bandwidth > 0 {
				limit = newThrottle(c.o.bandwidth * (1 << 20))
			}
			for e := range jobs {
				if err := c.copyFile(ctx, e, overwrite, buf, buf2, limit); err != nil {
					var se *distcpSourceError
					if c.o.ignoreFailures && errors.As(err, &se) {
						c.logf("FAIL: %s - %v", e.src, err)
						c.count("FAIL", 1)
						c.count("BYTESFAILED", e.fi.Size())
						continue
					}
					errOnce.Do(func() { firstErr = err; cancel() })
				}
			}
		}()
	}
feed:
	for _, e := range files {
		select {
		case jobs <- e:
		case <-ctx.Done():
			break feed
		}
	}
	close(jobs)
	wg.Wait()
	if firstErr != nil {
		return firstErr
	}
	if ctx.Err() != nil {
		return errDistcpKilled
	}
	for i := len(dirs) - 1; i >= 0; i-- {
		if err := c.preserve(c.targetOf(dirs[i].rel), dirs[i].fi); err != nil {
			return err
		}
	}
	return nil
}

// copyFile copies one file, or skips it: without -update or -overwrite an
// existing target file is kept; with -update it is kept when it has the
// source's length and contents (length only with -skipcrccheck), and with
// -append a target that is the start of the source gets the rest.
func (c *localDistcp) copyFile(ctx context.Context, e distcpEntry, overwrite bool, buf, buf2 []byte, limit *throttle) error {
	tp := c.targetOf(e.rel)
	tfi, err := os.Stat(tp)
	exists := err == nil
	if exists && tfi.IsDir() {
		return fmt.Errorf("can't replace [%s]: target is dir, source is file", tp)
	}
	action := "copy"
	if exists && !overwrite {
		switch {
		case !c.o.update:
			action = "skip"
		case tfi.Size() == e.fi.Size():
			same := e.fi.Size() == 0 || c.o.skipCRC
			if !same {
				if same, err = sameContents(e.src, tp, e.fi.Size(), buf, buf2); err != nil {
					return err
				}
			}
			if same {
				action = "skip"
			}
		case c.o.append && tfi.Size() < e.fi.Size():
			prefix, err := sameContents(e.src, tp, tfi.Size(), buf, buf2)
			if err != nil {
				return err
			}
			if prefix {
				action = "append"
			}
		}
	}
	if action == "skip" {
		c.count("SKIP", 1)
		c.count("BYTESSKIPPED", e.fi.Size())
		if c.o.verbose {
			c.logf("FILE_SKIPPED: source=%s, size=%d --> target=%s", e.src, e.fi.Size(), tp)
		}
		return c.preserve(tp, e.fi)
	}
	in, err := os.Open(e.src)
	if err != nil {
		return &distcpSourceError{fmt.Errorf("copying [%s]: %w", e.src, err)}
	}
	defer in.Close()
	var n int64
	if action == "append" {
		n, err = c.appendTail(ctx, in, tp, tfi.Size(), buf, limit)
	} else {
		n, err = c.writeNew(ctx, in, tp, e, buf, limit)
	}
	if err != nil {
		return err
	}
	c.count("COPY", 1)
	c.count("BYTESCOPIED", n)
	c.count("BYTESEXPECTED", e.fi.Size())
	if c.o.verbose {
		c.logf("FILE_COPIED: source=%s, size=%d --> target=%s", e.src, e.fi.Size(), tp)
	}
	return nil
}

// writeNew copies in to a temporary file beside tp, checks its length,
// sets the preserved attributes and renames it onto tp.
func (c *localDistcp) writeNew(ctx context.Context, in *os.File, tp string, e distcpEntry, buf []byte, limit *throttle) (int64, error) {
	if err := os.MkdirAll(filepath.Dir(tp), 0o755); err != nil {
		return 0, fmt.Errorf("mkdir failed for [%s]: %v", filepath.Dir(tp), err)
	}
	out, err := os.CreateTemp(filepath.Dir(tp), DistcpTmpPrefix+filepath.Base(tp)+".")
	if err != nil {
		return 0, fmt.Errorf("copying [%s] to [%s]: %v", e.src, tp, err)
	}
	tmp := out.Name()
	n, err := copyBuffer(ctx, out, in, buf, limit)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err == nil && n != e.fi.Size() {
		err = &distcpSourceError{fmt.Errorf("mismatch in length of source [%s] (%d) and target (%d): the source changed while it was copied", e.src, e.fi.Size(), n)}
	}
	if err == nil {
		// A new file gets the default mode (CreateTemp made it private),
		// the source's only with -pp.
		if err = os.Chmod(tmp, 0o666&^c.umask); err == nil {
			err = c.preserve(tmp, e.fi)
		}
	}
	if err == nil {
		err = os.Rename(tmp, tp)
	}
	if err != nil {
		os.Remove(tmp)
		var se *distcpSourceError
		if errors.Is(err, errDistcpKilled) || errors.As(err, &se) {
			return n, err
		}
		return n, fmt.Errorf("copying [%s] to [%s]: %v", e.src, tp, err)
	}
	return n, nil
}

// appendTail writes the part of in beyond the target's length to tp.
func (c *localDistcp) appendTail(ctx context.Context, in *os.File, tp string, from int64, buf []byte, limit *throttle) (int64, error) {
	if _, err := in.Seek(from, io.SeekStart); err != nil {
		return 0, &distcpSourceError{err}
	}
	out, err := os.OpenFile(tp, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return 0, fmt.Errorf("appending to [%s]: %v", tp, err)
	}
	n, err := copyBuffer(ctx, out, in, buf, limit)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	return n, err
}

// sameContents reports whether the first n bytes of a and b are equal: the
// local stand-in for DistCp's checksum comparison, exact where a checksum
// is probable.
func sameContents(a, b string, n int64, buf, buf2 []byte) (bool, error) {
	fa, err := os.Open(a)
	if err != nil {
		return false, &distcpSourceError{err}
	}
	defer fa.Close()
	fb, err := os.Open(b)
	if err != nil {
		return false, err
	}
	defer fb.Close()
	ra, rb := io.LimitReader(fa, n), io.LimitReader(fb, n)
	for {
		na, ea := io.ReadFull(ra, buf)
		nb, eb := io.ReadFull(rb, buf2[:len(buf)])
		if na != nb || !bytes.Equal(buf[:na], buf2[:nb]) {
			return false, nil
		}
		if ea == io.EOF || ea == io.ErrUnexpectedEOF {
			return eb == io.EOF || eb == io.ErrUnexpectedEOF, nil
		}
		if ea != nil {
			return false, &distcpSourceError{ea}
		}
		if eb != nil {
			return false, eb
		}
	}
}

// preserve applies the -p attributes that mean something locally:
// permissions (p), modification and access times (t, both set to the
// source's modification time), owner (u) and group (g). Replication (r),
// block size (b) and checksum type (c) have no local meaning, as in
// Hadoop's local file system.
func (c *localDistcp) preserve(path string, src fs.FileInfo) error {
	p := c.o.preserve
	if p == "" {
		return nil
	}
	if strings.ContainsRune(p, 'p') {
		if err := os.Chmod(path, src.Mode().Perm()|src.Mode()&fs.ModeSticky); err != nil {
			return fmt.Errorf("preserving permissions of [%s]: %v", path, err)
		}
	}
	if strings.ContainsAny(p, "ug") {
		if st, ok := src.Sys().(*syscall.Stat_t); ok {
			uid, gid := -1, -1
			if strings.ContainsRune(p, 'u') {
				uid = int(st.Uid)
			}
			if strings.ContainsRune(p, 'g') {
				gid = int(st.Gid)
			}
			if cur, err := os.Stat(path); err == nil {
				if cst, ok := cur.Sys().(*syscall.Stat_t); ok {
					if uid == int(cst.Uid) {
						uid = -1
					}
					if gid == int(cst.Gid) {
						gid = -1
					}
				}
			}
			if uid != -1 || gid != -1 {
				if err := os.Lchown(path, uid, gid); err != nil {
					return fmt.Errorf("preserving owner/group of [%s]: %v", path, err)
				}
			}
		}
	}
	if strings.ContainsRune(p, 't') {
		if err := os.Chtimes(path, src.ModTime(), src.ModTime()); err != nil {
			return fmt.Errorf("preserving times of [%s]: %v", path, err)
		}
	}
	return nil
}

// deleteMissing is -delete: whatever is under the target but not in the
// listing goes, after the copy succeeded.
func (c *localDistcp) deleteMissing(ctx context.Context, entries []distcpEntry) error {
	keep := make(map[string]bool, len(entries))
	for _, e := range entries {
		keep[c.targetOf(e.rel)] = true
	}
	if fi, err := os.Stat(c.target); err != nil || !fi.IsDir() {
		return nil
	}
	files, dirs := 0, 0
	err := filepath.WalkDir(c.target, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if ctx.Err() != nil {
			return errDistcpKilled
		}
		if p == c.target || keep[p] {
			return nil
		}
		if err := os.RemoveAll(p); err != nil {
			return fmt.Errorf("-delete: removing [%s]: %v", p, err)
		}
		if c.o.verbose {
			c.logf("DELETED: %s", p)
		}
		if d.IsDir() {
			dirs++
			return filepath.SkipDir
		}
		files++
		return nil
	})
	c.logf("Deleted from target: files: %d directories: %d", files, dirs)
	return err
}

// throttle holds one worker to a bandwidth (-bandwidth, in MB/s per map).
type throttle struct {
	rate  float64 // bytes per second
	start time.Time
	sent  int64
}

func newThrottle(rate float64) *throttle { return &throttle{rate: rate, start: time.Now()} }

// wait sleeps until sending n more bytes keeps the average under the rate.
func (t *throttle) wait(ctx context.Context, n int64) {
	t.sent += n
	due := t.start.Add(time.Duration(float64(t.sent) / t.rate * float64(time.Second)))
	if d := time.Until(due); d > 0 {
		select {
		case <-time.After(d):
		case <-ctx.Done():
		}
	}
}
