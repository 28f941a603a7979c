package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/gozie/gozie/internal/client"
	"github.com/gozie/gozie/internal/conf"
	"github.com/gozie/gozie/internal/schedule"
	"github.com/gozie/gozie/internal/vocab"
)

// migratePage is the page size of the jobs lists migrate reads.
const migratePage = 100

// migrateActions is how many of a coordinator's newest actions migrate
// reads to find the ones it has not started.
const migrateActions = 1000

// runMigrate is `gozie migrate -from OOZIE_URL [-oozie DEST_URL]`: it
// copies the live coordinators and bundles of an Oozie server (or of
// another gozie server) to the destination so that each continues at its
// next nominal time (docs/operations.md, "Moving live pipelines from
// Oozie").
func runMigrate(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("migrate", "-from OOZIE_URL [-oozie DEST_URL] [-dryrun] [-suspend-source] [-filter k=v;...]", stdout)
	r := addRemoteFlags(fs, false)
	src := &remoteFlags{}
	fs.StringVar(&src.oozie, "from", "", "the source server's base URL, e.g. http://oozie:11000/oozie (required)")
	fs.StringVar(&src.auth, "from-auth", "", "authentication with the source: SIMPLE, BASIC or TOKEN (default: as -auth)")
	fs.StringVar(&src.username, "from-username", "", "user name for BASIC authentication with the source (default: -username)")
	fs.StringVar(&src.password, "from-password", "", "password for BASIC authentication with the source (default: -password)")
	fs.StringVar(&src.token, "from-token", "", "bearer token for TOKEN authentication with the source (default: -token)")
	dryrun := fs.Bool("dryrun", false, "print the plan (each job, its next materialization, what would be submitted) and change nothing")
	suspend := fs.Bool("suspend-source", false, "suspend each source job once its copy is submitted")
	filter := fs.String("filter", "", "which source jobs: user=..;name=..;id=..;status=.. (the jobs list filter; default every live coordinator and bundle)")
	rest, code, done := parseRemote(fs, args, stdout, stderr)
	if done {
		return code
	}
	if len(rest) > 0 {
		return invalidSubCommand(stderr, fmt.Sprintf("unexpected argument [%s]", rest[0]))
	}
	if r.asJSON {
		return invalidSubCommand(stderr, "-json is not an option of migrate: it prints one line per job")
	}
	if src.oozie == "" {
		return invalidSubCommand(stderr, "-from OOZIE_URL is required: the server to move jobs from")
	}
	if r.oozie == "" {
		r.oozie = os.Getenv("OOZIE_URL")
	}
	if r.oozie != "" && strings.TrimRight(r.oozie, "/") == strings.TrimRight(src.oozie, "/") {
		return invalidSubCommand(stderr, "-from and the destination are the same server ["+src.oozie+"]")
	}
	src.inherit(r)
	dst, err := r.client(stderr)
	if err != nil {
		return fail(stderr, err)
	}
	from, err := src.client(stderr)
	if err != nil {
		return fail(stderr, err)
	}
	m := &migrator{ctx: context.Background(), src: from, dst: dst, out: stdout, dryrun: *dryrun, suspend: *suspend,
		filter: *filter, copies: map[string]map[string]string{}}
	if err := m.run(); err != nil {
		return fail(stderr, err)
	}
	if m.failed > 0 {
		return exitFail
	}
	return exitOK
}

// inherit gives the source the destination's authentication where the
// -from-* flags say nothing.
func (s *remoteFlags) inherit(d *remoteFlags) {
	if s.auth == "" && s.username == "" && s.token == "" {
		s.auth, s.username, s.password, s.token = d.auth, d.username, d.password, d.token
	}
	s.doas, s.insecure, s.debug = d.doas, d.insecure, d.debug
}

// migrator runs one migration.
type migrator struct {
	ctx              context.Context
	src, dst         *client.Client
	out              io.Writer
	dryrun, suspend  bool
	filter           string
	copies           map[string]map[string]string // job type -> source id -> copy id, by the names looked up
	lookedUp         map[string]bool              // job type + name already listed on the destination
	submitted, moved int                          // copies submitted; jobs already migrated
	skipped, failed  int
	coords, bundles  int
}

