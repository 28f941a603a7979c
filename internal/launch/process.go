// Package launch is the launch runtime of the launcher-style action types
// (shell, java, map-reduce, distcp, the Hadoop tools, custom types): the
// process executor (Start, Check, Kill, re-attach after a restart) that
// runs a family's Program detached in a work directory of its own, the
// launcher protocol (`gozie launch DIR`), the launch supervisor and its
// client, pid files, run-as, space reserves, work directories, the
// staging every family shares (prepare block, files, archives, class
// paths), the environment of steps and the built-in tools run as
// `gozie launch -tool NAME`.
//
// Families register their types here (Register, from an init function)
// and RegisterBuiltins puts them in an action.Registry. The package links
// no engine, store or server: it runs inside the launched process too.
package launch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/gozie/gozie/internal/action"

	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// A Program is what one launcher-style action type adds to the common
// machinery of processExecutor: how the working directory is staged and
// the launch spec built, and how a recorded outcome reads as the action's
// result. Programs keep no state: a restarted server rebuilds them.
type Program interface {
	// Build stages dir (prepare block, files, archives, configuration)
	// and returns what the launcher is to run there.
	Build(dir string, a *action.Context) (*LaunchSpec, error)
	// Result turns the launcher's record of a finished run into the
	// action's result (defaultResult for most).
	Result(dir string, a *action.Context, st LaunchStatus) action.Result
}

// Options configure the executors of this package: how programs are
// launched (every launcher-style action: shell, java, map-reduce, distcp,
// the tool actions) and, in Site, the server settings that say where
// Java, Hadoop, the share library and the tools are.
type Options struct {
	// Launcher is the command that runs the launcher; the action's working
	// directory is appended as the last argument. Empty means the running
	// binary: [os.Executable(), "launch"].
	Launcher []string
	// MaxOutput bounds captured output (oozie.action.max.output.data);
	// 0 means the key's value in Site, else DefaultMaxOutput. An action's
	// configuration may set its own (MaxOutputOf).
	MaxOutput int
	// KillGrace is how long Kill waits after SIGTERM before SIGKILL;
	// 0 means 5 seconds.
	KillGrace time.Duration
	// SupervisorDir, when set, is the directory of the launch supervisor
	// (supervisor.go; the server uses <data>/launcher): programs are
	// started by one long-lived process instead of one launcher process
	// per step. Empty, or a directory whose socket path would be too long
	// for a unix socket, means the per-step launcher.
	SupervisorDir string
	// RunAsUser runs each program as its job's user (uid, gid and
	// supplementary groups from the operating system's user database)
	// instead of the server's user; it needs a server running as root
	// (gozie.launch.as.user). The launcher stays root and records the
	// outcome; the work directory is given to the user.
	RunAsUser bool
	// Site is the server configuration (gozie-site.xml keys after
	// defaults and environment): each action type reads its own keys
	// from it (gozie.java.home, ...). nil means none set.
	Site map[string]string
}

// Setting returns the value of a server configuration key, trimmed; "" when
// unset.
func (o Options) Setting(key string) string {
	return strings.TrimSpace(o.Site[key])
}

// Runtime is what every process executor of one registry shares: the
// options, the supervisor client and the launchers this process watches.
type Runtime struct {
	Opts Options
	sup  *supervisorClient // nil: per-step launcher
	mu   sync.Mutex
	// procs are the launchers this process started or watches, by working
	// directory; done is closed when the launcher has exited.
	procs map[string]*launchProc
	// prep are the work directories PrepareDir works on (closed when it
	// is done) or that Start has taken (closed at once): a directory is
	// prepared at most once, and never while or after it is started.
	prep map[string]chan struct{}

	envMu   sync.Mutex
	envIn   []string // the environment envOut was made from
	envKeep string
	envOut  []string // StepEnv(envIn, envKeep); shared, never modified
}

