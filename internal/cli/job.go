package cli

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/gozie/gozie/internal/client"
	"github.com/gozie/gozie/internal/conf"
	"github.com/gozie/gozie/internal/vocab"
)

// jobActions are the options of which `gozie job` needs exactly one, in the
// order the usage lists them. The boolean ones take no job id.
var jobActions = []string{"submit", "run", "dryrun", "start", "suspend", "resume", "kill", "change", "rerun",
	"info", "log", "errorlog", "auditlog", "definition", "configcontent", "graph", "ignore", "poll", "retries",
	"update", "missingdeps", "slaenable", "sladisable", "slachange"}

// jobActionUsage describes the operations that take a job id.
var jobActionUsage = map[string]string{
	"start":         "start a submitted (PREP) job",
	"suspend":       "suspend a job",
	"resume":        "resume a suspended job",
	"kill":          "kill a job (a coordinator's actions with -action or -date)",
	"change":        "change a coordinator or bundle: -value endtime=..;concurrency=..;pausetime=..",
	"rerun":         "rerun a job (workflow: -config/-D; coordinator: -action or -date; bundle: -coordinator, -date)",
	"info":          "show a job, a coordinator action (ID@N) or a workflow action (ID@node)",
	"log":           "show a job's log (-logfilter; coordinators: -action, -date); of a workflow action (ID@node): its log lines, then its stdout and stderr (-stream for one of them)",
	"errorlog":      "show a job's WARN and ERROR log lines",
	"auditlog":      "show a job's audit log",
	"definition":    "show a job's application XML",
	"configcontent": "show a job's configuration",
	"graph":         "render a workflow job's graph to stdout (-format, -showkill)",
	"ignore":        "ignore a coordinator, or the actions -action names",
	"poll":          "wait for a job to end (-interval, -timeout; -verbose prints each status)",
	"retries":       "show the attempts of a workflow action (ID@node)",
	"update":        "update a coordinator's definition and configuration (-config, -dryrun, -diff)",
	"missingdeps":   "show what coordinator actions wait for (-action, -date)",
	"slaenable":     "enable the SLA alerts of a job (-action, -date of a coordinator; -coordinator of a bundle)",
	"sladisable":    "disable the SLA alerts of a job (-action, -date of a coordinator; -coordinator of a bundle)",
	"slachange":     "change SLA expectations: -value sla-nominal-time=..;sla-should-start=..;sla-should-end=..;sla-max-duration=..",
}