// run moves every live coordinator (not a bundle's) and bundle, then
// lists the workflows in flight, then prints the summary.
func (m *migrator) run() error {
	coords, err := m.list("coord")
	if err != nil {
		return err
	}
	bundles, err := m.list("bundle")
	if err != nil {
		return err
	}
	for _, j := range coords.CoordinatorJobs {
		if j.BundleID != "" || !migratable(j.Status) {
			continue
		}
		m.coords++
		m.coordinator(j.CoordJobID)
	}
	for _, b := range bundles.BundleJobs {
		if !migratable(b.Status) {
			continue
		}
		m.bundles++
		m.bundle(b.BundleJobID)
	}
	inFlight, err := m.workflowsInFlight()
	if err != nil {
		return err
	}
	verb := "submitted"
	if m.dryrun {
		verb = "to submit (dry run)"
	}
	fmt.Fprintf(m.out, "migrate: %d coordinators, %d bundles: %d %s, %d already migrated, %d skipped, %d failed; %d workflows in flight left on the source\n",
		m.coords, m.bundles, m.submitted, verb, m.moved, m.skipped, m.failed, inFlight)
	return nil
}

// list reads every page of the source's jobs of one type that the filter
// selects.
func (m *migrator) list(jobtype string) (*client.JobList, error) {
	all := &client.JobList{}
	filter := sourceFilter(m.filter, migrateStatuses)
	for offset := 1; ; offset += migratePage {
		l, _, err := m.src.Jobs(m.ctx, client.ListOptions{JobType: jobtype, Filter: filter, Offset: offset, Len: migratePage})
		if err != nil {
			return nil, fmt.Errorf("reading the source's %s jobs: %w", jobTypeWord(jobtype), err)
		}
		all.CoordinatorJobs = append(all.CoordinatorJobs, l.CoordinatorJobs...)
		all.BundleJobs = append(all.BundleJobs, l.BundleJobs...)
		all.Workflows = append(all.Workflows, l.Workflows...)
		if n := len(l.CoordinatorJobs) + len(l.BundleJobs) + len(l.Workflows); n == 0 || offset+n > l.Total {
			return all, nil
		}
	}
}

// jobTypeWord names a jobs-list job type in messages.
func jobTypeWord(jobtype string) string {
	if jobtype == "coord" {
		return "coordinator"
	}
	return jobtype
}

// copyOf is the destination's copy of source job srcID named name ("" for
// none): a job of that name whose configuration says gozie.migrated.from
// srcID. The destination's jobs of each name are read once.
func (m *migrator) copyOf(jobtype, name, srcID string) (string, error) {
	if m.lookedUp == nil {
		m.lookedUp = map[string]bool{}
	}
	if m.copies[jobtype] == nil {
		m.copies[jobtype] = map[string]string{}
	}
	if key := jobtype + "\x00" + name; !m.lookedUp[key] {
		m.lookedUp[key] = true
		if err := m.readCopies(jobtype, name); err != nil {
			return "", err
		}
	}
	return m.copies[jobtype][srcID], nil
}

// readCopies records the destination's copies among its jobs named name.
func (m *migrator) readCopies(jobtype, name string) error {
	filter := "name=" + name
	for offset := 1; ; offset += migratePage {
		l, _, err := m.dst.Jobs(m.ctx, client.ListOptions{JobType: jobtype, Filter: filter, Offset: offset, Len: migratePage})
		if err != nil {
			return fmt.Errorf("reading the destination's %s jobs named [%s]: %w", jobTypeWord(jobtype), name, err)
		}
		for _, b := range l.BundleJobs {
			confXML := string(b.Conf)
			if confXML == "" { // some servers leave it out of the list
				info, _, err := m.dst.BundleInfo(m.ctx, b.BundleJobID)
				if err != nil {
					return fmt.Errorf("reading the destination's bundle [%s]: %w", b.BundleJobID, err)
				}
				confXML = string(info.Conf)
			}
			if src := migratedFrom(confXML); src != "" {
				m.copies[jobtype][src] = b.BundleJobID
			}
		}
		// The coordinator list leaves the configuration out (rest-api 5.6).
		for _, c := range l.CoordinatorJobs {
			info, _, err := m.dst.CoordInfo(m.ctx, c.CoordJobID, client.InfoOptions{Len: 1})
			if err != nil {
				return fmt.Errorf("reading the destination's coordinator [%s]: %w", c.CoordJobID, err)
			}
			if src := migratedFrom(string(info.Conf)); src != "" {
				m.copies[jobtype][src] = c.CoordJobID
			}
		}
		if n := len(l.CoordinatorJobs) + len(l.BundleJobs); n == 0 || offset+n > l.Total {
			return nil
		}
	}
}

