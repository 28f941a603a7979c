package launch

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/gozie/gozie/internal/action"

	"github.com/gozie/gozie/internal/conf"
	"github.com/gozie/gozie/internal/fsys"
)

// This file is the one place that turns an action into a JVM command
// line: which java runs, the class path in Oozie's order, the JVM options
// from the action and its launcher properties, and the system properties
// Oozie's launcher gives the program. The java action uses it; the other
// JVM-based action types (Java map-reduce, pig, hive, sqoop, ...) are to
// use it too, so that they all see the same class path and properties.
//
// In Oozie the program runs inside a YARN container whose working
// directory holds every localized file: the action's <file>s, the jars and
// files of the application's lib/ directory, of oozie.libpath and of the
// share library; the container's class path is that directory and every
// jar in it. gozie runs the JVM in the action's working directory and
// builds the same class path from the files where they are, linking into
// the directory only what a program may open by name (non-jar files of
// lib/, native libraries).

// Server keys of the JVM-based actions.
var (
	javaHomeKey = action.DeclareSiteKey("gozie.java.home", "",
		"Java installation (the directory holding bin/java) that runs java actions and the other JVM-based action types; empty: $JAVA_HOME, else java on PATH")
	shareLibDirKey = action.DeclareSiteKey(ShareLibDirKey, "",
		"the system share library: a directory with one subdirectory of jars per name (oozie, pig, hive, ...), or Oozie's share/lib holding lib_<timestamp> copies of one (the newest is used); used when oozie.use.system.libpath is true")
	useSysLibKey = action.DeclareSiteKey(useSystemLibPath, "false",
		"server default of oozie.use.system.libpath for jobs and actions that do not set it")
)

// Configuration properties of the class path (job properties or action
// configuration), named as in Oozie.
const (
	useSystemLibPath   = "oozie.use.system.libpath"
	libPathProp        = "oozie.libpath"
	launcherLibPath    = "oozie.launcher.oozie.libpath"
	shareLibForPrefix  = "oozie.action.sharelib.for."
	launcherShareLib   = "oozie.launcher.sharelib"
	commonShareLibName = "oozie" // added to every action that uses the share library, as Oozie does
)

// System properties and files of Oozie's launcher that a program reads.
const (
	propActionConf   = "oozie.action.conf.xml"
	propOutput       = "oozie.action.output.properties"
	propChildIDs     = "oozie.action.externalChildIDs"
	propStats        = "oozie.action.stats.properties"
	propNewID        = "oozie.action.newId"
	propErrorProps   = "oozie.action.error.properties"
	outputFile       = "output.properties"
	childIDsFile     = "externalChildIDs"
	statsFile        = "stats.properties"
	newIDFile        = "newId"
	errorPropsFile   = "error.properties"
	javaTmpDir       = "tmp"
	propConfigClass  = "oozie.action.config.class"
	propLauncherMain = "oozie.launcher.action.main.class"
)

// jvmCommand is one JVM to start for an action: everything the launcher
// needs, in the order it goes on the command line.
type jvmCommand struct {
	Java      string   // the java executable
	Opts      []string // JVM options, system properties included, before the main class
	ClassPath []string // class path entries in order
	MainClass string
	Args      []string
	Env       []string // NAME=VALUE added to the program's environment
	// Notes are lines for the launcher log: launcher properties that have
	// no meaning on this machine and were ignored.
	Notes []string
}

// argv returns the java command line after the executable.
func (c *jvmCommand) argv() []string {
	argv := append([]string{}, c.Opts...)
	argv = append(argv, "-cp", strings.Join(c.ClassPath, string(os.PathListSeparator)), c.MainClass)
	return append(argv, c.Args...)
}

// LaunchSpec returns what the launcher runs for c; capture asks for
// Oozie's output.properties as the captured output.
func (c *jvmCommand) LaunchSpec(capture bool, maxOutput int) *LaunchSpec {
	s := &LaunchSpec{Exec: c.Java, Args: c.argv(), Env: c.Env, MaxOutput: maxOutput}
	if capture {
		s.Capture, s.CaptureFile = true, outputFile
	}
	return s
}

// JvmRequest is what an action type asks of newJVM.
type JvmRequest struct {
	// ActionType chooses the share library (oozie.action.sharelib.for.TYPE).
	ActionType string
	// DefaultShareLib is the share library of the type when no property
	// names one: "" for java, "pig" for pig, ... (Oozie's
	// getDefaultShareLibName).
	DefaultShareLib string
	MainClass       string
	Args            []string
}

