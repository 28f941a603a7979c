package launch

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"sync"
	"syscall"
	"time"
)

// The launch supervisor (`gozie launch -supervise DIR`) is one long-lived
// process per data directory that does the launcher's work for every
// step: it claims the step's work directory, starts the program in a
// process group of its own, waits for it and records its outcome, with
// the same files and the same reserves as the per-step launcher
// (launcher.go, space.go). Starting the whole gozie binary once per step
// costs tens of milliseconds of CPU; asking the supervisor costs one
// round trip on a unix socket plus the program's own fork and exec.
//
// The supervisor is started on demand by the first Start that finds no
// supervisor listening, detached in a session of its own so that it
// survives the server (SIGKILL included). Its files, in DIR (mode 0700):
//
//	supervisor.sock  the unix socket it listens on
//	supervisor.lock  flock(2)ed while it listens: one supervisor per DIR
//	supervisor.log   its standard output and error
//
// Protocol: one JSON request per connection (supRequest), answered by
// JSON lines (supReply), or, after a first request "mux" (version 5),
// any number of requests on one connection, each with an id its replies
// carry (supervisor_mux.go). Every request and reply carries the protocol
// version; a supervisor asked by a newer version stops listening (it
// finishes the programs it runs, then exits) so that the client starts
// one of its own version, and a client finding a newer supervisor uses
// the per-step launcher.
//
// What keeps a step from running twice is unchanged: the claim of
// launcher.pid with link(2). The pid file names the supervisor (PID,
// Start, Supervised) and, once the program runs, the program's group.
// While the supervisor lives, a step without status.json is running; when
// it dies, Check finds the recorder gone, exactly as for a dead launcher:
// JA017, or END_RETRY on a full disk. A request that fails before its
// answer is tried again (three attempts, starting a supervisor as
// needed) and then handed to the per-step launcher, which finds the
// directory claimed if a supervisor got that far.

// SupervisorProtocol is the version of the supervisor protocol; change it
// whenever requests or replies change meaning. A variable so that tests
// can play an old supervisor.
var SupervisorProtocol = 5

// Files of the supervisor's directory.
const (
	SupervisorSocket = "supervisor.sock"
	supervisorLock   = "supervisor.lock"
	SupervisorLog    = "supervisor.log"
)

// SupervisorIdle is how long a supervisor with no program to watch and no
// connection waits before it exits; the next Start starts a new one. A
// variable for tests.
var SupervisorIdle = time.Minute

// maxSocketPath is the longest path a unix socket can be bound to (the
// sun_path of Linux, 108 bytes, with its terminating NUL).
const maxSocketPath = 107

// supRequest is what a client asks.
type supRequest struct {
	V int `json:"v"`
	// ID tells the replies of concurrent requests on a multiplexed
	// connection apart (version 5); 0 on a connection of one request.
	ID uint64 `json:"id,omitempty"`
	// Op is "mux" (the connection carries many requests with ids,
	// version 5), "run" (claim Dir and run Spec there), "wait" (answer
	// when the program of Dir ends), "group" (the process group of the
	// program of Dir), "ping" or "quit" (stop listening; exit once the
	// running programs have ended). Version 3 added "group" and made
	// Env the program's whole environment, cleaned of the server's
	// secrets by the client.
	Op  string `json:"op"`
	Dir string `json:"dir,omitempty"`
	// Spec is what to run. It travels in the request rather than in
	// Dir/launch.json (protocol 1): a file less per step (version 2).
	Spec *LaunchSpec `json:"spec,omitempty"`
	// Env is the environment the program starts from: the server's, as
	// the per-step launcher inherited it, not the supervisor's.
	Env []string `json:"env,omitempty"`
	// EnvID names Env (a hash of it): the supervisor keeps Env under it
	// for later requests, which send EnvRef instead (version 4). The
	// environment is most of a request's bytes, and decoding it was a
	// fifth of the supervisor's CPU per step.
	EnvID string `json:"envId,omitempty"`
	// EnvRef is the EnvID of an environment sent before, in place of
	// Env. A supervisor that does not know it (it started since) answers
	// "env", and the client sends the request again with Env.
	EnvRef string `json:"envRef,omitempty"`
	// Build identifies the binary the client would start as supervisor
	// (buildOf); a supervisor of another build stops listening when asked
	// to run a step, so that an upgrade takes effect without waiting for
	// the old supervisor to be idle.
	Build string `json:"build,omitempty"`
}