// line prints one job's outcome.
func (m *migrator) line(kind, id, name, status, text string) {
	fmt.Fprintf(m.out, "%s %s [%s] %s: %s\n", kind, id, name, status, text)
}

// failJob counts and prints a job that could not be moved.
func (m *migrator) failJob(kind, id, name, status string, err error) {
	m.failed++
	text := err.Error()
	// A server's message names its code already: "E0727 : E0727: ..."
	// says it twice.
	var ce *client.CallError
	if errors.As(err, &ce) && ce.Code != "" && strings.HasPrefix(ce.Message, ce.Code) {
		text = strings.Replace(text, ce.Code+" : ", "", 1)
	}
	m.line(kind, id, name, status, "FAILED: "+text)
}

// coordinator moves one standalone coordinator.
func (m *migrator) coordinator(id string) {
	j, _, err := m.src.CoordInfo(m.ctx, id, client.InfoOptions{Len: migrateActions, Order: "desc"})
	if err != nil {
		m.failJob("coordinator", id, "-", "-", err)
		return
	}
	name, status := string(j.CoordJobName), j.Status
	copyID, err := m.copyOf("coord", name, id)
	if err != nil {
		m.failJob("coordinator", id, name, status, err)
		return
	}
	if copyID != "" {
		m.coordMoved(j, copyID)
		return
	}
	h := planHandOver(j, m.suspend)
	if h.Done {
		m.skipped++
		m.line("coordinator", id, name, status, fmt.Sprintf("nothing left to materialize (next %s, end %s): its actions finish on the source", minute(j.NextMaterializedTime.Time), minute(j.EndTime.Time)))
		return
	}
	props, err := coordCopyProps(j, h)
	if err != nil {
		m.failJob("coordinator", id, name, status, err)
		return
	}
	steps := m.sourceSteps(j, h)
	if m.dryrun {
		m.submitted++
		m.line("coordinator", id, name, status, fmt.Sprintf("next %s: would submit %s; %s", minute(j.NextMaterializedTime.Time), describeSubmission(props), strings.Join(steps, "; ")))
		return
	}
	copyID, _, err = m.dst.Submit(m.ctx, props, false)
	if err != nil {
		m.failJob("coordinator", id, name, status, fmt.Errorf("submitting the copy (the source is left as it was): %w", err))
		return
	}
	m.submitted++
	text := fmt.Sprintf("submitted as %s, materializing from %s", copyID, minute(h.From))
	if h.Taken > 0 {
		text += fmt.Sprintf(" (%d not started on the source)", h.Taken)
	}
	aligned, err := m.alignCopy(j, copyID)
	text += aligned
	if err != nil {
		m.failJob("coordinator", id, name, status, fmt.Errorf("%s; then %w (the source is left as it was)", text, err))
		return
	}
	done, err := m.afterCopy(id, h, status, false)
	if err != nil {
		m.failJob("coordinator", id, name, status, fmt.Errorf("%s; then %w", text+done, err))
		return
	}
	m.line("coordinator", id, name, status, text+done)
}

// alignCopy gives a coordinator's copy the end time and concurrency the
// source has when they differ from what the definition gave the copy (a
// -change on the source); it returns what it changed, as text.
func (m *migrator) alignCopy(j *client.CoordJob, copyID string) (string, error) {
	c, _, err := m.dst.CoordInfo(m.ctx, copyID, client.InfoOptions{Len: 1})
	if err != nil {
		return "", fmt.Errorf("reading the copy: %w", err)
	}
	var values []string
	if !j.EndTime.IsZero() && !c.EndTime.Equal(j.EndTime.Time) {
		values = append(values, "endtime="+schedule.FormatTime(j.EndTime.Time))
	}
	if j.Concurrency != 0 && c.Concurrency != j.Concurrency {
		values = append(values, fmt.Sprintf("concurrency=%d", j.Concurrency))
	}
	if len(values) == 0 {
		return "", nil
	}
	value := strings.Join(values, ";")
	if err := m.dst.Change(m.ctx, copyID, value); err != nil {
		return "", fmt.Errorf("changing the copy's %s as on the source: %w", value, err)
	}
	return "; copy changed to " + value + " as the source", nil
}

