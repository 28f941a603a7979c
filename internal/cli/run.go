package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/gozie/gozie/internal/assembly"
	"github.com/gozie/gozie/internal/client"
	"github.com/gozie/gozie/internal/conf"
	"github.com/gozie/gozie/internal/engine"
	"github.com/gozie/gozie/internal/fsys"
	"github.com/gozie/gozie/internal/jobs"
	"github.com/gozie/gozie/internal/launch"
	restapi "github.com/gozie/gozie/internal/rest"
	"github.com/gozie/gozie/internal/server"
	"github.com/gozie/gozie/internal/store"
	"github.com/gozie/gozie/internal/workflow"
)

// errRunCoordinator refuses `gozie run` of a coordinator: it runs for as
// long as its end time says and waits for data, so "run to completion"
// has no meaning for it offline.
const errRunCoordinator = "Error: gozie run runs workflows and bundles; for a coordinator use 'gozie dryrun -config FILE' offline, or submit it to 'gozie server' with 'gozie job -config FILE -run'"

// runGCPercent is the garbage collector's target of `gozie run` unless
// GOGC says otherwise. A run is one short process whose live heap is a few
// megabytes: collecting at 3x that instead of 2x saved 7% of the CPU of a
// run of short steps (docs/benchmarks.md); 5x saved 3% more but doubles
// the headroom again, which a run of a large workflow would feel.
const runGCPercent = 200

// runGC sets runGCPercent unless the user chose with GOGC.
func runGC() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(runGCPercent)
	}
}

