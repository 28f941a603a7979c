package engine

import (
	"context"
	"errors"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/gozie/gozie/internal/conf"
	"github.com/gozie/gozie/internal/effect"
	"github.com/gozie/gozie/internal/el"
	"github.com/gozie/gozie/internal/fsys"
	"github.com/gozie/gozie/internal/store"
	"github.com/gozie/gozie/internal/vocab"
	"github.com/gozie/gozie/internal/workflow"
)

// Job properties the engine reads.
const (
	PropAppPath  = vocab.PropAppPath
	PropUser     = vocab.PropUser
	PropGroup    = vocab.PropGroup
	PropACL      = vocab.PropACL
	PropExternal = vocab.PropExternal
)

// parseOptions are the workflow parser's options for this engine: Oozie's
// defaults, with every action type that has an executor accepted (E0723
// otherwise).
func (e *Engine) parseOptions(props *conf.Config) workflow.Options {
	opts := workflow.DefaultOptions()
	opts.ExtensionActions = workflow.DefaultExtensionActions()
	opts.MaxDefinitionLength = int(e.opts.MaxDefinitionBytes)
	opts.DefaultNameNode, opts.DefaultJobTracker = e.ActionDefaults()
	for _, t := range e.actions.Types() {
		opts.ExtensionActions[t] = true
	}
	if props != nil {
		if v, ok := props.Get(workflow.PropValidateForkJoin); ok {
			opts.JobConf = map[string]string{workflow.PropValidateForkJoin: v}
		}
	}
	return opts
}

// ActionDefaults returns the server defaults of an action's name-node and
// job-tracker (Options.DefaultNameNode, DefaultJobTracker), for
// validation elsewhere.
func (e *Engine) ActionDefaults() (nameNode, jobTracker string) {
	return e.opts.DefaultNameNode, e.opts.DefaultJobTracker
}

// ActionTypes returns the action types this engine has executors for:
// what submission accepts outside the workflow namespace (custom types
// of the server's configuration included), for validation elsewhere.
func (e *Engine) ActionTypes() []string { return e.actions.Types() }

// parentInfo describes the sub-workflow action that submits a child job.
type parentInfo struct {
	jobID, actionID string
	attempt, depth  int
	// launch is the coordinator effect creating the job, so that a retry
	// of the effect finds the job it created before (Launch).
	launch int64
}

// Submit creates a workflow job in PREP from its job properties (as
// job.properties and -D give them) and returns its id. It loads the
// application (spec: wf 7), applies config-default.xml and
// <parameters> (section 4.1), and refuses the job with an Oozie error code
// when the application cannot be read or is invalid.
func (e *Engine) Submit(ctx context.Context, props *conf.Config) (string, error) {
	return e.submit(ctx, props, nil)
}

// Run submits a job and starts it in one transaction: the job is created
// RUNNING, its first actions recorded and their start effects pending, so
// no failure or crash can leave it in PREP after Run reported an id. A
// failed Run created nothing. A top-level job whose oozie.wf.external.id
// its user already used is not created again: Run (like Submit) returns
// the existing job's id, so a client may repeat a submission whose answer
// it lost.
func (e *Engine) Run(ctx context.Context, props *conf.Config) (string, error) {
	return e.create(ctx, props, nil, true)
}

func (e *Engine) submit(ctx context.Context, props *conf.Config, parent *parentInfo) (string, error) {
	return e.create(ctx, props, parent, false)
}

