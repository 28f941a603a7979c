package coord

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/gozie/gozie/internal/conf"
	"github.com/gozie/gozie/internal/vocab"
)

// DryRunAction is one action of a dry run.
type DryRunAction struct {
	Plan *ActionPlan
	// Missing are the dependencies absent at the time of the dry run, then
	// the latest/future instances that could not be resolved.
	Missing []string
	// NotChecked counts the last dependencies of Missing (before the
	// unresolved ranges) that were not checked (CheckResult.NotChecked).
	NotChecked int
	// Status is READY when nothing is missing, else WAITING.
	Status string
	// RunConf is the workflow configuration the action would submit, as
	// Hadoop configuration XML (for WAITING actions, coord:dataIn of
	// unresolved latest/future inputs stays as EL text).
	RunConf string

	runConf    *conf.Config // RunConf before encoding
	unresolved int          // the last entries of Missing that are latest/future ranges
}

// DryRunResult is a whole dry run.
type DryRunResult struct {
	App     *App
	Conf    *conf.Config // the job configuration after defaults
	Actions []DryRunAction
}

// DryRunJobID is the job id of a dry run: Oozie's id format with the
// counter 0, which no submitted job gets, and the system id "dryrun".
// Action n of a dry run is DryRunJobID@n, the id coord:actionId() gives it.
const DryRunJobID = "0000000-000000000000000-dryrun-C"

// DryRun submits props without persisting anything and materializes the
// actions from start to end (at most limit when limit > 0), checking their
// inputs with exists as things are at opts.Now, which is also every
// action's creation time. Action n gets the id DryRunJobID@n. Nothing runs.
func DryRun(props *conf.Config, opts SubmitOptions, exists func(string) (bool, error), limit int) (*DryRunResult, error) {
	res := &DryRunResult{}
	a, job, err := DryRunEach(props, opts, exists, limit, true, func(da DryRunAction) error {
		res.Actions = append(res.Actions, da)
		return nil
	})
	if err != nil {
		return nil, err
	}
	res.App, res.Conf = a, job
	return res, nil
}

// DryRunEach is DryRun handing each action to fn as soon as it is planned,
// so that a caller printing a long dry run holds one action at a time;
// without withXML the actions' ActionXML stays empty, which halves the work
// for callers that do not print it. An error from fn stops the run and is
// returned.
func DryRunEach(props *conf.Config, opts SubmitOptions, exists func(string) (bool, error), limit int, withXML bool, fn func(DryRunAction) error) (*App, *conf.Config, error) {
	a, job, err := Submit(props, opts)
	if err != nil {
		return nil, nil, err
	}
	if exists == nil {
		exists = func(string) (bool, error) { return false, nil }
	}
	created, err := confXML(job)
	if err != nil {
		return nil, nil, err
	}
	if limit <= 0 {
		limit = -1
	}
	cw := newConfWriter()
	var ferr error
	a.walk(a.Start, 0, a.End, time.Time{}, limit, func(n int, nominal time.Time) bool {
		var p *ActionPlan
		if p, ferr = a.planAction(n, nominal, opts.Now, job, created, withXML); ferr != nil {
			return false
		}
		p.ID = vocab.CoordActionID(DryRunJobID, n)
		// Oozie's dry run validates the input logic of every action.
		if ferr = a.ValidateLogic(p); ferr != nil {
			return false
		}
		var chk *CheckResult
		if chk, ferr = a.CheckInputs(p, job, exists, opts.Now); ferr != nil {
			return false
		}
		da := DryRunAction{Plan: chk.Plan, Missing: chk.Missing, NotChecked: chk.NotChecked, Status: StatusWaiting, unresolved: len(chk.Unresolved)}
		if chk.Ready {
			da.Status = StatusReady
		}
		var rc *conf.Config
		if rc, ferr = a.RunConf(chk.Plan, job); ferr != nil {
			return false
		}
		da.runConf = rc
		if da.RunConf, ferr = cw.xml(rc); ferr != nil {
			return false
		}
		if ferr = a.checkRunConfXML(chk.Plan, len(da.RunConf)); ferr != nil {
			return false
		}
		ferr = fn(da)
		return ferr == nil
	})
	if ferr != nil {
		return nil, nil, ferr
	}
	return a, job, nil
}

