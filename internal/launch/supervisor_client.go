package launch

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

// supervisorClient is the executor's side of the supervisor protocol
// (supervisor.go): it finds the supervisor of its directory, starting one
// when none listens.
type supervisorClient struct {
	dir  string
	argv func() ([]string, error) // the launcher command; "-supervise DIR" is appended
	mu   sync.Mutex               // one start of a supervisor at a time

	envMu sync.Mutex
	// envSent is the EnvID of the last environment a supervisor took:
	// later requests with that environment send only its id (EnvRef).
	envSent string
	// envLast and envLastID: the last environment hashed, the same
	// slice every step while the server's environment is unchanged
	// (Runtime.stepEnv), and its id.
	envLast   []string
	envLastID string

	// mux is the connection runs go on (supervisor_mux_client.go),
	// replaced under muxMu when it ends.
	muxMu sync.Mutex
	mux   *muxConn
}

// errSupervisorNewer is the answer of a supervisor newer than this
// server: it is left alone (its programs may be a newer server's) and the
// per-step launcher is used.
var errSupervisorNewer = errors.New("the launch supervisor speaks a newer protocol")

// supervisorReplyTimeout bounds the wait for the first answer to a run.
// Giving up then is safe: the step is handed to the per-step launcher,
// and whichever of the two claims the directory first runs it.
const supervisorReplyTimeout = 30 * time.Second

func newSupervisorClient(dir string, argv func() ([]string, error)) (*supervisorClient, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	if p := filepath.Join(dir, SupervisorSocket); len(p) > maxSocketPath {
		return nil, fmt.Errorf("socket path %s is longer than %d bytes", p, maxSocketPath)
	}
	return &supervisorClient{dir: dir, argv: argv}, nil
}

func (c *supervisorClient) dial() (*net.UnixConn, error) {
	return net.DialUnix("unix", nil, &net.UnixAddr{Name: filepath.Join(c.dir, SupervisorSocket), Net: "unix"})
}

