// Package distcp is the distcp action: a copy over local file systems run
// by the built-in tool of package distcptool, anything else by Hadoop's
// DistCp.
package distcp

import (
	"context"
	"encoding/json"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/gozie/gozie/internal/action"
	"github.com/gozie/gozie/internal/action/distcp/distcptool"
	"github.com/gozie/gozie/internal/launch"

	"github.com/gozie/gozie/internal/fsys"
)

// The distcp action (extension namespace uri:oozie:distcp-action:0.1 to
// 1.0): <prepare>, <configuration>, <java-opts> and <arg>s that are the
// DistCp command line (options, then sources, then the target).
//
// When every source and the target are local (file:// URIs, or plain
// paths with no name-node or a file:// one), gozie copies them itself
// with its built-in tool (runDistcpTool: `gozie launch -tool distcp`),
// following DistCp's rules. Anything else goes to `hadoop distcp`, found
// with gozie.hadoop.home or on PATH (JA008 when missing), with the action
// configuration as -D options and <java-opts> in HADOOP_CLIENT_OPTS.

// distcpMain is the main class Oozie's launcher runs for the action; its
// messages name it.
const distcpMain = "org.apache.oozie.action.hadoop.DistcpMain"

// DistcpCounterGroup is the counter group DistCp's copy tasks report
// (Hadoop's CopyMapper.Counter enum, named by its class), so that
// ${hadoop:counters('node')['org.apache.hadoop.tools.mapred.CopyMapper$Counter']['COPY']}
// reads the same in gozie as in Oozie.
const DistcpCounterGroup = "org.apache.hadoop.tools.mapred.CopyMapper$Counter"

// distcpCountersFile, in the action's working directory, holds what the
// local copy did (distcpReport); result reads it.
const distcpCountersFile = "distcp-counters.json"

func init() {
	launch.Register("distcp", func(l *launch.Runtime) action.Executor { return launch.NewProcess(l, distcpProgram{l.Opts}) })
}

// distcpProgram builds the launch of one distcp action.
type distcpProgram struct{ opts launch.Options }

// NewDistcp returns the executor of the distcp action on launchers of its
// own (tests; RegisterBuiltins shares one set among all action types).
func NewDistcp(opts launch.Options) action.Executor {
	return launch.NewProcess(launch.NewRuntime(opts), distcpProgram{opts})
}

func (p distcpProgram) Build(dir string, a *action.Context) (*launch.LaunchSpec, error) {
	body := a.Element
	if err := launch.RunPrepare(launch.FilesContext(context.Background(), a), body); err != nil {
		return nil, err
	}
	confPath, err := launch.WriteActionConf(dir, a.Conf)
	if err != nil {
		return nil, err
	}
	var args []string
	for _, arg := range body.ChildrenNamed("arg") {
		args = append(args, arg.TrimText())
	}
	nn := strings.TrimSpace(body.ChildText("name-node"))
	spec := &launch.LaunchSpec{MaxOutput: p.opts.MaxOutput, Env: []string{launch.ConfEnvVar + "=" + confPath}}
	// gozie copies itself when every path is local (the full local
	// tool); other copies go to hadoop distcp when one is configured, else
	// gozie copies between the stores itself when it serves every path's
	// scheme and the copy needs no cluster.
	hadoop, herr := p.opts.FindTool("hadoop", launch.HadoopHome)
	if distcpIsLocal(args, nn, dir) || herr != nil && distcpNative(args, nn) {
		exec, argv, err := p.opts.ToolCommand("distcp", append([]string{
			"-gozie-counters", filepath.Join(dir, distcpCountersFile), "-gozie-default-fs", nn, "--"}, args...)...)
		if err != nil {
			return nil, err
		}
		spec.Exec, spec.Args = exec, argv
		return spec, nil
	}
	if herr != nil {
		return nil, herr
	}
	spec.Exec = hadoop
	spec.Args = append([]string{"distcp"}, distcpDefines(a, nn)...)
	spec.Args = append(spec.Args, args...)
	if opts := strings.TrimSpace(body.ChildText("java-opts")); opts != "" {
		spec.Env = append(spec.Env, "HADOOP_CLIENT_OPTS="+opts)
	}
	return spec, nil
}

