package engine

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/gozie/gozie/internal/conf"
	"github.com/gozie/gozie/internal/coord"
	"github.com/gozie/gozie/internal/fsys"
	"github.com/gozie/gozie/internal/workflow"
)

// workflowRunWarnings lists what a workflow will fail on at run time with
// the job configuration props: the variables its definition reads that
// neither props, the config-default.xml beside it (in dir) nor its
// <parameters> define (EL_ERROR when the node runs), and required
// parameters without a value (E0738 at submission). A submission checks
// none of this: Oozie resolves EL when a node runs. source names, for a
// workflow a coordinator launches, where its configuration comes from;
// "" for a workflow validated by itself.
func workflowRunWarnings(ctx context.Context, data []byte, app *workflow.App, dir string, props *conf.Config, source string) []string {
	var out []string
	at := ""
	if source != "" {
		at = "workflow " + childOf(dir, "workflow.xml", fsys.Scheme(dir) == "") + ": "
	}
	defaults := childOf(dir, "config-default.xml", fsys.Scheme(dir) == "")
	switch data, err := fsys.ReadFileLimit(ctx, defaults, fsys.DefaultMaxConfFile); {
	case err == nil:
		dc, err := conf.ParseFileBytes(data, defaults)
		if err != nil {
			return append(out, fmt.Sprintf("%s%v: its variables were not checked", at, err))
		}
		props.MergeDefaults(dc)
	case !errors.Is(err, fs.ErrNotExist):
		return append(out, fmt.Sprintf("%s%s could not be read (%v): its variables were not checked", at, defaults, err))
	}
	for _, p := range app.Parameters {
		switch {
		case props.Has(p.Name):
		case p.HasValue:
			props.Set(p.Name, p.Value)
		default:
			out = append(out, fmt.Sprintf("%sparameter [%s] is required and not defined by %s: the submission will be refused with E0738",
				at, p.Name, definedBy(source)))
			props.Set(p.Name, "") // reported once, not again as a variable
		}
	}
	refs, err := workflow.ReferencedVariables(data)
	if err != nil {
		return out
	}
	vars := workflow.Variables(props)
	consts := Functions()
	for _, r := range refs {
		if _, ok := vars[r.Name]; ok || consts.IsConst(r.Name) {
			continue
		}
		out = append(out, fmt.Sprintf("%svariable [%s] (line %d) is not defined by %s, the workflow's config-default.xml or its <parameters>: the job will fail with EL_ERROR when it evaluates it",
			at, r.Name, r.Line, definedBy(source)))
	}
	return out
}

// definedBy names where a workflow's configuration comes from.
func definedBy(source string) string {
	if source == "" {
		return "the job properties"
	}
	return source
}

// launchedWorkflowWarnings checks the workflow a coordinator's actions
// launch (the first action's): the variables it reads that the workflow
// configuration the action submits (coord.App.RunConf) and the
// workflow's own defaults do not define. A workflow that cannot be read or parsed here is said in
// a warning; validate it on its own for its errors.
func launchedWorkflowWarnings(a *coord.App, job *conf.Config, o ValidateOptions, max int64) []string {
	rc, err := a.SampleRunConf(job)
	if err != nil {
		return []string{fmt.Sprintf("the workflow the actions launch was not checked: %v", err)}
	}
	appPath, _ := rc.Get(coord.PropWfAppPath)
	ctx := fsys.WithConf(context.Background(), job)
	dir, def, _, err := locateApp(ctx, strings.TrimSpace(appPath))
	if err != nil {
		return []string{fmt.Sprintf("the workflow the actions launch (%s) was not checked: %v", appPath, err)}
	}
	if max <= 0 {
		max = 1 << 40
	}
	data, err := fsys.ReadFileLimit(ctx, def, max)
	if err != nil {
		return []string{fmt.Sprintf("the workflow the actions launch (%s) was not checked: %v", def, readFailure(err))}
	}
	app, err := workflow.Parse(data, o.Workflow)
	if err != nil {
		return []string{fmt.Sprintf("the workflow the actions launch (%s) is not valid: %v", def, err)}
	}
	return workflowRunWarnings(ctx, data, app, dir, rc, "the workflow configuration the coordinator's actions submit")
}