// jobUsage prints `gozie job -help`: the operations, of which a command
// takes exactly one, apart from the options that qualify them.
func jobUsage(fs *flag.FlagSet, w io.Writer) {
	fmt.Fprintln(w, "Usage: gozie job OPERATION [OPTIONS]")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Operations (exactly one):")
	for _, name := range jobActions {
		fl := fs.Lookup(name)
		arg := " ID"
		if name == "submit" || name == "run" || name == "dryrun" {
			arg = ""
		}
		fmt.Fprintf(w, "  %-22s %s\n", "-"+name+arg, fl.Usage)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Options:")
	fs.VisitAll(func(fl *flag.Flag) {
		if slices.Contains(jobActions, fl.Name) {
			return
		}
		arg, usage := flag.UnquoteUsage(fl)
		if arg != "" {
			arg = " " + arg
		}
		if fl.DefValue != "" && fl.DefValue != "false" && fl.DefValue != "0" {
			usage += " (default " + fl.DefValue + ")"
		}
		fmt.Fprintf(w, "  %-22s %s\n", "-"+fl.Name+arg, usage)
	})
}

// unsupportedFlags are options of the oozie command gozie does not have,
// with what to use instead.
var unsupportedFlags = map[string]string{
	"runjar":      "the Java Fluent Job API is Java-only; write workflow.xml and use -run -config job.properties",
	"submitjar":   "the Java Fluent Job API is Java-only; write workflow.xml and use -submit -config job.properties",
	"validatejar": "the Java Fluent Job API is Java-only; write workflow.xml and use 'gozie validate workflow.xml'",
}

// refuseUnsupported reports an oozie option gozie does not have in words
// instead of the flag package's "flag provided but not defined".
func refuseUnsupported(args []string, stderr io.Writer) (int, bool) {
	for _, a := range args {
		name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !strings.HasPrefix(a, "-") {
			continue
		}
		if instead, ok := unsupportedFlags[name]; ok {
			fmt.Fprintf(stderr, "Error: -%s is not supported by gozie: %s\n", name, instead)
			return exitRemote, true
		}
	}
	return 0, false
}

// jobFlags are the parsed options of `gozie job`.
type jobFlags struct {
	*remoteFlags
	props                                     *propertyFlags
	ids                                       map[string]*string
	submit, run, dryrun                       bool
	value, action, date, coordinator, filter  string
	order, logfilter, format, diff, stream    string
	layout                                    string
	refresh, nocleanup, failed, allruns, kill bool
	offset, length                            int
	interval, timeout                         *time.Duration
	set                                       map[string]bool
}

// runJob is `gozie job`: the oozie command's job operations against a
// server (cli.md §2).
func runJob(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("job", "-run|-submit|-dryrun|-info ID|-kill ID|... [-oozie URL] [-config FILE] [-D k=v]...", stdout)
	f := &jobFlags{remoteFlags: addRemoteFlags(fs, true), ids: map[string]*string{}}
	f.props = addPropertyFlags(fs, "job configuration (.properties or .xml)")
	fs.BoolVar(&f.submit, "submit", false, "submit a job (PREP)")
	fs.BoolVar(&f.run, "run", false, "submit and start a job")
	fs.BoolVar(&f.dryrun, "dryrun", false, "check a job's definition and configuration without creating it")
	for _, name := range jobActions[3:] {
		f.ids[name] = fs.String(name, "", jobActionUsage[name])
	}
	fs.StringVar(&f.value, "value", "", "new values for -change (k=v;...)")
	fs.StringVar(&f.action, "action", "", "coordinator action numbers (1,3-4) for -kill, -rerun, -log, -ignore")
	fs.StringVar(&f.date, "date", "", "coordinator nominal dates (a::b,c) for -kill, -rerun, -log")
	fs.StringVar(&f.coordinator, "coordinator", "", "bundle coordinators (names or ids) for -rerun")
	fs.BoolVar(&f.refresh, "refresh", false, "rerun: re-resolve input dependencies")
	fs.BoolVar(&f.nocleanup, "nocleanup", false, "rerun: do not delete the output events")
	fs.BoolVar(&f.failed, "failed", false, "coordinator rerun: rerun failed workflows of the actions")
	fs.IntVar(&f.offset, "offset", 0, "-info: first action (1-based)")
	fs.IntVar(&f.length, "len", 0, "-info: number of actions")
	fs.StringVar(&f.filter, "filter", "", "-info of a coordinator: status=...;nominaltime>=...")
	fs.StringVar(&f.order, "order", "", "-info of a coordinator: asc or desc")
	fs.BoolVar(&f.allruns, "allruns", false, "-info of a coordinator action: every workflow run")
	fs.StringVar(&f.logfilter, "logfilter", "", "-log: recent=..;start=..;end=..;loglevel=..;text=..;limit=..")
	fs.StringVar(&f.stream, "stream", "", "-log of a workflow action (ID@node): print only its stdout or its stderr, as written")
	fs.StringVar(&f.format, "format", "svg", "-graph: svg, png or dot")
	fs.BoolVar(&f.kill, "showkill", false, "-graph: include kill nodes")
	fs.StringVar(&f.layout, "layout", "", "-graph: down (one column), wrap (columns side by side) or auto; gozie's, a server's default when unset")
	fs.StringVar(&f.diff, "diff", "", "-update: report the definition changes (true or false)")
	f.interval = minutesVar(fs, "interval", 5*time.Minute, "-poll: time between polls")
	f.timeout = minutesVar(fs, "timeout", 30*time.Minute, "-poll: time before giving up (0 or less: never)")
	fs.Usage = func() { jobUsage(fs, stdout) }
	rest, code, done := parseRemote(fs, args, stdout, stderr)
	if done {
		return code
	}
	if len(rest) > 0 {
		return invalidSubCommand(stderr, fmt.Sprintf("unexpected argument [%s]", rest[0]))
	}
	f.set = map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { f.set[fl.Name] = true })
	var chosen []string
	bools := map[string]bool{"submit": f.submit, "run": f.run, "dryrun": f.dryrun}
	for _, name := range jobActions {
		if on, isBool := bools[name]; f.set[name] && (on || !isBool) {
			chosen = append(chosen, name)
		}
	}
	byPosition(chosen, args)
	if len(chosen) == 2 && slices.Contains(chosen, "update") && slices.Contains(chosen, "dryrun") {
		chosen = []string{"update"} // -dryrun is -update's option here
	}
	switch len(chosen) {
	case 0:
		return invalidSubCommand(stderr, "Missing required option: one of -"+strings.Join(jobActions, ", -"))
	case 1:
	default:
		return invalidSubCommand(stderr, fmt.Sprintf("The option '%s' was specified but an option from this group has already been selected: '%s'", chosen[1], chosen[0]))
	}
	c, err := f.client(stderr)
	if err != nil {
		return fail(stderr, err)
	}
	j := &jobCmd{f: f, c: c, ctx: context.Background(), out: stdout, d: f.dates()}
	var id string
	if p := f.ids[chosen[0]]; p != nil {
		if id = strings.TrimSpace(*p); id == "" {
			return invalidSubCommand(stderr, "Missing argument for option: "+chosen[0])
		}
	}
	if err := j.do(chosen[0], id); err != nil {
		return fail(stderr, err)
	}
	return exitOK
}

