// Package hadoop holds the action types that run an external Hadoop-side
// tool found on the server (pig, hive, hive2, sqoop, spark, git): each
// stages its script and configuration and runs the tool through the
// launch runtime.
package hadoop

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/gozie/gozie/internal/action"
	"github.com/gozie/gozie/internal/launch"

	"github.com/gozie/gozie/internal/conf"
	"github.com/gozie/gozie/internal/fsys"
)

// This file holds what the tool actions (pig, hive, hive2, sqoop, spark,
// git) share: each runs the user's installed command line tool through the
// launcher, in the action's working directory, with the command line that
// Oozie's launcher main class for the tool would have built, minus what
// only a Hadoop launcher job needs (log4j files, delegation tokens, YARN
// tags).

// Oozie's launcher main classes, named in error messages so that they
// read like Oozie's ("Main class [org.apache.oozie.action.hadoop.PigMain],
// exit code [2]").
const (
	pigMain   = "org.apache.oozie.action.hadoop.PigMain"
	hiveMain  = "org.apache.oozie.action.hadoop.HiveMain"
	hive2Main = "org.apache.oozie.action.hadoop.Hive2Main"
	sqoopMain = "org.apache.oozie.action.hadoop.SqoopMain"
	sparkMain = "org.apache.oozie.action.hadoop.SparkMain"
	gitMain   = "org.apache.oozie.action.hadoop.GitMain"
)

// Patterns of the external child ids in a tool's output. They are Oozie's
// (each launcher main class scans its tool's log for them) plus the YARN
// and Spark forms that the tools print on their console.
var (
	yarnAppID     = regexp.MustCompile(`Submitted application (application_[0-9]+_[0-9]+)`)
	hadoopJobDone = regexp.MustCompile(`Ended Job = (job_[0-9]+_[0-9]+)`)
	pigJobID      = regexp.MustCompile(`HadoopJobId: (job_[0-9]+_[0-9]+)`)
	sqoopJobDone  = regexp.MustCompile(`Job complete: (job_[0-9]+_[0-9]+)`)
	sqoopJobOK    = regexp.MustCompile(`Job (job_[0-9]+_[0-9]+) has completed successfully`)
	// Running job: job_... is what the MapReduce job client prints.
	hadoopRunning = regexp.MustCompile(`Running job: (job_[0-9]+_[0-9]+)`)
	// A Spark standalone master names its applications app-<date>-<n>.
	sparkAppID = regexp.MustCompile(`app ID (app-[0-9]+-[0-9]+)`)
)

// childIDPatterns are the patterns each tool's output is searched with.
var childIDPatterns = map[string][]*regexp.Regexp{
	"pig":   {pigJobID, hadoopRunning, yarnAppID},
	"hive":  {hadoopJobDone, hadoopRunning, yarnAppID},
	"hive2": {hadoopJobDone, hadoopRunning, yarnAppID},
	"sqoop": {sqoopJobDone, sqoopJobOK, hadoopRunning, yarnAppID},
	"spark": {yarnAppID, sparkAppID},
}

// childIDs returns the external ids found in the program's stdout and
// stderr, each once, in the order of first appearance.
func childIDs(dir string, patterns []*regexp.Regexp) []string {
	return launch.ScanIDs([]string{filepath.Join(dir, launch.StdoutFile), filepath.Join(dir, launch.StderrFile)}, patterns)
}

// toolResult is defaultResult with the child ids of the run, which Oozie
// records whether the tool succeeded or not.
func toolResult(dir string, st launch.LaunchStatus, mainClass, tool string) action.Result {
	r := launch.DefaultResult(dir, st, mainClass)
	r.ChildIDs = childIDs(dir, childIDPatterns[tool])
	return r
}

// toolProgram is a tool action: its name, where its executable is found
// and how its command line is built.
type toolProgram struct {
	l *launch.Runtime
	// tool names the action type; exe the executable and homeKey the
	// server key of its home directory (findTool).
	tool, exe, homeKey string
	mainClass          string
	// args returns the command line after the executable. It runs after
	// the working directory is staged (prepare, files, archives, the
	// action configuration in ConfFile).
	args func(dir, appDir string, a *action.Context) ([]string, error)
	// env, when set, adds variables to the program's environment.
	env func(dir string, a *action.Context) ([]string, error)
	// classPathEnv names the variables through which the tool's launch
	// script takes extra class path entries (HADOOP_CLASSPATH, ...): they
	// get the action's own jars (lib/, <file> jars, oozie.libpath), which
	// Oozie puts on the class path of every action, before any value the
	// server's environment gives them.
	classPathEnv []string
}

func (p toolProgram) Build(dir string, a *action.Context) (*launch.LaunchSpec, error) {
	exe, err := p.l.Opts.FindTool(p.exe, p.homeKey)
	if err != nil {
		return nil, err
	}
	if err := launch.RunPrepare(launch.FilesContext(context.Background(), a), a.Element); err != nil {
		return nil, err
	}
	appDir, err := launch.StageFiles(dir, a, "")
	if err != nil {
		return nil, err
	}
	confPath, err := launch.WriteActionConf(dir, a.Conf)
	if err != nil {
		return nil, err
	}
	args, err := p.args(dir, appDir, a)
	if err != nil {
		return nil, err
	}
	spec := &launch.LaunchSpec{Exec: exe, Args: args, MaxOutput: p.l.Opts.MaxOutput,
		Env: []string{launch.ConfEnvVar + "=" + confPath}}
	if len(p.classPathEnv) > 0 {
		cp, err := launch.AppClassPath(dir, a)
		if err != nil {
			return nil, err
		}
		// The working directory itself is the tool's current directory
		// already; only jars are added.
		var jars []string
		for _, e := range cp {
			if launch.IsJar(e) {
				jars = append(jars, e)
			}
		}
		if len(jars) > 0 {
			for _, name := range p.classPathEnv {
				v := strings.Join(jars, string(os.PathListSeparator))
				if old := os.Getenv(name); old != "" {
					v += string(os.PathListSeparator) + old
				}
				spec.Env = append(spec.Env, name+"="+v)
			}
		}
	}
	if p.env != nil {
		env, err := p.env(dir, a)
		if err != nil {
			return nil, err
		}
		spec.Env = append(spec.Env, env...)
	}
	return spec, nil
}

