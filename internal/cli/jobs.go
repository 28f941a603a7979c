package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/gozie/gozie/internal/client"
)

// runJobs is `gozie jobs`: list jobs, or kill, suspend or resume every job
// a filter selects, or monitor bundle coordinator actions (cli.md §3).
func runJobs(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("jobs", "[-jobtype wf|coordinator|bundle] [-filter k=v;...] [-offset N] [-len N] [-kill|-suspend|-resume] [-bulk k=v;...]", stdout)
	r := addRemoteFlags(fs, true)
	jobtype := fs.String("jobtype", "wf", "job type: wf, coordinator or bundle")
	filter := fs.String("filter", "", "user=..;name=..;status=..;id=..;text=..;startcreatedtime=..;endcreatedtime=..;sortby=..")
	offset := fs.Int("offset", 0, "first job (1-based; 0: the server's default, 1)")
	length := fs.Int("len", 0, "number of jobs (0: the server's default, 50)")
	kill := fs.Bool("kill", false, "kill every job the filter selects")
	suspend := fs.Bool("suspend", false, "suspend every job the filter selects")
	resume := fs.Bool("resume", false, "resume every job the filter selects")
	bulk := fs.String("bulk", "", "monitor coordinator actions of bundles: bundle=..;coordinators=..;actionstatus=..")
	rest, code, done := parseRemote(fs, args, stdout, stderr)
	if done {
		return code
	}
	if len(rest) > 0 {
		return invalidSubCommand(stderr, fmt.Sprintf("unexpected argument [%s]", rest[0]))
	}
	var modify []string
	fs.Visit(func(f *flag.Flag) {
		if (f.Name == "kill" && *kill) || (f.Name == "suspend" && *suspend) || (f.Name == "resume" && *resume) {
			modify = append(modify, f.Name)
		}
	})
	byPosition(modify, args)
	if len(modify) > 1 {
		return invalidSubCommand(stderr, fmt.Sprintf("The option '%s' was specified but an option from this group has already been selected: '%s'", modify[1], modify[0]))
	}
	c, err := r.client(stderr)
	if err != nil {
		return fail(stderr, err)
	}
	ctx, d := context.Background(), r.dates()
	if *bulk != "" {
		res, raw, err := c.Bulk(ctx, *bulk, *offset, *length)
		if err != nil {
			return fail(stderr, err)
		}
		if r.asJSON {
			writeRaw(stdout, raw)
		} else {
			printBulk(stdout, res.Responses, d)
		}
		return exitOK
	}
	opts := client.ListOptions{Filter: *filter, Offset: *offset, Len: *length}
	if len(modify) == 1 {
		opts.JobType = *jobtype // bulk modify sends the value as typed (cli.md §3)
		list, raw, err := c.BulkModify(ctx, modify[0], opts)
		if err != nil {
			return fail(stderr, err)
		}
		if r.asJSON {
			writeRaw(stdout, raw)
			return exitOK
		}
		printBulkModify(stdout, modify[0], list, d)
		return exitOK
	}
	if opts.JobType, err = canonicalJobType(*jobtype); err != nil {
		return fail(stderr, err)
	}
	list, raw, err := c.Jobs(ctx, opts)
	if err != nil {
		return fail(stderr, err)
	}
	if r.asJSON {
		writeRaw(stdout, raw)
		return exitOK
	}
	switch opts.JobType {
	case "coord":
		printCoordJobs(stdout, list.CoordinatorJobs, d)
	case "bundle":
		printBundleJobs(stdout, list.BundleJobs, d)
	default:
		printWorkflowJobs(stdout, list.Workflows, d)
	}
	return exitOK
}

// canonicalJobType maps -jobtype as the oozie command does: anything
// containing "wf", starting with "coord" or with "bundle", in any case.
func canonicalJobType(t string) (string, error) {
	l := strings.ToLower(t)
	switch {
	case strings.Contains(l, "wf"):
		return "wf", nil
	case strings.HasPrefix(l, "coord"):
		return "coord", nil
	case strings.HasPrefix(l, "bundle"):
		return "bundle", nil
	}
	return "", userError(fmt.Sprintf("Invalid jobtype [%s]: expected wf, coordinator or bundle", t))
}