// jobCmd runs one job operation.
type jobCmd struct {
	f   *jobFlags
	c   *client.Client
	ctx context.Context
	out io.Writer
	d   dates
}

// userError is a command-line mistake found after parsing; it prints as
// "Error: <text>" like the oozie command's OozieCLIException.
type userError string

// Error returns the text as the user should see it after "Error: ".
func (e userError) Error() string { return string(e) }

// submitAttempts is how many times -run and -submit send a workflow
// submission whose answer did not arrive (the job may or may not exist).
const submitAttempts = 4

// withExternalID gives a workflow submission without an
// oozie.wf.external.id a random one, unique to this invocation, so the
// submission can be sent again when its answer is lost: the server answers
// a repeat with the job the first one created. It returns how many times
// the submission may be sent: once for coordinators and bundles, which
// gozie does not de-duplicate.
func withExternalID(cf *conf.Config) int {
	if v, _ := cf.Get("oozie.wf.application.path"); strings.TrimSpace(v) == "" {
		return 1
	}
	for _, k := range []string{"oozie.coord.application.path", "oozie.bundle.application.path"} {
		if v, _ := cf.Get(k); strings.TrimSpace(v) != "" {
			return 1
		}
	}
	if v, _ := cf.Get(client.PropExternalID); strings.TrimSpace(v) == "" {
		var b [12]byte
		if _, err := rand.Read(b[:]); err != nil {
			return 1
		}
		cf.Set(client.PropExternalID, "gozie-cli-"+hex.EncodeToString(b[:]))
	}
	return submitAttempts
}

func (j *jobCmd) do(op, id string) error {
	f, c, ctx := j.f, j.c, j.ctx
	switch op {
	case "submit", "run", "dryrun":
		cf, err := j.jobConf(false)
		if err != nil {
			return err
		}
		if op == "dryrun" {
			text, raw, err := c.Dryrun(ctx, cf)
			return j.emit(raw, err, func() { printDryrun(j.out, text) })
		}
		jobID, raw, err := c.SubmitRetrying(ctx, cf, op == "run", withExternalID(cf))
		return j.emit(raw, j.explainUserRefusal(err, cf), func() { fmt.Fprintf(j.out, "job: %s\n", nullText(jobID)) })
	case "start":
		return c.Start(ctx, id)
	case "suspend":
		return c.Suspend(ctx, id)
	case "resume":
		return c.Resume(ctx, id)
	case "change":
		if f.value == "" {
			return userError("-value option needs to be specified for -change option")
		}
		return c.Change(ctx, id, f.value)
	case "kill":
		return j.kill(id)
	case "rerun":
		return j.rerun(id)
	case "info":
		return j.info(id)
	case "log", "errorlog", "auditlog":
		return j.log(op, id)
	case "definition":
		text, err := c.JobDefinition(ctx, id)
		if err == nil {
			fmt.Fprintln(j.out, string(text))
		}
		return err
	case "configcontent":
		return j.configContent(id)
	case "graph":
		img, err := c.JobGraph(ctx, id, strings.ToLower(f.format), f.kill, strings.ToLower(f.layout))
		if err == nil {
			j.out.Write(img)
		}
		return err
	case "ignore":
		if f.set["action"] && f.action == "" {
			return userError("-action is empty")
		}
		acts, raw, err := c.Ignore(ctx, id, f.action)
		return j.emit(raw, err, func() { printIgnored(j.out, acts, j.d) })
	case "poll":
		return j.poll(id)
	case "retries":
		rs, raw, err := c.Retries(ctx, id)
		return j.emit(raw, err, func() { printRetries(j.out, id, rs) })
	case "update":
		cf := conf.New()
		if f.props.config != "" {
			var err error
			if cf, err = j.jobConf(false); err != nil {
				return err
			}
		}
		diff, raw, err := c.Update(ctx, id, cf, f.dryrun, f.diff)
		return j.emit(raw, err, func() { fmt.Fprintln(j.out, diff) })
	case "missingdeps":
		deps, raw, err := c.MissingDependencies(ctx, id, f.action, f.date)
		return j.emit(raw, err, func() { printMissingDeps(j.out, deps) })
	case "slaenable", "sladisable", "slachange":
		action := "sla-" + strings.TrimPrefix(op, "sla")
		value := ""
		if op == "slachange" {
			value = f.value
		}
		if err := c.SLAChange(ctx, id, action, f.action, f.date, f.coordinator, value); err != nil {
			return err
		}
		fmt.Fprintln(j.out, "Done")
		return nil
	}
	return userError("unknown job operation -" + op)
}

