package cli

// The printers of the job command's answers: -info of each id kind, the
// action lists of coordinator commands, retries and missing dependencies,
// in the oozie command's layouts (cli.md).

import (
	"fmt"
	"io"
	"strings"

	"github.com/gozie/gozie/internal/client"
)

// Widths of the tables of -info, as the oozie command prints them.
var (
	wfActionCols    = columns{78, 10, 23, 11, 10}
	coordActionCols = columns{43, 10, 37, 10, 21, 21}
	bundleCoordCols = columns{41, 15, 5, 13, 24, 24}
	allRunsCols     = columns{41, 10, 24, 24}
)

func printWorkflowJob(w io.Writer, job *client.WorkflowJob, d dates) {
	fmt.Fprintln(w, "Job ID : "+maskIfNull(job.ID))
	fmt.Fprintln(w, ruler)
	fmt.Fprintln(w, "Workflow Name : "+maskIfNull(job.AppName))
	fmt.Fprintln(w, "App Path      : "+maskIfNull(job.AppPath))
	fmt.Fprintln(w, "Status        : "+job.Status)
	fmt.Fprintf(w, "Run           : %d\n", job.Run)
	fmt.Fprintln(w, "User          : "+maskIfNull(job.User))
	fmt.Fprintln(w, "Group         : "+maskIfNull(job.Group))
	fmt.Fprintln(w, "Created       : "+d.mask(job.CreatedTime))
	fmt.Fprintln(w, "Started       : "+d.mask(job.StartTime))
	fmt.Fprintln(w, "Last Modified : "+d.mask(job.LastModTime))
	fmt.Fprintln(w, "Ended         : "+d.mask(job.EndTime))
	fmt.Fprintln(w, "CoordAction ID: "+maskIfNull(job.ParentID))
	if len(job.Actions) == 0 {
		fmt.Fprintln(w, ruler)
		fmt.Fprintln(w)
		return
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Actions")
	fmt.Fprintln(w, ruler)
	if d.verbose {
		tabRow(w, "ID", "Console URL", "Error Code", "Error Message", "External ID", "External Status", "Name",
			"Retries", "Tracker URI", "Type", "Started", "Status", "Ended")
	} else {
		wfActionCols.row(w, "ID", "Status", "Ext ID", "Ext Status", "Err Code")
	}
	fmt.Fprintln(w, ruler)
	for _, a := range job.Actions {
		if d.verbose {
			tabRow(w, maskIfNull(a.ID), maskIfNull(a.ConsoleURL), maskIfNull(a.ErrorCode), maskIfNull(a.ErrorMessage),
				maskIfNull(a.ExternalID), maskIfNull(a.ExternalStatus), maskIfNull(a.Name), fmt.Sprint(a.Retries),
				maskIfNull(a.TrackerURI), maskIfNull(a.Type), d.mask(a.StartTime), a.Status, d.mask(a.EndTime))
		} else {
			wfActionCols.row(w, maskIfNull(a.ID), a.Status, maskIfNull(a.ExternalID),
				maskIfNull(a.ExternalStatus), maskIfNull(a.ErrorCode))
		}
		fmt.Fprintln(w, ruler)
	}
	fmt.Fprintln(w)
}

func printWorkflowAction(w io.Writer, a *client.WorkflowAction, d dates) {
	fmt.Fprintln(w, "ID : "+maskIfNull(a.ID))
	fmt.Fprintln(w, ruler)
	fmt.Fprintln(w, "Console URL       : "+maskIfNull(a.ConsoleURL))
	if base, ok := strings.CutSuffix(string(a.ConsoleURL), "/stdout"); ok && strings.Contains(base, "/console/action/") {
		// gozie's console serves both streams; a failure is in stderr.
		fmt.Fprintln(w, "Stderr URL        : "+base+"/stderr")
	}
	fmt.Fprintln(w, "Error Code        : "+maskIfNull(a.ErrorCode))
	fmt.Fprintln(w, "Error Message     : "+maskIfNull(a.ErrorMessage))
	fmt.Fprintln(w, "External ID       : "+maskIfNull(a.ExternalID))
	fmt.Fprintln(w, "External Status   : "+maskIfNull(a.ExternalStatus))
	fmt.Fprintln(w, "Name              : "+maskIfNull(a.Name))
	fmt.Fprintf(w, "Retries           : %d\n", a.UserRetryCount)
	fmt.Fprintln(w, "Tracker URI       : "+maskIfNull(a.TrackerURI))
	fmt.Fprintln(w, "Type              : "+maskIfNull(a.Type))
	fmt.Fprintln(w, "Started           : "+d.mask(a.StartTime))
	fmt.Fprintln(w, "Status            : "+a.Status)
	fmt.Fprintln(w, "Ended             : "+d.mask(a.EndTime))
	if d.verbose {
		fmt.Fprintln(w, "External Stats    : "+nullText(a.Stats))
		fmt.Fprintln(w, "External ChildIDs : "+nullText(a.ExternalChildIDs))
	}
	fmt.Fprintln(w, ruler)
}

func printCoordJob(w io.Writer, job *client.CoordJob, d dates) {
	hd := dates{loc: d.loc} // the job header is never verbose
	fmt.Fprintln(w, "Job ID : "+job.CoordJobID)
	fmt.Fprintln(w, ruler)
	fmt.Fprintln(w, "Job Name    : "+maskIfNull(job.CoordJobName))
	fmt.Fprintln(w, "App Path    : "+maskIfNull(job.CoordJobPath))
	fmt.Fprintln(w, "Status      : "+job.Status)
	fmt.Fprintln(w, "Start Time  : "+hd.mask(job.StartTime))
	fmt.Fprintln(w, "End Time    : "+hd.mask(job.EndTime))
	fmt.Fprintln(w, "Pause Time  : "+hd.mask(job.PauseTime))
	fmt.Fprintf(w, "Concurrency : %d\n", job.Concurrency)
	fmt.Fprintln(w, ruler)
	if d.verbose {
		tabRow(w, "ID", "Action Number", "Console URL", "Error Code", "Error Message", "External ID", "External Status",
			"Job ID", "Tracker URI", "Created", "Nominal Time", "Status", "Last Modified", "Missing Dependencies")
		fmt.Fprintln(w, ruler)
		for _, a := range job.Actions {
			tabRow(w, maskIfNull(a.ID), fmt.Sprint(a.ActionNumber), maskIfNull(a.ConsoleURL), maskIfNull(a.ErrorCode),
				maskIfNull(a.ErrorMessage), maskIfNull(a.ExternalID), maskIfNull(a.ExternalStatus), maskIfNull(a.CoordJobID),
				maskIfNull(a.TrackerURI), d.mask(a.CreatedTime), d.mask(a.NominalTime), a.Status, d.mask(a.LastModifiedTime),
				maskIfNull(firstMissing(a)))
			fmt.Fprintln(w, ruler)
		}
		return
	}
	// Oozie's format has six columns for seven values: "Last Mod" never prints.
	coordActionCols.row(w, "ID", "Status", "Ext ID", "Err Code", "Created", "Nominal Time")
	for _, a := range job.Actions {
		coordActionCols.row(w, maskIfNull(a.ID), a.Status, maskIfNull(a.ExternalID),
			maskIfNull(a.ErrorCode), d.mask(a.CreatedTime), d.mask(a.NominalTime))
		fmt.Fprintln(w, ruler)
	}
}

// firstMissing is the first pull dependency of an action, followed by "#"
// and the first push dependency when there are push dependencies.
func firstMissing(a *client.CoordAction) string {
	s, _, _ := strings.Cut(string(a.MissingDependencies), "#")
	if a.PushMissingDependencies != "" {
		p, _, _ := strings.Cut(string(a.PushMissingDependencies), "#")
		s += "#" + p
	}
	return s
}

func printCoordAction(w io.Writer, a *client.CoordAction, d dates) {
	fmt.Fprintln(w, "ID : "+maskIfNull(a.ID))
	fmt.Fprintln(w, ruler)
	fmt.Fprintf(w, "Action Number        : %d\n", a.ActionNumber)
	fmt.Fprintln(w, "Console URL          : "+maskIfNull(a.ConsoleURL))
	fmt.Fprintln(w, "Error Code           : "+maskIfNull(a.ErrorCode))
	fmt.Fprintln(w, "Error Message        : "+maskIfNull(a.ErrorMessage))
	fmt.Fprintln(w, "External ID          : "+maskIfNull(a.ExternalID))
	fmt.Fprintln(w, "External Status      : "+maskIfNull(a.ExternalStatus))
	fmt.Fprintln(w, "Job ID               : "+maskIfNull(a.CoordJobID))
	fmt.Fprintln(w, "Tracker URI          : "+maskIfNull(a.TrackerURI))
	fmt.Fprintln(w, "Created              : "+d.mask(a.CreatedTime))
	fmt.Fprintln(w, "Nominal Time         : "+d.mask(a.NominalTime))
	fmt.Fprintln(w, "Status               : "+a.Status)
	fmt.Fprintln(w, "Last Modified        : "+d.mask(a.LastModifiedTime))
	first, _, _ := strings.Cut(string(a.MissingDependencies), "#")
	fmt.Fprintln(w, "First Missing Dependency : "+maskIfNull(first))
	fmt.Fprintln(w, ruler)
	// A waiting action of an app with input logic (gozie's inputLogic).
	printInputLogic(w, a.InputLogic)
}

func printBundleJob(w io.Writer, b *client.BundleJob, d dates) {
	fmt.Fprintln(w, "Job ID : "+b.BundleJobID)
	fmt.Fprintln(w, ruler)
	fmt.Fprintln(w, "Job Name : "+maskIfNull(b.BundleJobName))
	fmt.Fprintln(w, "App Path : "+maskIfNull(b.BundleJobPath))
	fmt.Fprintln(w, "Status   : "+b.Status)
	kickoff := "null"
	if !b.KickoffTime.IsZero() {
		// java.util.Date.toString, in the zone of every other date printed
		kickoff = b.KickoffTime.In(d.loc).Format("Mon Jan 02 15:04:05 MST 2006")
	}
	fmt.Fprintln(w, "Kickoff time   : "+kickoff)
	fmt.Fprintln(w, ruler)
	bundleCoordCols.row(w, "Job ID", "Status", "Freq", "Unit", "Started", "Next Materialized")
	fmt.Fprintln(w, ruler)
	for _, c := range b.BundleCoordJobs {
		bundleCoordCols.row(w, maskIfNull(c.CoordJobID), c.Status, string(c.Frequency),
			c.TimeUnit, d.mask(c.StartTime), d.mask(c.NextMaterializedTime))
		fmt.Fprintln(w, ruler)
	}
}

func printAllRuns(w io.Writer, runs []client.Run, d dates) {
	if len(runs) == 0 {
		return
	}
	allRunsCols.row(w, "Job ID", "Status", "Started", "Ended")
	fmt.Fprintln(w, ruler)
	for _, r := range runs {
		allRunsCols.row(w, maskIfNull(r.ID), r.Status, d.mask(r.StartTime), d.mask(r.EndTime))
		fmt.Fprintln(w, ruler)
	}
}

// printActionList is the coordinator kill-range and rerun answer (cli.md
// §2.4 A). Nominal times are in the zone of every other date gozie prints
// (-timezone, -localtime, OOZIE_TIMEZONE, else GMT), not the local zone
// the oozie command uses here, so that -kill and -info agree.
func printActionList(w io.Writer, acts []client.CoordAction, d dates) {
	if len(acts) == 0 {
		fmt.Fprintln(w, "No Actions match your criteria!")
		return
	}
	fmt.Fprintln(w, "Action ID\tNominal Time")
	fmt.Fprintln(w, ruler)
	for _, a := range acts {
		fmt.Fprintf(w, "%s\t%s\n", maskIfNull(a.ID), maskDate(a.NominalTime, d.loc, false))
	}
}

// printIgnored is the answer of -ignore (cli.md §2.4 B), dates in the
// zone of printActionList.
func printIgnored(w io.Writer, acts []client.CoordAction, d dates) {
	if len(acts) == 0 {
		return
	}
	fmt.Fprintln(w, "Action ID\tNominal Time\tStatus")
	fmt.Fprintln(w, ruler)
	for _, a := range acts {
		fmt.Fprintf(w, "%s\t%s\t%s\n", maskIfNull(a.ID), maskDate(a.NominalTime, d.loc, false), a.Status)
	}
}

func printRetries(w io.Writer, id string, rs []client.Retry) {
	fmt.Fprintln(w, "ID : "+id)
	if len(rs) == 0 {
		fmt.Fprintln(w, "No Retries")
	}
	for _, r := range rs {
		fmt.Fprintln(w, ruler)
		fmt.Fprintln(w, "Attempt        : "+r.Attempt)
		fmt.Fprintln(w, "Start Time     : "+r.StartTime)
		fmt.Fprintln(w, "End Time       : "+r.EndTime)
		if r.ConsoleURL != "" {
			fmt.Fprintln(w, "Console URL    : "+r.ConsoleURL)
		}
		if r.ExternalChildIDs != "" {
			fmt.Fprintln(w, "Child URL      : "+r.ExternalChildIDs)
		}
	}
	fmt.Fprintln(w, ruler)
}

// printMissingDeps prints what coordinator actions wait for (cli.md §2.1
// -missingdeps).
func printMissingDeps(w io.Writer, deps []client.MissingDeps) {
	for _, d := range deps {
		fmt.Fprintln(w)
		fmt.Fprintf(w, "CoordAction : %d\n", d.ActionNumber)
		fmt.Fprintln(w, "Blocked on  : "+d.BlockedOn)
		printInputLogic(w, d.InputLogic)
		for _, ds := range d.DataSets {
			fmt.Fprintln(w, "Dataset     : "+ds.DataSet)
			fmt.Fprintln(w, "Pending Dependencies : ")
			for _, u := range ds.MissingDependencies {
				fmt.Fprintln(w, "\t  "+u)
			}
		}
		fmt.Fprintln(w)
	}
}

// printInputLogic prints the evaluated <input-logic> of a waiting action,
// one node a line, children indented: which branch is satisfied, which
// blocks, and the wait clocks.
func printInputLogic(w io.Writer, tree []string) {
	if len(tree) == 0 {
		return
	}
	fmt.Fprintln(w, "Input logic : ")
	for _, line := range tree {
		fmt.Fprintln(w, "\t  "+line)
	}
}
