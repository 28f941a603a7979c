// Package cli implements gozie's command line: flag parsing conventions
// shared by every verb (Oozie-style single-dash flags, repeatable -D) and the
// offline tools that need no server (validate, eval, version).
//
// cmd/gozie only forwards os.Args here, so every command can be tested as a
// function of its arguments and output streams.
package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gozie/gozie/internal/conf"
	"github.com/gozie/gozie/internal/fsys"
)

// Exit statuses shared by all verbs.
const (
	exitOK    = 0
	exitFail  = 1 // the command ran and found a problem (invalid file, EL error)
	exitUsage = 2 // the command line itself was wrong
)

// command is one verb of the gozie binary.
type command struct {
	name    string
	summary string
	run     func(args []string, stdout, stderr io.Writer) int
}

// commands lists the verbs in the order help prints them. It is a function
// rather than a package variable so that help can refer to the list without
// an initialization cycle.
func commands() []command {
	return []command{
		{"run", "run a workflow in-process and wait for it to end", runRun},
		{"validate", "check workflow.xml, coordinator.xml and datasets files offline (Oozie error codes, line numbers)", runValidate},
		{"dryrun", "materialize a coordinator's actions offline and show their inputs, missing data and workflow conf", runDryrun},
		{"eval", "evaluate EL text with job properties, to debug expressions", runEval},
		{"times", "compute nominal times of a frequency or cron, convert datetimes across timezones", runTimes},
		{"job", "job operations on a server: -run, -info, -kill, -log, ... (like 'oozie job')", runJob},
		{"jobs", "list jobs on a server, or kill/suspend/resume them in bulk (like 'oozie jobs')", runJobs},
		{"sla", "list SLA records on a server: -filter app_name=..;sla_status=MISS;... (GET /v2/sla)", runSLA},
		{"migrate", "move live coordinators and bundles from an Oozie server: each continues at its next nominal time (-from URL)", runMigrate},
		{"admin", "server administration: -status, -systemmode, -version, ... (like 'oozie admin')", runAdmin},
		{"server", "run the engine and the Oozie REST API (-port, -data, -db, -config gozie-site.xml)", runServer},
		{"info", "list supported timezones (-timezones)", runInfo},
		{"health", "ask a server whether it is live (or -ready): exit 0 if so, 1 if not (for probes without curl)", runHealth},
		{"launch", "run one process action in DIR (started by the engine, not by people)", runLaunch},
		{"version", "print gozie's version", runVersion},
		{"help", "show this help", runHelp},
	}
}

// Main runs the gozie command line. args excludes the program name. It
// returns the process exit status.
func Main(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return exitUsage
	}
	verb := strings.TrimLeft(args[0], "-")
	if verb == "h" {
		verb = "help"
	}
	for _, c := range commands() {
		if c.name == verb {
			defer startEnvProfile(verb, stderr)()
			return c.run(args[1:], stdout, stderr)
		}
	}
	if instead, ok := unsupportedCommands[verb]; ok {
		fmt.Fprintf(stderr, "Error: 'oozie %s' is not supported by gozie: %s\n", verb, instead)
		return exitUsage
	}
	fmt.Fprintf(stderr, "Error: unknown command %q\n\n", args[0])
	usage(stderr)
	return exitUsage
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "gozie runs Oozie workflow applications.")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Usage: gozie <command> [flags] [arguments]")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Commands:")
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-10s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Run 'gozie help <command>' or 'gozie <command> -help' for the flags of one command.")
}

// unsupportedCommands are the oozie command's sub-commands gozie does not
// have, with what to use instead: someone coming from Oozie learns at once
// that the command is missing on purpose, and what replaces it.
var unsupportedCommands = map[string]string{
	"pig":       "write a workflow with a <pig> action and run it with 'gozie run -config job.properties' or 'gozie job -run -config job.properties'",
	"hive":      "write a workflow with a <hive> action and run it with 'gozie run -config job.properties' or 'gozie job -run -config job.properties'",
	"sqoop":     "write a workflow with a <sqoop> action and run it with 'gozie run -config job.properties' or 'gozie job -run -config job.properties'",
	"mapreduce": "write a workflow with a <map-reduce> action and run it with 'gozie run -config job.properties' or 'gozie job -run -config job.properties'",
}