// runRun is `gozie run`: it runs one workflow job in-process, like Oozie's
// LocalOozie, on an embedded store in a data directory, waits for it to
// end and reports it. The exit status is 0 only when the job SUCCEEDED.
func runRun(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("run", "-config job.properties [-D name=value]... [-site gozie-site.xml] [-json] [-data DIR [-keep]] [-v]", stderr)
	pf := addPropertyFlags(fs, "job properties (.properties or .xml); oozie.wf.application.path names the app")
	asJSON := fs.Bool("json", false, "print the workflow job JSON object of the REST API instead of the summary")
	dataDir := fs.String("data", "", "data directory for the store and action work directories (default: a temporary one)")
	keep := fs.Bool("keep", false, "keep the temporary data directory (a run that did not succeed always keeps it)")
	timeout := minutesVar(fs, "timeout", 0, "kill the job if it has not ended after this long (0: wait for ever)")
	site := fs.String("site", "", "server configuration (gozie-site.xml, as for 'gozie server -config'): Java, Hadoop, share library, tools, mail server")
	verbose := fs.Bool("v", false, "print each step's stdout and stderr lines on stderr as the step writes them, after its node name")
	fs.BoolVar(verbose, "verbose", false, "same as -v")
	rest, err := parseInterspersed(fs, args)
	if err != nil {
		return flagStatus(err)
	}
	if len(rest) > 0 {
		fmt.Fprintf(stderr, "Error: unexpected argument %q\n", rest[0])
		fs.Usage()
		return exitUsage
	}
	if pf.config == "" && len(pf.defs.pairs) == 0 {
		fmt.Fprintln(stderr, "Error: -config job.properties (or -D oozie.wf.application.path=...) is required")
		fs.Usage()
		return exitUsage
	}
	props, err := pf.load()
	if err != nil {
		fmt.Fprintf(stderr, "Error: %v\n", err)
		return exitUsage
	}
	isBundle := props.Has("oozie.bundle.application.path")
	if props.Has("oozie.coord.application.path") && !isBundle {
		fmt.Fprintln(stderr, errRunCoordinator)
		return exitUsage
	}

	runGC()
	cfg, err := runConfig(*site, props)
	if err != nil {
		fmt.Fprintf(stderr, "Error: %v\n", err)
		return exitUsage
	}

	dir, temporary, err := runDataDir(*dataDir)
	if err != nil {
		fmt.Fprintf(stderr, "Error: %v\n", err)
		return exitFail
	}
	// A temporary data directory goes away after a successful run; one
	// that failed keeps it, since the progress lines point into it (the
	// failed step's stdout and stderr). A job refused at submission ran
	// nothing: its directory holds nothing to read and goes too.
	succeeded, refused := false, false
	if temporary {
		defer func() {
			if *keep || (!succeeded && !refused) {
				fmt.Fprintf(stderr, "data kept in %s\n", dir)
				return
			}
			os.RemoveAll(dir)
		}()
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	logf := func(format string, args ...any) { fmt.Fprintf(stderr, format+"\n", args...) }
	if err := privateLauncherDir(dir, logf); err != nil {
		fmt.Fprintf(stderr, "Error: %v\n", err)
		return exitFail
	}
	supDir := filepath.Join(dir, "launcher")
	// The supervisor starts while the store opens, rather than when the
	// first step needs it (a start of the gozie binary, a good part of a
	// short run).
	warmed := make(chan struct{})
	go func() {
		defer close(warmed)
		_ = launch.WarmSupervisor(supDir)
	}()
	// The job has ended (or been killed) when this returns: the
	// supervisor has nothing left to watch. Deferred before the engine's
	// Close, so it runs after it.
	defer func() {
		<-warmed
		_ = launch.StopSupervisor(supDir, 10*time.Second)
	}()
	prog := newProgress(stderr, dir)
	if *verbose {
		defer prog.follow()()
	}
	cfg["gozie.data.dir"] = dir
	sys, err := assembly.New(ctx, assembly.Options{Config: cfg, Local: true, LocalCoordinators: isBundle,
		Registry: runRegistry(cfg, supDir), DefaultUser: currentUser(), Logf: logf, OnTransition: prog.note})
	if err == nil {
		defer sys.Close()
		err = sys.Start(ctx)
	}
	if err != nil {
		fmt.Fprintf(stderr, "Error: %v\n", err)
		return exitFail
	}
	e, s := sys.Engine, sys.Store
	if isBundle {
		code := runBundle(ctx, stdout, stderr, sys.Jobs, props, *timeout, *asJSON)
		succeeded, refused = code == exitOK, code == exitRefused
		return min(code, exitFail)
	}

	id, err := jobs.New(e, nil, nil).Run(ctx, props)
	if err != nil {
		reportSubmitError(ctx, stderr, err)
		if id == "" {
			refused = true
			return exitFail
		}
	}
	waitRun(ctx, stderr, e, prog, id, *timeout, pf.config)
	code := reportRun(stdout, stderr, e, s, id, *asJSON)
	succeeded = code == exitOK
	return code
}

// runConfig is the configuration of a local run: the same keys, defaults
// and environment overrides as a server (site, the -site file), so that a
// local run can use every setting a server has, with the local defaults
// of an action's name-node and job-tracker.
func runConfig(site string, props *conf.Config) (server.Config, error) {
	cfg, err := server.LoadConfig(site, os.Getenv)
	if err == nil {
		err = checkLaunchAsUser(cfg, os.Geteuid())
	}
	if err != nil {
		return nil, err
	}
	localActionDefaults(cfg, props)
	return cfg, nil
}

// localActionDefaults sets the server defaults of an action's name-node
// and job-tracker for a local run: the job properties' value (offline the
// server switches come from the same properties, as in gozie validate),
// else the -site file's, else the local file system and the local
// runner. An Oozie workflow whose actions leave them to the server (shell
// 0.3, no <global>) then runs as it is.
func localActionDefaults(cfg server.Config, props *conf.Config) {
	for key, local := range map[string]string{
		workflow.ServerPropDefaultNameNode: workflow.LocalDefaultNameNode,
		workflow.ServerPropDefaultJobTrack: workflow.LocalDefaultJobTracker,
	} {
		if v, _ := props.Get(key); strings.TrimSpace(v) != "" {
			cfg[key] = strings.TrimSpace(v)
		} else if strings.TrimSpace(cfg[key]) == "" {
			cfg[key] = local
		}
	}
}

// reportSubmitError prints why the job could not be submitted: a refused
// submission carries the Oozie code in its text, and the place in
// workflow.xml, as gozie validate prints it.
func reportSubmitError(ctx context.Context, stderr io.Writer, err error) {
	if ctx.Err() != nil {
		fmt.Fprintln(stderr, "Error: interrupted while submitting the job")
		return
	}
	fmt.Fprintf(stderr, "Error: %v\n", withLocation(err))
}

// runDataDir makes the data directory of a run: dir, or a temporary one
// when dir is "".
func runDataDir(dir string) (string, bool, error) {
	if dir == "" {
		dir, err := os.MkdirTemp("", "gozie-run-")
		return dir, true, err
	}
	return dir, false, os.MkdirAll(dir, 0o755)
}

// waitRun waits for the job to end. Interrupted, timed out or suspended,
// it kills the job so nothing keeps running behind the user's back, and
// waits for it to end killed.
func waitRun(ctx context.Context, stderr io.Writer, e *engine.Engine, prog *progress, id string, timeout time.Duration, config string) {
	waitCtx, cancelWait := context.WithCancelCause(ctx)
	defer cancelWait(nil)
	prog.onSuspend(id, func() { cancelWait(errSuspended) })
	if timeout > 0 {
		var cancel context.CancelFunc
		waitCtx, cancel = context.WithTimeoutCause(waitCtx, timeout, errTimedOut)
		defer cancel()
	}
	if _, err := e.Wait(waitCtx, id); err != nil {
		switch cause := context.Cause(waitCtx); {
		case errors.Is(cause, errSuspended):
			explainSuspended(stderr, e, id, config)
		case errors.Is(cause, errTimedOut):
			fmt.Fprintf(stderr, "Error: job %s has not ended within -timeout %s; killing it\n", id, timeout)
		case ctx.Err() != nil:
			fmt.Fprintf(stderr, "Error: interrupted; killing job %s\n", id)
		default:
			fmt.Fprintf(stderr, "Error: %s; killing job %s\n", client.PlainError(err), id)
		}
		_ = e.Kill(context.Background(), id)
		killCtx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_, _ = e.Wait(killCtx, id)
	}
}

// reportRun prints the ended job, as the REST API's JSON object or as a
// summary, and returns the exit status: exitOK only when it SUCCEEDED.
func reportRun(stdout, stderr io.Writer, e *engine.Engine, s store.Store, id string, asJSON bool) int {
	j, acts, err := e.Job(context.Background(), id)
	if err != nil {
		fmt.Fprintf(stderr, "Error: %v\n", err)
		return exitFail
	}
	if asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetEscapeHTML(false) // XML in conf fields stays readable, as Oozie prints it
		enc.SetIndent("", "  ")
		jj := engine.NewJobJSON(j, acts, "")
		for i, a := range acts {
			// The short external id a server shows (local:<pid>).
			if short, ok := launch.LocalExternalID(a.ExternalID, e.ActionDir(a)); ok {
				jj.Actions[i].ExternalID = restapi.Str(short)
			}
		}
		if err := enc.Encode(jj); err != nil {
			fmt.Fprintf(stderr, "Error: %v\n", err)
			return exitFail
		}
	} else {
		printSummary(stdout, j, acts)
		printChildren(stdout, s, j.ID, "")
	}
	if j.Status != store.JobSucceeded {
		return exitFail
	}
	return exitOK
}

