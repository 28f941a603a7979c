// Package shell is the shell action (the shell-action schemas): a
// program of the application run by the launch runtime.
package shell

import (
	"context"
	"strings"

	"github.com/gozie/gozie/internal/action"
	"github.com/gozie/gozie/internal/launch"
)

func init() {
	launch.Register("shell", func(l *launch.Runtime) action.Executor { return launch.NewProcess(l, shellProgram{l.Opts}) })
}

// shellMain is the main class name Oozie's messages name; kept so that
// messages read like Oozie's and old searches still find them.
const shellMain = "org.apache.oozie.action.hadoop.ShellMain"

// shellProgram is the shell action (extension namespace
// uri:oozie:shell-action:0.1 to 1.0): <exec> with <argument>s and
// <env-var>s, the action configuration in $OOZIE_ACTION_CONF_XML.
type shellProgram struct{ opts launch.Options }

// NewShell returns the executor of the shell action on launchers of its
// own (tests; RegisterBuiltins shares one set among all action types).
func NewShell(opts launch.Options) action.Executor {
	return launch.NewProcess(launch.NewRuntime(opts), shellProgram{opts})
}

func (shellProgram) Result(dir string, _ *action.Context, st launch.LaunchStatus) action.Result {
	return launch.DefaultResult(dir, st, shellMain)
}

// Build stages the working directory and returns the spec.
func (s shellProgram) Build(dir string, a *action.Context) (*launch.LaunchSpec, error) {
	body := a.Element
	if err := launch.RunPrepare(launch.FilesContext(context.Background(), a), body); err != nil {
		return nil, err
	}
	execName := body.ChildText("exec")
	if execName == "" {
		return nil, action.Errorf(action.ErrorKindError, launch.CodeSchema, "shell action without <exec>")
	}
	if _, err := launch.StageFiles(dir, a, execName); err != nil {
		return nil, err
	}
	confPath, err := launch.WriteActionConf(dir, a.Conf)
	if err != nil {
		return nil, err
	}
	spec := &launch.LaunchSpec{Exec: execName, MaxOutput: s.opts.MaxOutput, Capture: body.Child("capture-output") != nil}
	for _, arg := range body.ChildrenNamed("argument") {
		spec.Args = append(spec.Args, arg.TrimText())
	}
	for _, ev := range body.ChildrenNamed("env-var") {
		kv := ev.TrimText()
		if i := strings.IndexByte(kv, '='); i <= 0 {
			return nil, action.Errorf(action.ErrorKindError, launch.CodeSchema, "env-var [%s] is not NAME=VALUE", kv)
		}
		spec.Env = append(spec.Env, kv)
	}
	spec.Env = append(spec.Env, launch.ConfEnvVar+"="+confPath)
	return spec, nil
}