// runHelp is `gozie help [COMMAND]`: the command list, or one command's
// flags (what 'gozie COMMAND -help' prints).
func runHelp(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stdout)
		return exitOK
	}
	name := strings.TrimLeft(args[0], "-")
	if name == "h" {
		name = "help"
	}
	if instead, ok := unsupportedCommands[name]; ok {
		fmt.Fprintf(stdout, "'oozie %s' is not supported by gozie: %s\n", name, instead)
		return exitOK
	}
	for _, c := range commands() {
		if c.name == name && name != "help" {
			// Every command's -help goes to its own usage writer; send
			// both streams to stdout, where help was asked for.
			return c.run([]string{"-help"}, stdout, stdout)
		}
	}
	if name == "help" {
		usage(stdout)
		return exitOK
	}
	fmt.Fprintf(stderr, "Error: unknown command %q\n\n", args[0])
	usage(stderr)
	return exitUsage
}

func runVersion(args []string, stdout, stderr io.Writer) int {
	if len(args) == 1 && slices.Contains([]string{"-h", "-help", "--help"}, args[0]) {
		fmt.Fprintln(stdout, "Usage: gozie version")
		return exitOK
	}
	if len(args) > 0 {
		fmt.Fprintln(stderr, "Error: version takes no arguments")
		return exitUsage
	}
	fmt.Fprintf(stdout, "gozie %s\n", Version())
	return exitOK
}

// version is set at link time by packagers and release builds:
//
//	go build -ldflags "-X github.com/gozie/gozie/internal/cli.version=1.4.0" ./cmd/gozie
//
// A `go install ...@v1.4.0` needs no flag: the module version is in the
// build information.
var version string

// Version reports the version the binary was built with: the -X version
// of the link, else the module version it was built from, else "devel"
// for a build from a work tree, so bug reports can name what ran.
func Version() string {
	if version != "" {
		return version
	}
	info, ok := debug.ReadBuildInfo()
	if !ok || info.Main.Version == "" || info.Main.Version == "(devel)" {
		return "devel"
	}
	return info.Main.Version
}

// defines collects repeated "-D name=value" flags in order. A later -D for
// the same name wins, as it would on the Oozie command line.
type defines struct{ pairs [][2]string }

func (d *defines) String() string {
	var parts []string
	for _, p := range d.pairs {
		parts = append(parts, p[0]+"="+p[1])
	}
	return strings.Join(parts, " ")
}

func (d *defines) Set(s string) error {
	name, value, err := conf.ParseDefine(s)
	if err != nil {
		return err
	}
	d.pairs = append(d.pairs, [2]string{name, value})
	return nil
}

// splitDefines rewrites the joined form "-Dname=value" into "-D" "name=value"
// so the standard flag package, which knows only "-D value", accepts both
// spellings Oozie users type.
func splitDefines(args []string) []string {
	out := make([]string, 0, len(args))
	for i, a := range args {
		if a == "--" {
			return append(out, args[i:]...)
		}
		flagText, dashed := strings.CutPrefix(a, "--")
		if !dashed {
			flagText, dashed = strings.CutPrefix(a, "-")
		}
		if rest, ok := strings.CutPrefix(flagText, "D"); dashed && ok && rest != "" && !strings.HasPrefix(rest, "=") {
			out = append(out, "-D", rest)
			continue
		}
		out = append(out, a)
	}
	return out
}

// parseInterspersed parses flags that may appear before, between or after
// positional arguments ("gozie validate a.xml -D x=y b.xml"), which the
// standard flag package alone does not allow.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	args = splitDefines(args)
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return positional, nil
		}
		// fs.Parse stops at "--" (consumed) or at the first positional.
		consumed := len(args) - len(rest)
		if consumed > 0 && args[consumed-1] == "--" {
			return append(positional, rest...), nil
		}
		positional = append(positional, rest[0])
		args = rest[1:]
	}
}