func (p toolProgram) Result(dir string, _ *action.Context, st launch.LaunchStatus) action.Result {
	return toolResult(dir, st, p.mainClass, p.tool)
}

// stageScript makes the action's <script> available in the working
// directory under its base name and returns that name, which the tool
// reads relative to its working directory as Oozie's launcher does. A
// <file> entry of the same name staged it already; otherwise the script
// is resolved against the application directory.
func stageScript(ctx context.Context, dir, appDir, script string) (string, error) {
	if script == "" {
		return "", action.Errorf(action.ErrorKindError, launch.CodeSchema, "action without <script>")
	}
	name := filepath.Base(script)
	if _, err := os.Lstat(filepath.Join(dir, name)); err == nil && !strings.Contains(script, "#") {
		return name, nil
	}
	src, name, err := launch.SourceOf(ctx, appDir, script)
	if err != nil {
		return "", err
	}
	if src, err = launch.Localize(ctx, dir, src); err != nil {
		return "", err
	}
	if err := os.Symlink(src, filepath.Join(dir, name)); err != nil {
		return "", action.Errorf(action.Transient, launch.CodeIO, "linking script [%s]: %v", src, err)
	}
	return name, nil
}

// writeQueryFile writes an inline <query> into the working directory, as
// Oozie's Hive launchers do, and returns its name.
func writeQueryFile(dir, name, query string) (string, error) {
	if err := launch.WriteFileAtomic(filepath.Join(dir, name), []byte(query)); err != nil {
		return "", action.Errorf(action.Transient, launch.CodeIO, "writing the query: %v", err)
	}
	return name, nil
}

// childTexts returns the trimmed text of every child named local.
func childTexts(a *action.Context, local string) []string {
	var out []string
	for _, e := range a.Element.ChildrenNamed(local) {
		out = append(out, e.TrimText())
	}
	return out
}

// refuseArgs fails an action whose arguments hold an option that the
// launcher sets itself: Oozie's launchers refuse the same options.
func refuseArgs(tool string, args []string, refused ...string) error {
	for _, arg := range args {
		for _, r := range refused {
			if arg == r {
				return action.Errorf(action.ErrorKindError, launch.CodeLauncher, "%s argument [%s] is not supported: the action sets it", tool, arg)
			}
		}
	}
	return nil
}

// checkParams checks <param> values NAME=VALUE as Oozie's Hive launchers
// do.
func checkParams(params []string) error {
	for _, p := range params {
		i := strings.IndexByte(p, '=')
		if i < 0 {
			return action.Errorf(action.ErrorKindError, launch.CodeLauncher, "Parameter expression must contain an assignment: %s", p)
		}
		if i == 0 {
			return action.Errorf(action.ErrorKindError, launch.CodeLauncher, "Parameter value not specified: %s", p)
		}
	}
	return nil
}

// localFS reports whether the action's file system is the local one: a
// <name-node> with the file scheme, or none at all.
func localFS(a *action.Context) bool {
	nn := a.Element.ChildText("name-node")
	return nn == "" || fsys.Scheme(nn) == "file"
}

// oozieProps returns name=value for the action configuration properties
// named oozie.* except those under the given prefixes, sorted by name:
// the properties Oozie's Hive 2 and Spark launchers hand on to the tool.
func oozieProps(cfg *conf.Config, except ...string) []string {
	if cfg == nil {
		return nil
	}
	var out []string
outer:
	for _, name := range cfg.SortedNames() {
		if !strings.HasPrefix(name, "oozie.") {
			continue
		}
		for _, e := range except {
			if strings.HasPrefix(name, e) {
				continue outer
			}
		}
		v, _ := cfg.Get(name)
		out = append(out, name+"="+v)
	}
	return out
}

// confProps returns name=value for every action configuration property,
// sorted by name, so that a command line built from them is the same on
// every run.
func confProps(cfg *conf.Config) []string {
	if cfg == nil {
		return nil
	}
	var out []string
	for _, name := range cfg.SortedNames() {
		v, _ := cfg.Get(name)
		out = append(out, name+"="+v)
	}
	return out
}

// writeProperties writes cfg as a Java properties file into dir.
func writeProperties(dir, name string, cfg *conf.Config) (string, error) {
	if cfg == nil {
		cfg = conf.New()
	}
	var buf bytes.Buffer
	if err := cfg.WriteProperties(&buf); err != nil {
		return "", action.Errorf(action.ErrorKindError, launch.CodeIO, "writing %s: %v", name, err)
	}
	if err := launch.WriteFileAtomic(filepath.Join(dir, name), buf.Bytes()); err != nil {
		return "", action.Errorf(action.Transient, launch.CodeIO, "writing %s: %v", name, err)
	}
	return name, nil
}
