package launch

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/gozie/gozie/internal/conf"
)

// The launcher (`gozie launch DIR`) runs one program for a process action
// and records what happened in files of the action's working directory
// DIR, so that the server may die and come back without losing or
// repeating the work:
//
//	launch.json   LaunchSpec, written by the executor before it starts the launcher
//	launcher.pid  LauncherPID, created exclusively by the launcher: whoever
//	              creates it owns the run, so a second launcher never runs
//	              the program again
//	stdout        the program's standard output
//	stderr        the program's standard error
//	status.json   LaunchStatus, written when the program has ended
//
// Every file is written to a temporary name and renamed (or linked) into
// place, so a reader sees either nothing or the whole file. The executor
// creates stdout, stderr and the reserves of the pid and status files
// before it starts the launcher (space.go), so that a full disk stops the
// action before its program runs, never after.
//
// With LaunchSpec.RunAs the program runs as the job's user in a directory
// that user owns; the launcher (root) opens its own files there without
// following links, and the executor trusts pid and status files only when
// they belong to the server's user (runas.go).
const (
	SpecFile   = "launch.json"
	PIDFile    = "launcher.pid"
	StatusFile = "status.json"
	StdoutFile = "stdout"
	StderrFile = "stderr"
)

// DefaultMaxOutput is Oozie's oozie.action.max.output.data: the most bytes
// of captured output an action may produce.
const DefaultMaxOutput = 2048

// Exit statuses of the launcher itself (not of the program it runs).
const (
	launcherOK      = 0 // the program ran (whatever its exit code) and status.json is written
	LauncherFailed  = 1 // the launcher could not do its job; see its stderr
	LauncherUsage   = 2
	launcherClaimed = 3 // another launcher owns this directory already
)

// LaunchSpec tells the launcher what to run.
type LaunchSpec struct {
	Exec string   `json:"exec"`
	Args []string `json:"args,omitempty"`
	// Env holds NAME=VALUE pairs added to the launcher's own environment.
	Env []string `json:"env,omitempty"`
	// Capture asks for stdout to be parsed as Java properties (the action's
	// capture-output), at most MaxOutput bytes.
	Capture   bool `json:"capture,omitempty"`
	MaxOutput int  `json:"maxOutput,omitempty"`
	// CaptureFile, with Capture, names the file (relative to the working
	// directory) that holds the captured output instead of stdout: the
	// java action's oozie.action.output.properties. A program that exits
	// 0 without writing it captured nothing.
	CaptureFile string `json:"captureFile,omitempty"`
	// RunAs, when set, is the user the program runs as (the launcher
	// itself runs as the server's user, root, and records the outcome).
	RunAs *RunAs `json:"runAs,omitempty"`
	// Environ, when set, is the environment the program starts from
	// (stepEnv of the server's, for the per-step launcher; the supervisor
	// gets it in its request instead).
	Environ []string `json:"environ,omitempty"`
	// Notes are lines for the step's launcher log that building the spec
	// produced (ignored settings, ...); the executor writes them, as the
	// server, once the job's own work is staged.
	Notes []string `json:"-"`
}

// LauncherPID identifies a running launcher and its process group.
type LauncherPID struct {
	PID  int `json:"pid"`
	PGID int `json:"pgid"`
	// Start is the kernel's start time of the launcher process (clock
	// ticks since boot, from /proc), so that a recycled pid is not taken
	// for the launcher; empty where /proc is not available.
	Start    string `json:"start,omitempty"`
	ChildPID int    `json:"childPid,omitempty"`
	// Supervised says that PID is the launch supervisor (supervisor.go),
	// which outlives the program: the program leads a group of its own,
	// PGID, known once it has started (0 before).
	Supervised bool `json:"supervised,omitempty"`

	claimLen int // bytes of the claim line in the pid file (pidfile.go)
}

// LaunchStatus is how the program ended.
type LaunchStatus struct {
	ExitCode int       `json:"exitCode"`         // -1 when killed by a signal or never started
	Signal   string    `json:"signal,omitempty"` // e.g. "terminated"
	Started  time.Time `json:"started"`
	Ended    time.Time `json:"ended"`
	// Output is the captured output, parsed as Java properties.
	Output map[string]string `json:"output,omitempty"`
	// ErrorCode and Error describe a failure of the launch itself (program
	// not found, captured output too large or malformed).
	ErrorCode string `json:"errorCode,omitempty"`
	Error     string `json:"error,omitempty"`
}

