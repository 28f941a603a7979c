package launch

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"io/fs"

	"github.com/gozie/gozie/internal/action"

	"github.com/gozie/gozie/internal/conf"
	"github.com/gozie/gozie/internal/fsys"
	"github.com/gozie/gozie/internal/workflow"
)

// Error codes of launcher-style actions (shell).
//
// JA018 is what Oozie reports when the program of a launcher action fails
// ("Main class [org.apache.oozie.action.hadoop.ShellMain], exit code [1]");
// gozie uses it for every failure of the launched program: a non-zero exit,
// death by a signal, an executable that cannot be found and captured output
// that is too large ("Output data exceeds its limit [2048]", Oozie's
// wording) or not Java properties, since in Oozie all of these surface as a
// failure of the launcher's main class.
//
// JA017 (Oozie: the launched job cannot be found) is used when the launcher
// itself is gone without having recorded an outcome.
const (
	CodeLauncher     = "JA018"
	CodeLauncherGone = "JA017"
)

// ConfEnvVar names the environment variable holding the path of the action
// configuration written as Hadoop XML, as in Oozie's shell action.
const ConfEnvVar = "OOZIE_ACTION_CONF_XML"

// ConfFile is the name of that configuration file in the working directory.
const ConfFile = "action.xml"

// LauncherLog collects the launcher's own stdout and stderr.
const LauncherLog = "launcher.log"

// LauncherStartGrace is how long after the spec was written a launcher may
// take to record its pid before Check declares it lost. It only matters
// after a server restart: in-process, the executor knows whether its child
// runs.
const LauncherStartGrace = time.Minute

// FilesContext is the context an action's file work runs with: its
// configuration over the job's (store settings such as fs.s3a.*) and its
// user, for the stores that act for users.
func FilesContext(ctx context.Context, a *action.Context) context.Context {
	var c fsys.Config
	switch {
	case a.Conf != nil && a.JobConf != nil:
		c = fsys.Layer(a.Conf, a.JobConf)
	case a.Conf != nil:
		c = a.Conf
	case a.JobConf != nil:
		c = a.JobConf
	}
	return fsys.WithUser(fsys.WithConf(ctx, c), a.User)
}

// RunPrepare runs the <prepare> block of an action body (delete and
// mkdir, in order), paths relative to its <name-node>, on any store.
func RunPrepare(ctx context.Context, body *workflow.Element) error {
	nnPrefix := ""
	if nn := body.ChildText("name-node"); nn != "" && fsys.Scheme(nn) != "" {
		nnPrefix = fsys.Scheme(nn) + "://" + fsys.Authority(nn)
	}
	prep := body.Child("prepare")
	if prep == nil {
		return nil
	}
	for _, op := range prep.Children {
		if op.Name.Local != "delete" && op.Name.Local != "mkdir" {
			continue
		}
		p, err := ResolveFSPath("prepare "+op.Name.Local, op, "path", nnPrefix)
		if err != nil {
			return err
		}
		if op.Name.Local == "delete" {
			err = fsys.Delete(ctx, p)
		} else {
			err = fsys.MkdirAll(ctx, p)
		}
		if err != nil {
			return FsIOError(p, err, "")
		}
	}
	return nil
}

// StageFiles makes the body's <file> entries visible in dir under their
// link names and unpacks its <archive> entries there; execName, when
// set, is the program that must end up executable. It returns the local
// application directory the entries were resolved against.
func StageFiles(dir string, a *action.Context, execName string) (appDir string, err error) {
	if appDir, err = AppDirOf(a.AppPath); err != nil {
		return "", err
	}
	ctx := FilesContext(context.Background(), a)
	for _, f := range a.Element.ChildrenNamed("file") {
		if err := LinkFile(ctx, dir, appDir, f.TrimText(), execName); err != nil {
			return "", err
		}
	}
	for _, f := range a.Element.ChildrenNamed("archive") {
		if err := UnpackArchive(ctx, dir, appDir, f.TrimText()); err != nil {
			return "", err
		}
	}
	return appDir, nil
}

// WriteActionConf writes the merged action configuration as Hadoop XML
// into dir (ConfFile) and returns its path.
func WriteActionConf(dir string, cfg *conf.Config) (string, error) {
	if cfg == nil {
		cfg = conf.New()
	}
	// The stores the server reaches, for the tools the action runs: its
	// settings (fs.defaultFS, fs.s3a.*, ...) and mount table, under what
	// the action sets itself.
	if st := fsys.Default().Settings(); len(st) > 0 {
		cfg = cfg.Clone()
		for k, v := range st {
			if !cfg.Has(k) {
				cfg.Set(k, v)
			}
		}
	}
	var buf bytes.Buffer
	if err := cfg.WriteXML(&buf); err != nil {
		return "", action.Errorf(action.ErrorKindError, CodeIO, "writing action configuration: %v", err)
	}
	confPath := filepath.Join(dir, ConfFile)
	if err := WriteFileAtomic(confPath, buf.Bytes()); err != nil {
		return "", action.Errorf(action.Transient, CodeIO, "writing action configuration: %v", err)
	}
	return confPath, nil
}

// AppDirOf turns the application path (a directory or its workflow.xml, a
// URI or a local path) into its directory: a local directory when the
// namespace finds it on the local file system (a file: URI, a plain path,
// a mounted prefix), else the store's URI.
func AppDirOf(appPath string) (string, error) {
	if appPath == "" {
		return "", nil
	}
	l, local, err := fsys.Default().LocalPath(context.Background(), appPath)
	if err != nil {
		return "", action.Errorf(action.ErrorKindError, CodeUnsupportedFS, "%v", err)
	}
	if !local {
		return strings.TrimSuffix(appPath, "/"), nil
	}
	if fi, err := os.Stat(l); err == nil && !fi.IsDir() {
		l = filepath.Dir(l)
	}
	return filepath.Abs(l)
}