// stepEnv is StepEnv of the server's environment, computed again only
// when that environment or the keep list changed: it looks for secrets
// in every value with regular expressions, for every step, and the
// server's environment hardly ever changes.
func (l *Runtime) stepEnv() []string {
	environ, keep := os.Environ(), l.Opts.Setting(LaunchEnvKeep)
	l.envMu.Lock()
	defer l.envMu.Unlock()
	if l.envOut == nil || keep != l.envKeep || !slices.Equal(environ, l.envIn) {
		l.envIn, l.envKeep, l.envOut = environ, keep, StepEnv(environ, keep)
	}
	return l.envOut
}

type launchProc struct {
	pid  int
	done chan struct{}
}

// NewRuntime returns the runtime the executors of one registry share.
func NewRuntime(opts Options) *Runtime {
	l := &Runtime{Opts: opts, procs: make(map[string]*launchProc), prep: make(map[string]chan struct{})}
	if opts.SupervisorDir != "" {
		// An unusable directory (a socket path too long) leaves the
		// per-step launcher, which works anywhere.
		l.sup, _ = newSupervisorClient(opts.SupervisorDir, l.Opts.launcher)
	}
	return l
}

// processExecutor runs one launcher-style action type: its program builds
// the launch spec, and the launcher or the supervisor runs it detached
// (launcher.go), so that the program outlives a server crash.
type processExecutor struct {
	*Runtime
	prog Program
}

// NewProcess returns the executor of one launcher-style action type:
// p stages and reads the runs, l starts and watches them.
func NewProcess(l *Runtime, p Program) *processExecutor {
	return &processExecutor{Runtime: l, prog: p}
}

// launcher returns the command that runs `gozie launch`.
func (o Options) launcher() ([]string, error) {
	if len(o.Launcher) > 0 {
		return o.Launcher, nil
	}
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	return []string{self, "launch"}, nil
}

// ToolCommand returns the command line that runs one of gozie's built-in
// tools (RunLauncher's -tool NAME): programs that gozie itself provides,
// such as the local streaming map-reduce, run through the launcher like
// any other program, so that they are detached, killable and recorded the
// same way.
func (o Options) ToolCommand(name string, args ...string) (exec string, argv []string, err error) {
	l, err := o.launcher()
	if err != nil {
		return "", nil, action.Errorf(action.NonTransient, CodeIO, "finding the gozie binary: %v", err)
	}
	argv = append(append(append([]string{}, l[1:]...), "-tool", name), args...)
	return l[0], argv, nil
}

// DirPreparer is an executor whose work directory can be made before the
// action's start is committed: nothing in it runs anything or touches the
// job's data, so the engine makes it while the commit that decides the
// start is in flight (the files are new inodes, a measurable part of a
// short step). A directory that exists is left alone.
type DirPreparer interface {
	PrepareDir(dir string)
}

// PrepareDir makes dir and the launcher's reserved files (the part of
// Start that only allocates), unless dir exists or Start has taken it.
// Errors are left for Start to meet and report.
func (s *processExecutor) PrepareDir(dir string) {
	s.mu.Lock()
	if _, taken := s.prep[dir]; taken || s.procs[dir] != nil {
		s.mu.Unlock()
		return
	}
	done := make(chan struct{})
	s.prep[dir] = done
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.prep, dir)
		s.mu.Unlock()
		close(done)
	}()
	if _, err := os.Lstat(dir); err == nil || !errors.Is(err, fs.ErrNotExist) {
		return
	}
	if MkdirAll(dir, 0o755) != nil {
		return
	}
	_ = ReserveLauncherFiles(dir, s.Opts.MaxOutputOf(nil), s.sup != nil)
}

// takeDir waits for a PrepareDir of dir in progress and keeps any from
// starting until Start returns (the release function).
func (s *processExecutor) takeDir(dir string) (release func()) {
	mine := make(chan struct{})
	for {
		s.mu.Lock()
		busy, ok := s.prep[dir]
		if !ok {
			s.prep[dir] = mine
			s.mu.Unlock()
			return func() {
				s.mu.Lock()
				if s.prep[dir] == mine {
					delete(s.prep, dir)
				}
				s.mu.Unlock()
				close(mine)
			}
		}
		s.mu.Unlock()
		<-busy
	}
}