const noJobs = "No Jobs match your criteria!"

func printWorkflowJobs(w io.Writer, jobs []*client.WorkflowJob, d dates) {
	if len(jobs) == 0 {
		fmt.Fprintln(w, noJobs)
		return
	}
	cols := columns{41, 13, 10, 10, 10, 24, 24}
	if d.verbose {
		tabRow(w, "Job ID", "App Name", "App Path", "Console URL", "User", "Group", "Run", "Created", "Started",
			"Status", "Last Modified", "Ended")
	} else {
		cols.row(w, "Job ID", "App Name", "Status", "User", "Group", "Started", "Ended")
	}
	fmt.Fprintln(w, ruler)
	for _, j := range jobs {
		if d.verbose {
			tabRow(w, maskIfNull(j.ID), maskIfNull(j.AppName), maskIfNull(j.AppPath), maskIfNull(j.ConsoleURL),
				maskIfNull(j.User), maskIfNull(j.Group), fmt.Sprint(j.Run), d.mask(j.CreatedTime), d.mask(j.StartTime),
				j.Status, d.mask(j.LastModTime), d.mask(j.EndTime))
		} else {
			cols.row(w, maskIfNull(j.ID), maskIfNull(j.AppName), j.Status, maskIfNull(j.User),
				maskIfNull(j.Group), d.mask(j.StartTime), d.mask(j.EndTime))
		}
		fmt.Fprintln(w, ruler)
	}
}

func printCoordJobs(w io.Writer, jobs []*client.CoordJob, d dates) {
	if len(jobs) == 0 {
		fmt.Fprintln(w, noJobs)
		return
	}
	cols := columns{41, 15, 10, 5, 13, 24, 24}
	if d.verbose {
		tabRow(w, "Job ID", "App Name", "App Path", "Console URL", "User", "Group", "Concurrency", "Frequency",
			"Time Unit", "Time Zone", "Time Out", "Started", "Next Materialize", "Status", "Last Action", "Ended")
	} else {
		cols.row(w, "Job ID", "App Name", "Status", "Freq", "Unit", "Started", "Next Materialized")
	}
	fmt.Fprintln(w, ruler)
	for _, j := range jobs {
		if d.verbose {
			tabRow(w, maskIfNull(j.CoordJobID), maskIfNull(j.CoordJobName), maskIfNull(j.CoordJobPath),
				maskIfNull(j.ConsoleURL), maskIfNull(j.User), maskIfNull(j.Group), fmt.Sprint(j.Concurrency),
				string(j.Frequency), j.TimeUnit, maskIfNull(j.TimeZone), fmt.Sprint(j.TimeOut), d.mask(j.StartTime),
				d.mask(j.NextMaterializedTime), j.Status, d.mask(j.LastAction), d.mask(j.EndTime))
		} else {
			cols.row(w, maskIfNull(j.CoordJobID), maskIfNull(j.CoordJobName), j.Status,
				string(j.Frequency), j.TimeUnit, d.mask(j.StartTime), d.mask(j.NextMaterializedTime))
		}
		fmt.Fprintln(w, ruler)
	}
}