// RunLauncher is `gozie launch DIR`: it runs the program described by
// DIR/launch.json in DIR and records the outcome (see the file list above).
// It returns the launcher's exit status: 0 when the program ran (whatever
// its own exit code) and status.json is written, 1 when the launcher failed,
// 2 for a bad command line, 3 when another launcher owns DIR already.
//
// `gozie launch -supervise DIR` runs the launch supervisor instead
// (RunSupervisor): one long-lived process that does the launcher's work
// for every step of a server.
func RunLauncher(args []string, stdout, stderr io.Writer) int {
	if len(args) == 2 && args[0] == "-supervise" {
		return RunSupervisor(args[1], stderr)
	}
	if len(args) >= 2 && args[0] == "-tool" {
		return runTool(args[1], args[2:], stdout, stderr)
	}
	if len(args) != 1 || args[0] == "" || strings.HasPrefix(args[0], "-") {
		fmt.Fprintln(stderr, "Usage: gozie launch DIR")
		fmt.Fprintln(stderr, "Runs the program described by DIR/"+SpecFile+" in DIR; used by the server for shell actions.")
		return LauncherUsage
	}
	dir, err := filepath.Abs(args[0])
	if err != nil {
		fmt.Fprintf(stderr, "Error: %v\n", err)
		return LauncherFailed
	}
	var spec LaunchSpec
	// The spec says whom to run the program as: it is used only when it
	// is the executor's own file, never a file the job's user put under
	// its name in a directory the user owns.
	b, err := readOwn(filepath.Join(dir, SpecFile))
	if err == nil {
		err = json.Unmarshal(b, &spec)
	}
	if err != nil {
		fmt.Fprintf(stderr, "Error: reading launch spec: %v\n", err)
		return LauncherFailed
	}

	// Lead a process group of its own even when started by hand, so that
	// killing the action's group can never reach the caller's processes.
	// The executor already asks for this (Setpgid); then it is a no-op.
	_ = syscall.Setpgid(0, 0)
	pid := LauncherPID{PID: os.Getpid(), PGID: os.Getpid(), Start: procStart(os.Getpid())}
	if g, err := syscall.Getpgid(0); err == nil {
		pid.PGID = g
	}
	claimed, err := claimPID(dir, &pid)
	if err != nil {
		fmt.Fprintf(stderr, "Error: %v\n", err)
		return LauncherFailed
	}
	if !claimed {
		fmt.Fprintf(stdout, "already launched in %s\n", dir)
		return launcherClaimed
	}

	// The group gets SIGTERM when the action is killed: the launcher
	// outlives it to record how the program ended; SIGHUP must not end it
	// when the terminal of a foreground server goes away.
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	defer signal.Stop(sigs)

	st := runProgram(dir, &spec, &pid, nil, nil)
	data, _ := json.MarshalIndent(st, "", "  ")
	// This process leads the group and is what the executor sees alive:
	// it stays until the outcome is on disk, however long the disk is full.
	if err := RecordStatus(dir, data, time.Sleep, stderr); err != nil {
		fmt.Fprintf(stderr, "Error: writing status: %v\n", err)
		return LauncherFailed
	}
	return launcherOK
}

// runProgram runs the program of spec in dir and waits for it. The
// program's environment is base (else the spec's Environ, else stepEnv
// of the launcher's own) with the spec's additions. Once the program runs, the pid file is rewritten with its pid
// (and, supervised, its process group) and started is called; it is not
// called when the program could not be started.
func runProgram(dir string, spec *LaunchSpec, pid *LauncherPID, base []string, started func()) LaunchStatus {
	st := LaunchStatus{ExitCode: -1, Started: time.Now().UTC()}
	fail := func(format string, args ...any) LaunchStatus {
		st.ErrorCode = CodeLauncher
		st.Error = fmt.Sprintf(format, args...)
		st.Ended = time.Now().UTC()
		return st
	}
	env := programEnv(base, spec)
	path, err := resolveExec(dir, spec.Exec, env)
	if err != nil {
		return fail("Cannot run program [%s]: %v", spec.Exec, err)
	}
	// The executor created both files; opened without following links,
	// since with RunAs the directory belongs to the job's user.
	out, err := createNoFollow(filepath.Join(dir, StdoutFile))
	if err != nil {
		return fail("%v", err)
	}
	defer out.Close()
	errf, err := createNoFollow(filepath.Join(dir, StderrFile))
	if err != nil {
		return fail("%v", err)
	}
	defer errf.Close()

	cmd := exec.Command(path, spec.Args...)
	cmd.Args[0] = spec.Exec
	cmd.Dir = dir
	cmd.Env = env
	cmd.Stdout, cmd.Stderr = out, errf
	if null := devNull(); null != nil {
		cmd.Stdin = null
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{}
	if spec.RunAs != nil {
		cmd.SysProcAttr = credential(spec.RunAs)
	}
	// A supervised program leads a group of its own: Kill signals that
	// group, never the supervisor and the other steps it runs.
	cmd.SysProcAttr.Setpgid = pid.Supervised
	if err := cmd.Start(); err != nil {
		return fail("Cannot run program [%s]: %v", spec.Exec, err)
	}
	pid.ChildPID = cmd.Process.Pid
	if pid.Supervised {
		pid.PGID = cmd.Process.Pid
	}
	_ = recordStarted(dir, *pid)
	if started != nil {
		started()
	}
	err = cmd.Wait()
	st.Ended = time.Now().UTC()
	var ee *exec.ExitError
	switch {
	case err == nil:
		st.ExitCode = 0
	case errors.As(err, &ee):
		st.ExitCode = ee.ExitCode()
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			st.Signal = ws.Signal().String()
		}
	default:
		return fail("waiting for [%s]: %v", spec.Exec, err)
	}
	if st.ExitCode == 0 && spec.Capture {
		captureOutput(dir, spec, out, &st)
	}
	return st
}