// NewJVM builds the JVM command of an action whose working directory dir
// has been staged (stageFiles): it writes the action configuration there,
// finds java, builds the class path, and collects the JVM options and
// environment from the action body and configuration.
func (o Options) NewJVM(dir string, a *action.Context, req JvmRequest) (*jvmCommand, error) {
	if err := refuseUnsupported(a); err != nil {
		return nil, err
	}
	java, err := o.javaBinary()
	if err != nil {
		return nil, err
	}
	cp, err := BuildClassPath(dir, a, req.ActionType, req.DefaultShareLib, o)
	if err != nil {
		return nil, err
	}
	confPath, err := WriteActionConf(dir, a.Conf)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Join(dir, javaTmpDir), 0o755); err != nil {
		return nil, action.Errorf(action.Transient, CodeIO, "creating the JVM's temporary directory: %v", err)
	}
	c := &jvmCommand{Java: java, ClassPath: cp, MainClass: req.MainClass, Args: req.Args}

	// gozie's defaults first, so that the user's options override them.
	c.Opts = append(c.Opts,
		"-Djava.io.tmpdir="+filepath.Join(dir, javaTmpDir),
		"-Djava.library.path="+dir)
	opts, notes, err := javaOpts(a)
	if err != nil {
		return nil, err
	}
	c.Opts = append(c.Opts, opts...)
	c.Notes = append(c.Notes, notes...)
	// What Oozie's launcher sets with System.setProperty once the JVM
	// runs, so it wins over the same -D in the user's options.
	sys := [][2]string{
		{"oozie.job.id", a.JobID},
		{"oozie.action.id", a.ActionID},
		{"oozie.launcher.job.id", a.JobID},
		{propActionConf, confPath},
		{propOutput, filepath.Join(dir, outputFile)},
		{propChildIDs, filepath.Join(dir, childIDsFile)},
		{propStats, filepath.Join(dir, statsFile)},
		{propNewID, filepath.Join(dir, newIDFile)},
		{propErrorProps, filepath.Join(dir, errorPropsFile)},
		{"submitter.user", a.User},
	}
	for _, kv := range sys {
		if kv[1] != "" {
			c.Opts = append(c.Opts, "-D"+kv[0]+"="+kv[1])
		}
	}

	env, err := launcherEnvVars(a.Conf)
	if err != nil {
		return nil, err
	}
	c.Env = append(env, ConfEnvVar+"="+confPath)
	c.Notes = append(c.Notes, ignoredLauncherProps(a.Conf, req.ActionType)...)
	return c, nil
}

// javaBinary locates java: gozie.java.home, else $JAVA_HOME, else java on
// PATH. A java that is not there is CodeToolMissing naming
// where gozie looked.
func (o Options) javaBinary() (string, error) {
	if o.Setting(javaHomeKey) != "" {
		return o.FindTool("java", javaHomeKey)
	}
	if home := strings.TrimSpace(os.Getenv("JAVA_HOME")); home != "" {
		p := filepath.Join(home, "bin", "java")
		if _, err := exec.LookPath(p); err != nil {
			return "", action.Errorf(action.ErrorKindError, CodeToolMissing,
				"java not found: $JAVA_HOME is [%s] but %s is not an executable file; fix JAVA_HOME or set %s", home, p, javaHomeKey)
		}
		return p, nil
	}
	return o.FindTool("java", javaHomeKey)
}

// BuildClassPath returns the class path of a JVM action in Oozie's order
// and links into dir the library files a program opens by name:
//
//  1. dir itself (Oozie's container working directory, where <file>s and
//     library resources are), then the jars of dir (the <file> jars under
//     their link names);
//  2. the jars of the application's lib/ directory;
//  3. the jars of oozie.libpath (job property) and oozie.launcher.oozie.libpath
//     (action configuration): comma lists of directories or jar files;
//  4. with oozie.use.system.libpath true, the jars of the share library's
//     subdirectories named by oozie.launcher.sharelib or
//     oozie.action.sharelib.for.<actionType> (action configuration, job
//     properties, server configuration, in that order; else
//     defaultShareLib), then of its "oozie" subdirectory.
//
// A jar whose file name is already on the path is skipped (Oozie
// localizes one file per name). <archive>s are not on the class path, as
// in Oozie, whose container class path holds the working directory and
// its top-level jars only.
func BuildClassPath(dir string, a *action.Context, actionType, defaultShareLib string, opts Options) ([]string, error) {
	return classPath(dir, a, actionType, defaultShareLib, opts, true)
}