// Start prepares the working directory (prepare block, files, archives,
// action configuration) and starts the launcher detached in its own process
// group, so that the program survives a server crash. When a launcher has
// already run or runs in the directory, Start reports on it instead.
func (s *processExecutor) Start(ctx context.Context, a *action.Context) (action.Result, error) {
	if a.WorkDir == "" {
		return action.Result{}, action.Errorf(action.NonTransient, CodeIO, "%s action [%s] has no working directory", a.Type, a.ActionID)
	}
	dir, err := filepath.Abs(a.WorkDir)
	if err != nil {
		return action.Result{}, action.Errorf(action.NonTransient, CodeIO, "%v", err)
	}
	if OwnExists(filepath.Join(dir, StatusFile)) || OwnExists(filepath.Join(dir, PIDFile)) {
		s.watchForeign(dir, a.Notify)
		return s.Check(ctx, a, dir)
	}
	s.mu.Lock()
	p := s.procs[dir]
	s.mu.Unlock()
	if p != nil {
		return s.Check(ctx, a, dir)
	}
	if a.Element == nil {
		return action.Result{}, action.Errorf(action.ErrorKindError, CodeSchema, "%s action without body", a.Type)
	}
	defer s.takeDir(dir)()
	runAs, err := RunAsIf(s.Opts, a.User)
	if err != nil {
		return action.Result{}, err
	}
	if err := MkdirAll(dir, 0o755); err != nil {
		if IsNoSpace(err) {
			return action.Result{}, noSpaceError("creating working directory", err)
		}
		return action.Result{}, action.Errorf(action.Transient, CodeIO, "creating working directory: %v", err)
	}
	// Everything the launcher will write is allocated first: while a full
	// disk can still fail the start cleanly (nothing has run), and, with
	// RunAsUser, while the directory is still the server's. The status
	// reserve is sized for this action's own output limit.
	maxOut := s.Opts.MaxOutputOf(a.Conf)
	if err := ReserveLauncherFiles(dir, maxOut, s.sup != nil); err != nil {
		return action.Result{ExternalID: dir}, beforeLaunch(dir, "reserving the launcher's files", action.Errorf(action.Transient, CodeIO, "reserving the launcher's files: %v", err))
	}
	if runAs != nil {
		if err := giveDir(dir, runAs); err != nil {
			return action.Result{ExternalID: dir}, action.Errorf(action.Transient, CodeIO, "giving the working directory to user [%s]: %v", runAs.Name, err)
		}
	}
	// The job's own work — its <prepare> block, staging the files it
	// names, reading its key — is done with the job user's rights, so
	// that the server never changes or reads for a job what its user
	// could not.
	var spec *LaunchSpec
	err = AsUser(runAs, func() (err error) {
		spec, err = s.prog.Build(dir, a)
		return err
	})
	if err != nil {
		return action.Result{ExternalID: dir}, beforeLaunch(dir, "preparing the action", err)
	}
	spec.RunAs = runAs
	krb, err := s.Opts.kerberosEnv(ctx, dir, a.User)
	if err != nil {
		return action.Result{ExternalID: dir}, beforeLaunch(dir, "getting the step's Kerberos ticket", err)
	}
	spec.Env = append(spec.Env, krb...)
	// The limit is the action's, whatever the family's Build set: the
	// reserve above was made for it.
	spec.MaxOutput = maxOut
	writeLauncherNotes(dir, spec.Notes)
	if err := s.launch(dir, spec, a.Notify); err != nil {
		return action.Result{ExternalID: dir}, err
	}
	return action.Result{ExternalID: dir, ExternalStatus: "RUNNING"}, nil
}

// MkdirAll is os.MkdirAll, a variable so that tests can fill the disk.
var MkdirAll = os.MkdirAll