// create loads, checks and stores a new workflow job, in PREP or, with
// start, already started.
func (e *Engine) create(ctx context.Context, props *conf.Config, parent *parentInfo, start bool) (string, error) {
	nj, err := e.prepareJob(ctx, props, parent, start)
	if err != nil {
		return "", err
	}
	err = e.store.Update(ctx, func(tx store.Tx) error {
		// Runs again from the top when the store retries a conflict:
		// Write recomputes every value it sets.
		nj.existing = ""
		if nj.job.ExternalID != "" {
			id, err := jobByExternalID(ctx, tx, nj.job.User, nj.job.ExternalID)
			if err != nil || id != "" {
				nj.existing = id
				return err
			}
		}
		_, err := nj.Write(ctx, tx)
		return err
	})
	if err != nil && nj.job.ExternalID != "" {
		// Two submissions with one external id raced and the unique
		// index let the other insert win, or this transaction did commit
		// but its acknowledgement was lost. Either way the job exists:
		// answer with it, and perform its pending effects now in case
		// they are this transaction's, never dispatched.
		var id string
		if e.store.View(ctx, func(tx store.Tx) (err error) {
			id, err = jobByExternalID(ctx, tx, nj.job.User, nj.job.ExternalID)
			return err
		}) == nil && id != "" {
			e.rt.SweepJob(ctx, id)
			return id, nil
		}
	}
	if err != nil {
		return "", err
	}
	if nj.existing != "" {
		if start {
			// Submitted earlier without a start: a Run answers with a
			// started job, always.
			if err := e.StartJob(ctx, nj.existing); err != nil && ErrorCode(err) != CodeAlreadyStarted {
				return "", err
			}
		}
		return nj.existing, nil
	}
	nj.Committed()
	return nj.job.ID, nil
}

// newJob is a workflow job read, parsed and checked, to be written by a
// transaction: the engine's own (create) or another engine's, together
// with its own change (StageLaunch). It is an effect.StagedJob.
type newJob struct {
	e     *Engine
	job   *store.Job    // the job to write; its ID is set by write
	reuse *workflow.App // the parse the job's state reuses, nil to parse again
	start bool          // written RUNNING, its first actions started

	existing string    // create: the job found by its external id
	ch       *change   // the start's change, once written
	st       *jobState // the started job's state, once written
}

// Write stores the job in tx: a new job number, the job row (PREP) or the
// start's change (RUNNING), its submission log line. It may run again
// when the store retries the transaction, and returns the job as written.
func (nj *newJob) Write(ctx context.Context, tx store.Tx) (*store.Job, error) {
	e := nj.e
	nj.ch, nj.st = nil, nil
	n, err := tx.NextSequence(ctx, store.JobSequence)
	if err != nil {
		return nil, err
	}
	j := *nj.job
	j.ID = formatJobID(n, e.started, e.opts.SystemID, "W")
	if !nj.start {
		if err := tx.PutJob(ctx, &j); err != nil {
			return nil, err
		}
		if err := nj.registerSLA(ctx, tx, &j); err != nil {
			return nil, err
		}
	}
	// Started at once, the job row is written by the start's change
	// below, RUNNING: one row version instead of a PREP one replaced in
	// the same transaction (on PostgreSQL, every index entry of the job
	// twice).
	if err := tx.AppendLog(ctx, submitLog(&j)); err != nil {
		return nil, err
	}
	nj.job.ID = j.ID
	if !nj.start {
		return &j, nil
	}
	st, err := loadState(&j, nil, e.parseOptions, nj.reuse)
	if err != nil {
		return nil, err
	}
	// The job's SLA is tracked from its submission (Oozie registers it
	// then), in the transaction that writes the job.
	st.registerSLA(e, st.app.SLA, "")
	if err := st.startJob(e); err != nil {
		return nil, err
	}
	st.jobDirty = true // the job row is not written yet
	nj.st, nj.ch = st, e.takeChange(st)
	if err := nj.ch.write(ctx, tx); err != nil {
		return nil, err
	}
	return &nj.ch.jobAt, nil
}

// Committed follows the commit of the transaction that wrote the job: the
// start's effects are dispatched.
func (nj *newJob) Committed() {
	if nj.ch == nil {
		return
	}
	// Kept, so that the start just dispatched does not load and parse
	// the job again; unless something loaded it meanwhile (a sweep of
	// pending effects), whose copy is as good and in use.
	nj.e.jobs.Keep(nj.st.job.ID, nj.st)
	nj.e.committed(nj.st, nj.ch)
}