// devNull is /dev/null opened once for reading, every program's standard
// input: exec.Cmd would open and close it for each step (nil when it
// cannot be opened; exec then tries itself).
var devNull = sync.OnceValue(func() *os.File {
	f, err := os.Open(os.DevNull)
	if err != nil {
		return nil
	}
	return f
})

// programEnv is the environment runProgram starts the program with: base
// (else the spec's Environ, else stepEnv of the launcher's own) with the
// spec's additions. base is never written to: the supervisor gives every
// request naming an environment the same slice, and an append into its
// spare capacity let concurrent steps see each other's variables
// (OOZIE_ACTION_CONF_XML).
func programEnv(base []string, spec *LaunchSpec) []string {
	env := base
	if env == nil {
		env = spec.Environ
	}
	if env == nil {
		// A spec from elsewhere: never the launcher's own secrets.
		env = StepEnv(os.Environ(), "")
	}
	if spec.RunAs != nil {
		env = runAsEnv(spec.RunAs, env)
	}
	return append(env[:len(env):len(env)], spec.Env...)
}

// captureOutput reads the output of a program that exited 0 (its stdout,
// or the file it names with spec.CaptureFile) into st.Output as Java
// properties; a failure to read it is recorded in st as CodeLauncher.
func captureOutput(dir string, spec *LaunchSpec, out *os.File, st *LaunchStatus) {
	max := spec.MaxOutput
	if max <= 0 {
		max = DefaultMaxOutput
	}
	src, name := out, spec.Exec
	if spec.CaptureFile != "" {
		// The program wrote it as the job's user: it is opened with that
		// user's rights, never through a link, never waiting on a FIFO,
		// and read within the output limit.
		var f *os.File
		err := AsUser(spec.RunAs, func() (err error) {
			f, err = os.OpenFile(filepath.Join(dir, spec.CaptureFile), os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
			return err
		})
		if errors.Is(err, fs.ErrNotExist) {
			return
		}
		if err == nil {
			if fi, serr := f.Stat(); serr != nil || !fi.Mode().IsRegular() {
				f.Close()
				err = fmt.Errorf("%s is not a regular file", spec.CaptureFile)
			}
		}
		if err != nil {
			st.ErrorCode, st.Error = CodeLauncher, fmt.Sprintf("reading captured output: %v", err)
			return
		}
		defer f.Close()
		src, name = f, spec.CaptureFile
	}
	// Read through the descriptor the program wrote to, not the name the
	// job's user may have pointed elsewhere.
	data, err := readLimited(src, max)
	if err != nil {
		st.ErrorCode, st.Error = CodeLauncher, err.Error()
		return
	}
	props, err := conf.ParseProperties(bytes.NewReader(data), "output of "+name)
	if err != nil {
		st.ErrorCode = CodeLauncher
		st.Error = fmt.Sprintf("captured output is not Java properties: %v", err)
		return
	}
	st.Output = props.ToMap()
}

// readLimited reads a file of at most max bytes from its start; a larger
// one is refused with Oozie's message.
func readLimited(f *os.File, max int) ([]byte, error) {
	data, err := io.ReadAll(io.NewSectionReader(f, 0, int64(max)+1))
	if err != nil {
		return nil, err
	}
	if len(data) > max {
		return nil, fmt.Errorf("Output data exceeds its limit [%d]", max)
	}
	return data, nil
}

// createNoFollow opens path for writing from its start, creating it if
// needed, and refuses links and files of others (openOwn).
func createNoFollow(path string) (*os.File, error) {
	return OpenOwn(path, os.O_RDWR|os.O_CREATE, true)
}

// resolveExec finds the program: a name without slash that is present in
// the working directory (a <file> of the action) is run from there, as
// Oozie's shell action does; otherwise PATH (of the program's environment)
// is searched.
func resolveExec(dir, name string, env []string) (string, error) {
	if name == "" {
		return "", errors.New("no executable given")
	}
	if strings.Contains(name, "/") {
		p := name
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("executable file not found: %w", err)
		}
		return p, nil
	}
	if fi, err := os.Stat(filepath.Join(dir, name)); err == nil && !fi.IsDir() {
		return filepath.Join(dir, name), nil
	}
	pathVar := ""
	for _, kv := range env {
		if strings.HasPrefix(kv, "PATH=") {
			pathVar = kv[len("PATH="):] // the last definition wins, as in exec
		}
	}
	key := pathVar + "\x00" + name
	if p, ok := pathCache.get(key); ok && isExecutable(p) {
		return p, nil
	}
	for _, d := range filepath.SplitList(pathVar) {
		if d == "" {
			d = "."
		}
		p := filepath.Join(d, name)
		if isExecutable(p) {
			if filepath.IsAbs(p) {
				pathCache.put(key, p)
			}
			return p, nil
		}
	}
	return "", errors.New("executable file not found in the working directory or $PATH")
}

