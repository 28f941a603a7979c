// Package jvm holds the action types that run a JVM or a Hadoop job: java
// and map-reduce (local streaming through the built-in tool of package
// mrtool, or a job submitted with Hadoop's mapred command).
package jvm

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/gozie/gozie/internal/action"
	"github.com/gozie/gozie/internal/launch"
)

// javaMain is the class Oozie's messages name for a java action: its
// launcher runs the user's main class through JavaMain, and messages read
// like Oozie's so that searches for them still work.
const javaMain = "org.apache.oozie.action.hadoop.JavaMain"

// javaProgram is the java action (spec: wf 3.2.6): the
// public static void main(String[]) of <main-class> runs in a JVM of its
// own in the action's working directory, with <arg>s, <java-opts> or
// <java-opt>s, <file>s and <archive>s, the class path of jvm.go, and
// <capture-output/> read from the file named by the system property
// oozie.action.output.properties.
type javaProgram struct{ opts launch.Options }

func init() {
	launch.Register("java", func(l *launch.Runtime) action.Executor { return launch.NewProcess(l, javaProgram{l.Opts}) })
}

// NewJava returns the executor of the java action on launchers of its own
// (tests; RegisterBuiltins shares one set among all action types).
func NewJava(opts launch.Options) action.Executor {
	return launch.NewProcess(launch.NewRuntime(opts), javaProgram{opts})
}

func (p javaProgram) Build(dir string, a *action.Context) (*launch.LaunchSpec, error) {
	body := a.Element
	mainClass := body.ChildText("main-class")
	if mainClass == "" {
		return nil, action.Errorf(action.ErrorKindError, launch.CodeSchema, "java action without <main-class>")
	}
	if err := launch.RunPrepare(launch.FilesContext(context.Background(), a), body); err != nil {
		return nil, err
	}
	if _, err := launch.StageFiles(dir, a, ""); err != nil {
		return nil, err
	}
	var args []string
	for _, e := range body.ChildrenNamed("arg") {
		args = append(args, e.TrimText())
	}
	jvm, err := p.opts.NewJVM(dir, a, launch.JvmRequest{ActionType: "java", MainClass: mainClass, Args: args})
	if err != nil {
		return nil, err
	}
	spec := jvm.LaunchSpec(body.Child("capture-output") != nil, p.opts.MaxOutput)
	spec.Notes = jvm.Notes
	return spec, nil
}

// Result reads the outcome as Oozie's launcher reports it (Oozie 5
// LauncherAM and JavaActionExecutor.check): exit 0 is OK; System.exit(n)
// is an error whose code is n itself (JA019 for -1) and whose message is
// "Main Class [JavaMain], exit code [n]"; an exception thrown out of main
// (the class not found included) is JA018. Every message names the
// program's stderr file.
func (javaProgram) Result(dir string, _ *action.Context, st launch.LaunchStatus) action.Result {
	errPath := filepath.Join(dir, launch.StderrFile)
	r := action.Result{ExternalID: dir, Done: true, ExternalStatus: "FAILED/KILLED", Status: action.Error, ErrorCode: launch.CodeLauncher}
	switch {
	case st.Error != "":
		if st.ErrorCode != "" {
			r.ErrorCode = st.ErrorCode
		}
		r.ErrorMessage = st.Error
	case st.Signal != "":
		r.ErrorMessage = fmt.Sprintf("Main Class [%s], exit code [%d], killed by signal [%s]", javaMain, st.ExitCode, st.Signal)
	case st.ExitCode != 0:
		// The JVM exits with 1 when main throws; only then is its report
		// looked for at the end of stderr.
		thrown := ""
		if st.ExitCode == 1 {
			thrown = uncaughtException(errPath)
		}
		if thrown != "" {
			r.ErrorMessage = fmt.Sprintf("Main Class [%s], main() threw exception, %s", javaMain, thrown)
		} else {
			r.ErrorCode = launch.ExitCodeError(st.ExitCode)
			r.ErrorMessage = fmt.Sprintf("Main Class [%s], exit code [%d]", javaMain, st.ExitCode)
		}
	default:
		return action.Result{ExternalID: dir, ExternalStatus: "SUCCEEDED", Done: true, Status: action.OK, Data: st.Output,
			ChildIDs: launch.ReadChildIDs(dir)}
	}
	r.ErrorMessage += "; stderr: " + errPath
	r.ChildIDs = launch.ReadChildIDs(dir)
	return r
}

// stderrTailBytes is how much of the end of stderr is searched for the
// JVM's report of an uncaught exception: the stack trace comes last.
const stderrTailBytes = 1 << 20

// uncaughtException reads the end of a JVM's stderr and returns
// "class: message" when the JVM ended because main threw (the text after
// `Exception in thread "main" `, or the launcher's own "Error: Could not
// find or load main class X" / "Main method not found" reports), "" when
// the program ended otherwise.
func uncaughtException(stderrPath string) string {
	b, _, err := launch.ReadOwnTail(stderrPath, stderrTailBytes)
	if err != nil {
		return ""
	}
	lines := strings.Split(strings.TrimRight(string(bytes.ToValidUTF8(b, []byte("?"))), "\r\n"), "\n")
	const thrown = `Exception in thread "main" `
	for i := len(lines) - 1; i >= 0; i-- {
		line := strings.TrimRight(lines[i], "\r")
		switch {
		case strings.HasPrefix(line, thrown):
			// Only a stack trace may follow the JVM's report; anything else
			// means the program printed the text itself and went on.
			for _, after := range lines[i+1:] {
				if !isStackTraceLine(after) {
					return ""
				}
			}
			return strings.TrimSpace(line[len(thrown):])
		case strings.HasPrefix(line, "Error: Could not find or load main class "):
			cls := strings.TrimSpace(strings.TrimPrefix(line, "Error: Could not find or load main class "))
			return "java.lang.ClassNotFoundException: Class " + cls + " not found"
		case strings.HasPrefix(line, "Error: Main method not found in class "):
			cls, _, _ := strings.Cut(strings.TrimPrefix(line, "Error: Main method not found in class "), ",")
			return "java.lang.NoSuchMethodException: " + strings.TrimSpace(cls) + ".main([Ljava.lang.String;)"
		}
	}
	return ""
}

// isStackTraceLine reports whether a line belongs to a Java stack trace
// (frames, causes, suppressed exceptions, "... n more").
func isStackTraceLine(s string) bool {
	s = strings.TrimRight(s, "\r")
	t := strings.TrimSpace(s)
	return t == "" || s != strings.TrimLeft(s, " \t") ||
		strings.HasPrefix(t, "Caused by:") || strings.HasPrefix(t, "Suppressed:")
}
