//go:build linux

package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gozie/gozie/internal/store/postgres"
)

// The multi-server failover test runs real `gozie server` processes: this
// test binary itself, started with clusterAsGozieEnv set, is gozie (the
// launch supervisors the servers start are this binary too, `launch
// -supervise`). Nothing needs to be built, and a SIGKILL hits a whole
// server process as it would in production.
const clusterAsGozieEnv = "GOZIE_CLUSTER_TEST_AS_GOZIE"

func init() {
	if os.Getenv(clusterAsGozieEnv) == "1" {
		os.Exit(Main(os.Args[1:], os.Stdout, os.Stderr))
	}
}

// Sizes and bounds of TestClusterFailover.
const (
	clusterLeaseS     = 3 // gozie.server.lease.s of the test's servers
	clusterHeartbeatS = 1 // gozie.server.heartbeat.s
	clusterSteps      = 5 // shell steps of each workflow
	clusterCoordN     = 20
)

// clusterServer is one `gozie server` process of the test, restartable
// under the same gozie.server.id, data directory and port.
type clusterServer struct {
	name, dir, base, dsn, bin, logPath string
	port                               int
	env                                []string // more environment, KEY=value

	cmd     *exec.Cmd
	done    chan struct{}
	kills   []time.Time // when it was SIGKILLed
	refused int         // starts refused by PostgreSQL (too many clients)
}

// newClusterServer describes a server of a test named name (its
// gozie.server.id), working in the data directory work/<name> and logging
// to work/<name>.log, on a free loopback port; dsn is its PostgreSQL
// store, "" for SQLite in its data directory. It is not started.
func newClusterServer(t *testing.T, work, name, dsn string) *clusterServer {
	t.Helper()
	bin, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	port := clusterFreePort(t)
	return &clusterServer{name: name, dir: filepath.Join(work, name), base: fmt.Sprintf("http://127.0.0.1:%d/oozie", port),
		port: port, dsn: dsn, bin: bin, logPath: filepath.Join(work, name+".log")}
}

// clusterCleanup ends the servers and the launch supervisors they started
// when the test ends, and logs the end of each server's log if it failed.
// Registered after t.TempDir and postgres.TestDSN, it runs before the
// directory's removal and the schema's drop (cleanups run last in, first
// out).
func clusterCleanup(t *testing.T, servers ...*clusterServer) {
	t.Cleanup(func() {
		var dirs []string
		for _, s := range servers {
			s.kill()
			dirs = append(dirs, s.dir)
		}
		clusterStopSupervisors(t, dirs)
		if t.Failed() {
			for _, s := range servers {
				t.Logf("---- end of %s's log:\n%s", s.name, clusterTail(s.logPath, 6000))
			}
		}
	})
}

// start runs the server and waits until it answers /oozie/versions (it
// has joined the cluster by then: it joins before it listens).
//
// A server that exits because PostgreSQL refused it a connection (SQLSTATE
// 53300, too many clients: the tests of every package share that server)
// is started again, up to 20 times.
func (s *clusterServer) start() error {
	for attempt := 1; ; attempt++ {
		full, err := s.startOnce()
		if err == nil || !full || attempt == 20 {
			return err
		}
		s.refused++
		time.Sleep(250 * time.Millisecond)
	}
}