// supReply is one answer. Events: "started" (the program runs; "exited"
// follows on the same connection when its outcome is recorded),
// "exited", "claimed" (another launcher owns Dir), "unknown" (a wait for
// a program this supervisor does not run), "env" (EnvRef names no
// environment this supervisor knows: nothing ran), "ok", "version" (V is
// the supervisor's version, which differs), "error".
type supReply struct {
	V int `json:"v"`
	// ID is the id of the request answered (multiplexed connections).
	ID    uint64 `json:"id,omitempty"`
	Event string `json:"event"`
	PID   int    `json:"pid,omitempty"`
	// PGID answers "group": the program's process group.
	PGID  int    `json:"pgid,omitempty"`
	Error string `json:"error,omitempty"`
}

// supervisor is the state of a running supervisor process.
type supervisor struct {
	dir   string
	build string      // buildOf its own executable, taken when it started
	pid   LauncherPID // its own pid and start time, for the pid files
	logw  io.Writer
	stopc chan struct{} // closed when it stops listening

	mu      sync.Mutex
	ln      *net.UnixListener
	lock    *os.File
	sockIno uint64
	running map[string]chan struct{} // programs by work directory; closed when recorded
	// envs are the environments clients sent with an EnvID, by it.
	envs map[string][]string
	// groups are the process groups of the running programs, by work
	// directory: Kill finds a program's group here when the pid file in
	// a directory its job's user owns was destroyed.
	groups map[string]int
	// muxes are the multiplexed connections being served: stop shuts
	// their reading side so that their clients take new requests to
	// the next supervisor.
	muxes map[*net.UnixConn]struct{}
	// conns counts the connections of one request and the requests in
	// progress on multiplexed connections, not those connections
	// themselves: a server's idle connection keeps no supervisor alive.
	conns   int
	idle    time.Time // when the supervisor last had nothing to do
	stopped bool
}

// RunSupervisor is `gozie launch -supervise DIR`: it serves launch
// requests on DIR/supervisor.sock until it has been idle for a while, is
// asked to quit, or loses its socket, and returns its exit status. The
// process that starts it may pass a pipe as file descriptor 3: it gets
// one line, "ok PID" once the supervisor listens, "busy" when another
// supervisor holds DIR, or the error.
func RunSupervisor(dir string, stderr io.Writer) int {
	// Descriptor 3 is the pipe only if it is one: started by hand, it may
	// be closed, and the runtime may give the number to a file of its own.
	var ready *os.File
	if st := (syscall.Stat_t{}); syscall.Fstat(3, &st) == nil && st.Mode&syscall.S_IFMT == syscall.S_IFIFO {
		ready = os.NewFile(3, "ready")
	}
	say := func(format string, args ...any) {
		if ready != nil {
			fmt.Fprintf(ready, format+"\n", args...)
			ready.Close()
			ready = nil
		}
	}
	defer say("exited")
	// Launch requests never come from a terminal: a hang-up must not end
	// the programs' recorder. SIGTERM and SIGINT make it quit gracefully.
	signal.Ignore(syscall.SIGHUP)
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT)

	self, _ := os.Executable()
	s := &supervisor{dir: dir, logw: stderr, build: BuildOf(self), stopc: make(chan struct{}), running: map[string]chan struct{}{}, groups: map[string]int{}, muxes: map[*net.UnixConn]struct{}{},
		pid: LauncherPID{PID: os.Getpid(), Start: procStart(os.Getpid()), Supervised: true}, idle: time.Now()}
	busy, err := s.listen()
	if busy {
		say("busy")
		return 0
	}
	if err != nil {
		say("error %v", err)
		fmt.Fprintf(stderr, "gozie launch -supervise: %v\n", err)
		return LauncherFailed
	}
	say("ok %d", os.Getpid())
	go s.accept()

	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case <-sigs:
			s.stop("signal")
		case <-tick.C:
			s.housekeep()
		case <-s.stopc:
		}
		// Connections count too: one accepted before the stop may be
		// about to claim a step, which must not be left claimed by a
		// supervisor that is gone.
		s.mu.Lock()
		done := s.stopped && len(s.running) == 0 && s.conns == 0
		s.mu.Unlock()
		if done {
			return launcherOK
		}
		if s.isStopped() {
			// Stopped, programs left: poll for them to end.
			time.Sleep(10 * time.Millisecond)
		}
	}
}

