package action

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/gozie/gozie/internal/conf"
	"github.com/gozie/gozie/internal/fsys"
	"github.com/gozie/gozie/internal/workflow"
)

func init() {
	registerBuiltin("shell", func(l *launchers) Executor { return newProcess(l, shellProgram{l.opts}) })
}

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

// launcherLog collects the launcher's own stdout and stderr.
const launcherLog = "launcher.log"

// launcherStartGrace is how long after the spec was written a launcher may
// take to record its pid before Check declares it lost. It only matters
// after a server restart: in-process, the executor knows whether its child
// runs.
const launcherStartGrace = time.Minute

// shellMain is the main class name Oozie's messages name; kept so that
// messages read like Oozie's and old searches still find them.
const shellMain = "org.apache.oozie.action.hadoop.ShellMain"

// shellProgram is the shell action (extension namespace
// uri:oozie:shell-action:0.1 to 1.0): <exec> with <argument>s and
// <env-var>s, the action configuration in $OOZIE_ACTION_CONF_XML.
type shellProgram struct{ opts Options }

// NewShell returns the executor of the shell action on launchers of its
// own (tests; RegisterBuiltins shares one set among all action types).
func NewShell(opts Options) Executor {
	return newProcess(newLaunchers(opts), shellProgram{opts})
}

func (shellProgram) result(dir string, _ *Context, st LaunchStatus) Result {
	return defaultResult(dir, st, shellMain)
}

// build stages the working directory and returns the spec.
func (s shellProgram) build(dir string, a *Context) (*LaunchSpec, error) {
	body := a.Element
	if err := runPrepare(body); err != nil {
		return nil, err
	}
	execName := body.ChildText("exec")
	if execName == "" {
		return nil, Errorf(ErrorKindError, CodeSchema, "shell action without <exec>")
	}
	if _, err := stageFiles(dir, a, execName); err != nil {
		return nil, err
	}
	confPath, err := writeActionConf(dir, a.Conf)
	if err != nil {
		return nil, err
	}
	spec := &LaunchSpec{Exec: execName, MaxOutput: s.opts.MaxOutput, Capture: body.Child("capture-output") != nil}
	for _, arg := range body.ChildrenNamed("argument") {
		spec.Args = append(spec.Args, arg.TrimText())
	}
	for _, ev := range body.ChildrenNamed("env-var") {
		kv := ev.TrimText()
		if i := strings.IndexByte(kv, '='); i <= 0 {
			return nil, Errorf(ErrorKindError, CodeSchema, "env-var [%s] is not NAME=VALUE", kv)
		}
		spec.Env = append(spec.Env, kv)
	}
	spec.Env = append(spec.Env, ConfEnvVar+"="+confPath)
	return spec, nil
}

// runPrepare runs the <prepare> block of an action body (delete and
// mkdir, in order), paths relative to its <name-node>.
func runPrepare(body *workflow.Element) error {
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
		p, err := resolveFSPath("prepare "+op.Name.Local, op, "path", nnPrefix)
		if err != nil {
			return err
		}
		if op.Name.Local == "delete" {
			err = fsys.Delete(p)
		} else {
			err = fsys.MkdirAll(p)
		}
		if err != nil {
			return fsIOError(p, err, "")
		}
	}
	return nil
}

// stageFiles makes the body's <file> entries visible in dir under their
// link names and unpacks its <archive> entries there; execName, when
// set, is the program that must end up executable. It returns the local
// application directory the entries were resolved against.
func stageFiles(dir string, a *Context, execName string) (appDir string, err error) {
	if appDir, err = appDirOf(a.AppPath); err != nil {
		return "", err
	}
	for _, f := range a.Element.ChildrenNamed("file") {
		if err := linkFile(dir, appDir, f.TrimText(), execName); err != nil {
			return "", err
		}
	}
	for _, f := range a.Element.ChildrenNamed("archive") {
		if err := unpackArchive(dir, appDir, f.TrimText()); err != nil {
			return "", err
		}
	}
	return appDir, nil
}