// startOnce is one start; full reports that the server exited because
// PostgreSQL had no connection left for it.
func (s *clusterServer) startOnce() (full bool, err error) {
	var from int64
	if st, err := os.Stat(s.logPath); err == nil {
		from = st.Size()
	}
	refused := func() bool {
		data, _ := os.ReadFile(s.logPath)
		return int64(len(data)) > from && strings.Contains(string(data[from:]), "SQLSTATE 53300")
	}
	logf, err := os.OpenFile(s.logPath, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return false, err
	}
	fmt.Fprintf(logf, "==== test: start %s at %s\n", s.name, time.Now().Format(time.RFC3339Nano))
	cmd := exec.Command(s.bin, "server", "-host", "127.0.0.1", "-port", strconv.Itoa(s.port), "-data", s.dir,
		"-base-url", s.base, "-db", s.dsn)
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GOZIE_") && !strings.HasPrefix(kv, "OOZIE_") {
			env = append(env, kv)
		}
	}
	cmd.Env = append(env, clusterAsGozieEnv+"=1", "GOZIE_SERVER_ID="+s.name,
		"GOZIE_SERVER_LEASE_S="+strconv.Itoa(clusterLeaseS), "GOZIE_SERVER_HEARTBEAT_S="+strconv.Itoa(clusterHeartbeatS),
		"GOZIE_POLL_INTERVAL_MS=250")
	cmd.Env = append(cmd.Env, s.env...)
	cmd.Stdout, cmd.Stderr = logf, logf
	// Should the test binary die, its servers die with it.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		logf.Close()
		return false, err
	}
	done := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		logf.Close()
		close(done)
	}()
	s.cmd, s.done = cmd, done
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		resp, err := http.Get(s.base + "/versions")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return false, nil
			}
		}
		select {
		case <-done:
			return refused(), fmt.Errorf("server %s exited at start:\n%s", s.name, clusterTail(s.logPath, 3000))
		case <-time.After(20 * time.Millisecond):
		}
	}
	return false, fmt.Errorf("server %s did not answer within 30s:\n%s", s.name, clusterTail(s.logPath, 3000))
}

func (s *clusterServer) alive() bool {
	if s.done == nil {
		return false
	}
	select {
	case <-s.done:
		return false
	default:
		return true
	}
}

// kill SIGKILLs the server and waits until it is gone.
func (s *clusterServer) kill() {
	if !s.alive() {
		return
	}
	s.kills = append(s.kills, time.Now())
	_ = s.cmd.Process.Signal(syscall.SIGKILL)
	<-s.done
}

// count counts the lines of the server's log containing all of words.
func (s *clusterServer) count(words ...string) int {
	data, _ := os.ReadFile(s.logPath)
	n := 0
	for _, line := range strings.Split(string(data), "\n") {
		ok := true
		for _, w := range words {
			ok = ok && strings.Contains(line, w)
		}
		if ok {
			n++
		}
	}
	return n
}

// clusterTail returns the last n bytes of a file.
func clusterTail(path string, n int) string {
	data, _ := os.ReadFile(path)
	if len(data) > n {
		data = data[len(data)-n:]
	}
	return string(data)
}

// clusterFreePort returns a loopback port nobody listens on now.
func clusterFreePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// clusterStopSupervisors ends the launch supervisors working in the given
// data directories (`launch -supervise <dir>/launcher`, found in /proc):
// SIGTERM, on which a supervisor stops listening and exits once the steps
// it runs have ended, then SIGKILL for any left after 20 seconds.
func clusterStopSupervisors(t *testing.T, dirs []string) {
	find := func() []int {
		var pids []int
		entries, _ := os.ReadDir("/proc")
		for _, e := range entries {
			pid, err := strconv.Atoi(e.Name())
			if err != nil {
				continue
			}
			cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
			if err != nil {
				continue
			}
			if stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat")); err == nil {
				// A zombie (state Z after the command's parenthesis) is gone.
				if i := bytes.LastIndexByte(stat, ')'); i > 0 && i+2 < len(stat) && stat[i+2] == 'Z' {
					continue
				}
			}
			args := strings.Split(strings.TrimRight(string(cmdline), "\x00"), "\x00")
			i := slices.Index(args, "-supervise")
			if i < 0 || i+1 >= len(args) {
				continue
			}
			for _, d := range dirs {
				if args[i+1] == filepath.Join(d, "launcher") {
					pids = append(pids, pid)
				}
			}
		}
		return pids
	}
	pids := find()
	for _, pid := range pids {
		_ = syscall.Kill(pid, syscall.SIGTERM)
	}
	deadline := time.Now().Add(20 * time.Second)
	for len(pids) > 0 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
		pids = find()
	}
	for _, pid := range pids {
		t.Logf("launch supervisor %d did not exit on SIGTERM; killing it", pid)
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
}