func printBundleJobs(w io.Writer, jobs []*client.BundleJob, d dates) {
	if len(jobs) == 0 {
		fmt.Fprintln(w, noJobs)
		return
	}
	cols := columns{41, 15, 10, 20, 20, 13, 13}
	if d.verbose {
		tabRow(w, "Job ID", "Bundle Name", "Bundle Path", "User", "Group", "Status", "Kickoff", "Pause", "Created",
			"Console URL")
	} else {
		cols.row(w, "Job ID", "Bundle Name", "Status", "Kickoff", "Created", "User", "Group")
	}
	fmt.Fprintln(w, ruler)
	for _, j := range jobs {
		if d.verbose {
			tabRow(w, maskIfNull(j.BundleJobID), maskIfNull(j.BundleJobName), maskIfNull(j.BundleJobPath),
				maskIfNull(j.User), maskIfNull(j.Group), j.Status, d.mask(j.KickoffTime), d.mask(j.PauseTime),
				d.mask(j.CreatedTime), maskIfNull(j.ConsoleURL))
		} else {
			cols.row(w, maskIfNull(j.BundleJobID), maskIfNull(j.BundleJobName), j.Status,
				d.mask(j.KickoffTime), d.mask(j.CreatedTime), maskIfNull(j.User), maskIfNull(j.Group))
		}
		fmt.Fprintln(w, ruler)
	}
}

// printBulkModify reports the jobs a bulk kill, suspend or resume changed;
// the list key in the answer decides the job type.
func printBulkModify(w io.Writer, action string, l *client.JobList, d dates) {
	past := map[string]string{"kill": "killed", "suspend": "suspended", "resume": "resumed"}[action]
	plain := dates{loc: d.loc}
	switch {
	case l.Has("workflows"):
		if len(l.Workflows) == 0 {
			break
		}
		fmt.Fprintln(w, "the following jobs have been "+past)
		printWorkflowJobs(w, l.Workflows, plain)
		return
	case l.Has("coordinatorjobs"):
		if len(l.CoordinatorJobs) == 0 {
			break
		}
		fmt.Fprintln(w, "the following jobs have been "+past)
		printCoordJobs(w, l.CoordinatorJobs, plain)
		return
	default:
		if len(l.BundleJobs) == 0 {
			break
		}
		fmt.Fprintln(w, "the following jobs have been "+past)
		printBundleJobs(w, l.BundleJobs, plain)
		return
	}
	fmt.Fprintln(w, "bulk modify command did not modify any jobs")
}

// printBulk prints the bulk-monitor answer (cli.md §3).
func printBulk(w io.Writer, rs []client.BulkResponse, d dates) {
	if len(rs) == 0 {
		fmt.Fprintln(w, "Bulk request criteria did not match any coordinator actions")
		return
	}
	cols := columns{13, 38, 13, 41, 10, 38, 21, 38}
	for _, r := range rs {
		if d.verbose {
			fmt.Fprintln(w)
			fmt.Fprintln(w, "Bundle Name : "+maskIfNull(r.Bundle.BundleJobName))
			fmt.Fprintln(w, ruler)
			fmt.Fprintln(w, "Bundle ID        : "+maskIfNull(r.Bundle.BundleJobID))
			fmt.Fprintln(w, "Coordinator Name : "+maskIfNull(r.Coord.CoordJobName))
			fmt.Fprintln(w, "Coord Action ID  : "+maskIfNull(r.Action.ID))
			fmt.Fprintln(w, "Action Status    : "+r.Action.Status)
			fmt.Fprintln(w, "External ID      : "+maskIfNull(r.Action.ExternalID))
			fmt.Fprintln(w, "Created Time     : "+d.mask(r.Action.CreatedTime))
			fmt.Fprintln(w, "User             : "+maskIfNull(r.Bundle.User))
			fmt.Fprintln(w, "Error Message    : "+maskIfNull(r.Action.ErrorMessage))
			fmt.Fprintln(w, ruler)
			continue
		}
		cols.row(w, "Bundle Name", "Bundle ID", "Coord Name", "Coord Action ID", "Status", "External ID",
			"Created Time", "Error Message")
		fmt.Fprintln(w, ruler)
		cols.row(w, maskIfNull(r.Bundle.BundleJobName), maskIfNull(r.Bundle.BundleJobID),
			maskIfNull(r.Coord.CoordJobName), maskIfNull(r.Action.ID), r.Action.Status, maskIfNull(r.Action.ExternalID),
			d.mask(r.Action.CreatedTime), maskIfNull(r.Action.ErrorMessage))
		fmt.Fprintln(w, ruler)
	}
}
