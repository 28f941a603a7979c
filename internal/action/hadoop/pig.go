package hadoop

import (
	"context"

	"github.com/gozie/gozie/internal/action"
	"github.com/gozie/gozie/internal/launch"
)

// pigHome says where Pig is installed.
var pigHome = action.DeclareSiteKey("gozie.pig.home", "", "Pig installation (the directory holding bin/pig) for pig actions; empty: pig on PATH")

func init() {
	launch.Register("pig", func(l *launch.Runtime) action.Executor {
		return launch.NewProcess(l, toolProgram{l: l, classPathEnv: []string{"HADOOP_CLASSPATH", "PIG_CLASSPATH"}, tool: "pig", exe: "pig", homeKey: pigHome, mainClass: pigMain, args: pigArgs})
	})
}

// pigPropertiesFile holds the action configuration for Pig, as Oozie's
// PigMain writes it.
const pigPropertiesFile = "pig.properties"

// pigArgs builds the pig command line of a pig action (workflow schema,
// section 3.2.3): the action configuration as a properties file, the
// script, each <param> as -param, each <argument> as is. Pig runs in local
// mode (-x local) when the action's file system is the local one, unless
// an <argument> chooses the mode.
func pigArgs(dir, appDir string, a *action.Context) ([]string, error) {
	script, err := stageScript(launch.FilesContext(context.Background(), a), dir, appDir, a.Element.ChildText("script"))
	if err != nil {
		return nil, err
	}
	props, err := writeProperties(dir, pigPropertiesFile, a.Conf)
	if err != nil {
		return nil, err
	}
	userArgs := childTexts(a, "argument")
	// The options PigMain refuses: it sets them itself.
	if err := refuseArgs("Pig", userArgs, "-4", "-log4jconf", "-e", "-execute", "-f", "-file", "-l", "-logfile", "-r", "-dryrun", "-P", "-propertyFile"); err != nil {
		return nil, err
	}
	var args []string
	if localFS(a) && !hasAny(userArgs, "-x", "-exectype") {
		args = append(args, "-x", "local")
	}
	args = append(args, "-propertyFile", props, "-file", script)
	for _, p := range childTexts(a, "param") {
		args = append(args, "-param", p)
	}
	return append(args, userArgs...), nil
}

// hasAny reports whether args holds one of the options.
func hasAny(args []string, opts ...string) bool {
	for _, a := range args {
		for _, o := range opts {
			if a == o {
				return true
			}
		}
	}
	return false
}