// explainUserRefusal adds to a server's E0303 refusal of the
// configuration's user.name (a server in strict mode refuses a
// configuration naming another user than the authenticated one) the two
// users and how to make them agree; other errors pass unchanged.
func (j *jobCmd) explainUserRefusal(err error, cf *conf.Config) error {
	var e *client.CallError
	if !errors.As(err, &e) || e.Code != "E0303" {
		return err
	}
	key := ""
	for _, k := range []string{"mapreduce.job.user.name", "user.name"} {
		if strings.Contains(e.Message, "["+k+"]") {
			key = k
			break
		}
	}
	if key == "" {
		return err
	}
	named, _ := cf.Get(key)
	authed := "[" + j.f.authUser() + "]"
	if j.f.authUser() == "" {
		authed = "the user of your token"
		if strings.EqualFold(j.f.authType(), client.AuthKerberos) {
			authed = "the user of your Kerberos ticket"
		}
	}
	where := "the -D options"
	if j.f.props.config != "" {
		where = j.f.props.config
	}
	return userError(fmt.Sprintf("%s : %s\nThe configuration names %s [%s] but the server authenticated you as %s, and it refuses a job for another user.\n"+
		"Fix: remove %s from %s (the server then takes the authenticated user), or submit as %s: USER=%s for SIMPLE authentication, or %s's own credentials for BASIC, TOKEN or KERBEROS.",
		e.Code, e.Message, key, named, authed, key, where, named, named, named))
}

// emit prints the raw answer for -json, or runs the formatter.
func (j *jobCmd) emit(raw []byte, err error, format func()) error {
	if err != nil {
		return err
	}
	if j.f.asJSON {
		writeRaw(j.out, raw)
		return nil
	}
	format()
	return nil
}

// jobConf assembles a job configuration as the oozie command does:
// user.name first, then the -config file, then each -D. emptyOK allows
// neither (workflow rerun sends an empty configuration).
func (j *jobCmd) jobConf(emptyOK bool) (*conf.Config, error) {
	p := j.f.props
	if p.config == "" && len(p.defs.pairs) == 0 {
		if emptyOK {
			return conf.New(), nil
		}
		return nil, userError("configuration is not specified")
	}
	if p.config != "" {
		ext := strings.ToLower(p.config)
		if !strings.HasSuffix(ext, ".properties") && !strings.HasSuffix(ext, ".xml") {
			return nil, userError("configuration must be a '.properties' or a '.xml' file")
		}
		if _, err := os.Stat(p.config); err != nil {
			return nil, userError(fmt.Sprintf("configuration file [%s] not found", p.config))
		}
	}
	loaded, err := p.load()
	if err != nil {
		return nil, err
	}
	cf := conf.New()
	if u := j.f.submitUser(); u != "" {
		cf.Set("user.name", u)
	}
	cf.Merge(loaded)
	if err := absoluteAppPaths(cf); err != nil {
		return nil, err
	}
	return cf, nil
}