// connect dials the supervisor, starting one if none answers and spawn
// is set.
func (c *supervisorClient) connect(spawn bool) (*net.UnixConn, error) {
	conn, err := c.dial()
	if err == nil || !spawn {
		return conn, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	// Another goroutine may have started one while this one waited.
	if conn, err := c.dial(); err == nil {
		return conn, nil
	}
	if err := c.spawn(); err != nil {
		return nil, err
	}
	// "ok" means it listens; "busy" that another one holds the lock and
	// listens, or is about to.
	deadline := time.Now().Add(5 * time.Second)
	for {
		conn, err := c.dial()
		if err == nil || time.Now().After(deadline) {
			return conn, err
		}
		time.Sleep(5 * time.Millisecond) // the other supervisor is binding its socket
	}
}

// spawn starts a supervisor detached in a session of its own, so that it
// outlives this process, and waits for it to say it listens.
func (c *supervisorClient) spawn() error {
	argv, err := c.argv()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(c.dir, 0o700); err != nil {
		return err
	}
	logf, err := os.OpenFile(filepath.Join(c.dir, SupervisorLog), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	defer logf.Close()
	r, w, err := os.Pipe()
	if err != nil {
		return err
	}
	defer r.Close()
	cmd := exec.Command(argv[0], append(argv[1:len(argv):len(argv)], "-supervise", c.dir)...)
	cmd.Dir = "/" // not a directory that may be removed under it
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.ExtraFiles = []*os.File{w}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	err = cmd.Start()
	w.Close()
	if err != nil {
		return fmt.Errorf("starting the launch supervisor: %w", err)
	}
	// Reaped here should it end while this process lives; after this
	// process, init reaps it.
	go func() { _ = cmd.Wait() }()
	_ = r.SetReadDeadline(time.Now().Add(10 * time.Second))
	line, err := bufio.NewReader(r).ReadString('\n')
	line = strings.TrimSpace(line)
	switch {
	case strings.HasPrefix(line, "ok"), line == "busy":
		return nil
	case line != "":
		return fmt.Errorf("launch supervisor: %s", line)
	default:
		return fmt.Errorf("launch supervisor did not start: %v", err)
	}
}

// call sends req on a new connection and returns the connection, its
// decoder and the first reply. A supervisor that goes away before it
// answers, or that speaks an older protocol (it stops listening when
// asked by a newer client), is replaced by a new one when spawn is set.
func (c *supervisorClient) call(req supRequest, spawn bool, timeout time.Duration) (*net.UnixConn, *json.Decoder, supReply, error) {
	req.V = SupervisorProtocol
	var err error
	for attempt := 0; attempt < 3; attempt++ {
		var conn *net.UnixConn
		if conn, err = c.connect(spawn); err != nil {
			return nil, nil, supReply{}, err
		}
		if timeout > 0 {
			_ = conn.SetDeadline(time.Now().Add(timeout))
		}
		var rep supReply
		dec := json.NewDecoder(conn)
		if err = json.NewEncoder(conn).Encode(req); err == nil {
			err = dec.Decode(&rep)
		}
		if err != nil {
			conn.Close()
			if !spawn {
				break
			}
			continue
		}
		if rep.Event == "version" {
			conn.Close()
			if rep.V > SupervisorProtocol {
				return nil, nil, rep, errSupervisorNewer
			}
			err = fmt.Errorf("launch supervisor: %s", rep.Error)
			if !spawn {
				break
			}
			continue
		}
		_ = conn.SetDeadline(time.Time{})
		return conn, dec, rep, nil
	}
	return nil, nil, supReply{}, err
}

// start asks the supervisor to run the step prepared in dir, its program
// starting from the environment env. notify is
// called once the outcome is recorded, or when the supervisor is gone.
// claimed reports that another launcher owned dir already.
func (c *supervisorClient) start(dir string, spec *LaunchSpec, env []string, notify func()) (claimed bool, err error) {
	build := ""
	if argv, err := c.argv(); err == nil {
		build = BuildOf(argv[0])
	}
	c.envMu.Lock()
	if len(env) != len(c.envLast) || (len(env) > 0 && &env[0] != &c.envLast[0]) {
		c.envLast, c.envLastID = env, envID(env)
	}
	id := c.envLastID
	known := c.envSent == id
	c.envMu.Unlock()
	req := supRequest{Op: "run", Dir: dir, Spec: spec, Build: build}
	if known {
		req.EnvRef = id
	} else {
		req.Env, req.EnvID = env, id
	}
	rep, replies, err := c.muxCall(req, supervisorReplyTimeout)
	if err == nil && rep.Event == "env" {
		// A supervisor that started since: it ran nothing; the
		// environment goes with the request again.
		req.EnvRef, req.Env, req.EnvID = "", env, id
		rep, replies, err = c.muxCall(req, supervisorReplyTimeout)
	}
	if err != nil {
		return false, err
	}
	if req.EnvID != "" && rep.Event != "version" {
		c.envMu.Lock()
		c.envSent = id
		c.envMu.Unlock()
	}
	switch rep.Event {
	case "started":
		go func() {
			// "exited", or the end of the connection: the supervisor died
			// (Check then finds the step lost) or could not record.
			<-replies
			if notify != nil {
				notify()
			}
		}()
		return false, nil
	case "exited":
		if notify != nil {
			notify()
		}
		return false, nil
	case "claimed":
		return true, nil
	default:
		return false, fmt.Errorf("launch supervisor: %s %s", rep.Event, rep.Error)
	}
}

// envID names an environment for EnvID and EnvRef: a hash of its
// variables in order.
func envID(env []string) string {
	h := sha256.New()
	for _, kv := range env {
		h.Write([]byte(kv))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// wait blocks until the supervisor says the program of dir has ended. It
// reports false when the supervisor cannot tell (none listens, it does
// not run that program, it went away): the caller polls instead.
func (c *supervisorClient) wait(dir string) bool {
	conn, _, rep, err := c.call(supRequest{Op: "wait", Dir: dir}, false, 0)
	if err != nil {
		return false
	}
	conn.Close()
	return rep.Event == "exited"
}

// group asks the supervisor for the process group of the program it runs
// in dir; false when it runs none there (or none listens).
func (c *supervisorClient) group(dir string) (int, bool) {
	conn, _, rep, err := c.call(supRequest{Op: "group", Dir: dir}, false, 5*time.Second)
	if err != nil {
		return 0, false
	}
	conn.Close()
	return rep.PGID, rep.Event == "ok" && rep.PGID > 0
}

// WarmSupervisor starts the launch supervisor of dir (Options.
// SupervisorDir, the default launcher) unless one listens there already,
// so that the first step does not wait for it to start. `gozie run` calls
// it while it opens its store; an error only means the first step starts
// the supervisor itself (or uses the per-step launcher).
func WarmSupervisor(dir string) error {
	c, err := newSupervisorClient(dir, Options{}.launcher)
	if err != nil {
		return err
	}
	conn, err := c.connect(true)
	if err != nil {
		return err
	}
	return conn.Close()
}

// StopSupervisor asks the launch supervisor of dir (Options.
// SupervisorDir) to stop listening and to exit once the programs it runs
// have ended, and waits up to wait for it to exit. It is not an error
// when none runs. `gozie run` calls it when its job has ended; tests call
// it so that no supervisor outlives them.
func StopSupervisor(dir string, wait time.Duration) error {
	c, err := newSupervisorClient(dir, nil)
	if err != nil {
		return nil // such a directory never has a supervisor
	}
	conn, _, rep, err := c.call(supRequest{Op: "quit"}, false, 10*time.Second)
	if err != nil {
		if errors.Is(err, syscall.ENOENT) || errors.Is(err, syscall.ECONNREFUSED) {
			return nil
		}
		return err
	}
	conn.Close()
	deadline := time.Now().Add(wait)
	for ProcessExists(rep.PID) {
		if time.Now().After(deadline) {
			return fmt.Errorf("launch supervisor (pid %d) still runs", rep.PID)
		}
		time.Sleep(5 * time.Millisecond) // polling for its exit
	}
	return nil
}

// ProcessExists reports whether pid names a live process (not a zombie).
func ProcessExists(pid int) bool {
	if pid <= 0 {
		return false
	}
	if err := syscall.Kill(pid, 0); err != nil && !errors.Is(err, syscall.EPERM) {
		return false
	}
	return !IsZombie(pid)
}

// SupervisorPID asks the supervisor of dir for its pid (0 when none
// answers); for tests and diagnostics.
func SupervisorPID(dir string) int {
	c, err := newSupervisorClient(dir, nil)
	if err != nil {
		return 0
	}
	conn, _, rep, err := c.call(supRequest{Op: "ping"}, false, 10*time.Second)
	if err != nil {
		return 0
	}
	conn.Close()
	return rep.PID
}