// propertyFlags are the -config and -D flags of commands that work on a job's
// properties.
type propertyFlags struct {
	config string
	defs   defines
}

// addPropertyFlags registers -config (described by configUsage) and -D on fs.
func addPropertyFlags(fs *flag.FlagSet, configUsage string) *propertyFlags {
	p := &propertyFlags{}
	fs.StringVar(&p.config, "config", "", configUsage)
	fs.Var(&p.defs, "D", "set a property, name=value (repeatable)")
	return p
}

// load builds the property set: the -config file (a .properties or Hadoop
// .xml file) first, then each -D in order, later wins. A relative
// application path is made absolute: against the -config file's directory
// when the file set it, so that the file means the same application
// wherever gozie is started, and against the working directory when a -D
// set it.
func (p *propertyFlags) load() (*conf.Config, error) {
	c := conf.New()
	if p.config != "" {
		data, err := readLocalFile(p.config)
		if err != nil {
			return nil, err
		}
		loaded, err := conf.ParseFileBytes(data, p.config)
		if err != nil {
			return nil, err
		}
		local := strings.TrimPrefix(p.config, "file://")
		if err := resolveAppPaths(loaded, filepath.Dir(local)); err != nil {
			return nil, err
		}
		c.Merge(loaded)
	}
	for _, d := range p.defs.pairs {
		c.SetProperty(conf.Property{Name: d[0], Value: d[1], Source: "-D"})
	}
	if err := absoluteAppPaths(c); err != nil {
		return nil, err
	}
	return c, nil
}

// newFlagSet returns a flag set whose errors and help go to stderr and do not
// exit the process.
func newFlagSet(name, synopsis string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: gozie %s %s\n\nFlags:\n", name, synopsis)
		fs.PrintDefaults()
	}
	return fs
}

// flagStatus maps a flag parsing error to an exit status: asking for help is
// not a failure.
func flagStatus(err error) int {
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	return exitUsage
}

// maxLocalFile bounds the files the command line reads for itself
// (definitions to validate or dry-run, -config files, uploads): the
// server's request body bound, 16 MiB. The point is to refuse /dev/zero,
// FIFOs and other non-files at once, not to apply the server's
// definition limit, which the server checks.
const maxLocalFile = 16 << 20

// readLocalFile reads a local file (plain path or file:// URI) through
// fsys.ReadFileLimit: a regular file of at most maxLocalFile bytes.
func readLocalFile(path string) ([]byte, error) {
	return fsys.ReadFileLimit(context.Background(), path, maxLocalFile)
}

// minutes is a -timeout or -interval flag value: a bare number counts
// minutes, as the oozie command's -poll options do, and a number with a
// unit ("90s", "1h30m") is a Go duration. Every gozie command that takes
// a time span uses this type, so "-timeout 10" means ten minutes in all of
// them.
type minutes struct{ d time.Duration }

func (m *minutes) String() string {
	if m == nil {
		return ""
	}
	if m.d%time.Minute == 0 {
		return strconv.FormatInt(int64(m.d/time.Minute), 10)
	}
	return m.d.String()
}

func (m *minutes) Set(s string) error {
	s = strings.TrimSpace(s)
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		if n > int64(math.MaxInt64/time.Minute) || n < -int64(math.MaxInt64/time.Minute) {
			return fmt.Errorf("%d minutes is out of range", n)
		}
		m.d = time.Duration(n) * time.Minute
		return nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("%q is neither minutes (30) nor a duration with a unit (90s, 1h30m)", s)
	}
	m.d = d
	return nil
}

// minutesVar registers a minutes flag with default def.
func minutesVar(fs *flag.FlagSet, name string, def time.Duration, usage string) *time.Duration {
	m := &minutes{d: def}
	fs.Var(m, name, usage+"; a number is minutes, or give a unit: 90s, 2h")
	return &m.d
}