// AppClassPath is the class path of an action's own jars: buildClassPath
// without the share library. An installed tool (pig, hive, sqoop) brings
// its own libraries; the share library's copies of them would only clash.
func AppClassPath(dir string, a *action.Context) ([]string, error) {
	return classPath(dir, a, a.Type, "", Options{}, false)
}

func classPath(dir string, a *action.Context, actionType, defaultShareLib string, opts Options, shareLib bool) ([]string, error) {
	cp := []string{dir}
	seen := map[string]bool{}
	addJar := func(p string) {
		if b := filepath.Base(p); !seen[b] {
			seen[b] = true
			cp = append(cp, p)
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, action.Errorf(action.Transient, CodeIO, "reading the working directory: %v", err)
	}
	for _, e := range entries {
		if IsJar(e.Name()) {
			if fi, err := os.Stat(filepath.Join(dir, e.Name())); err == nil && fi.Mode().IsRegular() {
				addJar(filepath.Join(dir, e.Name()))
			}
		}
	}

	appDir, err := AppDirOf(a.AppPath)
	if err != nil {
		return nil, err
	}
	ctx := FilesContext(context.Background(), a)
	if appDir != "" {
		lib, fi, err := stageLib(ctx, dir, childURI(appDir, "lib"))
		if err == nil && fi.IsDir() {
			if err := addLibDir(dir, lib, addJar); err != nil {
				return nil, err
			}
		} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, StagingError("application library", childURI(appDir, "lib"), err)
		}
	}

	var libPaths []string
	if a.JobConf != nil {
		libPaths = append(libPaths, splitList(a.JobConf.GetDefault(libPathProp, ""))...)
	}
	if a.Conf != nil {
		libPaths = append(libPaths, splitList(a.Conf.GetDefault(launcherLibPath, ""))...)
	}
	for _, lp := range libPaths {
		p, err := localLibPath(appDir, lp)
		if err != nil {
			return nil, err
		}
		p, fi, err := stageLib(ctx, dir, p)
		switch {
		case err != nil:
			return nil, action.Errorf(action.ErrorKindError, CodeFileNotFound, "library path [%s] (%s) does not exist: %v", lp, libPathProp, err)
		case fi.IsDir():
			if err := addLibDir(dir, p, addJar); err != nil {
				return nil, err
			}
		default:
			if err := addLibFile(dir, p, addJar); err != nil {
				return nil, err
			}
		}
	}

	// Without a share library root the share library is empty: most
	// applications set oozie.use.system.libpath=true once for all their
	// actions, and an action that needs nothing from it must still run.
	// A directory named explicitly that is missing is an error; the
	// type's default one may be absent, as Oozie's java share library
	// often is.
	if root := opts.Setting(shareLibDirKey); shareLib && root != "" && useSystemLib(a, opts) {
		root = ShareLibRoot(ctx, root) // the newest lib_<timestamp>, as admin -sharelibupdate reports it
		names, explicit := shareLibNames(a, actionType, defaultShareLib, opts)
		for _, name := range names {
			sub, fi, err := stageLib(ctx, dir, childURI(root, name))
			if err != nil || !fi.IsDir() {
				if !explicit {
					continue
				}
				return nil, action.Errorf(action.ErrorKindError, CodeFileNotFound,
					"share library [%s] of the %s action not found: no directory %s under %s [%s]", name, actionType, name, shareLibDirKey, root)
			}
			if err := addLibDir(dir, sub, addJar); err != nil {
				return nil, err
			}
		}
		// Oozie adds its common share library to every action; gozie's
		// programs do not need it, so a root without one is fine.
		if common, fi, err := stageLib(ctx, dir, childURI(root, commonShareLibName)); err == nil && fi.IsDir() && !contains(names, commonShareLibName) {
			if err := addLibDir(dir, common, addJar); err != nil {
				return nil, err
			}
		}
	}
	return cp, nil
}

// addLibDir adds the top-level files of a library directory: jars to the
// class path (in name order), other files linked into the working
// directory as Oozie's localization would put them there.
func addLibDir(dir, lib string, addJar func(string)) error {
	entries, err := os.ReadDir(lib)
	if err != nil {
		return action.Errorf(action.ErrorKindError, CodeFileNotFound, "reading library directory %s: %v", lib, err)
	}
	for _, e := range entries {
		p := filepath.Join(lib, e.Name())
		if fi, err := os.Stat(p); err != nil || !fi.Mode().IsRegular() {
			continue
		}
		if err := addLibFile(dir, p, addJar); err != nil {
			return err
		}
	}
	return nil
}