// listen takes the directory's lock and listens on its socket, replacing
// a stale socket file. busy reports that another supervisor holds the lock.
func (s *supervisor) listen() (busy bool, err error) {
	if err := os.MkdirAll(s.dir, 0o700); err != nil {
		return false, err
	}
	lock, err := os.OpenFile(filepath.Join(s.dir, supervisorLock), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return false, err
	}
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		lock.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return true, nil
		}
		return false, err
	}
	path := filepath.Join(s.dir, SupervisorSocket)
	// Whoever holds the lock owns the socket's name: a file left there
	// is a socket nobody listens on any more.
	_ = os.Remove(path)
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		lock.Close()
		return false, err
	}
	ln.SetUnlinkOnClose(false)
	s.ln, s.lock, s.sockIno = ln, lock, inode(path)
	return false, nil
}

// BuildOf identifies the executable at path by size and modification
// time, "" when it cannot be read. An upgrade replaces the file, so the
// identity changes; a supervisor records its own when it starts, since
// the name may point to a newer binary later.
var BuildOf = func(path string) string {
	fi, err := os.Stat(path)
	if err != nil || path == "" {
		return ""
	}
	return fmt.Sprintf("%d-%d", fi.Size(), fi.ModTime().UnixNano())
}

func inode(path string) uint64 {
	fi, err := os.Lstat(path)
	if err != nil {
		return 0
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return st.Ino
	}
	return 0
}

func (s *supervisor) isStopped() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stopped
}

// stop makes the supervisor stop listening and give up its lock, so that
// a new supervisor may start at once; it exits when its programs have
// ended and their outcomes are recorded.
func (s *supervisor) stop(why string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopped {
		return
	}
	s.stopped = true
	fmt.Fprintf(s.logw, "gozie launch -supervise: stopping (%s), %d programs running\n", why, len(s.running))
	s.ln.Close()
	// Unlink the socket only if it is still this supervisor's, not the
	// one of a successor that took the lock meanwhile.
	path := filepath.Join(s.dir, SupervisorSocket)
	if inode(path) == s.sockIno {
		_ = os.Remove(path)
	}
	s.lock.Close()
	for c := range s.muxes {
		_ = c.CloseRead()
	}
	close(s.stopc)
}

// housekeep stops the supervisor when it has been idle long enough, or
// when its socket is gone (its data directory was removed) or replaced.
func (s *supervisor) housekeep() {
	if inode(filepath.Join(s.dir, SupervisorSocket)) != s.sockIno {
		s.stop("socket removed")
		return
	}
	s.mu.Lock()
	idle := len(s.running) == 0 && s.conns == 0 && time.Since(s.idle) >= SupervisorIdle
	s.mu.Unlock()
	if idle {
		s.stop("idle")
	}
}

