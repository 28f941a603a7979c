package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gozie/gozie/bench/benchserver"
)

// failover is (b) with the given lease and heartbeat (seconds).
func (b *bench) failover(ctx context.Context, lease, beat int) (*row, error) {
	ctx, cancel := context.WithTimeout(ctx, b.o.runTimeout)
	defer cancel()
	dsn, drop, err := benchserver.PGSchema(ctx, b.o.pg, "gozie_cluster_")
	if err != nil {
		return nil, err
	}
	defer drop()
	servers, err := b.startServers(ctx, fmt.Sprintf("b%d", lease), dsn, 2,
		"GOZIE_SERVER_LEASE_S="+strconv.Itoa(lease), "GOZIE_SERVER_HEARTBEAT_S="+strconv.Itoa(beat))
	if err != nil {
		return nil, err
	}
	defer func() {
		for _, s := range servers {
			s.Stop()
		}
	}()
	victim, survivor := servers[0], servers[1]
	marks := filepath.Join(b.work, fmt.Sprintf("b%d", lease), "marks")
	r := &row{part: fmt.Sprintf("(b) failover, %d x 1s steps", b.o.longSteps), servers: "2, 1 killed",
		lease: fmt.Sprintf("%ds/%ds", lease, beat), workflows: b.o.long}
	peak := sampleBackends(ctx, b.o.pg)
	defer func() { r.backends = peak() }()
	props := map[string]string{"oozie.wf.application.path": "file://" + b.apps["long"], "marks": marks, "sleep": "1"}
	t0 := time.Now()
	ids, err := b.submitAll(ctx, servers[:1], props, b.o.long, 4, r)
	if err != nil {
		return nil, err
	}
	// Kill it half a second after every job's first step runs: most are
	// in the middle of a step, the earliest may be starting their second.
	for {
		acts, err := b.actions(ctx, survivor, ids)
		if err != nil {
			return nil, err
		}
		all := true
		for _, id := range ids {
			// Started: running, or (on a loaded machine, where the
			// starts spread over more than a step) already ended.
			st := acts[id+"@s1"]
			all = all && (st == "RUNNING" || st == "OK")
		}
		if all {
			break
		}
		if err := sleep(ctx, 50*time.Millisecond); err != nil {
			return nil, fmt.Errorf("the first steps did not all start: %w", err)
		}
	}
	if err := sleep(ctx, 500*time.Millisecond); err != nil {
		return nil, err
	}
	killedAt := time.Now()
	victim.Kill()
	before, err := b.actions(ctx, survivor, ids)
	if err != nil {
		return nil, err
	}
	takeoverLine := "its jobs are this server's now"
	for {
		if r.takeover == 0 && countLines(survivor.LogPath, takeoverLine) > 0 {
			r.takeover = time.Since(killedAt)
		}
		acts, err := b.actions(ctx, survivor, ids)
		if err != nil {
			return nil, err
		}
		if r.firstMove == 0 {
			for k, v := range acts {
				if before[k] != v {
					r.firstMove = time.Since(killedAt)
					break
				}
			}
		}
		done := true
		for _, id := range ids {
			done = done && terminalWF(acts[id])
		}
		if done {
			break
		}
		if err := sleep(ctx, 100*time.Millisecond); err != nil {
			return nil, fmt.Errorf("waiting for the survivor to finish the jobs: %w", err)
		}
	}
	r.wall = time.Since(killedAt)
	r.note += fmt.Sprintf("killed %.1fs after the first submission; ", killedAt.Sub(t0).Seconds())
	if err := b.verify(ctx, survivor, ids, r); err != nil {
		return nil, err
	}
	b.checkMarks(marks, ids, b.o.longSteps, r, servers)
	r.note += reattached(survivor)
	return r, nil
}