func isExecutable(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0
}

// pathCache keeps where PATH searches found programs, for PathCacheTTL.
// The supervisor searches PATH for every step, and a long PATH made it a
// dozen failed stats (37 µs here) before the program's own fork; a hit
// costs one stat, of the program found before, which must still be an
// executable file. What a hit can miss is a program of the same name
// installed meanwhile in an earlier directory of PATH: it is found
// within PathCacheTTL.
var pathCache = &lookupCache{m: map[string]pathHit{}}

// PathCacheTTL is how long a PATH search's result is used again; a
// variable for tests.
var PathCacheTTL = time.Second

// cacheNow is the clock of pathCache; tests replace it.
var cacheNow = time.Now

type pathHit struct {
	path string
	at   time.Time
}

type lookupCache struct {
	mu sync.Mutex
	m  map[string]pathHit
}

func (c *lookupCache) get(key string) (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	h, ok := c.m[key]
	if !ok || cacheNow().Sub(h.at) >= PathCacheTTL {
		return "", false
	}
	return h.path, true
}

// maxPathCache bounds the entries: one per program name and PATH.
const maxPathCache = 1024

func (c *lookupCache) put(key, path string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.m) >= maxPathCache {
		clear(c.m)
	}
	c.m[key] = pathHit{path: path, at: cacheNow()}
}

// procStart returns the start time of process pid as the kernel records it
// (field 22 of /proc/PID/stat), or "" when unknown.
func procStart(pid int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return ""
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return ""
	}
	fields := strings.Fields(s[i+1:])
	// After the command name come state (field 3) ... starttime (field 22).
	if len(fields) < 20 {
		return ""
	}
	return fields[19]
}

// Alive reports whether the launcher recorded in p still runs: the pid
// exists and, where /proc tells, is the same process (not a recycled pid).
func Alive(p LauncherPID) bool {
	if p.PID <= 0 {
		return false
	}
	if err := syscall.Kill(p.PID, 0); err != nil && !errors.Is(err, syscall.EPERM) {
		return false
	}
	if p.Start != "" {
		if now := procStart(p.PID); now != "" && now != p.Start {
			return false
		}
		if IsZombie(p.PID) {
			return false
		}
	}
	return true
}

// IsZombie reports whether pid has exited but not been reaped (state Z in
// /proc), which kill(2) with signal 0 still finds.
func IsZombie(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i >= 0 && strings.HasPrefix(strings.TrimSpace(s[i+1:]), "Z")
}

// GroupAlive reports whether any live process of group pgid is left.
// Zombies do not count: an orphan whose parent died is reaped by init,
// which in a container may take its time, yet it runs no more.
func GroupAlive(pgid int) bool {
	if pgid <= 1 {
		return false
	}
	if err := syscall.Kill(-pgid, 0); err != nil && !errors.Is(err, syscall.EPERM) {
		return false
	}
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return true // no /proc: trust kill(2)
	}
	want := strconv.Itoa(pgid)
	for _, e := range entries {
		if e.Name()[0] < '0' || e.Name()[0] > '9' {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) > 2 && f[2] == want && f[0] != "Z" {
			return true
		}
	}
	return false
}