// beforeLaunch turns a failure of Start before the launcher ran into its
// error. A full disk makes it transient (the engine's START_RETRY) and
// frees what this attempt wrote: nothing ran, and the retry uses a work
// directory of its own.
func beforeLaunch(dir, what string, err error) error {
	if !IsNoSpace(err) && !mentionsNoSpace(err) {
		return err
	}
	_ = os.RemoveAll(dir)
	return noSpaceError(what, err)
}

// mentionsNoSpace recognizes ENOSPC and EDQUOT in errors that kept only
// their text (ExecErrors built with Errorf).
func mentionsNoSpace(err error) bool {
	msg := err.Error()
	return strings.Contains(msg, syscall.ENOSPC.Error()) || strings.Contains(msg, syscall.EDQUOT.Error())
}

// launch hands the step to the supervisor (the spec travels in the
// request) or, failing that, writes the spec to launch.json and starts a
// launcher for it in its own process group and watches it.
func (s *processExecutor) launch(dir string, spec *LaunchSpec, notify func()) error {
	// The program starts from the server's environment without the
	// server's secrets (stepEnv).
	env := s.stepEnv()
	var supErr error
	if s.sup != nil {
		claimed, err := s.sup.start(dir, spec, env, notify)
		if err == nil {
			if claimed {
				s.watchForeign(dir, notify)
			}
			return nil
		}
		supErr = err
	}
	withEnv := *spec
	withEnv.Environ = env
	data, _ := json.MarshalIndent(&withEnv, "", "  ")
	if err := WriteFileAtomic(filepath.Join(dir, SpecFile), data); err != nil {
		err = action.Errorf(action.Transient, CodeIO, "writing launch spec: %v", err)
		if supErr != nil {
			// The supervisor may have claimed the directory after all:
			// it is not removed; the retried Start finds out.
			return err
		}
		return beforeLaunch(dir, "writing launch spec", err)
	}
	argv, err := s.Opts.launcher()
	if err != nil {
		return action.Errorf(action.NonTransient, CodeIO, "finding the launcher: %v", err)
	}
	logf, err := createOwn(filepath.Join(dir, LauncherLog), os.O_APPEND, 0o644)
	if err != nil {
		return action.Errorf(action.Transient, CodeIO, "%v", err)
	}
	if supErr != nil {
		// Safe to fall back: if the supervisor claimed the directory
		// after all, this launcher finds it claimed and runs nothing.
		fmt.Fprintf(logf, "gozie: launch supervisor: %v; using a launcher process\n", supErr)
	}
	cmd := exec.Command(argv[0], append(argv[1:len(argv):len(argv)], dir)...)
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		logf.Close()
		return action.Errorf(action.Transient, CodeIO, "starting the launcher %q: %v", argv[0], err)
	}
	p := &launchProc{pid: cmd.Process.Pid, done: make(chan struct{})}
	s.mu.Lock()
	s.procs[dir] = p
	s.mu.Unlock()
	go func() {
		_ = cmd.Wait()
		logf.Close()
		close(p.done)
		if notify != nil {
			notify()
		}
	}()
	return nil
}

// watchForeign notifies the engine when a launcher started by an earlier
// server process ends. The launcher is not a child of this process, so it
// can only be polled; polling is a latency aid, the engine polls Check too.
func (s *processExecutor) watchForeign(dir string, notify func()) {
	if notify == nil || OwnExists(filepath.Join(dir, StatusFile)) {
		return
	}
	pid, ok := ReadPID(dir)
	if !ok {
		return
	}
	s.mu.Lock()
	if s.procs[dir] != nil {
		s.mu.Unlock()
		return
	}
	p := &launchProc{pid: pid.PID, done: make(chan struct{})}
	s.procs[dir] = p
	s.mu.Unlock()
	go func() {
		defer func() {
			close(p.done)
			notify()
		}()
		// A supervisor (unlike a launcher) outlives the program: ask it,
		// and poll for the status too should it not know the program.
		if pid.Supervised && s.sup != nil && s.sup.wait(dir) {
			return
		}
		t := time.NewTicker(250 * time.Millisecond)
		defer t.Stop()
		for range t.C {
			if !Alive(pid) || OwnExists(filepath.Join(dir, StatusFile)) {
				break
			}
		}
	}()
}

