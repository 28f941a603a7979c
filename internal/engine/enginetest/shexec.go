package enginetest

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"

	"github.com/gozie/gozie/internal/action"
)

// ShExec is an action executor that runs each action as a detached shell
// that appends "<node>#<attempt>" to Log: an external system that outlives
// the server. Starting the
// same attempt twice runs the work once, because the shell first takes a
// lock directory in the attempt's WorkDir.
type ShExec struct {
	Log string
	// Label, when set, prefixes the node name in the line (the coordinator
	// crash test tells the same node of different workflows apart by it).
	Label func(a *action.Context) string
}

func (x ShExec) line(a *action.Context) string {
	if x.Label != nil {
		return fmt.Sprintf("%s/%s#%d", x.Label(a), a.Name, a.Attempt)
	}
	return fmt.Sprintf("%s#%d", a.Name, a.Attempt)
}

func (x ShExec) Start(ctx context.Context, a *action.Context) (action.Result, error) {
	// The engine names the work directory; executors create it.
	script := fmt.Sprintf(`mkdir -p "%[1]s" && mkdir "%[1]s/lock" 2>/dev/null || exit 0; sleep 0.02; echo "%[2]s" >> "%[3]s"`, a.WorkDir, x.line(a), x.Log)
	cmd := exec.Command("sh", "-c", script)
	if err := cmd.Start(); err != nil {
		return action.Result{}, action.Errorf(action.Transient, "SH1", "%v", err)
	}
	go func() {
		_ = cmd.Wait()
		a.Notify()
	}()
	return action.Result{ExternalID: a.WorkDir, ExternalStatus: "RUNNING"}, nil
}

func (x ShExec) Check(ctx context.Context, a *action.Context, id string) (action.Result, error) {
	lines, _ := ReadLines(x.Log)
	for _, l := range lines {
		if l == x.line(a) {
			return action.Result{ExternalID: id, ExternalStatus: "SUCCEEDED", Done: true, Status: action.OK}, nil
		}
	}
	return action.Result{ExternalID: id, ExternalStatus: "RUNNING"}, nil
}

func (x ShExec) Kill(ctx context.Context, a *action.Context, id string) error { return nil }

// ReadLines returns the lines of a file.
func ReadLines(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		out = append(out, sc.Text())
	}
	return out, sc.Err()
}
