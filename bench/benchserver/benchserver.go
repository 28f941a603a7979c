// Package benchserver runs `gozie server` as a child process on a free
// loopback port, for the benchmark drivers (bench/loadgen, bench/perf,
// bench/cluster): start it over a data directory, wait until it answers,
// read its memory from /proc, and stop it gracefully or kill it.
package benchserver

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Server is a running `gozie server` child process.
type Server struct {
	// Base is the server's REST base URL, http://127.0.0.1:<port>/oozie.
	Base string
	// LogPath is the file receiving the server's standard output and error.
	LogPath string

	cmd    *exec.Cmd
	log    *os.File
	exited chan error
	once   sync.Once
}

// startTimeout bounds the wait for a new server to answer.
const startTimeout = 30 * time.Second

// Start runs `bin server` over the data directory dir with any extra
// flags (-db, -cpuprofile, ...), its log in dir/server.log, and waits until
// it answers /oozie/versions.
func Start(ctx context.Context, bin, dir string, extra ...string) (*Server, error) {
	return StartWith(ctx, bin, dir, Options{}, extra...)
}

// Options are the less common settings of StartWith.
type Options struct {
	// Env is added to this process's environment for the server, e.g.
	// GOZIE_SERVER_LEASE_S=5 (configuration keys as variables).
	Env []string
	// Port is the port to listen on; 0 picks a free one.
	Port int
}

// StartWith is Start with options.
func StartWith(ctx context.Context, bin, dir string, o Options, extra ...string) (*Server, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	// The port is chosen by the kernel and handed over: another process
	// could take it in between, which the wait below would then report.
	port := o.Port
	if port == 0 {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		port = l.Addr().(*net.TCPAddr).Port
		l.Close()
	}
	s := &Server{
		Base:    fmt.Sprintf("http://127.0.0.1:%d/oozie", port),
		LogPath: filepath.Join(dir, "server.log"),
		exited:  make(chan error, 1),
	}
	var err error
	if s.log, err = os.OpenFile(s.LogPath, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644); err != nil {
		return nil, err
	}
	args := append([]string{"server", "-host", "127.0.0.1", "-port", strconv.Itoa(port), "-data", dir, "-base-url", s.Base}, extra...)
	s.cmd = exec.Command(bin, args...)
	if len(o.Env) > 0 {
		s.cmd.Env = append(os.Environ(), o.Env...)
	}
	s.cmd.Stdout, s.cmd.Stderr = s.log, s.log
	if err := s.cmd.Start(); err != nil {
		s.log.Close()
		return nil, err
	}
	go func() { s.exited <- s.cmd.Wait() }()
	deadline := time.Now().Add(startTimeout)
	for {
		if s.answers(ctx) {
			return s, nil
		}
		select {
		case err := <-s.exited:
			s.log.Close()
			log, _ := os.ReadFile(s.LogPath)
			if len(log) > 2000 {
				log = log[len(log)-2000:]
			}
			return nil, fmt.Errorf("gozie server exited (%v):\n%s", err, log)
		case <-ctx.Done():
			s.Stop()
			return nil, ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			s.Stop()
			return nil, errors.New("gozie server did not answer within 30s; see " + s.LogPath)
		}
	}
}

// answers reports whether GET /oozie/versions answers 200.
func (s *Server) answers(ctx context.Context) bool {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.Base+"/versions", nil)
	if err != nil {
		return false
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return false
	}
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}

// Stop asks the server to shut down (SIGTERM) and kills it if it has not
// within 30 seconds. Calling it again does nothing.
func (s *Server) Stop() {
	s.once.Do(func() {
		defer s.log.Close()
		select {
		case <-s.exited:
			return
		default:
		}
		_ = s.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-s.exited:
		case <-time.After(30 * time.Second):
			_ = s.cmd.Process.Kill()
			<-s.exited
		}
	})
}

// Kill ends the server at once (SIGKILL), as a crash would, and waits
// until it is gone. Calling it, or Stop, again does nothing.
func (s *Server) Kill() {
	s.once.Do(func() {
		defer s.log.Close()
		select {
		case <-s.exited:
			return
		default:
		}
		_ = s.cmd.Process.Kill()
		<-s.exited
	})
}

// PID is the server's process id.
func (s *Server) PID() int { return s.cmd.Process.Pid }

// RSS returns the server's resident set size now, in kB; 0 where Linux's
// /proc is missing.
func (s *Server) RSS() int64 { return s.procStatus("VmRSS:") }

// PeakRSS returns the server's high-water resident set size, in kB; 0
// where /proc is missing.
func (s *Server) PeakRSS() int64 { return s.procStatus("VmHWM:") }

func (s *Server) procStatus(key string) int64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", s.cmd.Process.Pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, key); ok {
			n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return n
		}
	}
	return 0
}