// Check reads the launcher's files; externalID is the working directory.
func (s *processExecutor) Check(_ context.Context, a *action.Context, externalID string) (action.Result, error) {
	dir := externalID
	if dir == "" {
		dir = a.WorkDir
	}
	running := action.Result{ExternalID: dir, ExternalStatus: "RUNNING"}
	if st, ok, err := ReadStatus(dir); ok || err != nil {
		s.forget(dir)
		return s.finished(dir, a, st, err), nil
	}
	if pid, ok := ReadPID(dir); ok {
		if Alive(pid) {
			return running, nil
		}
		// It may have written its status between the two reads.
		if st, ok, err := ReadStatus(dir); ok || err != nil {
			return s.finished(dir, a, st, err), nil
		}
		if DiskFullCheck(dir) {
			// Not lost while the disk is full: the engine checks again
			// (END_RETRY) once there may be room.
			return action.Result{ExternalID: dir, ExternalStatus: "RUNNING"}, diskFullCheck(
				"disk full: launcher (pid %d) ended without recording how the program ended; checking again later", pid.PID)
		}
		return gone(dir, fmt.Sprintf("launcher (pid %d) died without recording how the program ended", pid.PID)), nil
	}
	s.mu.Lock()
	p := s.procs[dir]
	s.mu.Unlock()
	if p != nil {
		select {
		case <-p.done:
		default:
			return running, nil
		}
		if st, ok, err := ReadStatus(dir); ok || err != nil {
			return s.finished(dir, a, st, err), nil
		}
		if DiskFullCheck(dir) {
			return action.Result{ExternalID: dir, ExternalStatus: "RUNNING"}, diskFullCheck(
				"disk full: launcher exited before starting the program; checking again later")
		}
		return gone(dir, "launcher exited before starting the program: "+Tail(filepath.Join(dir, LauncherLog))), nil
	}
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		// Several servers: the step was started by a server on another
		// host that stopped, and this one took its job over. Nothing here
		// says how the step ended, so it is not reported OK: JA017, which
		// retry-max retries by default (a new attempt on this server).
		return gone(dir, "the work directory "+dir+" is not on this host: the server that started the step is gone (or its data directory was removed), and how the step ended is unknown"), nil
	}
	fi, err := os.Stat(filepath.Join(dir, SpecFile))
	if err != nil {
		return gone(dir, "no launcher was started in "+dir), nil
	}
	if time.Since(fi.ModTime()) < LauncherStartGrace {
		return running, nil
	}
	return gone(dir, "launcher never started: "+Tail(filepath.Join(dir, LauncherLog))), nil
}

// forget drops the record of a launcher that has exited, so that a
// long-running server does not accumulate one per action run.
func (s *processExecutor) forget(dir string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if p := s.procs[dir]; p != nil {
		select {
		case <-p.done:
			delete(s.procs, dir)
		default:
		}
	}
}

func gone(dir, msg string) action.Result {
	return action.Result{ExternalID: dir, ExternalStatus: "FAILED/KILLED", Done: true, Status: action.Error,
		ErrorCode: CodeLauncherGone, ErrorMessage: msg}
}