// burst is (b) with -burst: of two servers, one is SIGKILLed while a burst
// of three-step workflows (0.2 s steps) is being submitted to both, as
// soon as half of them have been accepted. Its newest workflows are then
// starting their first steps: the window where a server has launched a
// step and not yet recorded it. Workflows meant for the killed server
// after the kill, and any whose submission it did not answer, go to the
// survivor. Every workflow in the schema (whether its submission was
// answered or not) must succeed, each step with one mark.
func (b *bench) burst(ctx context.Context, lease, beat int) (*row, error) {
	ctx, cancel := context.WithTimeout(ctx, b.o.runTimeout)
	defer cancel()
	dsn, drop, err := benchserver.PGSchema(ctx, b.o.pg, "gozie_cluster_")
	if err != nil {
		return nil, err
	}
	defer drop()
	// No spreading: the burst's halves stay where they are sent.
	servers, err := b.startServers(ctx, "burst", dsn, 2, "GOZIE_SERVER_SPREAD=false",
		"GOZIE_SERVER_LEASE_S="+strconv.Itoa(lease), "GOZIE_SERVER_HEARTBEAT_S="+strconv.Itoa(beat))
	if err != nil {
		return nil, err
	}
	defer func() {
		for _, s := range servers {
			s.Stop()
		}
	}()
	victim, survivor := servers[0], servers[1]
	marks := filepath.Join(b.work, "burst", "marks")
	r := &row{part: "(b) kill in a submission burst, 3 x 0.2s steps", servers: "2, 1 killed",
		lease: fmt.Sprintf("%ds/%ds", lease, beat), workflows: b.o.burst}
	peak := sampleBackends(ctx, b.o.pg)
	defer func() { r.backends = peak() }()
	props := map[string]string{"oozie.wf.application.path": "file://" + b.apps["marked"], "marks": marks, "sleep": "0.2"}
	var accepted atomic.Int64
	var dead atomic.Bool
	var killedAt time.Time
	resent := 0
	var mu sync.Mutex
	t0 := time.Now()
	err = benchserver.Fan(ctx, b.o.burst, b.o.clients, func(i int) error {
		target := servers[i%2]
		if target == victim && dead.Load() {
			target = survivor
		}
		_, err := b.submit(ctx, target.Base, props)
		if err != nil && target == victim && dead.Load() {
			// Killed while answering: the workflow may exist or not;
			// one is submitted to the survivor either way.
			mu.Lock()
			resent++
			mu.Unlock()
			_, err = b.submit(ctx, survivor.Base, props)
		}
		if err != nil {
			return err
		}
		if accepted.Add(1) == int64(b.o.burst/2) {
			killedAt = time.Now()
			dead.Store(true)
			victim.Kill()
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	r.note += fmt.Sprintf("killed %.2fs after the first submission, %d submissions it did not answer sent again to the survivor; ",
		killedAt.Sub(t0).Seconds(), resent)
	takeoverLine := "its jobs are this server's now"
	for countLines(survivor.LogPath, takeoverLine) == 0 {
		if err := sleep(ctx, 50*time.Millisecond); err != nil {
			return nil, fmt.Errorf("no take-over: %w", err)
		}
	}
	r.takeover = time.Since(killedAt)
	if err := b.waitUnfinished(ctx, []*benchserver.Server{survivor}, 0, 100*time.Millisecond); err != nil {
		return nil, err
	}
	r.wall = time.Since(killedAt)
	// Every workflow of the schema: those whose submission the killed
	// server committed without answering run too.
	var list struct {
		Workflows []struct {
			ID string `json:"id"`
		} `json:"workflows"`
	}
	if err := b.get(ctx, survivor, fmt.Sprintf("/v2/jobs?jobtype=wf&len=%d", 2*b.o.burst+100), &list); err != nil {
		return nil, err
	}
	ids := make([]string, 0, len(list.Workflows))
	for _, w := range list.Workflows {
		ids = append(ids, w.ID)
	}
	r.workflows = len(ids)
	if err := b.verify(ctx, survivor, ids, r); err != nil {
		return nil, err
	}
	b.checkMarks(marks, ids, 3, r, servers)
	r.note += reattached(survivor)
	return r, nil
}

// reattached notes how many starts the killed server left pending that the
// survivor performed in the killed server's work directory (its log says
// so), where it found the program already launched or launched it once.
func reattached(survivor *benchserver.Server) string {
	n := countLines(survivor.LogPath, "starting it in that server's work directory")
	again := countLines(survivor.LogPath, "the step may run twice")
	s := fmt.Sprintf("%d starts under way at the kill performed in its work directory; ", n)
	if again > 0 {
		s += fmt.Sprintf("%d STARTED AGAIN ELSEWHERE; ", again)
	}
	return s
}

// checkMarks reads the marks of steps of ids: each step must have run
// exactly once, from a server's data directory. The servers share one
// host, so a server taking over another's jobs sees its data directory
// and re-attaches to the steps it was starting as it died: a second run,
// even from another data directory, is a failure.
func (b *bench) checkMarks(path string, ids []string, steps int, r *row, servers []*benchserver.Server) {
	data, err := os.ReadFile(path)
	if err != nil {
		r.bad = true
		r.note += fmt.Sprintf("marks: %v; ", err)
		return
	}
	byStep := map[string][]string{}
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) != 4 {
			continue
		}
		byStep[f[0]+" "+f[1]] = append(byStep[f[0]+" "+f[1]], f[2])
	}
	inServer := func(dir string) bool {
		for _, s := range servers {
			if strings.HasPrefix(dir, filepath.Dir(s.LogPath)+string(filepath.Separator)) {
				return true
			}
		}
		return false
	}
	missing, twice, elsewhere := 0, 0, 0
	for _, id := range ids {
		for i := 1; i <= steps; i++ {
			dirs := byStep[fmt.Sprintf("%s s%d", id, i)]
			switch {
			case len(dirs) == 0:
				missing++
			case len(dirs) > 1:
				twice++
			}
			for _, d := range dirs {
				if !inServer(d) {
					elsewhere++
				}
			}
		}
	}
	r.dups = strconv.Itoa(twice)
	if missing > 0 || twice > 0 || elsewhere > 0 {
		r.bad = true
		r.note += fmt.Sprintf("STEPS WITHOUT A MARK: %d, RUN TWICE: %d, RUN OUTSIDE THE SERVERS' DIRECTORIES: %d; ", missing, twice, elsewhere)
	}
}
