package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gozie/gozie/internal/engine"
	"github.com/gozie/gozie/internal/launch"
	"github.com/gozie/gozie/internal/store"
)

// runRegistry builds the executors of `gozie run`; tests replace it to
// make an action fail in ways real ones rarely do.
var runRegistry = newActionRegistry

// Causes of `gozie run` giving up on a job before it ended.
var (
	errSuspended = errors.New("job suspended")
	errTimedOut  = errors.New("-timeout reached")
)

// progress prints `gozie run`'s running commentary on stderr: the job id
// as soon as the job exists, then one line per node as it starts and as it
// ends, with a failed step's stderr tail and where its output is kept.
// The engine calls note with the job locked, so note only prints.
type progress struct {
	mu        sync.Mutex
	w         io.Writer
	dataDir   string
	announced map[string]bool // job ids whose id line was printed
	started   map[string]bool // action id/attempt whose start was printed
	suspendID string
	suspended func()
	// status is each job's status as of its last transition, so that
	// onSuspend called after the job was suspended still fires.
	status map[string]string
	now    func() time.Time
	// verbose (gozie run -v) prints each step's stdout and stderr lines
	// as the step writes them (follow.go); following holds the attempts
	// being read, by action id/attempt.
	verbose   bool
	following map[string]*stepOutput
}

func newProgress(w io.Writer, dataDir string) *progress {
	return &progress{w: w, dataDir: dataDir, announced: map[string]bool{}, started: map[string]bool{},
		following: map[string]*stepOutput{}, status: map[string]string{}, now: time.Now}
}

// onSuspend arranges for f to run (once) when job id is suspended: `gozie
// run` has nobody to resume it. The job runs while its submission
// returns, so it may be suspended already: then f runs now.
func (p *progress) onSuspend(id string, f func()) {
	p.mu.Lock()
	if p.status[id] == store.JobSuspended {
		p.mu.Unlock()
		f()
		return
	}
	p.suspendID, p.suspended = id, f
	p.mu.Unlock()
}

func (p *progress) note(t engine.Transition) {
	p.mu.Lock()
	defer p.mu.Unlock()
	j := &t.Job
	prefix := ""
	if j.ParentID != "" {
		prefix = "  [" + j.AppName + "] " // a sub-workflow's nodes, indented
	}
	stamp := p.now().Format("15:04:05")
	if !p.announced[j.ID] {
		p.announced[j.ID] = true
		if j.ParentID == "" {
			fmt.Fprintf(p.w, "job: %s (app %s)\n", j.ID, j.AppName)
		} else if strings.Contains(j.ParentID, "-C@") {
			// A bundle's run: the workflow of a coordinator action.
			fmt.Fprintf(p.w, "%s %sworkflow job: %s (coordinator action %s)\n", stamp, prefix, j.ID, j.ParentID)
		} else {
			fmt.Fprintf(p.w, "%s %ssub-workflow job: %s\n", stamp, prefix, j.ID)
		}
	}
	for i := range t.Actions {
		a := &t.Actions[i]
		key := a.ID + "/" + strconv.Itoa(a.Attempt)
		switch a.Status {
		case store.ActionPrep, store.ActionRunning:
			p.followStep(key, launch.RunDir(p.dataDir, a.ID, a.Attempt, a.ExternalID), prefix, a.Name)
			if p.started[key] {
				continue
			}
			p.started[key] = true
			what := "started"
			if a.Attempt > 0 {
				what = fmt.Sprintf("started, attempt %d", a.Attempt+1)
			}
			fmt.Fprintf(p.w, "%s %s%-20s %-12s %s\n", stamp, prefix, a.Name, a.Type, what)
			continue
		}
		// The step's last output before its end line. An action in
		// USER_RETRY already counts its next attempt: every attempt
		// followed goes.
		for k := range p.following {
			if strings.HasPrefix(k, a.ID+"/") {
				p.unfollowStep(k)
			}
		}
		line := a.Status
		if a.ErrorCode != "" || a.ErrorMessage != "" {
			line += fmt.Sprintf(" [%s] %s", a.ErrorCode, oneLine(a.ErrorMessage))
		}
		if a.Transition != "" {
			line += " -> " + a.Transition
		}
		fmt.Fprintf(p.w, "%s %s%-20s %-12s %s\n", stamp, prefix, a.Name, a.Type, line)
		if a.Status != store.ActionOK {
			p.stderrTail(a)
		}
	}
	p.status[j.ID] = j.Status
	if j.ID == p.suspendID && j.Status == store.JobSuspended && p.suspended != nil {
		f := p.suspended
		p.suspended = nil
		f()
	}
}

// stderrTail prints the last lines of a failed step's stderr and where its
// full stdout and stderr are kept; steps that run no process have none.
func (p *progress) stderrTail(a *store.Action) {
	dir := launch.RunDir(p.dataDir, a.ID, a.Attempt, a.ExternalID)
	errPath := filepath.Join(dir, "stderr")
	tail, err := engine.TailFile(errPath, engine.StderrTailLines)
	if err != nil {
		return
	}
	if tail == "" {
		fmt.Fprintf(p.w, "         stderr is empty; stdout in %s\n", filepath.Join(dir, "stdout"))
		return
	}
	fmt.Fprintf(p.w, "         last lines of stderr (full stderr in %s, stdout in %s):\n", errPath, filepath.Join(dir, "stdout"))
	for _, l := range strings.Split(tail, "\n") {
		fmt.Fprintf(p.w, "           %s\n", l)
	}
}

// explainSuspended says why a job `gozie run` waits for is suspended (the
// action that needs a person, with its error) and what to do about it:
// `gozie run` has nobody to resume it, so it kills the job; a server keeps
// it for `gozie job -resume`.
func explainSuspended(w io.Writer, e *engine.Engine, id, config string) {
	why := ""
	if _, acts, err := e.Job(context.Background(), id); err == nil {
		for _, a := range acts {
			if a.Status == store.ActionStartManual || a.Status == store.ActionEndManual {
				why = fmt.Sprintf(": action [%s] is %s, error [%s] %s", a.Name, a.Status, a.ErrorCode, oneLine(a.ErrorMessage))
				break
			}
		}
	}
	if config == "" {
		config = "job.properties"
	}
	fmt.Fprintf(w, "Error: job %s is SUSPENDED%s\n", id, why)
	fmt.Fprintf(w, "gozie run cannot wait for someone to fix and resume it, so it kills the job. To fix the cause and resume instead, run the job on a server: 'gozie job -run -config %s', then 'gozie job -resume ID' (or 'gozie job -kill ID').\n", config)
}
