package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	bundleapp "github.com/gozie/gozie/internal/bundle"
	"github.com/gozie/gozie/internal/conf"
	"github.com/gozie/gozie/internal/coord"
	"github.com/gozie/gozie/internal/fsys"
	"github.com/gozie/gozie/internal/schedule"
)

// propCheckMaxFrequency is the server switch of the 5-minute minimum
// frequency; offline it is read from the job's properties.
const propCheckMaxFrequency = "oozie.service.coord.check.maximum.frequency"

func runDryrun(args []string, stdout, stderr io.Writer) int {
	// A dry run streams hundreds of megabytes of short-lived text (a year of
	// 5-minute actions) over a live heap of a few megabytes, so the default
	// GC target collects after every few megabytes. 400 took that year from
	// 2.1 s to 1.6 s for a peak RSS of 31 MB instead of 19 MB. GOGC, when
	// set, still decides.
	if os.Getenv("GOGC") == "" {
		defer debug.SetGCPercent(debug.SetGCPercent(400))
	}
	fs := newFlagSet("dryrun", "-config job.properties [-D name=value]... [-site gozie-site.xml] [-len N] [-json] [-now DATETIME]", stderr)
	pf := addPropertyFlags(fs, "job properties (.properties or .xml); oozie.coord.application.path names the coordinator app")
	n := fs.Int("len", 0, "materialize at most the first N actions (0: all, from start to end)")
	asJSON := fs.Bool("json", false, `print {"coordJobName": ..., "actions": [...]} with the REST coordinator action keys`)
	site := siteFlag(fs)
	nowText := fs.String("now", "", "creation time of the actions, yyyy-MM-ddTHH:mmZ (default: the current time); coord:latest searches back from it")
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
		fmt.Fprintln(stderr, "Error: -config job.properties (or -D oozie.coord.application.path=...) is required")
		fs.Usage()
		return exitUsage
	}
	if *n < 0 {
		fmt.Fprintln(stderr, "Error: -len must not be negative")
		return exitUsage
	}
	now, err := dryrunNow(*nowText)
	if err != nil {
		fmt.Fprintf(stderr, "Error: -now: %v\n", err)
		return exitUsage
	}
	props, err := pf.load()
	if err == nil {
		err = useStores(*site)
	}
	if err != nil {
		fmt.Fprintf(stderr, "Error: %v\n", err)
		return exitUsage
	}
	if props.Has(bundleapp.PropAppPath) && !props.Has(coord.PropAppPath) {
		return dryrunBundle(props, now, stdout, stderr)
	}
	if err := prepareCoordProps(props); err != nil {
		fmt.Fprintf(stderr, "Error: %v\n", err)
		return exitUsage
	}
	opts := coord.SubmitOptions{ReadFile: readLocalFile, Now: now}
	if v, ok := props.Get(propCheckMaxFrequency); ok {
		if b, err := strconv.ParseBool(strings.TrimSpace(v)); err == nil && !b {
			opts.MinFrequencyMinutes = -1
		}
	}
	// Actions are printed as they are planned, so a year of 5-minute
	// actions never sits in memory at once.
	out := bufio.NewWriterSize(stdout, 64<<10)
	defer out.Flush()
	count := 0
	var onAction func(coord.DryRunAction) error
	var app *coord.App
	if *asJSON {
		onAction = func(da coord.DryRunAction) error {
			b, err := da.MarshalJSON()
			if err != nil {
				return err
			}
			if count > 0 {
				out.WriteString(",")
			}
			out.WriteString("\n")
			_, err = out.Write(b)
			count++
			return err
		}
	} else {
		onAction = func(da coord.DryRunAction) error {
			count++
			return coord.WriteDryRunAction(out, app, da)
		}
	}
	// The header needs the submitted app, which DryRunEach returns only at
	// the end: submit once first (cheap) to print it.
	app, _, err = coord.Submit(props.Clone(), opts)
	if err != nil {
		fmt.Fprintf(stderr, "Error: %v\n", err)
		return exitFail
	}
	if *asJSON {
		head, err := coord.DryRunJSONPrefix(app)
		if err != nil {
			fmt.Fprintf(stderr, "Error: %v\n", err)
			return exitFail
		}
		out.Write(head)
	} else {
		coord.WriteDryRunHeader(out, app)
	}
	if _, _, err := coord.DryRunEach(props, opts, existsOn(fsys.WithConf(context.Background(), props), stderr), *n, false, onAction); err != nil {
		out.Flush()
		fmt.Fprintf(stderr, "Error: %v\n", err)
		return exitFail
	}
	if *asJSON {
		out.WriteString("\n]}\n")
	} else {
		fmt.Fprintf(out, "\n%d action(s)\n", count)
	}
	if err := out.Flush(); err != nil {
		fmt.Fprintf(stderr, "Error: %v\n", err)
		return exitFail
	}
	return exitOK
}

// prepareCoordProps fills in what an offline submission needs: the user
// (the OS user unless user.name is set) and an absolute file:// application
// path, so that ${oozie.coord.application.path} references in the job
// properties (appDir=${oozie.coord.application.path}) name real files.
func prepareCoordProps(props *conf.Config) error {
	if !props.Has(coord.PropUser) {
		props.Set(coord.PropUser, currentUser())
	}
	if p, ok := props.Raw(coord.PropAppPath); !ok || strings.TrimSpace(p) == "" {
		return fmt.Errorf("the job properties do not set %s", coord.PropAppPath)
	}
	return absoluteAppPaths(props)
}

// dryrunBundle prints what Oozie's client prints for the dry run of a
// bundle: the header, then the bundle XML after parsing (EL resolved,
// comments removed). The coordinators are not read: Oozie submits them
// only when the bundle starts.
func dryrunBundle(props *conf.Config, now time.Time, stdout, stderr io.Writer) int {
	if !props.Has(coord.PropUser) {
		props.Set(coord.PropUser, currentUser())
	}
	if err := absoluteAppPaths(props); err != nil {
		fmt.Fprintf(stderr, "Error: %v\n", err)
		return exitUsage
	}
	text, err := bundleapp.DryRun(props, bundleapp.SubmitOptions{ReadFile: readLocalFile, Now: now})
	if err != nil {
		fmt.Fprintf(stderr, "Error: %v\n", err)
		return exitFail
	}
	printDryrun(stdout, text)
	return exitOK
}

// existsOn checks dependencies through the namespace with the job's
// store settings (ctx); a URI of a scheme this build does not serve counts
// as missing rather than failing the whole dry run, and so does a URI on a
// store that does not answer (a metastore or bucket not reachable from
// where the dry run runs), with one warning on stderr per store, which
// is not asked again.
func existsOn(ctx context.Context, stderr io.Writer) func(uri string) (bool, error) {
	down := map[string]bool{} // stores that did not answer: not asked again
	return func(uri string) (bool, error) {
		store := fsys.Scheme(uri) + "://" + fsys.Authority(uri)
		if down[store] {
			return false, nil
		}
		ok, err := fsys.Exists(ctx, uri)
		switch {
		case errors.Is(err, fsys.ErrUnsupported):
			return false, nil
		case errors.Is(err, fsys.ErrUnavailable):
			down[store] = true
			fmt.Fprintf(stderr, "Warning: %v; its dependencies count as missing\n", err)
			return false, nil
		}
		return ok, err
	}
}

// dryrunNow is the creation time of a dry run's actions: text, or the
// current minute.
func dryrunNow(text string) (time.Time, error) {
	if text == "" {
		return time.Now().UTC().Truncate(time.Minute), nil
	}
	return schedule.ParseTime(text)
}