// clusterHTTP is the test's REST client.
var clusterHTTP = &http.Client{Timeout: 30 * time.Second}

// clusterSubmit runs a workflow or coordinator (action=start) with the
// given configuration and returns its id.
func clusterSubmit(base string, props map[string]string) (string, error) {
	var b strings.Builder
	b.WriteString("<configuration>")
	keys := make([]string, 0, len(props))
	for k := range props {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		fmt.Fprintf(&b, "<property><name>%s</name><value>%s</value></property>", k, props[k])
	}
	b.WriteString("</configuration>")
	req, err := http.NewRequest(http.MethodPost, base+"/v2/jobs?action=start&user.name=tester", strings.NewReader(b.String()))
	if err != nil {
		return "", err
	}
	req.Header.Set("Content-Type", "application/xml;charset=UTF-8")
	resp, err := clusterHTTP.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusCreated {
		return "", fmt.Errorf("submit to %s: %s: %.300s", base, resp.Status, data)
	}
	var out struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal(data, &out); err != nil || out.ID == "" {
		return "", fmt.Errorf("submit to %s: no job id in %.300s", base, data)
	}
	return out.ID, nil
}

// clusterGet GETs path under base and decodes the JSON answer into v.
func clusterGet(base, path string, v any) error {
	resp, err := clusterHTTP.Get(base + path)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s: %.300s", path, resp.Status, data)
	}
	return json.Unmarshal(data, v)
}

// clusterCoordInfo is what the test reads of a coordinator job.
type clusterCoordInfo struct {
	Status  string `json:"status"`
	Actions []struct {
		ID         string  `json:"id"`
		Status     string  `json:"status"`
		ExternalID *string `json:"externalId"`
	} `json:"actions"`
}

// clusterMark is one line a step appended: which workflow and step, the
// step's work directory (under the data directory of the server that
// launched it) and when.
type clusterMark struct {
	job, step, dir string
	at             time.Time
	server         *clusterServer
}

// clusterWorkflow is start -> steps shell steps, each appending a mark to
// ${marks} and sleeping ${sleep} seconds -> end.
func clusterWorkflow(steps int) string {
	var b strings.Builder
	b.WriteString(`<workflow-app xmlns="uri:oozie:workflow:0.5" name="cluster">
  <global><job-tracker>local</job-tracker><name-node>file:///</name-node></global>
  <start to="s1"/>
`)
	for i := 1; i <= steps; i++ {
		next := fmt.Sprintf("s%d", i+1)
		if i == steps {
			next = "end"
		}
		fmt.Fprintf(&b, `  <action name="s%d"><shell xmlns="uri:oozie:shell-action:0.3"><exec>sh</exec><argument>-c</argument>`+
			`<argument>echo "${wf:id()} s%d $PWD $(date +%%s.%%N)" >> ${marks}; sleep ${sleep}</argument></shell>`+
			`<ok to="%s"/><error to="fail"/></action>
`, i, i, next)
	}
	b.WriteString(`  <kill name="fail"><message>failed</message></kill>
  <end name="end"/>
</workflow-app>
`)
	return b.String()
}