func (s *supervisor) accept() {
	for {
		c, err := s.ln.AcceptUnix()
		if err != nil {
			if !s.isStopped() {
				fmt.Fprintf(s.logw, "gozie launch -supervise: accept: %v\n", err)
				s.stop("accept failed")
			}
			return
		}
		s.mu.Lock()
		if s.stopped {
			// Accepted as the listener closed: the client tries again,
			// with the next supervisor.
			s.mu.Unlock()
			c.Close()
			continue
		}
		s.conns++
		s.mu.Unlock()
		go func() {
			defer func() {
				c.Close()
				s.mu.Lock()
				s.conns--
				s.idle = time.Now()
				s.mu.Unlock()
			}()
			s.serve(c)
		}()
	}
}

// maxRequest bounds one request's bytes: a spec and an environment are a
// few kilobytes; a peer sending more is refused.
const maxRequest = 16 << 20

// serve answers one connection: its single request, or, when that is
// "mux" (protocol 5), every request that follows on it (serveMux).
func (s *supervisor) serve(c *net.UnixConn) {
	reply := s.replier(c, new(sync.Mutex), 0)
	// The directory is 0700; the peer check keeps other users out even
	// if its mode is changed: run-as-user supervisors run as root.
	if uid, err := peerUID(c); err != nil || (uid != os.Geteuid() && uid != 0) {
		reply(supReply{Event: "error", Error: "permission denied"})
		return
	}
	var req supRequest
	br := bufio.NewReaderSize(c, 16<<10)
	_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
	line, err := readLine(br, maxRequest)
	if err == nil {
		err = json.Unmarshal(line, &req)
	}
	if err != nil {
		reply(supReply{Event: "error", Error: "bad request: " + err.Error()})
		return
	}
	_ = c.SetReadDeadline(time.Time{})
	if req.V != SupervisorProtocol {
		if req.V > SupervisorProtocol {
			// A newer server: let it start a supervisor of its own.
			s.stop(fmt.Sprintf("a client speaks protocol %d", req.V))
		}
		reply(supReply{Event: "version", Error: fmt.Sprintf("supervisor speaks protocol %d, client %d", SupervisorProtocol, req.V)})
		return
	}
	if req.Op == "mux" {
		s.serveMux(c, br)
		return
	}
	s.handle(req, reply)
}

// replier returns the function that sends the replies to the request id
// on c, one line each under wmu (the requests of a multiplexed
// connection answer concurrently).
func (s *supervisor) replier(c *net.UnixConn, wmu *sync.Mutex, id uint64) func(supReply) {
	return func(r supReply) {
		r.V, r.PID, r.ID = SupervisorProtocol, s.pid.PID, id
		data, _ := json.Marshal(r)
		data = append(data, '\n')
		wmu.Lock()
		defer wmu.Unlock()
		_ = c.SetWriteDeadline(time.Now().Add(10 * time.Second))
		_, _ = c.Write(data)
	}
}

// readLine reads one line of at most max bytes from br. The line may be
// br's own buffer: it is valid until the next read.
func readLine(br *bufio.Reader, max int) ([]byte, error) {
	var line []byte
	for {
		frag, err := br.ReadSlice('\n')
		switch {
		case err == nil && line == nil:
			return frag, nil
		case err == nil:
			return append(line, frag...), nil
		case err != bufio.ErrBufferFull:
			return nil, err
		}
		line = append(line, frag...)
		if len(line) > max {
			return nil, fmt.Errorf("request longer than %d bytes", max)
		}
	}
}

// handle answers one request of protocol SupervisorProtocol.
func (s *supervisor) handle(req supRequest, reply func(supReply)) {
	switch req.Op {
	case "ping":
		reply(supReply{Event: "ok"})
	case "quit":
		s.stop("asked to quit")
		reply(supReply{Event: "ok"})
	case "wait":
		s.mu.Lock()
		ch := s.running[req.Dir]
		s.mu.Unlock()
		if ch == nil {
			reply(supReply{Event: "unknown"})
			return
		}
		<-ch
		reply(supReply{Event: "exited"})
	case "group":
		s.mu.Lock()
		g := s.groups[req.Dir]
		s.mu.Unlock()
		if g == 0 {
			reply(supReply{Event: "unknown"})
			return
		}
		reply(supReply{Event: "ok", PGID: g})
	case "run":
		if req.Build != "" && s.build != "" && req.Build != s.build {
			s.stop("a client runs another build")
			reply(supReply{Event: "version", Error: "supervisor runs build " + s.build + ", client " + req.Build})
			return
		}
		if !s.resolveEnv(&req) {
			reply(supReply{Event: "env"})
			return
		}
		s.run(req, reply)
	default:
		reply(supReply{Event: "error", Error: "unknown operation " + req.Op})
	}
}