func addLibFile(dir, p string, addJar func(string)) error {
	if IsJar(p) {
		addJar(p)
		return nil
	}
	// A <file> of the action under the same name wins, as in Oozie.
	dst := filepath.Join(dir, filepath.Base(p))
	if _, err := os.Lstat(dst); err == nil {
		return nil
	}
	if err := os.Symlink(p, dst); err != nil {
		return action.Errorf(action.Transient, CodeIO, "linking library file [%s]: %v", p, err)
	}
	return nil
}

// IsJar reports whether name ends in .jar, in any case.
func IsJar(name string) bool { return strings.HasSuffix(strings.ToLower(name), ".jar") }

// localLibPath resolves one entry of oozie.libpath: a URI of a local file
// system, an absolute path, or a path relative to the application.
func localLibPath(appDir, p string) (string, error) {
	if fsys.Scheme(p) != "" {
		if _, err := fsys.Default().Resolve(context.Background(), p); err != nil {
			return "", action.Errorf(action.ErrorKindError, CodeUnsupportedFS, "%s entry [%s]: %v", libPathProp, p, err)
		}
		return p, nil
	}
	if !filepath.IsAbs(p) && appDir != "" {
		return childURI(appDir, p), nil
	}
	return p, nil
}

// childURI joins name to a local directory or a store URI.
func childURI(dir, name string) string {
	if fsys.Scheme(dir) != "" {
		return strings.TrimSuffix(dir, "/") + "/" + name
	}
	return filepath.Join(dir, name)
}

// stageLib returns a local path holding library path p (a directory or
// a file) and its description: p itself when it is local (a plain path,
// file: URI or mounted prefix), else a copy fetched into dir's staging
// area (Localize), as Oozie localizes libraries into the container.
func stageLib(ctx context.Context, dir, p string) (string, os.FileInfo, error) {
	l, local, err := fsys.Default().LocalPath(ctx, p)
	if err != nil {
		return "", nil, err
	}
	if local {
		fi, err := os.Stat(l)
		return l, fi, err
	}
	fi, err := fsys.Stat(ctx, p)
	if err != nil {
		return "", nil, err
	}
	l, err = Localize(ctx, dir, p)
	return l, fi, err
}

// useSystemLib reads oozie.use.system.libpath: the action configuration
// when it sets it, else the job properties, else the server default.
func useSystemLib(a *action.Context, opts Options) bool {
	for _, c := range []*conf.Config{a.Conf, a.JobConf} {
		if c != nil {
			if v, ok := c.Get(useSystemLibPath); ok {
				return strings.EqualFold(strings.TrimSpace(v), "true")
			}
		}
	}
	return strings.EqualFold(opts.Setting(useSysLibKey), "true")
}

// shareLibNames resolves the share library directories of an action:
// oozie.launcher.sharelib (the <launcher><sharelib> of schema 1.0) in the
// action configuration, then oozie.action.sharelib.for.<type> in the
// action configuration, the job properties and the server configuration,
// then the type's default.
// explicit is false when the names are the type's default.
func shareLibNames(a *action.Context, actionType, def string, opts Options) (names []string, explicit bool) {
	key := shareLibForPrefix + actionType
	if a.Conf != nil {
		for _, k := range []string{launcherShareLib, key} {
			if v := splitList(a.Conf.GetDefault(k, "")); len(v) > 0 {
				return v, true
			}
		}
	}
	if a.JobConf != nil {
		if v := splitList(a.JobConf.GetDefault(key, "")); len(v) > 0 {
			return v, true
		}
	}
	if v := splitList(opts.Setting(key)); len(v) > 0 {
		return v, true
	}
	return splitList(def), false
}

// splitList splits a comma list, trimming and dropping empty entries.
func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// Launcher JVM options, oldest names first: in the JVM the last of a
// repeated option wins, so the action's own <java-opts> come last.
var launcherOptProps = []string{
	"oozie.launcher.mapred.child.java.opts",
	"oozie.launcher.mapreduce.map.java.opts",
}

