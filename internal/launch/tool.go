package launch

import (
	"fmt"
	"io"
	"sort"
	"strings"
)

// A Tool is a program that gozie itself provides to actions, such as the
// local streaming map-reduce or the local distcp. It runs as
// `gozie launch -tool NAME ARGS...` (Options.toolCommand), started by the
// launcher like any user program, so that it is detached from the server,
// killed with its process group and recorded in status.json the same way.
// It returns the process exit status.
type Tool func(args []string, stdout, stderr io.Writer) int

// tools are the built-in tools by name; each registers itself in an init
// function of its own file.
var tools = map[string]Tool{}

// RegisterTool makes t the built-in tool name, run by `gozie launch -tool
// NAME`; the child-side package of a family calls it from an init function.
func RegisterTool(name string, t Tool) {
	if _, dup := tools[name]; dup {
		panic("action: tool " + name + " registered twice")
	}
	tools[name] = t
}

func runTool(name string, args []string, stdout, stderr io.Writer) int {
	t, ok := tools[name]
	if !ok {
		names := make([]string, 0, len(tools))
		for n := range tools {
			names = append(names, n)
		}
		sort.Strings(names)
		fmt.Fprintf(stderr, "Error: no built-in tool %q (have: %s)\n", name, strings.Join(names, ", "))
		return LauncherUsage
	}
	return t(args, stdout, stderr)
}