// finished turns a read of status.json into the action's result: an
// unreadable status is the launcher's failure; a readable one is the
// program's to interpret.
func (s *processExecutor) finished(dir string, a *action.Context, st LaunchStatus, err error) action.Result {
	if err != nil {
		return action.Result{ExternalID: dir, Done: true, ExternalStatus: "FAILED/KILLED", Status: action.Error, ErrorCode: CodeLauncher,
			ErrorMessage: "unreadable launcher status: " + err.Error()}
	}
	// What the program wrote is read with the job user's rights.
	runAs, rerr := RunAsIf(s.Opts, a.User)
	if rerr != nil {
		var xe *action.ExecError
		errors.As(rerr, &xe)
		return action.Result{ExternalID: dir, Done: true, ExternalStatus: "FAILED/KILLED", Status: action.Error, ErrorCode: xe.Code, ErrorMessage: xe.Msg}
	}
	var r action.Result
	if err := AsUser(runAs, func() error {
		r = s.prog.Result(dir, a, st)
		return nil
	}); err != nil {
		return action.Result{ExternalID: dir, Done: true, ExternalStatus: "FAILED/KILLED", Status: action.Error, ErrorCode: CodeIO, ErrorMessage: err.Error()}
	}
	return r
}

// DefaultResult reads a launch status the way most programs want it: a
// launch error as recorded, a non-zero exit or a signal as JA018 naming
// mainClass (the class Oozie's launcher would have run), exit 0 as OK with
// the captured output.
func DefaultResult(dir string, st LaunchStatus, mainClass string) action.Result {
	r := action.Result{ExternalID: dir, Done: true, ExternalStatus: "FAILED/KILLED", Status: action.Error, ErrorCode: CodeLauncher}
	switch {
	case st.Error != "":
		if st.ErrorCode != "" {
			r.ErrorCode = st.ErrorCode
		}
		r.ErrorMessage = st.Error
	case st.Signal != "":
		r.ErrorMessage = fmt.Sprintf("Main class [%s], exit code [%d], killed by signal [%s]", mainClass, st.ExitCode, st.Signal)
	case st.ExitCode != 0:
		r.ErrorMessage = fmt.Sprintf("Main class [%s], exit code [%d]", mainClass, st.ExitCode)
	default:
		return action.Result{ExternalID: dir, ExternalStatus: "SUCCEEDED", Done: true, Status: action.OK, Data: st.Output}
	}
	return r
}

// ReadStatus reads the outcome the launcher recorded in dir; ok is false
// while there is none.
func ReadStatus(dir string) (LaunchStatus, bool, error) {
	var st LaunchStatus
	b, err := readOwn(filepath.Join(dir, StatusFile))
	if errors.Is(err, fs.ErrNotExist) {
		return st, false, nil
	}
	if err == nil {
		err = json.Unmarshal(b, &st)
	}
	return st, err == nil, err
}

// LocalExternalID is how a process action's external id is shown to
// people and clients: "local:<pid>" of the step's own program (not of the
// launch supervisor that started it, which every step shares), as short as
// a Hadoop job id, instead of the work directory the engine keeps as the
// external id (and re-attaches by after a restart). An attempt whose
// program's pid is not known shows as its work directory relative to the
// actions directory. dir is the work directory of the action's current
// attempt; an external id naming an earlier attempt of the same action
// (an action in USER_RETRY keeps the one of the attempt that failed until
// the next starts) is shown the same way, from its own directory. ok is
// false when externalID is not a work directory of the action.
func LocalExternalID(externalID, dir string) (short string, ok bool) {
	if externalID == "" {
		return "", false
	}
	ext := filepath.Clean(externalID)
	if ext != filepath.Clean(dir) && !sameAction(ext, dir) {
		return "", false
	}
	if p, found := ReadPID(ext); found {
		if pid := p.stepPID(); pid > 0 {
			return "local:" + strconv.Itoa(pid), true
		}
	}
	if parent := filepath.Dir(ext); filepath.Base(filepath.Dir(parent)) == "actions" {
		// actions/<id>/<attempt>, as earlier versions laid it out
		return "local:" + filepath.Base(parent) + "/" + filepath.Base(ext), true
	}
	return "local:" + filepath.Base(ext), true
}