func printDryrun(w io.Writer, text string) {
	switch {
	case strings.Contains(text, "<bundle-app"):
		fmt.Fprintln(w, "***Bundle job after parsing: ***")
		fmt.Fprintln(w, text)
	case strings.Contains(text, "action for new instance") || strings.Contains(text, "<coordinator-app"):
		parts := strings.Split(text, "action for new instance")
		for len(parts) > 1 && parts[len(parts)-1] == "" {
			parts = parts[:len(parts)-1] // Java's split drops trailing empties
		}
		fmt.Fprintln(w, "***coordJob after parsing: ***")
		fmt.Fprintln(w, parts[0])
		fmt.Fprintf(w, "***total coord actions is %d ***\n", len(parts)-1)
		for i, p := range parts[1:] {
			fmt.Fprintln(w, ruler)
			fmt.Fprintf(w, "coordAction instance: %d:\n", i+1)
			fmt.Fprintln(w, p)
		}
	default:
		fmt.Fprintln(w, text)
	}
}

// rangeType returns the coordinator range type and scope of -action/-date.
func (j *jobCmd) rangeType(op string) (typ, scope string, err error) {
	a, d := j.f.action, j.f.date
	switch {
	case a != "" && d != "":
		return "", "", userError(fmt.Sprintf("Invalid options provided for %s: either -date or -action expected. Don't use both at the same time.", op))
	case a != "":
		return "action", a, nil
	case d != "":
		return "date", d, nil
	}
	return "", "", nil
}

func (j *jobCmd) kill(id string) error {
	if strings.Contains(id, "-C") && client.KindOf(id) == client.KindCoord {
		typ, scope, err := j.rangeType("kill")
		if err != nil {
			return err
		}
		if typ != "" {
			acts, raw, err := j.c.KillActions(j.ctx, id, typ, scope)
			return j.emit(raw, err, func() { printActionList(j.out, acts, j.d) })
		}
	}
	return j.c.Kill(j.ctx, id)
}

func (j *jobCmd) rerun(id string) error {
	switch client.KindOf(id) {
	case client.KindWorkflow:
		cf, err := j.jobConf(true)
		if err != nil {
			return err
		}
		return j.c.RerunWorkflow(j.ctx, id, cf)
	case client.KindBundle:
		if j.f.action != "" {
			return userError("Invalid options provided for bundle rerun. -action is not valid, use -date and/or -coordinator")
		}
		if err := j.c.RerunBundle(j.ctx, id, j.f.coordinator, j.f.date, j.f.refresh, j.f.nocleanup); err != nil {
			return err
		}
		if j.f.coordinator != "" {
			fmt.Fprintf(j.out, "Coordinators [%s] of bundle %s are scheduled to rerun on date ranges [%s].\n", j.f.coordinator, id, nullText(j.f.date))
		} else {
			fmt.Fprintf(j.out, "All coordinators of bundle %s are scheduled to rerun on the date ranges [%s].\n", id, nullText(j.f.date))
		}
		return nil
	}
	typ, scope, err := j.rangeType("rerun")
	if err != nil {
		return err
	}
	if typ == "" {
		return userError("Invalid options provided for rerun: either -date or -action expected.")
	}
	acts, raw, err := j.c.RerunCoord(j.ctx, id, client.CoordRerun{Type: typ, Scope: scope,
		Refresh: j.f.refresh, NoCleanup: j.f.nocleanup, Failed: j.f.failed})
	return j.emit(raw, err, func() { printActionList(j.out, acts, j.d) })
}

func (j *jobCmd) log(show, id string) error {
	var o client.LogOptions
	if show == "log" {
		typ, scope, err := j.rangeType("log retrieval")
		if err != nil {
			return err
		}
		if typ != "" && client.KindOf(id) != client.KindCoord {
			return userError("Invalid options provided for log retrieval. -action and -date are valid only for coordinator job log retrieval")
		}
		o = client.LogOptions{Type: typ, Scope: scope, LogFilter: j.f.logfilter}
	}
	if j.f.stream != "" && (show != "log" || client.KindOf(id) != client.KindWorkflowAction) {
		return userError("-stream is for -log of a workflow action (ID@node)")
	}
	if show == "log" && client.KindOf(id) == client.KindWorkflowAction {
		return j.actionLog(id, o)
	}
	text, err := j.c.JobLog(j.ctx, id, show, o)
	if err == nil {
		j.out.Write(text)
	}
	return err
}