// StageLaunch prepares the workflow of coordinator action actionID (its
// ParentID) for the coordinator's own transaction, which writes it
// started, records the action RUNNING and marks the launching effect
// (launch, recorded as for Launch) done: one commit. Nothing is stored
// until the returned job's Write; its Committed dispatches the workflow's
// first effects once that transaction has committed.
func (e *Engine) StageLaunch(ctx context.Context, props *conf.Config, actionID string, launch int64) (effect.StagedJob, error) {
	return e.prepareJob(ctx, props, &parentInfo{jobID: actionID, actionID: actionID, launch: launch}, true)
}

// prepareJob reads, parses and checks a new job's application and
// properties (spec: wf 7, wf 4.1) and returns the job to write.
func (e *Engine) prepareJob(ctx context.Context, props *conf.Config, parent *parentInfo, start bool) (*newJob, error) {
	props = props.Clone()
	if _, ok := props.Get(PropUser); !ok && e.opts.DefaultUser != "" {
		props.Set(PropUser, e.opts.DefaultUser)
	}
	userName, ok := props.Get(PropUser)
	if !ok || userName == "" {
		return nil, errorf(CodeMissingProperty, "Missing configuration property [%s]", PropUser)
	}
	appPath, ok := props.Get(PropAppPath)
	if !ok || strings.TrimSpace(appPath) == "" {
		return nil, errorf(CodeNoAppPath, "Submission request does not have any application or lib path (%s is not set)", PropAppPath)
	}
	// The application is read with its user's rights when the server
	// acts for the user.
	ctx, err := e.JobUserContext(ctx, userName)
	if err != nil {
		return nil, err
	}
	ctx = fsys.WithConf(ctx, props)
	src, err := e.readApp(ctx, strings.TrimSpace(appPath), props)
	if err != nil {
		return nil, err
	}
	app, reuse, err := e.parseApp(src.data, props)
	if err != nil {
		return nil, err
	}
	var confXML strings.Builder
	if err := props.WriteXML(&confXML); err != nil {
		return nil, err
	}
	extra := jobExtra{AppRoot: src.root, Defaults: src.defaults.ToMap()}
	now := e.now()
	job := &store.Job{
		AppPath: src.shown, User: userName, Status: store.JobPrep,
		Conf: confXML.String(), Definition: string(src.data), CreatedTime: now, LastModTime: now,
	}
	job.Group, _ = props.Get(PropGroup)
	job.ACL, _ = props.Get(PropACL)
	if parent == nil {
		// Only the job a client submitted carries its external id: the
		// id names one submission (store keeps it unique per user), and
		// a sub-workflow or coordinator run may inherit the property
		// from its parent's configuration.
		ext, _ := props.Get(PropExternal)
		job.ExternalID = strings.TrimSpace(ext)
	}
	job.AppName = app.Name
	if el.HasExpr(app.Name) {
		// The name may use job properties; an unresolvable name is kept
		// as written rather than refusing the job over a label.
		st := &jobState{job: job, conf: props, vars: workflow.Variables(props), actions: map[string]*store.Action{}}
		if v, err := st.evaluator(e, "").EvalString(app.Name); err == nil {
			job.AppName = v
		}
	}
	if parent != nil {
		job.ParentID = parent.jobID
		extra.ParentAction, extra.ParentAttempt, extra.Depth = parent.actionID, parent.attempt, parent.depth
		extra.Launch = parent.launch
	}
	job.State = extra.encode()
	return &newJob{e: e, job: job, reuse: reuse, start: start}, nil
}

// appSource is what a submission read of its application.
type appSource struct {
	root, shown string       // the application's root; the app path to show
	data        []byte       // the definition
	defaults    *conf.Config // config-default.xml, empty when absent
}