// stepPID is the pid that stands for the step: its program's once it
// runs; before that the per-step launcher's, which runs for this step
// only, but never the supervisor's (0).
func (p LauncherPID) stepPID() int {
	switch {
	case p.ChildPID > 0:
		return p.ChildPID
	case !p.Supervised:
		return p.PID
	}
	return 0
}

// Kill sends SIGTERM to the launcher's process group (the program and all
// it started), waits up to KillGrace for the group to go, then sends
// SIGKILL. An action that has ended is left alone.
func (s *processExecutor) Kill(ctx context.Context, a *action.Context, externalID string) error {
	dir := externalID
	if dir == "" {
		dir = a.WorkDir
	}
	if OwnExists(filepath.Join(dir, StatusFile)) {
		return nil
	}
	pgid := 0
	if pid, ok := ReadPID(dir); ok {
		if pid.Supervised && pid.PGID == 0 && Alive(pid) {
			// Claimed, the program about to start: its group is known
			// in a moment.
			if pid = waitPGID(ctx, dir, pid); OwnExists(filepath.Join(dir, StatusFile)) {
				return nil
			}
			if pid.PGID == 0 {
				return action.Errorf(action.Transient, CodeIO, "the program of action [%s] is still being started; kill it again", a.ActionID)
			}
		}
		if Alive(pid) {
			pgid = pid.PGID
		} else if pid.ChildPID > 0 {
			// The launcher died but its program may run on in the group.
			if g, err := syscall.Getpgid(pid.ChildPID); err == nil && g == pid.PGID {
				pgid = pid.PGID
			}
		}
	}
	if pgid == 0 && s.sup != nil {
		// The pid file may be gone or replaced (the job's user owns the
		// directory): the supervisor knows the groups of its programs.
		if g, ok := s.sup.group(dir); ok {
			pgid = g
		}
	}
	if pgid == 0 {
		s.mu.Lock()
		p := s.procs[dir]
		s.mu.Unlock()
		if p == nil {
			return nil
		}
		select {
		case <-p.done:
			return nil
		default:
			pgid = p.pid // started with Setpgid: its pid is the group id
		}
	}
	grace := s.Opts.KillGrace
	if grace <= 0 {
		grace = 5 * time.Second
	}
	_ = syscall.Kill(-pgid, syscall.SIGTERM)
	if waitGroupGone(ctx, pgid, grace) {
		return nil
	}
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
	if waitGroupGone(ctx, pgid, 5*time.Second) {
		return nil
	}
	return action.Errorf(action.Transient, CodeIO, "process group %d of action [%s] still alive after SIGKILL", pgid, a.ActionID)
}

// waitPGID re-reads the pid file of a supervised step until it names the
// program's group, the status is written or a few seconds have passed.
func waitPGID(ctx context.Context, dir string, pid LauncherPID) LauncherPID {
	deadline := time.Now().Add(5 * time.Second)
	for pid.PGID == 0 && time.Now().Before(deadline) && ctx.Err() == nil && !OwnExists(filepath.Join(dir, StatusFile)) {
		time.Sleep(time.Millisecond) // the supervisor is forking the program
		if p, ok := ReadPID(dir); ok {
			pid = p
		}
	}
	return pid
}

// waitGroupGone polls until no process of the group is left, the deadline
// passes or ctx ends.
func waitGroupGone(ctx context.Context, pgid int, d time.Duration) bool {
	deadline := time.NewTimer(d)
	defer deadline.Stop()
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for GroupAlive(pgid) {
		select {
		case <-deadline.C:
			return !GroupAlive(pgid)
		case <-ctx.Done():
			return false
		case <-tick.C:
		}
	}
	return true
}

// Exists reports whether p exists (links followed).
func Exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// Tail returns the last lines of a log for error messages.
func Tail(p string) string {
	b, _, _ := ReadOwnTail(p, 4096)
	s := strings.TrimSpace(string(b))
	if len(s) > 500 {
		s = "..." + s[len(s)-500:]
	}
	if s == "" {
		return "(no launcher output)"
	}
	return s
}