// writeActionConf writes the merged action configuration as Hadoop XML
// into dir (ConfFile) and returns its path.
func writeActionConf(dir string, cfg *conf.Config) (string, error) {
	if cfg == nil {
		cfg = conf.New()
	}
	var buf bytes.Buffer
	if err := cfg.WriteXML(&buf); err != nil {
		return "", Errorf(ErrorKindError, CodeIO, "writing action configuration: %v", err)
	}
	confPath := filepath.Join(dir, ConfFile)
	if err := writeFileAtomic(confPath, buf.Bytes()); err != nil {
		return "", Errorf(Transient, CodeIO, "writing action configuration: %v", err)
	}
	return confPath, nil
}

// appDirOf turns the application path (a directory or its workflow.xml, a
// URI or a local path) into a local directory.
func appDirOf(appPath string) (string, error) {
	if appPath == "" {
		return "", nil
	}
	l, err := fsys.Local(appPath)
	if err != nil {
		return "", Errorf(ErrorKindError, CodeUnsupportedFS, "%v", err)
	}
	if fi, err := os.Stat(l); err == nil && !fi.IsDir() {
		l = filepath.Dir(l)
	}
	return filepath.Abs(l)
}

// sourceOf splits a <file>/<archive> entry "path#name" and resolves path:
// relative paths against the application directory.
func sourceOf(appDir, entry string) (src, name string, err error) {
	src, name, _ = strings.Cut(entry, "#")
	if src == "" {
		return "", "", Errorf(ErrorKindError, CodeSchema, "empty <file> or <archive> entry")
	}
	if name == "" {
		name = filepath.Base(src)
	}
	if strings.Contains(name, "/") || name == "." || name == ".." {
		return "", "", Errorf(ErrorKindError, CodeSchema, "invalid link name [%s] in [%s]", name, entry)
	}
	if fsys.Scheme(src) != "" {
		if src, err = fsys.Local(src); err != nil {
			return "", "", Errorf(ErrorKindError, CodeUnsupportedFS, "%v", err)
		}
	} else if !filepath.IsAbs(src) {
		src = filepath.Join(appDir, src)
	}
	if _, err := os.Stat(src); err != nil {
		return "", "", Errorf(ErrorKindError, CodeFileNotFound, "File [%s] of the action does not exist: %v", entry, err)
	}
	return src, name, nil
}

// stagingError classifies a failure to stage a file the job names: a
// file that is not regular or too large, or that the job's user may not
// read, is the job's mistake (the error transition), anything else
// transient.
func stagingError(what, src string, err error) error {
	var re *fsys.ReadError
	switch {
	case errors.As(err, &re):
		return Errorf(ErrorKindError, CodeIO, "%s [%s]: %v", what, src, re)
	case errors.Is(err, fs.ErrPermission):
		return Errorf(ErrorKindError, CodeFSAccess, "%s [%s]: %v", what, src, err)
	}
	return Errorf(Transient, CodeIO, "%s [%s]: %v", what, src, err)
}

// linkFile makes a <file> entry visible in the working directory under its
// link name. The executable itself is copied when it lacks the execute bit
// (files uploaded to HDFS lose it), rather than changing the user's file.
func linkFile(dir, appDir, entry, execName string) error {
	src, name, err := sourceOf(appDir, entry)
	if err != nil {
		return err
	}
	dst := filepath.Join(dir, name)
	if err := os.RemoveAll(dst); err != nil {
		return Errorf(Transient, CodeIO, "%v", err)
	}
	if fi, err := os.Stat(src); err == nil && name == execName && fi.Mode()&0o100 == 0 {
		// Streamed, bounded and only from a regular file: a job must not
		// make the server read a FIFO, a device or a huge sparse file.
		if err := copyJobFile(src, dst, maxStagedCopy, 0o755); err != nil {
			return stagingError("copying", src, err)
		}
		return nil
	}
	if err := os.Symlink(src, dst); err != nil {
		return Errorf(Transient, CodeIO, "linking [%s]: %v", src, err)
	}
	return nil
}