// clusterCoordinator materializes n actions at once (start and end in the
// past, throttle n), running at most 4 at a time so that they spread over
// the test's kills.
func clusterCoordinator(n int) string {
	start := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	end := start.Add(time.Duration(n) * 5 * time.Minute)
	return fmt.Sprintf(`<coordinator-app name="cluster-coord" frequency="${coord:minutes(5)}" start="%s" end="%s" timezone="UTC" xmlns="uri:oozie:coordinator:0.4">
  <controls><concurrency>4</concurrency><execution>FIFO</execution><throttle>%d</throttle></controls>
  <action><workflow><app-path>${wfApp}</app-path>
    <configuration>
      <property><name>marks</name><value>${marks}</value></property>
      <property><name>sleep</name><value>${sleep}</value></property>
    </configuration>
  </workflow></action>
</coordinator-app>
`, start.Format("2006-01-02T15:04Z"), end.Format("2006-01-02T15:04Z"), n)
}

func clusterEnvInt(t *testing.T, name string, def int) int {
	t.Helper()
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		t.Fatalf("%s=%q: want a count", name, v)
	}
	return n
}

// TestClusterFailover runs three servers on one PostgreSQL schema (lease
// 3 s, heartbeat 1 s), submits N workflows of five shell steps and one
// coordinator of 20 actions round-robin to them in waves, and between the
// waves SIGKILLs a random server: alternately restarted at once (under the
// same id it takes its jobs back) and only after another server has
// taken its jobs over. Every workflow and coordinator action must end
// SUCCEEDED, and the marks the steps leave show that every step ran
// exactly once: the servers share a host, so a step a killed server was
// starting (launched, not yet recorded) is found again in its data
// directory by whichever server performs the start after it.
//
// Sizes: GOZIE_CLUSTER_TEST_WORKFLOWS (default 30, 12 with -short),
// GOZIE_CLUSTER_TEST_KILLS (default 6 + workflows/50),
// GOZIE_CLUSTER_TEST_SLEEP (seconds each step sleeps, default 0.2), and
// GOZIE_CLUSTER_TEST_SEED to replay a run's random choices. Skipped
// without PostgreSQL (postgres.TestDSN).
func TestClusterFailover(t *testing.T) {
	if testing.Short() {
		t.Skip("slow end-to-end test: runs without -short, e.g. in .ci/run")
	}
	dsn := postgres.TestDSN(t)
	defN := 30
	nWF := clusterEnvInt(t, "GOZIE_CLUSTER_TEST_WORKFLOWS", defN)
	nKills := clusterEnvInt(t, "GOZIE_CLUSTER_TEST_KILLS", 6+nWF/50)
	stepSleep := "0.2"
	if v := os.Getenv("GOZIE_CLUSTER_TEST_SLEEP"); v != "" {
		if _, err := strconv.ParseFloat(v, 64); err != nil {
			t.Fatalf("GOZIE_CLUSTER_TEST_SLEEP=%q: want seconds", v)
		}
		stepSleep = v
	}
	seed := uint64(time.Now().UnixNano())
	if v := os.Getenv("GOZIE_CLUSTER_TEST_SEED"); v != "" {
		var err error
		if seed, err = strconv.ParseUint(v, 10, 64); err != nil {
			t.Fatalf("GOZIE_CLUSTER_TEST_SEED=%q: %v", v, err)
		}
	}
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	t.Logf("%d workflows of %d steps + a coordinator of %d actions, %d kills, seed %d (GOZIE_CLUSTER_TEST_SEED)",
		nWF, clusterSteps, clusterCoordN, nKills, seed)

	work := t.TempDir()
	wfApp := filepath.Join(work, "wf")
	coordApp := filepath.Join(work, "coord")
	marks := filepath.Join(work, "marks")
	for dir, files := range map[string]map[string]string{
		wfApp:    {"workflow.xml": clusterWorkflow(clusterSteps)},
		coordApp: {"coordinator.xml": clusterCoordinator(clusterCoordN)},
	} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for name, text := range files {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := os.WriteFile(marks, nil, 0o644); err != nil {
		t.Fatal(err)
	}

	servers := make([]*clusterServer, 3)
	for i := range servers {
		servers[i] = newClusterServer(t, work, fmt.Sprintf("srv%d", i+1), dsn)
	}
	clusterCleanup(t, servers...)
	for _, s := range servers {
		if err := s.start(); err != nil {
			t.Fatal(err)
		}
	}

	props := func() map[string]string {
		return map[string]string{"marks": marks, "sleep": stepSleep}
	}
	rr := 0
	// submit sends a job to the next live server round-robin.
	submit := func(p map[string]string) string {
		t.Helper()
		for range 2 * len(servers) {
			s := servers[rr%len(servers)]
			rr++
			if !s.alive() {
				continue
			}
			id, err := clusterSubmit(s.base, p)
			if err != nil {
				t.Fatal(err)
			}
			return id
		}
		t.Fatal("no live server to submit to")
		return ""
	}
	live := func() *clusterServer {
		for range len(servers) {
			s := servers[rr%len(servers)]
			rr++
			if s.alive() {
				return s
			}
		}
		t.Fatal("no live server")
		return nil
	}

	start := time.Now()
	cp := props()
	cp["oozie.coord.application.path"] = "file://" + coordApp
	cp["wfApp"] = "file://" + wfApp
	coordID := submit(cp)
	var wfIDs []string
	waves := nKills + 1
	submitted := 0
	var longKills, quickKills int
	parity := rng.IntN(2)
	for k := 0; k < waves; k++ {
		n := (nWF - submitted) / (waves - k)
		for range n {
			p := props()
			p["oozie.wf.application.path"] = "file://" + wfApp
			wfIDs = append(wfIDs, submit(p))
		}
		submitted += n
		if k == waves-1 {
			break
		}
		// Let them run a random while, then kill a random server.
		time.Sleep(time.Duration(200+rng.IntN(1300)) * time.Millisecond)
		victim := servers[rng.IntN(len(servers))]
		quick := (k+parity)%2 == 0
		tookOver := 0
		for _, s := range servers {
			if s != victim {
				tookOver += s.count("cluster: "+victim.name+"#", "its jobs are this server's now")
			}
		}
		victim.kill()
		killedAt := victim.kills[len(victim.kills)-1]
		if quick {
			quickKills++
			time.Sleep(time.Duration(100+rng.IntN(900)) * time.Millisecond)
			tookBack := victim.count("took back the jobs of")
			if err := victim.start(); err != nil {
				t.Fatal(err)
			}
			t.Logf("%6.2fs kill %s, restarted after %v (took back its jobs: %v)", killedAt.Sub(start).Seconds(),
				victim.name, time.Since(killedAt).Round(time.Millisecond), victim.count("took back the jobs of") > tookBack)
			continue
		}
		longKills++
		// Down until another server has taken its jobs over (its log
		// says so), submitting to the others meanwhile.
		for range n / 2 {
			p := props()
			p["oozie.wf.application.path"] = "file://" + wfApp
			wfIDs = append(wfIDs, submit(p))
			submitted++
		}
		deadline := killedAt.Add(clusterLeaseS*time.Second + 20*time.Second)
		var took time.Duration
		for {
			n := 0
			for _, s := range servers {
				if s != victim {
					n += s.count("cluster: "+victim.name+"#", "its jobs are this server's now")
				}
			}
			if n > tookOver {
				took = time.Since(killedAt)
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("no server took over the jobs of %s within %v of its kill", victim.name, time.Since(killedAt))
			}
			time.Sleep(50 * time.Millisecond)
		}
		time.Sleep(time.Duration(rng.IntN(1000)) * time.Millisecond)
		if err := victim.start(); err != nil {
			t.Fatal(err)
		}
		t.Logf("%6.2fs kill %s, taken over after %v, restarted after %v", killedAt.Sub(start).Seconds(), victim.name,
			took.Round(time.Millisecond), time.Since(killedAt).Round(time.Millisecond))
	}
	chaos := time.Since(start)

	// Wait for every job to end: poll statuses, never a fixed sleep.
	terminalWF := func(s string) bool { return s == "SUCCEEDED" || s == "FAILED" || s == "KILLED" }
	terminalCoord := func(s string) bool {
		return s == "SUCCEEDED" || s == "DONEWITHERROR" || s == "FAILED" || s == "KILLED"
	}
	terminalCA := func(s string) bool {
		return s == "SUCCEEDED" || s == "FAILED" || s == "KILLED" || s == "TIMEDOUT" || s == "SKIPPED"
	}
	timeout := 3*time.Minute + time.Duration(nWF)*time.Second
	deadline := time.Now().Add(timeout)
	var statuses map[string]string
	var coord clusterCoordInfo
	for {
		var list struct {
			Workflows []struct {
				ID     string `json:"id"`
				Status string `json:"status"`
			} `json:"workflows"`
		}
		s := live()
		err1 := clusterGet(s.base, "/v2/jobs?jobtype=wf&len=100000", &list)
		err2 := clusterGet(s.base, "/v2/job/"+coordID+"?show=info&len=1000", &coord)
		if err := errors.Join(err1, err2); err != nil {
			t.Fatal(err)
		}
		statuses = map[string]string{}
		for _, w := range list.Workflows {
			statuses[w.ID] = w.Status
		}
		var pending []string
		for _, id := range wfIDs {
			if !terminalWF(statuses[id]) {
				pending = append(pending, id+" "+statuses[id])
			}
		}
		if !terminalCoord(coord.Status) {
			pending = append(pending, coordID+" "+coord.Status)
		}
		for _, a := range coord.Actions {
			switch {
			case !terminalCA(a.Status):
				pending = append(pending, a.ID+" "+a.Status)
			case a.ExternalID != nil && !terminalWF(statuses[*a.ExternalID]):
				pending = append(pending, *a.ExternalID+" "+statuses[*a.ExternalID])
			}
		}
		if len(coord.Actions) < clusterCoordN && !terminalCoord(coord.Status) {
			pending = append(pending, fmt.Sprintf("%s: %d of %d actions materialized", coordID, len(coord.Actions), clusterCoordN))
		}
		if len(pending) == 0 {
			break
		}
		if time.Now().After(deadline) {
			if len(pending) > 20 {
				pending = append(pending[:20], fmt.Sprintf("... %d more", len(pending)-20))
			}
			t.Fatalf("not ended within %v:\n%s", timeout, strings.Join(pending, "\n"))
		}
		time.Sleep(300 * time.Millisecond)
	}
	t.Logf("all ended %v after the first submission (%v of kills)", time.Since(start).Round(time.Millisecond), chaos.Round(time.Millisecond))

	// Every job SUCCEEDED.
	jobs := slices.Clone(wfIDs)
	for _, id := range wfIDs {
		if statuses[id] != "SUCCEEDED" {
			t.Errorf("workflow %s ended %s", id, statuses[id])
		}
	}
	if coord.Status != "SUCCEEDED" {
		t.Errorf("coordinator %s ended %s", coordID, coord.Status)
	}
	if len(coord.Actions) != clusterCoordN {
		t.Errorf("coordinator %s has %d actions, want %d", coordID, len(coord.Actions), clusterCoordN)
	}
	for _, a := range coord.Actions {
		if a.Status != "SUCCEEDED" || a.ExternalID == nil {
			t.Errorf("coordinator action %s ended %s", a.ID, a.Status)
			continue
		}
		if statuses[*a.ExternalID] != "SUCCEEDED" {
			t.Errorf("workflow %s of coordinator action %s ended %s", *a.ExternalID, a.ID, statuses[*a.ExternalID])
		}
		jobs = append(jobs, *a.ExternalID)
	}

	// The marks: one per step.
	data, err := os.ReadFile(marks)
	if err != nil {
		t.Fatal(err)
	}
	rep := clusterCheckMarks(string(data), servers, jobs, clusterSteps)
	for _, e := range rep.errs {
		t.Error(e)
	}
	type kill struct {
		s  *clusterServer
		at time.Time
	}
	var kills []kill
	reattached := 0
	for _, s := range servers {
		for _, k := range s.kills {
			kills = append(kills, kill{s, k})
		}
		reattached += s.count("starting it in that server's work directory")
		if n := s.count("the step may run twice"); n > 0 {
			t.Errorf("%s started %d step(s) again whose first start it could not see", s.name, n)
		}
	}
	slices.SortFunc(kills, func(a, b kill) int { return a.at.Compare(b.at) })
	for _, k := range kills {
		t.Logf("kill of %s at %6.2fs: %d of its steps had started in the 0.5s before", k.s.name, k.at.Sub(start).Seconds(),
			rep.startedBefore(k.s, k.at, 500*time.Millisecond))
	}
	for _, s := range servers {
		if s.refused > 0 {
			t.Logf("%s: %d starts refused by PostgreSQL (too many clients), started again", s.name, s.refused)
		}
	}
	t.Logf("%d kills (%d restarted at once, %d after a take-over); %d steps of %d jobs; %d starts a killed server left under way performed in its work directory by another",
		len(kills), quickKills, longKills, len(jobs)*clusterSteps, len(jobs), reattached)
}

// clusterMarkReport is what clusterCheckMarks found.
type clusterMarkReport struct {
	errs  []string
	marks []clusterMark
}

// startedBefore counts the steps s launched in the window before t.
func (r *clusterMarkReport) startedBefore(s *clusterServer, t time.Time, window time.Duration) int {
	n := 0
	for _, m := range r.marks {
		if m.server == s && !m.at.After(t) && m.at.After(t.Add(-window)) {
			n++
		}
	}
	return n
}

// clusterCheckMarks checks the marks file text ("<job> <step> <work dir>
// <unix time>" lines) against the jobs: every step of every job has
// exactly one mark, from a server's data directory; no mark names another
// job.
func clusterCheckMarks(text string, servers []*clusterServer, jobs []string, steps int) *clusterMarkReport {
	r := &clusterMarkReport{}
	errorf := func(format string, args ...any) { r.errs = append(r.errs, fmt.Sprintf(format, args...)) }
	byStep := map[string][]clusterMark{}
	for _, line := range strings.Split(text, "\n") {
		if line == "" {
			continue
		}
		fields := strings.Fields(line)
		if len(fields) != 4 {
			errorf("bad mark line %q", line)
			continue
		}
		m := clusterMark{job: fields[0], step: fields[1], dir: fields[2]}
		secs, err := strconv.ParseFloat(fields[3], 64)
		if err != nil {
			errorf("bad time in mark line %q", line)
			continue
		}
		m.at = time.Unix(0, int64(secs*1e9))
		for _, s := range servers {
			if strings.HasPrefix(m.dir, filepath.Join(s.dir, "actions")+string(filepath.Separator)) {
				m.server = s
			}
		}
		if m.server == nil {
			errorf("mark %q: not in a server's data directory", line)
			continue
		}
		// actions/<job>@<step>.<attempt> (launch.WorkDir)
		got := filepath.Base(m.dir)
		if i := strings.LastIndexByte(got, '.'); i > 0 {
			got = got[:i]
		}
		if got != m.job+"@"+m.step {
			errorf("mark %q: work directory of action %s", line, got)
		}
		byStep[m.job+" "+m.step] = append(byStep[m.job+" "+m.step], m)
		r.marks = append(r.marks, m)
	}
	expected := map[string]bool{}
	var keys []string
	for _, id := range jobs {
		for i := 1; i <= steps; i++ {
			k := fmt.Sprintf("%s s%d", id, i)
			expected[k] = true
			keys = append(keys, k)
		}
	}
	for key, ms := range byStep {
		if !expected[key] {
			errorf("marks of a step of no known job: %s %s", key, clusterMarkList(ms))
		}
	}
	for _, key := range keys {
		switch ms := byStep[key]; len(ms) {
		case 0:
			errorf("step %s left no mark", key)
		case 1:
		default:
			slices.SortFunc(ms, func(a, b clusterMark) int { return a.at.Compare(b.at) })
			errorf("step %s ran %d times: %s", key, len(ms), clusterMarkList(ms))
		}
	}
	return r
}

// TestClusterCheckMarks checks the checker of TestClusterFailover's marks,
// which a passing run seldom exercises: a step runs once, whoever ran it
// and whenever its server was killed.
func TestClusterCheckMarks(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	a := &clusterServer{name: "a", dir: "/d/a", kills: []time.Time{t0.Add(10 * time.Second)}}
	b := &clusterServer{name: "b", dir: "/d/b"}
	servers := []*clusterServer{a, b}
	mark := func(s *clusterServer, job, step string, at time.Duration) string {
		return fmt.Sprintf("%s %s %s/actions/%s@%s.0 %.6f\n", job, step, s.dir, job, step, float64(t0.Add(at).UnixNano())/1e9)
	}
	tests := []struct {
		name string
		text string
		errs []string // substrings, one per error
	}{
		{"one each", mark(a, "j1", "s1", 0) + mark(b, "j1", "s2", time.Second), nil},
		{"re-attached in the killed server's directory", mark(a, "j1", "s1", 9500*time.Millisecond) +
			mark(b, "j1", "s2", 15*time.Second), nil},
		{"missing", mark(a, "j1", "s1", 0), []string{"step j1 s2 left no mark"}},
		{"unknown job", mark(a, "j1", "s1", 0) + mark(a, "j1", "s2", 0) + mark(b, "j9", "s1", 0),
			[]string{"no known job: j9 s1"}},
		{"started again after a kill", mark(a, "j1", "s1", 9500*time.Millisecond) + mark(b, "j1", "s1", 14*time.Second) +
			mark(b, "j1", "s2", 15*time.Second), []string{"step j1 s1 ran 2 times"}},
		{"rerun on a live server", mark(b, "j1", "s1", 9500*time.Millisecond) + mark(a, "j1", "s1", 14*time.Second) +
			mark(a, "j1", "s2", 15*time.Second), []string{"step j1 s1 ran 2 times"}},
		{"same directory", mark(a, "j1", "s1", 9500*time.Millisecond) + mark(a, "j1", "s1", 11*time.Second) +
			mark(a, "j1", "s2", 15*time.Second), []string{"step j1 s1 ran 2 times"}},
		{"elsewhere", "j1 s1 /tmp/x/actions/j1@s1.0 1.0\n" + mark(a, "j1", "s2", 0),
			[]string{"not in a server's data directory", "step j1 s1 left no mark"}},
		{"wrong action", mark(a, "j1", "s1", 0) + "j1 s2 /d/a/actions/j1@s1.0 1.0\n", []string{"work directory of action j1@s1"}},
	}
	for _, tt := range tests {
		r := clusterCheckMarks(tt.text, servers, []string{"j1"}, 2)
		if len(r.errs) != len(tt.errs) {
			t.Errorf("%s: errors %q, want %d", tt.name, r.errs, len(tt.errs))
			continue
		}
		for i, e := range tt.errs {
			if !strings.Contains(r.errs[i], e) {
				t.Errorf("%s: error %q, want ~%q", tt.name, r.errs[i], e)
			}
		}
	}
}

func clusterMarkList(ms []clusterMark) string {
	var parts []string
	for _, m := range ms {
		kills := make([]string, len(m.server.kills))
		for i, k := range m.server.kills {
			kills[i] = k.Format("15:04:05.000")
		}
		parts = append(parts, fmt.Sprintf("[%s at %s; %s killed at %s]", m.dir, m.at.Format("15:04:05.000"), m.server.name, strings.Join(kills, ",")))
	}
	return strings.Join(parts, " ")
}