// readApp reads the definition and config-default.xml of the application
// at appPath, merging the defaults into props and setting its app path to
// the one shown.
func (e *Engine) readApp(ctx context.Context, appPath string, props *conf.Config) (*appSource, error) {
	root, defPath, shown, err := locateApp(ctx, appPath)
	if err != nil {
		return nil, err
	}
	props.Set(PropAppPath, shown)
	data, err := e.ReadDefinition(ctx, defPath)
	if err != nil {
		return nil, cannotRead(err)
	}
	defaults := conf.New()
	if dp := childOf(root, "config-default.xml", false); fileExists(ctx, dp) {
		if defaults, err = e.ReadConfFile(ctx, dp); err != nil {
			return nil, cannotRead(err)
		}
		if defaults.Has(PropUser) {
			return nil, errorf(CodeDisallowedDefault, "Disallowed default property [%s]", PropUser)
		}
		props.MergeDefaults(defaults)
	}
	return &appSource{root: root, shown: shown, data: data, defaults: defaults}, nil
}

// parseApp parses a definition, applies its <parameters> to props and
// checks the result: expansion bounds, an executor for every action. It
// returns the app and the parse the job's state may reuse (nil when a
// parameter default changed a parser option).
func (e *Engine) parseApp(data []byte, props *conf.Config) (app, reuse *workflow.App, err error) {
	app, err = workflow.Parse(data, e.parseOptions(props))
	if err != nil {
		return nil, nil, err
	}
	fjBefore, _ := props.Get(workflow.PropValidateForkJoin)
	params, err := app.ApplyParameters(props.Has)
	if err != nil {
		return nil, nil, err
	}
	for _, p := range params {
		props.Set(p.Name, p.Value)
	}
	// The job's state uses this parse instead of parsing the definition
	// again (the largest part of a short job's engine cost), unless a
	// parameter default changed a parser option.
	reuse = app
	if fjAfter, _ := props.Get(workflow.PropValidateForkJoin); fjAfter != fjBefore {
		reuse = nil
	}
	if err := e.CheckExpansion(props); err != nil {
		return nil, nil, err
	}
	for _, n := range app.Nodes {
		if n.Kind != workflow.ActionNode {
			continue
		}
		if _, ok := e.actions.Lookup(n.Action.Type); !ok {
			return nil, nil, errorf(CodeUnsupportedAction, "Unsupported action type, node [%s] type [%s]; this server runs: %s",
				n.Name, n.Action.Type, strings.Join(e.actions.Types(), ", "))
		}
	}
	if err := e.credentials().Check(app); err != nil {
		return nil, nil, err
	}
	return app, reuse, nil
}

// jobByExternalID returns the id of the top-level job of user submitted
// with the external id ext, or "".
func jobByExternalID(ctx context.Context, tx store.Tx, user, ext string) (string, error) {
	jobs, err := tx.Jobs(ctx, store.JobFilter{User: user, ExternalID: ext, Brief: true, Limit: 1})
	if err != nil || len(jobs) == 0 {
		return "", err
	}
	return jobs[0].ID, nil
}

// locateApp finds the application of an app path (spec: wf 7): a directory
// holding workflow.xml, or the definition file itself, on any store the
// namespace reaches (after its mount table). It returns the application
// root (a local directory when the app is local, else the store's URI),
// the definition file, and the path to show as the job's app path: the
// user's own spelling made absolute (keeping a file: or store scheme).
func locateApp(ctx context.Context, appPath string) (root, def, shown string, err error) {
	ns := fsys.Default()
	r, err := ns.Resolve(ctx, appPath)
	if err != nil { // an unknown scheme, a malformed URI
		return "", "", "", errorf(CodeInvalidAppURI, "Invalid application URI [%s], %v", appPath, err)
	}
	local, isLocal := r.Local()
	shown = appPath
	switch s := fsys.Scheme(appPath); {
	case s == "" || s == "file" && isLocal && !mounted(ns, appPath):
		abs, err := filepath.Abs(local)
		if err != nil {
			return "", "", "", errorf(CodeInvalidAppURI, "Invalid application URI [%s], %v", appPath, err)
		}
		local, shown = abs, abs
		if s == "file" {
			shown = "file://" + abs
		}
	default:
		shown = strings.TrimSuffix(appPath, "/")
	}
	info, err := ns.Stat(ctx, appPath)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", "", "", errorf(CodeAppDirMissing, "App directory [%s] does not exist", appPath)
	case err != nil:
		return "", "", "", errorf(CodeCannotRead, "Could not read the workflow definition, %v", err)
	}
	dir, file := local, ""
	if !isLocal {
		dir = r.Path
	}
	if !info.IsDir() {
		file, dir = dir, parentOf(dir, isLocal)
	} else {
		file = childOf(dir, "workflow.xml", isLocal)
		if ok, _ := ns.Exists(ctx, file); !ok {
			return "", "", "", errorf(CodeAppDefMissing, "App definition [%s] does not exist", childOf(shown, "workflow.xml", false))
		}
	}
	return dir, file, shown, nil
}