// maxEnvs bounds the environments a supervisor keeps: one per server
// environment, which hardly ever changes; more means clients that keep
// changing theirs, and the oldest are then forgotten all at once.
const maxEnvs = 16

// resolveEnv gives req its environment: the one EnvRef names, or Env,
// kept under EnvID for later requests. It reports false when EnvRef
// names none this supervisor knows.
func (s *supervisor) resolveEnv(req *supRequest) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if req.EnvRef != "" {
		env, ok := s.envs[req.EnvRef]
		req.Env = env
		return ok
	}
	if req.EnvID != "" {
		if s.envs == nil || len(s.envs) >= maxEnvs {
			s.envs = map[string][]string{}
		}
		s.envs[req.EnvID] = req.Env
	}
	return true
}

// run is the launcher's work for one step (RunLauncher), in this process.
func (s *supervisor) run(req supRequest, reply func(supReply)) {
	dir := req.Dir
	if !filepath.IsAbs(dir) || filepath.Clean(dir) != dir {
		reply(supReply{Event: "error", Error: "work directory must be an absolute clean path"})
		return
	}
	if req.Spec == nil {
		reply(supReply{Event: "error", Error: "run without a launch spec"})
		return
	}
	spec := *req.Spec
	s.mu.Lock()
	if s.running[dir] != nil {
		s.mu.Unlock()
		reply(supReply{Event: "claimed"})
		return
	}
	done := make(chan struct{})
	s.running[dir] = done
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.running, dir)
		delete(s.groups, dir)
		s.idle = time.Now()
		s.mu.Unlock()
		close(done)
	}()

	pid := s.pid
	claimed, err := claimPID(dir, &pid)
	if err != nil {
		reply(supReply{Event: "error", Error: err.Error()})
		return
	}
	if !claimed {
		reply(supReply{Event: "claimed"})
		return
	}
	st := runProgram(dir, &spec, &pid, req.Env, func() {
		s.mu.Lock()
		s.groups[dir] = pid.PGID
		s.mu.Unlock()
		reply(supReply{Event: "started"})
	})
	data, _ := json.MarshalIndent(st, "", "  ")
	// Retried for as long as the disk is full: this process is alive, so
	// the step is seen running until its outcome is on disk.
	if err := RecordStatus(dir, data, time.Sleep, s.logw); err != nil {
		fmt.Fprintf(s.logw, "gozie launch -supervise: %s: writing status: %v\n", dir, err)
		// No outcome: "error" instead of "exited" (the client notifies
		// on either, as on the end of the connection); Check reports the
		// step lost once this supervisor is gone, and meanwhile sees it
		// running — as with a launcher that cannot write.
		reply(supReply{Event: "error", Error: "writing status: " + err.Error()})
		return
	}
	reply(supReply{Event: "exited"})
}

// peerUID is the user id of the process at the other end of c.
func peerUID(c *net.UnixConn) (int, error) {
	raw, err := c.SyscallConn()
	if err != nil {
		return -1, err
	}
	var cred *syscall.Ucred
	var cerr error
	if err := raw.Control(func(fd uintptr) {
		cred, cerr = syscall.GetsockoptUcred(int(fd), syscall.SOL_SOCKET, syscall.SO_PEERCRED)
	}); err != nil {
		return -1, err
	}
	if cerr != nil {
		return -1, cerr
	}
	return int(cred.Uid), nil
}
