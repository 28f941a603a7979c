package cli

import (
	"context"
	"fmt"
	"io"

	"github.com/gozie/gozie/internal/client"
)

// runSLA is `gozie sla`: the SLA records of GET /v2/sla as a table (or
// the server's JSON with -json). Oozie's own `oozie sla` reads the legacy
// v1 event feed, which gozie does not keep; the v2 summaries are what
// Oozie's console and REST clients read (cli.md 5, rest-api.md 7.7).
func runSLA(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("sla", "-filter k=v;... [-offset N] [-len N] [-sortby FIELD] [-order asc|desc]", stdout)
	r := addRemoteFlags(fs, true)
	filter := fs.String("filter", "", "app_name=..;id=..;parent_id=..;bundle=..;sla_status=MISS,..;event_status=..;nominal_after=..;... (required)")
	offset := fs.Int("offset", 0, "first record (1-based; 0: the server's default, 1)")
	length := fs.Int("len", 0, "number of records (0: the server's default, 1000)")
	sortBy := fs.String("sortby", "", "field to sort by (nominalTimeTS by default; appName, slaStatus, expectedEndTS, ...)")
	order := fs.String("order", "", "asc (default) or desc")
	rest, code, done := parseRemote(fs, args, stdout, stderr)
	if done {
		return code
	}
	if len(rest) > 0 {
		return invalidSubCommand(stderr, fmt.Sprintf("unexpected argument [%s]", rest[0]))
	}
	if *filter == "" {
		return invalidSubCommand(stderr, "-filter is required, e.g. -filter app_name=my-app or -filter parent_id=<coordinator id>")
	}
	c, err := r.client(stderr)
	if err != nil {
		return fail(stderr, err)
	}
	recs, raw, err := c.SLA(context.Background(), client.SLAOptions{Filter: *filter, Offset: *offset, Len: *length, SortBy: *sortBy, Order: *order})
	if err != nil {
		return fail(stderr, err)
	}
	if r.asJSON {
		writeRaw(stdout, raw)
		return exitOK
	}
	printSLA(stdout, recs, r.dates())
	return exitOK
}

// printSLA prints SLA records in the style of the job tables: one row
// each between rulers; -verbose prints every field TAB-separated.
func printSLA(w io.Writer, recs []*client.SLASummary, d dates) {
	if len(recs) == 0 {
		fmt.Fprintln(w, "No SLA records match your criteria!")
		return
	}
	date := func(t client.SLATime) string { return d.mask(client.Time{Time: t.Time}) }
	cols := columns{45, 15, 11, 21, 21, 21, 12}
	if d.verbose {
		tabRow(w, "Id", "Parent Id", "App Name", "App Type", "User", "Nominal", "Expected Start", "Actual Start",
			"Expected End", "Actual End", "Expected Duration", "Actual Duration", "Job Status", "SLA Status", "Event Status", "Alerts")
	} else {
		cols.row(w, "Id", "App Name", "SLA Status", "Nominal", "Expected End", "Actual End", "Job Status")
	}
	fmt.Fprintln(w, ruler)
	for _, s := range recs {
		if d.verbose {
			tabRow(w, s.ID, dashIfEmpty(s.ParentID), maskIfNull(s.AppName), maskIfNull(s.AppType), maskIfNull(s.User),
				date(s.NominalTime), date(s.ExpectedStart), date(s.ActualStart), date(s.ExpectedEnd), date(s.ActualEnd),
				fmt.Sprint(s.ExpectedDuration), fmt.Sprint(s.ActualDuration), maskIfNull(s.JobStatus), maskIfNull(s.SLAStatus),
				dashIfEmpty(s.EventStatus), dashIfEmpty(s.SLAAlertStatus))
		} else {
			cols.row(w, s.ID, maskIfNull(s.AppName), maskIfNull(s.SLAStatus), date(s.NominalTime), date(s.ExpectedEnd),
				date(s.ActualEnd), maskIfNull(s.JobStatus))
		}
		fmt.Fprintln(w, ruler)
	}
}

// dashIfEmpty is s, or "-" when empty.
func dashIfEmpty(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