// mounted reports whether p goes through the namespace's mount table.
func mounted(ns *fsys.Namespace, p string) bool {
	for _, m := range ns.Mounts() {
		if strings.HasPrefix(p, m.From) {
			return true
		}
	}
	return false
}

// childOf joins name to a local directory or a store URI.
func childOf(dir, name string, local bool) string {
	if local || fsys.Scheme(dir) == "" {
		return filepath.Join(dir, name)
	}
	return strings.TrimSuffix(dir, "/") + "/" + name
}

// parentOf is the directory holding p, a local path or a store URI.
func parentOf(p string, local bool) string {
	if local || fsys.Scheme(p) == "" {
		return filepath.Dir(p)
	}
	if i := strings.LastIndexByte(p, '/'); i > len(fsys.Scheme(p))+3 {
		return p[:i]
	}
	return p
}

// StartJob starts a job in PREP.
func (e *Engine) StartJob(ctx context.Context, id string) error {
	st, err := e.lockState(ctx, id)
	if err != nil {
		return err
	}
	defer st.mu.Unlock()
	if st.job.Status != store.JobPrep {
		return errorf(CodeAlreadyStarted, "Job already started, job [%s] status [%s]", id, st.job.Status)
	}
	if err := st.startJob(e); err != nil {
		return err
	}
	return e.commit(ctx, st)
}

// Suspend suspends a RUNNING job and its running sub-workflows.
func (e *Engine) Suspend(ctx context.Context, id string) error {
	children, err := e.command(ctx, id, func(st *jobState) error { return st.suspend() })
	if err != nil {
		return err
	}
	for _, c := range children {
		_ = e.Suspend(ctx, c)
	}
	return nil
}

// Resume resumes a SUSPENDED job and its suspended sub-workflows.
func (e *Engine) Resume(ctx context.Context, id string) error {
	children, err := e.command(ctx, id, func(st *jobState) error { return st.resume(e) })
	if err != nil {
		return err
	}
	for _, c := range children {
		_ = e.Resume(ctx, c)
	}
	return nil
}

// Kill kills a job that has not ended; its running actions are killed,
// sub-workflows included.
func (e *Engine) Kill(ctx context.Context, id string) error {
	_, err := e.command(ctx, id, func(st *jobState) error { return st.kill(e) })
	return err
}

// command applies a job command and commits it, returning the child jobs
// of the job's running sub-workflow actions.
func (e *Engine) command(ctx context.Context, id string, fn func(*jobState) error) ([]string, error) {
	st, err := e.lockState(ctx, id)
	if err != nil {
		return nil, err
	}
	defer st.mu.Unlock()
	if err := fn(st); err != nil {
		return nil, err
	}
	var children []string
	for _, a := range st.actions {
		if a.Type == "sub-workflow" && a.ExternalID != "" && a.Status == store.ActionRunning {
			children = append(children, a.ExternalID)
		}
	}
	return children, e.commit(ctx, st)
}

// fileExists reports whether p (any store) is a regular file.
func fileExists(ctx context.Context, p string) bool {
	fi, err := fsys.Stat(ctx, p)
	return err == nil && !fi.IsDir()
}