// SourceOf splits a <file>/<archive> entry "path#name" and resolves path:
// relative paths against the application directory. The source keeps its
// store: a local path, or a URI Localize fetches.
func SourceOf(ctx context.Context, appDir, entry string) (src, name string, err error) {
	src, name, _ = strings.Cut(entry, "#")
	if src == "" {
		return "", "", action.Errorf(action.ErrorKindError, CodeSchema, "empty <file> or <archive> entry")
	}
	if name == "" {
		name = filepath.Base(src)
	}
	if strings.Contains(name, "/") || name == "." || name == ".." {
		return "", "", action.Errorf(action.ErrorKindError, CodeSchema, "invalid link name [%s] in [%s]", name, entry)
	}
	if fsys.Scheme(src) == "" && !filepath.IsAbs(src) {
		if fsys.Scheme(appDir) != "" {
			src = strings.TrimSuffix(appDir, "/") + "/" + src
		} else {
			src = filepath.Join(appDir, src)
		}
	}
	if l, local, err := fsys.Default().LocalPath(ctx, src); err != nil {
		return "", "", action.Errorf(action.ErrorKindError, CodeUnsupportedFS, "%v", err)
	} else if local {
		src = l
	}
	if _, err := fsys.Stat(ctx, src); err != nil {
		if errors.Is(err, fsys.ErrUnavailable) {
			return "", "", action.Errorf(action.Transient, CodeIO, "File [%s] of the action: %v", entry, err)
		}
		return "", "", action.Errorf(action.ErrorKindError, CodeFileNotFound, "File [%s] of the action does not exist: %v", entry, err)
	}
	return src, name, nil
}

// Localize returns a local path holding src: src itself when it is local,
// else a copy fetched into dir's staging area (removed with dir), so that
// files on any store can be linked, unpacked and run.
func Localize(ctx context.Context, dir, src string) (string, error) {
	if fsys.Scheme(src) == "" {
		return src, nil
	}
	sum := sha256.Sum256([]byte(src))
	dst := filepath.Join(dir, StagedDir, hex.EncodeToString(sum[:6]), path.Base(src))
	if err := os.RemoveAll(filepath.Dir(dst)); err != nil {
		return "", action.Errorf(action.Transient, CodeIO, "%v", err)
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return "", action.Errorf(action.Transient, CodeIO, "%v", err)
	}
	if err := fsys.Default().CopyToLocal(ctx, src, dst); err != nil {
		return "", StagingError("fetching", src, err)
	}
	return dst, nil
}

// StagedDir is the directory of a working directory that holds the files
// fetched from stores.
const StagedDir = ".gozie-staged"

// StagingError classifies a failure to stage a file the job names: a
// file that is not regular or too large, or that the job's user may not
// read, is the job's mistake (the error transition), anything else
// transient.
func StagingError(what, src string, err error) error {
	var re *fsys.ReadError
	switch {
	case errors.As(err, &re):
		return action.Errorf(action.ErrorKindError, CodeIO, "%s [%s]: %v", what, src, re)
	case errors.Is(err, fs.ErrPermission):
		return action.Errorf(action.ErrorKindError, CodeFSAccess, "%s [%s]: %v", what, src, err)
	case errors.Is(err, fs.ErrNotExist):
		return action.Errorf(action.ErrorKindError, CodeFileNotFound, "%s [%s]: %v", what, src, err)
	case errors.Is(err, fsys.ErrCredentials), errors.Is(err, fsys.ErrUnsupported):
		return action.Errorf(action.ErrorKindError, CodeUnsupportedFS, "%s [%s]: %v", what, src, err)
	}
	return action.Errorf(action.Transient, CodeIO, "%s [%s]: %v", what, src, err)
}

// LinkFile makes a <file> entry visible in the working directory under its
// link name. The executable itself is copied when it lacks the execute bit
// (files uploaded to HDFS lose it), rather than changing the user's file.
func LinkFile(ctx context.Context, dir, appDir, entry, execName string) error {
	src, name, err := SourceOf(ctx, appDir, entry)
	if err != nil {
		return err
	}
	if src, err = Localize(ctx, dir, src); err != nil {
		return err
	}
	dst := filepath.Join(dir, name)
	if err := os.RemoveAll(dst); err != nil {
		return action.Errorf(action.Transient, CodeIO, "%v", err)
	}
	if fi, err := os.Stat(src); err == nil && name == execName && fi.Mode()&0o100 == 0 {
		// Streamed, bounded and only from a regular file: a job must not
		// make the server read a FIFO, a device or a huge sparse file.
		if err := CopyJobFile(src, dst, MaxStagedCopy, 0o755); err != nil {
			return StagingError("copying", src, err)
		}
		return nil
	}
	if err := os.Symlink(src, dst); err != nil {
		return action.Errorf(action.Transient, CodeIO, "linking [%s]: %v", src, err)
	}
	return nil
}

// UseActionStores makes the process's namespace the one the action
// configuration at confPath (action.xml) describes: the server writes its
// store settings and mount table there (WriteActionConf), so that a tool
// run by `gozie launch -tool` reaches the stores the server does. An
// empty confPath or a missing file changes nothing.
func UseActionStores(confPath string) error {
	if confPath == "" {
		return nil
	}
	c, err := conf.LoadFile(confPath)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("reading the action configuration: %v", err)
	}
	m := c.ExpandedMap()
	ns, err := fsys.NewNamespace(fsys.MapConfig(m), fsys.MountsFromConfig(m))
	if err != nil {
		return err
	}
	fsys.SetDefault(ns)
	return nil
}