// distcpDefines turns the action configuration into generic -D options,
// sorted; the name-node becomes fs.defaultFS unless the configuration
// says otherwise, as Oozie's launcher does.
func distcpDefines(a *action.Context, nn string) []string {
	props := map[string]string{}
	if a.Conf != nil {
		props = a.Conf.ExpandedMap()
	}
	if _, ok := props["fs.defaultFS"]; !ok && nn != "" {
		props["fs.defaultFS"] = nn
	}
	keys := make([]string, 0, len(props))
	for k := range props {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]string, 0, len(keys))
	for _, k := range keys {
		out = append(out, "-D"+k+"="+props[k])
	}
	return out
}

// distcpIsLocal reports whether the copy stays on the local file system:
// every source (also those listed by -f) and the target. Arguments that do
// not parse are left to the local tool when none names another file
// system, so that its error message explains them.
func distcpIsLocal(args []string, nn, dir string) bool {
	o, err := distcptool.ParseDistcpArgs(args)
	if err != nil {
		for _, a := range args {
			if s := fsys.Scheme(a); s != "" && s != "file" {
				return false
			}
		}
		return true
	}
	if o.DefaultFS != "" {
		nn = o.DefaultFS
	}
	paths := append(append([]string{}, o.Sources...), o.Target)
	if o.SourceList != "" {
		paths = append(paths, o.SourceList)
		if distcptool.IsLocalPath(o.SourceList, nn) {
			l, err := distcptool.ResolveLocal(o.SourceList, dir)
			if err != nil {
				return false
			}
			listed, err := distcptool.ReadSourceList(l)
			if err != nil {
				return true // the tool reports it
			}
			paths = append(paths, listed...)
		}
	}
	for _, p := range paths {
		if !distcptool.IsLocalPath(p, nn) {
			return false
		}
	}
	return true
}

func (distcpProgram) Result(dir string, _ *action.Context, st launch.LaunchStatus) action.Result {
	r := launch.DefaultResult(dir, st, distcpMain)
	b, err := launch.ReadJobRecord(filepath.Join(dir, distcpCountersFile))
	if err != nil {
		// hadoop distcp: the MapReduce job ids it printed are the
		// action's external children.
		r.ChildIDs = hadoopJobIDs(filepath.Join(dir, launch.StderrFile), filepath.Join(dir, launch.StdoutFile))
		if r.Status != action.OK {
			r.ErrorMessage += ": " + lastLine(filepath.Join(dir, launch.StderrFile))
		}
		return r
	}
	var rep distcptool.DistcpReport
	if json.Unmarshal(b, &rep) == nil {
		r.Stats = map[string]map[string]int64{DistcpCounterGroup: rep.Counters}
		if r.Status != action.OK && rep.Error != "" {
			r.ErrorMessage += ": " + rep.Error
		}
	}
	return r
}

var hadoopJobID = regexp.MustCompile(`\b(job_[0-9]+_[0-9]+)\b`)

// hadoopJobIDs picks the distinct MapReduce job ids out of a tool's
// output files, in order of appearance.
func hadoopJobIDs(files ...string) []string {
	return launch.ScanIDs(files, []*regexp.Regexp{hadoopJobID})
}

// lastLine returns the last non-empty line of a file, for error messages.
func lastLine(path string) string {
	b, _, _ := launch.ReadOwnTail(path, 4096)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	s := strings.TrimSpace(lines[len(lines)-1])
	if len(s) > 500 {
		s = s[:500] + "..."
	}
	if s == "" {
		return "(no output)"
	}
	return s
}

// distcpNative reports whether gozie's own copy between stores can run
// args: they parse, and use none of the options that need local paths
// (-f, -filters, -delete, -p) or a cluster.
func distcpNative(args []string, nn string) bool {
	o, err := distcptool.ParseDistcpArgs(args)
	if err != nil || !distcptool.StoreCopyable(o) {
		return false
	}
	for _, p := range append(append([]string{}, o.Sources...), o.Target) {
		if _, err := fsys.Default().Resolve(context.Background(), distcptool.Qualify(p, nn)); err != nil {
			return false
		}
	}
	return true
}
