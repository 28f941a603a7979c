package hadoop

import (
	"strings"

	"github.com/gozie/gozie/internal/action"
	"github.com/gozie/gozie/internal/launch"
)

// sqoopHome says where Sqoop is installed.
var sqoopHome = action.DeclareSiteKey("gozie.sqoop.home", "", "Sqoop installation (the directory holding bin/sqoop) for sqoop actions; empty: sqoop on PATH")

func init() {
	launch.Register("sqoop", func(l *launch.Runtime) action.Executor {
		return launch.NewProcess(l, toolProgram{l: l, classPathEnv: []string{"HADOOP_CLASSPATH"}, tool: "sqoop", exe: "sqoop", homeKey: sqoopHome, mainClass: sqoopMain, args: sqoopArgs})
	})
}

// sqoopArgs builds the sqoop command line from exactly one of <command>
// and <arg>s (the sqoop schemas' choice). A <command> is split at spaces
// only, with no quoting, as Oozie's SqoopActionExecutor splits it (a
// java.util.StringTokenizer on " "): a value with spaces needs <arg>s.
// The action configuration, which SqoopMain hands to Sqoop as
// sqoop-site.xml, goes on the command line as Hadoop generic options
// (-D NAME=VALUE), which Sqoop accepts right after the tool name.
func sqoopArgs(_, _ string, a *action.Context) ([]string, error) {
	cmd := a.Element.Child("command")
	argElems := a.Element.ChildrenNamed("arg")
	var words []string
	switch {
	case cmd != nil && len(argElems) > 0:
		return nil, action.Errorf(action.ErrorKindError, launch.CodeSchema, "sqoop action has both <command> and <arg>: the schema allows one or the other")
	case cmd != nil:
		for _, w := range strings.Split(cmd.TrimText(), " ") {
			if w != "" {
				words = append(words, w)
			}
		}
	case len(argElems) > 0:
		for _, e := range argElems {
			words = append(words, e.TrimText())
		}
	default:
		return nil, action.Errorf(action.ErrorKindError, launch.CodeSchema, "sqoop action has neither <command> nor <arg>: the schema needs one or the other")
	}
	if len(words) == 0 {
		return nil, action.Errorf(action.ErrorKindError, launch.CodeSchema, "sqoop action with an empty <command>")
	}
	args := []string{words[0]}
	for _, kv := range confProps(a.Conf) {
		args = append(args, "-D", kv)
	}
	return append(args, words[1:]...), nil
}