// printSummary writes the job and one line per node: name, type, status,
// transition, external status, error code and message.
func printSummary(w io.Writer, j *store.Job, acts []*store.Action) {
	fmt.Fprintf(w, "Job ID : %s\n", j.ID)
	fmt.Fprintf(w, "Workflow Name : %s\n", j.AppName)
	fmt.Fprintf(w, "App Path : %s\n", j.AppPath)
	fmt.Fprintf(w, "Status : %s\n", j.Status)
	if j.ErrorCode != "" && j.Status != store.JobSucceeded {
		fmt.Fprintf(w, "Error : %s %s\n", j.ErrorCode, oneLine(j.ErrorMessage))
	}
	fmt.Fprintf(w, "User : %s\n", j.User)
	if d := j.EndTime.Sub(j.StartTime); !j.StartTime.IsZero() && !j.EndTime.IsZero() {
		fmt.Fprintf(w, "Duration : %s\n", d)
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tTYPE\tSTATUS\tTRANSITION\tEXT STATUS\tERR CODE\tERR MESSAGE")
	for _, a := range acts {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", a.Name, a.Type, a.Status, dash(a.Transition),
			dash(a.ExternalStatus), dash(a.ErrorCode), dash(oneLine(a.ErrorMessage)))
	}
	tw.Flush()
}

// printChildren reports the sub-workflow jobs a job started, nested.
func printChildren(w io.Writer, s store.Store, parent, indent string) {
	var kids []*store.Job
	ctx := context.Background()
	_ = s.View(ctx, func(tx store.Tx) (err error) {
		kids, err = tx.Jobs(ctx, store.JobFilter{ParentID: parent})
		return err
	})
	for i := len(kids) - 1; i >= 0; i-- { // oldest first
		k := kids[i]
		fmt.Fprintf(w, "%sSub-workflow %s (%s): %s\n", indent, k.ID, k.AppName, k.Status)
		printChildren(w, s, k.ID, indent+"  ")
	}
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// siteFlag adds -site: the server configuration whose store settings
// (gozie.fs.mount.*, gozie.hadoop.conf.dir, fs.s3a.*, ...) an offline
// command uses.
func siteFlag(fs *flag.FlagSet) *string {
	return fs.String("site", "", "server configuration (gozie-site.xml): its mount table (gozie.fs.mount.*) and store settings (fs.s3a.*, ...) apply")
}

// useStores makes the process's namespace the one the site configuration
// (and $HADOOP_CONF_DIR) describes, as a server would build it.
func useStores(site string) error {
	cfg, err := server.LoadConfig(site, os.Getenv)
	if err != nil {
		return err
	}
	ns, err := assembly.StorageNamespace(cfg)
	if err != nil {
		return err
	}
	fsys.SetDefault(ns)
	return nil
}