// confXML writes c as Hadoop configuration XML.
func confXML(c *conf.Config) (string, error) {
	return newConfWriter().xml(c)
}

// confWriter writes many configurations through one buffered writer:
// conf.WriteXML reuses a *bufio.Writer it is handed, which saves a 4 KB
// buffer per action in long dry runs.
type confWriter struct {
	buf bytes.Buffer
	w   *bufio.Writer
}

func newConfWriter() *confWriter {
	cw := &confWriter{}
	cw.w = bufio.NewWriterSize(&cw.buf, 4096)
	return cw
}

func (cw *confWriter) xml(c *conf.Config) (string, error) {
	cw.buf.Reset()
	if err := c.WriteXML(cw.w); err != nil {
		return "", err
	}
	return cw.buf.String(), nil
}

// restTime is the REST date format (RFC 822 in GMT).
func restTime(t time.Time) string { return t.UTC().Format("Mon, 02 Jan 2006 15:04:05 GMT") }

// actionJSON is a dry-run action with the REST coordinator action keys
// (rest-api §5.4) plus the resolved inputs and outputs.
type actionJSON struct {
	ID                  string              `json:"id"`
	ActionNumber        int                 `json:"actionNumber"`
	NominalTime         string              `json:"nominalTime"`
	CreatedTime         string              `json:"createdTime"`
	Status              string              `json:"status"`
	MissingDependencies string              `json:"missingDependencies"`
	InputURIs           map[string][]string `json:"inputURIs"`
	OutputURIs          map[string][]string `json:"outputURIs"`
	CreatedConf         string              `json:"createdConf"`
	RunConf             string              `json:"runConf"`
	ActionXML           string              `json:"actionXml,omitempty"`
	InputLogic          []string            `json:"inputLogic,omitempty"`
}

// MarshalJSON encodes a dry-run action with the REST coordinator action
// keys (id, actionNumber, nominalTime, createdTime, status, missingDependencies
// '#'-separated with Oozie's "!!" before unresolved latest/future ranges, createdConf, runConf) plus inputURIs and outputURIs by
// event name, when built actionXml, and for an app with input logic
// inputLogic, the evaluated tree.
func (da DryRunAction) MarshalJSON() ([]byte, error) {
	p := da.Plan
	return json.Marshal(actionJSON{
		ID: p.ID, ActionNumber: p.Number, NominalTime: restTime(p.NominalTime), CreatedTime: restTime(p.CreatedTime),
		Status: da.Status, MissingDependencies: JoinMissing(da.Missing, da.unresolved),
		InputURIs: p.InputURIs, OutputURIs: p.OutputURIs,
		CreatedConf: p.CreatedConf, RunConf: da.RunConf, ActionXML: p.ActionXML,
		InputLogic: logicTree(p),
	})
}

// DryRunJSONPrefix is the start of the dry-run JSON object up to the
// opening of its "actions" array, for callers that stream the actions.
func DryRunJSONPrefix(a *App) ([]byte, error) {
	head, err := json.Marshal(struct {
		Name      string `json:"coordJobName"`
		Start     string `json:"startTime"`
		End       string `json:"endTime"`
		Frequency string `json:"frequency"`
		TimeUnit  string `json:"timeUnit"`
		TimeZone  string `json:"timeZone"`
		Execution string `json:"executionPolicy"`
	}{a.Name, restTime(a.Start), restTime(a.End), a.Frequency, a.TimeUnit, a.TimeZone, a.Execution})
	if err != nil {
		return nil, err
	}
	return append(head[:len(head)-1], `,"actions":[`...), nil
}

