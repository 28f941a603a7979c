package hadoop

import (
	"context"
	"os/user"
	"strings"

	"github.com/gozie/gozie/internal/action"
	"github.com/gozie/gozie/internal/launch"
)

// Where Hive's command line tools are installed: hive for the hive
// action, beeline for hive2. Two keys, because hosts that only talk to a
// HiveServer2 often have a stand-alone Beeline and no Hive.
var (
	hiveHome    = action.DeclareSiteKey("gozie.hive.home", "", "Hive installation (the directory holding bin/hive) for hive actions; empty: hive on PATH")
	beelineHome = action.DeclareSiteKey("gozie.beeline.home", "", "Beeline installation (the directory holding bin/beeline; a Hive installation has one) for hive2 actions; empty: beeline on PATH")
)

func init() {
	launch.Register("hive", func(l *launch.Runtime) action.Executor {
		return launch.NewProcess(l, toolProgram{l: l, tool: "hive", exe: "hive", classPathEnv: []string{"HADOOP_CLASSPATH"}, homeKey: hiveHome, mainClass: hiveMain, args: hiveArgs})
	})
	launch.Register("hive2", func(l *launch.Runtime) action.Executor {
		return launch.NewProcess(l, toolProgram{l: l, tool: "hive2", exe: "beeline", homeKey: beelineHome, mainClass: hive2Main, args: hive2Args})
	})
}

// Names of the files an inline <query> is written to.
const (
	hiveQueryFile  = "oozie-hive-query.hql"
	hive2QueryFile = "oozie-hive2-query.hql"
)

// hiveDriver is the JDBC driver Oozie's Hive2Main always names.
const hiveDriver = "org.apache.hive.jdbc.HiveDriver"

// hiveScript returns the file that holds the action's HiveQL: the staged
// <script>, or the inline <query> (hive 0.6+, hive2) written to queryFile.
func hiveScript(dir, appDir, queryFile string, a *action.Context) (string, error) {
	if s := a.Element.ChildText("script"); s != "" {
		return stageScript(launch.FilesContext(context.Background(), a), dir, appDir, s)
	}
	if q := a.Element.Child("query"); q != nil {
		return writeQueryFile(dir, queryFile, q.TrimText())
	}
	return "", action.Errorf(action.ErrorKindError, launch.CodeSchema, "%s action without <script> or <query>", a.Type)
}

// hiveArgs builds the hive command line as Oozie's HiveMain does: the
// action configuration (which HiveMain writes to hive-site.xml) as
// --hiveconf NAME=VALUE, the script or query file with -f, each <param>
// as --hivevar, each <argument> as is.
func hiveArgs(dir, appDir string, a *action.Context) ([]string, error) {
	script, err := hiveScript(dir, appDir, hiveQueryFile, a)
	if err != nil {
		return nil, err
	}
	params := childTexts(a, "param")
	if err := checkParams(params); err != nil {
		return nil, err
	}
	userArgs := childTexts(a, "argument")
	if err := refuseArgs("Hive", userArgs, "-d", "--define", "-e", "-f", "-H", "--help", "--hiveconf", "--hivevar", "-s", "--silent", "-D"); err != nil {
		return nil, err
	}
	var args []string
	for _, kv := range confProps(a.Conf) {
		args = append(args, "--hiveconf", kv)
	}
	args = append(args, "-f", script)
	for _, p := range params {
		args = append(args, "--hivevar", p)
	}
	return append(args, userArgs...), nil
}

// hive2Args builds the beeline command line as Oozie's Hive2Main does:
// -u <jdbc-url> -n <user> -p <password> -d <driver> -f <script>, each
// <param> as --hivevar, each <argument>, and the oozie.* configuration
// properties as --hiveconf. The user is the job's; without <password>
// beeline gets Oozie's placeholder DUMMY, so that it never prompts.
// Hive2Main's "-a delegationToken" is left out: gozie runs beeline with
// the server user's own credentials, not in a launcher job holding a
// HiveServer2 delegation token.
func hive2Args(dir, appDir string, a *action.Context) ([]string, error) {
	url := a.Element.ChildText("jdbc-url")
	if url == "" {
		return nil, action.Errorf(action.ErrorKindError, launch.CodeSchema, "hive2 action without <jdbc-url>")
	}
	script, err := hiveScript(dir, appDir, hive2QueryFile, a)
	if err != nil {
		return nil, err
	}
	params := childTexts(a, "param")
	if err := checkParams(params); err != nil {
		return nil, err
	}
	userArgs := childTexts(a, "argument")
	if err := refuseArgs("Beeline", userArgs, "-u", "-n", "-p", "-d", "-e", "-f", "-a", "--help"); err != nil {
		return nil, err
	}
	password := "DUMMY"
	if p := a.Element.Child("password"); p != nil {
		password = p.TrimText()
	}
	name := a.User
	if name == "" {
		if u, err := user.Current(); err == nil {
			name = u.Username
		}
	}
	url = kerberosURL(url, a)
	args := []string{"-u", url, "-n", name, "-p", password, "-d", hiveDriver, "-f", script}
	for _, p := range params {
		args = append(args, "--hivevar", p)
	}
	args = append(args, userArgs...)
	for _, kv := range oozieProps(a.Conf, "oozie.launcher", "oozie.hive2") {
		args = append(args, "--hiveconf", kv)
	}
	return args, nil
}

// hive2PrincipalKey is what a hive2 credential hands the action
// (credentials.Hive2Principal): HiveServer2's Kerberos principal.
const hive2PrincipalKey = "hive2.server.principal"

// kerberosURL adds to beeline's JDBC URL what a hive2 credential handed
// the action, as Oozie's Hive2Credentials connects: ;principal= the
// server's principal, and ;hive.server2.proxy.user= the job's user, so
// that the step's Kerberos ticket (the server's, gozie.launch.kerberos)
// opens a session for the user. Settings the URL has already are kept.
func kerberosURL(url string, a *action.Context) string {
	if a.Conf == nil {
		return url
	}
	p, ok := a.Conf.Get(hive2PrincipalKey)
	if p = strings.TrimSpace(p); !ok || p == "" {
		return url
	}
	if !strings.Contains(url, ";principal=") {
		url += ";principal=" + p
	}
	if a.User != "" && !strings.Contains(url, "hive.server2.proxy.user=") {
		url += ";hive.server2.proxy.user=" + a.User
	}
	return url
}
