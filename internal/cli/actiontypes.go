package cli

import (
	"fmt"
	"sort"
	"strings"

	_ "github.com/gozie/gozie/internal/action/all"
	_ "github.com/gozie/gozie/internal/fsys/all" // validate, dryrun and the tools reach every store
	"github.com/gozie/gozie/internal/launch"
	"github.com/gozie/gozie/internal/workflow"
)

// runnableActionTypes are the action types this build runs: the
// executors of the action package and sub-workflow, which the engine
// provides itself.
func runnableActionTypes() []string {
	types := append(launch.BuiltinTypes(), "sub-workflow")
	sort.Strings(types)
	return types
}

// unrunnableActions returns one warning per action node of app whose type
// the schema accepts but this build does not run (custom names the custom
// types configured, which run too): such a workflow validates, but a
// server refuses it at submission with E0723.
func unrunnableActions(app *workflow.App, custom map[string]string) []string {
	runs := map[string]bool{}
	for _, t := range runnableActionTypes() {
		runs[t] = true
	}
	for t := range custom {
		runs[t] = true
	}
	var out []string
	for _, n := range app.Nodes {
		if n.Kind != workflow.ActionNode || n.Action == nil || runs[n.Action.Type] {
			continue
		}
		out = append(out, fmt.Sprintf("node [%s] type [%s]: this build of gozie does not run %s actions; a server refuses the workflow with %s (it runs: %s)",
			n.Name, n.Action.Type, n.Action.Type, workflow.CodeUnsupportedAction, strings.Join(runnableActionTypes(), ", ")))
	}
	return out
}