// javaOpts collects the JVM options of an action: the launcher's
// mapred.child.java.opts and mapreduce.map.java.opts (with the
// oozie.launcher. prefix), then either the body's <java-opts> or
// <java-opt>s or, without those, oozie.launcher.javaopts (the <launcher>
// <java-opts> of schema 1.0; Oozie ignores it when the body has its own).
func javaOpts(a *action.Context) (opts, notes []string, err error) {
	get := func(k string) string {
		if a.Conf == nil {
			return ""
		}
		return strings.TrimSpace(a.Conf.GetDefault(k, ""))
	}
	add := func(what, s string) error {
		words, err := SplitJavaOpts(s)
		if err != nil {
			return action.Errorf(action.ErrorKindError, CodeSchema, "%s [%s]: %v", what, s, err)
		}
		opts = append(opts, words...)
		return nil
	}
	for _, k := range launcherOptProps {
		if v := get(k); v != "" {
			if err := add(k, v); err != nil {
				return nil, nil, err
			}
		}
	}
	own := false
	if a.Element != nil {
		for _, e := range a.Element.ChildrenNamed("java-opt") {
			own = true
			if err := add("<java-opt>", e.TrimText()); err != nil {
				return nil, nil, err
			}
		}
		for _, e := range a.Element.ChildrenNamed("java-opts") {
			own = true
			if err := add("<java-opts>", e.TrimText()); err != nil {
				return nil, nil, err
			}
		}
	}
	if v := get("oozie.launcher.javaopts"); v != "" {
		if own {
			notes = append(notes, "oozie.launcher.javaopts ignored: the action has its own <java-opts>, which win as in Oozie")
		} else if err := add("oozie.launcher.javaopts", v); err != nil {
			return nil, nil, err
		}
	}
	return opts, notes, nil
}