func (j *jobCmd) configContent(id string) error {
	var text string
	var err error
	switch {
	case vocab.IsCoordJob(id):
		var cj *client.CoordJob
		cj, _, err = j.c.CoordInfo(j.ctx, id, client.InfoOptions{Offset: -1, Len: -1, Order: "asc"})
		text = string(cj.Conf)
	case vocab.IsWorkflowJob(id):
		var wf *client.WorkflowJob
		wf, _, err = j.c.WorkflowInfo(j.ctx, id, client.InfoOptions{})
		text = string(wf.Conf)
	case vocab.IsBundleJob(id):
		var b *client.BundleJob
		b, _, err = j.c.BundleInfo(j.ctx, id)
		text = string(b.Conf)
	default:
		fmt.Fprintf(j.out, "ERROR:  job id [%s] doesn't end with either C or W or B\n", id)
		return nil
	}
	if err != nil {
		return err
	}
	fmt.Fprintln(j.out, nullText(text))
	return nil
}

// terminal statuses -poll stops at, by id kind (cli.md §2.1).
var pollEnd = map[client.Kind][]string{
	client.KindWorkflow:    {"SUCCEEDED", "KILLED", "FAILED"},
	client.KindCoord:       {"SUCCEEDED", "KILLED", "FAILED", "DONEWITHERROR", "IGNORED"},
	client.KindBundle:      {"SUCCEEDED", "KILLED", "FAILED", "DONEWITHERROR", "IGNORED"},
	client.KindCoordAction: {"FAILED", "IGNORED", "KILLED", "SKIPPED", "SUCCEEDED", "TIMEDOUT"},
}

// pollClock is the time source of -poll; tests replace it so that a poll
// of minutes runs at once.
var pollClock = struct {
	now   func() time.Time
	sleep func(time.Duration)
}{time.Now, time.Sleep}

func (j *jobCmd) poll(id string) error {
	kind := client.KindOf(id)
	end, ok := pollEnd[kind]
	if !ok || (kind == client.KindCoord && !vocab.IsCoordJob(id)) {
		return userError("invalid job type")
	}
	if *j.f.interval < time.Second {
		return userError("-interval must be at least 1 second")
	}
	var deadline time.Time
	if *j.f.timeout > 0 {
		deadline = pollClock.now().Add(*j.f.timeout)
	}
	for {
		st, err := j.c.JobStatus(j.ctx, id)
		if err != nil {
			return err
		}
		if j.f.verbose {
			fmt.Fprintln(j.out, st)
		}
		if slices.Contains(end, st) {
			return nil
		}
		wait := *j.f.interval
		if !deadline.IsZero() {
			left := deadline.Sub(pollClock.now())
			if left <= 0 {
				return nil // a timeout is not a failure (cli.md §0.5)
			}
			wait = min(wait, left)
		}
		pollClock.sleep(wait)
	}
}

// info prints -info of any id kind (cli.md §2.2, §2.3).
func (j *jobCmd) info(id string) error {
	f, c, ctx, w, d := j.f, j.c, j.ctx, j.out, j.d
	kind := client.KindOf(id)
	if f.filter != "" && kind != client.KindCoord {
		if kind == client.KindBundle {
			return userError("Filter option is currently not supported for a Bundle job")
		}
		return userError("Filter option is currently supported only for a Coordinator job")
	}
	switch kind {
	case client.KindBundle:
		b, raw, err := c.BundleInfo(ctx, id)
		return j.emit(raw, err, func() { printBundleJob(w, b, d) })
	case client.KindCoord:
		cj, raw, err := c.CoordInfo(ctx, id, client.InfoOptions{Offset: f.offset, Len: f.length, Order: f.order, Filter: f.filter})
		return j.emit(raw, err, func() { printCoordJob(w, cj, d) })
	case client.KindCoordAction:
		if f.allruns {
			runs, raw, err := c.AllRuns(ctx, id)
			return j.emit(raw, err, func() { printAllRuns(w, runs, d) })
		}
		a, raw, err := c.CoordActionInfo(ctx, id)
		return j.emit(raw, err, func() { printCoordAction(w, a, d) })
	case client.KindWorkflowAction:
		a, raw, err := c.WorkflowActionInfo(ctx, id)
		return j.emit(raw, err, func() { printWorkflowAction(w, a, d) })
	}
	wf, raw, err := c.WorkflowInfo(ctx, id, client.InfoOptions{Offset: f.offset, Len: f.length})
	return j.emit(raw, err, func() { printWorkflowJob(w, wf, d) })
}
