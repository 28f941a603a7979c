package cli

import (
	"fmt"
	"io"
	"time"

	"github.com/gozie/gozie/internal/conf"
	"github.com/gozie/gozie/internal/el"
	"github.com/gozie/gozie/internal/workflow"
)

func runEval(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("eval", "[-config job.properties] [-D name=value]... 'TEXT'", stderr)
	pf := addPropertyFlags(fs, "job properties (.properties or .xml) to use as EL variables")
	texts, err := parseInterspersed(fs, args)
	if err != nil {
		return flagStatus(err)
	}
	if len(texts) != 1 {
		fmt.Fprintln(stderr, "Error: exactly one EL text must be given (quote it for the shell)")
		fs.Usage()
		return exitUsage
	}
	props, err := pf.load()
	if err != nil {
		fmt.Fprintf(stderr, "Error: %v\n", err)
		return exitUsage
	}
	ev := &el.Evaluator{
		Funcs:   workflow.Functions(),
		Vars:    workflow.Variables(props),
		Context: evalContext(props),
		Now:     time.Now,
	}
	out, err := ev.EvalString(texts[0])
	if err != nil {
		fmt.Fprintf(stderr, "Error: %v\n", err)
		return exitFail
	}
	fmt.Fprintln(stdout, out)
	return exitOK
}

// evalContext is the workflow job gozie eval pretends to run in: only the
// properties are known, so wf:conf reads them, wf:user and wf:appPath read
// user.name and oozie.wf.application.path, and everything else is empty.
func evalContext(props *conf.Config) *workflow.ELContext {
	user, _ := props.Get("user.name")
	appPath, _ := props.Get("oozie.wf.application.path")
	return &workflow.ELContext{User: user, AppPath: appPath, Conf: props.Get}
}