// SplitJavaOpts splits JVM options as the shell that starts Oozie's
// launcher container does: on blanks, with '...' and "..." quoting and
// backslash escapes. Variables are not expanded.
func SplitJavaOpts(s string) ([]string, error) {
	var (
		words []string
		cur   strings.Builder
		in    bool // inside a word
		quote rune
	)
	rs := []rune(s)
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		switch {
		case quote == '\'':
			if r == '\'' {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case quote == '"':
			switch {
			case r == '"':
				quote = 0
			case r == '\\' && i+1 < len(rs) && strings.ContainsRune(`"\$`+"`", rs[i+1]):
				i++
				cur.WriteRune(rs[i])
			default:
				cur.WriteRune(r)
			}
		case r == '\'' || r == '"':
			quote, in = r, true
		case r == '\\' && i+1 < len(rs):
			i++
			cur.WriteRune(rs[i])
			in = true
		case r == ' ' || r == '\t' || r == '\n' || r == '\r':
			if in {
				words = append(words, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteRune(r)
			in = true
		}
	}
	if quote != 0 {
		return nil, fmt.Errorf("unterminated %c quote", quote)
	}
	if in {
		words = append(words, cur.String())
	}
	return words, nil
}

// Launcher environment properties: Oozie 5's oozie.launcher.env
// (NAME=VALUE pairs separated by ':') and the older Hadoop-style
// mapreduce.map.env / mapred.child.env of the launcher (pairs separated
// by ','), oldest first so that the newer names win.
const launcherEnvProp = "oozie.launcher.env"

var launcherEnvProps = []string{
	"oozie.launcher.mapred.child.env",
	"oozie.launcher.mapreduce.map.env",
}

// launcherEnvVars returns the environment the launcher properties add. As in
// Hadoop, $NAME and ${NAME} in a value are replaced by the server's
// environment (PATH=$PATH:/opt/x).
func launcherEnvVars(c *conf.Config) ([]string, error) {
	if c == nil {
		return nil, nil
	}
	var env []string
	parse := func(prop, sep string) error {
		v := strings.TrimSpace(c.GetDefault(prop, ""))
		if v == "" {
			return nil
		}
		for _, kv := range strings.Split(v, sep) {
			kv = strings.TrimSpace(kv)
			if kv == "" {
				continue
			}
			name, val, ok := strings.Cut(kv, "=")
			if !ok || strings.TrimSpace(name) == "" {
				return action.Errorf(action.ErrorKindError, CodeSchema,
					"%s [%s]: [%s] is not NAME=VALUE (pairs are separated by '%s')", prop, v, kv, sep)
			}
			env = append(env, strings.TrimSpace(name)+"="+os.ExpandEnv(val))
		}
		return nil
	}
	for _, p := range launcherEnvProps {
		if err := parse(p, ","); err != nil {
			return nil, err
		}
	}
	if err := parse(launcherEnvProp, ":"); err != nil {
		return nil, err
	}
	return env, nil
}

// launcherHints are launcher settings that only steer a cluster's
// scheduler (queue, container size, priority, attempts, ACLs) or isolate
// user jars from Hadoop's own (a local JVM has none): a local JVM gives
// the same result without them, so they are ignored and the launcher log
// says so.
var launcherHints = []string{
	"oozie.launcher.log.level",
	"oozie.launcher.mapred.job.queue.name",
	"oozie.launcher.mapreduce.job.acl-modify-job",
	"oozie.launcher.mapreduce.job.acl-view-job",
	"oozie.launcher.mapreduce.job.classloader",
	"oozie.launcher.mapreduce.job.priority",
	"oozie.launcher.mapreduce.job.queuename",
	"oozie.launcher.mapreduce.job.ubertask.enable",
	"oozie.launcher.mapreduce.map.cpu.vcores",
	"oozie.launcher.mapreduce.map.maxattempts",
	"oozie.launcher.mapreduce.map.memory.mb",
	"oozie.launcher.mapreduce.task.classpath.user.precedence",
	"oozie.launcher.mapreduce.user.classpath.first",
	"oozie.launcher.max.attempts",
	"oozie.launcher.memory.mb",
	"oozie.launcher.modify.acl",
	"oozie.launcher.priority",
	"oozie.launcher.queue",
	"oozie.launcher.vcores",
	"oozie.launcher.view.acl",
	"oozie.launcher.yarn.app.mapreduce.am.command-opts",
	"oozie.launcher.yarn.app.mapreduce.am.env",
	"oozie.launcher.yarn.app.mapreduce.am.resource.mb",
}

// ignoredLauncherProps returns the launcher-log lines naming the
// settings of c that were ignored.
func ignoredLauncherProps(c *conf.Config, actionType string) []string {
	if c == nil {
		return nil
	}
	var set, notes []string
	for _, k := range launcherHints {
		if c.Has(k) {
			set = append(set, k)
		}
	}
	if len(set) > 0 {
		notes = append(notes, "ignored launcher settings that have no meaning for a local JVM: "+strings.Join(set, ", "))
	}
	if actionType == "java" && c.Has(propLauncherMain) {
		notes = append(notes, propLauncherMain+" ignored: the java action's <main-class> has priority (workflow specification 3.2.6.1)")
	}
	return notes
}

// refuseUnsupported fails an action whose configuration asks for launcher
// behaviour gozie does not have and whose absence would change what the
// program does.
func refuseUnsupported(a *action.Context) error {
	if a.Conf != nil && a.Conf.Has(propConfigClass) {
		v, _ := a.Conf.Get(propConfigClass)
		return action.Errorf(action.ErrorKindError, CodeSchema,
			"%s [%s] is not supported: gozie does not run an OozieActionConfigurator before the program, which would then see another configuration", propConfigClass, v)
	}
	if a.Element != nil && a.Element.Child("config-class") != nil {
		return action.Errorf(action.ErrorKindError, CodeSchema,
			"<config-class> [%s] is not supported: gozie does not run an OozieActionConfigurator before the program, which would then see another configuration", a.Element.ChildText("config-class"))
	}
	return nil
}

// writeLauncherNotes appends notes to the launcher log of dir, where
// `gozie job -info` users and the launcher's own messages find them.
func writeLauncherNotes(dir string, notes []string) {
	if len(notes) == 0 {
		return
	}
	f, err := createOwn(filepath.Join(dir, LauncherLog), os.O_APPEND, 0o644)
	if err != nil {
		return // notes are a courtesy; the action runs without them
	}
	defer f.Close()
	for _, n := range notes {
		fmt.Fprintln(f, "gozie: "+n)
	}
}

// ReadChildIDs reads the external child ids a program wrote to
// oozie.action.externalChildIDs (comma separated).
func ReadChildIDs(dir string) []string {
	b, err := ReadJobRecord(filepath.Join(dir, childIDsFile))
	if err != nil {
		return nil
	}
	return splitList(strings.ReplaceAll(string(b), "\n", ","))
}

// ExitCodeError returns Oozie's error code for a main class that ended
// with System.exit(n), n != 0: the exit code itself, with Oozie's JA019
// for -1 (which a process reports as 255).
func ExitCodeError(code int) string {
	if code == 255 {
		return "JA019"
	}
	return strconv.Itoa(code)
}