// MarshalJSON prints {"coordJobName": ..., "actions": [...]}, each action
// as DryRunAction.MarshalJSON does.
func (r *DryRunResult) MarshalJSON() ([]byte, error) {
	out, err := DryRunJSONPrefix(r.App)
	if err != nil {
		return nil, err
	}
	for i, da := range r.Actions {
		if i > 0 {
			out = append(out, ',')
		}
		b, err := da.MarshalJSON()
		if err != nil {
			return nil, err
		}
		out = append(out, b...)
	}
	return append(out, "]}"...), nil
}

// WriteText prints the dry run for people: the job, then per action its
// number, nominal time, status, resolved inputs and outputs, missing
// dependencies and the workflow configuration it would run with.
func (r *DryRunResult) WriteText(w io.Writer) error {
	WriteDryRunHeader(w, r.App)
	for _, da := range r.Actions {
		if err := WriteDryRunAction(w, r.App, da); err != nil {
			return err
		}
	}
	_, err := fmt.Fprintf(w, "\n%d action(s)\n", len(r.Actions))
	return err
}

// WriteDryRunHeader prints the job line of a text dry run.
func WriteDryRunHeader(w io.Writer, a *App) {
	fmt.Fprintf(w, "Coordinator %q: %s to %s, frequency %s %s, timezone %s, execution %s\n",
		a.Name, a.Processing.Format(a.Start), a.Processing.Format(a.End), a.Frequency, a.TimeUnit, a.TimeZone, a.Execution)
}

// WriteDryRunAction prints one action of a text dry run.
func WriteDryRunAction(w io.Writer, a *App, da DryRunAction) error {
	p := da.Plan
	var b strings.Builder
	fmt.Fprintf(&b, "\nAction %d  nominal %s  %s\n", p.Number, a.Processing.Format(p.NominalTime), da.Status)
	for _, ev := range a.Inputs {
		fmt.Fprintf(&b, "  input %s: %s\n", ev.Name, strings.Join(p.InputURIs[ev.Name], ","))
		if u := p.UnresolvedByEvent[ev.Name]; u != "" {
			fmt.Fprintf(&b, "  input %s unresolved: %s\n", ev.Name, u)
		}
	}
	for _, ev := range a.Outputs {
		fmt.Fprintf(&b, "  output %s: %s\n", ev.Name, strings.Join(p.OutputURIs[ev.Name], ","))
		if u := p.OutputUnresolved[ev.Name]; u != "" {
			// Never resolved: coord:dataOut of it is empty, as in Oozie.
			fmt.Fprintf(&b, "  output %s unresolved: %s\n", ev.Name, u)
		}
	}
	if tree := logicTree(p); len(tree) > 0 {
		b.WriteString("  input logic:\n")
		for _, line := range tree {
			b.WriteString("    " + line + "\n")
		}
	}
	// As Oozie's input check, the check stopped at the first missing
	// dependency: the ones after it are not known to be missing.
	resolved := len(da.Missing) - da.unresolved
	for i, m := range da.Missing {
		label := "missing"
		if i >= resolved-da.NotChecked && i < resolved {
			label = "not checked yet"
		}
		fmt.Fprintf(&b, "  %s: %s\n", label, m)
	}
	b.WriteString("  workflow configuration:\n")
	if da.runConf != nil {
		for _, pr := range da.runConf.Properties() {
			fmt.Fprintf(&b, "    %s=%s\n", pr.Name, pr.Value)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// DryRunText is the server's coordinator dry-run answer (rest-api §3.1):
// the job's definition, then for each action "action for new instance" and
// its materialized action XML.
func DryRunText(r *DryRunResult) string {
	var b strings.Builder
	b.WriteString(r.App.Definition)
	b.WriteString("\n***actions for instance***")
	for _, da := range r.Actions {
		b.WriteString("action for new instance")
		b.WriteString(da.Plan.ActionXML)
	}
	return b.String()
}

// logicTree is the evaluated input logic of an action's last check, nil
// without input logic.
func logicTree(p *ActionPlan) []string {
	if p.Logic == nil {
		return nil
	}
	return p.Logic.Tree
}