// sourceSteps describes what happens to a source coordinator once its copy
// is submitted.
func (m *migrator) sourceSteps(j *client.CoordJob, h handOver) []string {
	var steps []string
	if m.suspend && !suspendedStatus(j.Status) {
		steps = append(steps, "would suspend the source")
	}
	if h.Cap {
		steps = append(steps, "would set the source's end time to "+minute(h.From))
	}
	return steps
}

// afterCopy changes a source job once its copy exists: suspended with
// -suspend-source, then (a standalone coordinator; the caller caps a
// bundle's coordinators) its end time set to the hand-over time. The
// suspension goes first: a source whose actions have all ended would end
// as soon as its end time is reached, and could not be suspended after.
// It returns what it did, as text to append to the job's line.
func (m *migrator) afterCopy(id string, h handOver, status string, bundle bool) (string, error) {
	var text string
	if m.suspend && !suspendedStatus(status) {
		if err := m.src.Suspend(m.ctx, id); err != nil {
			return text, fmt.Errorf("suspending the source: %w", err)
		}
		text += "; source suspended"
	}
	if !bundle && h.Cap {
		if err := m.src.Change(m.ctx, id, "endtime="+schedule.FormatTime(h.From)); err != nil {
			return text, fmt.Errorf("setting the source's end time to %s: %w", minute(h.From), err)
		}
		text += "; source end time set to " + minute(h.From)
	}
	return text, nil
}

// describeSubmission is the dry run's account of a submission: the
// application path and the properties migrate adds.
func describeSubmission(cf *conf.Config) string {
	var parts []string
	for _, k := range []string{vocab.PropCoordAppPath, vocab.PropBundleAppPath} {
		if v, ok := cf.Get(k); ok {
			parts = append(parts, k+"="+v)
		}
	}
	var added []string
	for _, p := range cf.Properties() {
		if strings.HasPrefix(p.Name, "gozie.coord.") || p.Name == vocab.PropMigratedFrom {
			added = append(added, p.Name+"="+p.Value)
		}
	}
	sort.Strings(added)
	return strings.Join(append(parts, added...), " ")
}

// workflowsInFlight lists the source's running and suspended workflows
// that no coordinator launched: migrate does not move them (they finish
// on the source, or are submitted again by hand).
func (m *migrator) workflowsInFlight() (int, error) {
	l, err := m.listWorkflows()
	if err != nil {
		return 0, err
	}
	n := 0
	for _, w := range l {
		if client.KindOf(string(w.ParentID)) == client.KindCoordAction && w.ParentID != "" {
			continue
		}
		n++
		text := "in flight, left on the source"
		if w.ParentID != "" {
			text += " (sub-workflow of " + string(w.ParentID) + ")"
		}
		m.line("workflow", w.ID, string(w.AppName), w.Status, text)
	}
	return n, nil
}

// listWorkflows reads the source's RUNNING and SUSPENDED workflow jobs
// that the user's filter (without its statuses) selects.
func (m *migrator) listWorkflows() ([]*client.WorkflowJob, error) {
	var keep []string
	for _, p := range strings.Split(m.filter, ";") {
		k, _, _ := strings.Cut(p, "=")
		if strings.TrimSpace(p) != "" && !strings.EqualFold(strings.TrimSpace(k), "status") {
			keep = append(keep, p)
		}
	}
	filter := sourceFilter(strings.Join(keep, ";"), []string{"RUNNING", "SUSPENDED"})
	var all []*client.WorkflowJob
	for offset := 1; ; offset += migratePage {
		l, _, err := m.src.Jobs(m.ctx, client.ListOptions{JobType: "wf", Filter: filter, Offset: offset, Len: migratePage})
		if err != nil {
			return nil, fmt.Errorf("reading the source's workflow jobs: %w", err)
		}
		all = append(all, l.Workflows...)
		if len(l.Workflows) == 0 || offset+len(l.Workflows) > l.Total {
			return all, nil
		}
	}
}
