package ssh

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gozie/gozie/internal/action"
	"github.com/gozie/gozie/internal/launch"
	"github.com/gozie/gozie/internal/launch/launchtest"
)

// sshTestServer is a private OpenSSH server on 127.0.0.1 and a HOME whose
// ~/.ssh/config reaches it under host aliases.
type sshTestServer struct {
	user       string
	remoteHome string // HOME of the sessions (sshd_config SetEnv)
	dir        string // keys, config
	port       int
}

const sshd = "/usr/sbin/sshd"

// startSSHServer starts sshd for one test; it is stopped when the test
// ends. Tests skip when sshd is not installed.
func startSSHServer(t *testing.T) *sshTestServer {
	t.Helper()
	if _, err := os.Stat(sshd); err != nil {
		t.Skip("sshd is not installed (" + sshd + "): apt-get install -y openssh-server to run the ssh action tests")
	}
	for _, tool := range []string{"ssh", "ssh-keygen"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skip(tool + " is not installed: apt-get install -y openssh-client openssh-server")
		}
	}
	u, err := user.Current()
	if err != nil {
		t.Fatal(err)
	}
	s := &sshTestServer{user: u.Username, dir: t.TempDir(), remoteHome: t.TempDir()}
	keygen := func(name string) {
		out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "gozie-test", "-f", filepath.Join(s.dir, name)).CombinedOutput()
		if err != nil {
			t.Fatalf("ssh-keygen: %v: %s", err, out)
		}
	}
	keygen("host_key")
	keygen("client_key")
	keygen("other_key") // not authorized
	pub, err := os.ReadFile(filepath.Join(s.dir, "client_key.pub"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(s.dir, "authorized_keys"), pub, 0o600); err != nil {
		t.Fatal(err)
	}
	// sshd refuses to start without its privilege separation directory.
	if err := os.MkdirAll("/run/sshd", 0o755); err != nil && os.Geteuid() == 0 {
		t.Fatal(err)
	}
	s.port = freePort(t)
	cfg := filepath.Join(s.dir, "sshd_config")
	writeFile(t, cfg, strings.Join([]string{
		"Port " + strconv.Itoa(s.port),
		"ListenAddress 127.0.0.1",
		"HostKey " + filepath.Join(s.dir, "host_key"),
		"PidFile " + filepath.Join(s.dir, "sshd.pid"),
		"AuthorizedKeysFile " + filepath.Join(s.dir, "authorized_keys"),
		"UsePAM no",
		"StrictModes no",
		"PermitRootLogin prohibit-password",
		"PasswordAuthentication no",
		"KbdInteractiveAuthentication no",
		// Sessions get a home of the test's own instead of the real one.
		"SetEnv HOME=" + s.remoteHome,
		"LogLevel ERROR",
	}, "\n")+"\n")
	cmd := exec.Command(sshd, "-D", "-e", "-f", cfg)
	logf, err := os.Create(filepath.Join(s.dir, "sshd.log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		<-exited
		logf.Close()
	})
	launchtest.WaitFor(t, "sshd to listen", func() bool {
		select {
		case <-exited:
			log, _ := os.ReadFile(filepath.Join(s.dir, "sshd.log"))
			t.Fatalf("sshd exited: %s", log)
		default:
		}
		c, err := net.Dial("tcp", "127.0.0.1:"+strconv.Itoa(s.port))
		if err == nil {
			c.Close()
		}
		return err == nil
	})

	hostPub, err := os.ReadFile(filepath.Join(s.dir, "host_key.pub"))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(s.dir, "known_hosts"), fmt.Sprintf("[127.0.0.1]:%d %s", s.port, hostPub))
	home := t.TempDir()
	t.Setenv("HOME", home)
	alias := func(name, extra string) string {
		return "Host " + name + "\n  HostName 127.0.0.1\n  Port " + strconv.Itoa(s.port) +
			"\n  UserKnownHostsFile " + filepath.Join(s.dir, "known_hosts") +
			"\n  StrictHostKeyChecking yes\n  IdentitiesOnly yes\n" + extra
	}
	writeFile(t, filepath.Join(home, ".ssh", "config"),
		alias("gozietest", "  IdentityFile "+filepath.Join(s.dir, "client_key")+"\n")+
			alias("gozietest-otherkey", "  IdentityFile "+filepath.Join(s.dir, "other_key")+"\n")+
			alias("gozietest-nokey", "  IdentityFile "+filepath.Join(s.dir, "no_such_key")+"\n")+
			"Host gozietest-closed\n  HostName 127.0.0.1\n  Port "+strconv.Itoa(freePort(t))+"\n")
	// A configuration of its own, for gozie.ssh.config.file.
	writeFile(t, filepath.Join(s.dir, "alt_config"), alias("gozietest-alt", "  IdentityFile "+filepath.Join(s.dir, "client_key")+"\n"))
	return s
}

func writeFile(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
}

// freePort returns a TCP port of 127.0.0.1 that nothing listens on now.
func freePort(t *testing.T) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

var sshSeq int

// sshCtx builds the Context of an ssh action with the given body (inside
// <ssh>) of schema version ver; each call is a new action.
func (s *sshTestServer) sshCtx(t *testing.T, ver, body string) *action.Context {
	sshSeq++
	id := fmt.Sprintf("0000%03d-260101000000000-gozie-W", sshSeq)
	return &action.Context{
		JobID: id, ActionID: id + "@remote", Name: "remote", Type: "ssh", User: s.user,
		WorkDir: filepath.Join(t.TempDir(), "work"),
		Element: launchtest.ActionBody(t, `<ssh xmlns="uri:oozie:ssh-action:`+ver+`">`+body+`</ssh>`),
	}
}

// sshRun starts the action and checks it until it ends. With watch,
// the engine's notification is wired (as in the server: a watch
// connection reports the end), else Check polls.
func sshRun(t *testing.T, e action.Executor, a *action.Context, watch bool) action.Result {
	t.Helper()
	notified := make(chan struct{}, 16)
	if watch {
		a.Notify = func() { notified <- struct{}{} }
	}
	res, err := e.Start(context.Background(), a)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	if watch && !res.Done {
		select {
		case <-notified:
		case <-time.After(launchtest.Deadline):
			t.Fatal("no notification before the deadline")
		}
		if res, err = e.Check(context.Background(), a, res.ExternalID); err != nil || !res.Done {
			t.Fatalf("Check after the notification: %+v %v", res, err)
		}
	}
	return sshWait(t, e, a, res)
}

func sshWait(t *testing.T, e action.Executor, a *action.Context, res action.Result) action.Result {
	t.Helper()
	if res.ExternalID == "" {
		t.Fatal("no ExternalID")
	}
	end := time.Now().Add(launchtest.Deadline)
	for !res.Done {
		if time.Now().After(end) {
			t.Fatalf("action did not end before the deadline: %+v", res)
		}
		var err error
		if res, err = e.Check(context.Background(), a, res.ExternalID); err != nil {
			t.Fatalf("Check: %v", err)
		}
	}
	return res
}

func sshOpts(site map[string]string) launch.Options {
	return launch.Options{Site: site, KillGrace: 2 * time.Second}
}

func TestSSHAction(t *testing.T) {
	if testing.Short() {
		t.Skip("slow end-to-end test: runs without -short, e.g. in .ci/run")
	}
	s := startSSHServer(t)
	host := "<host>" + s.user + "@gozietest</host>"
	tests := []struct {
		name, ver, body string
		site            map[string]string
		status          action.Status
		code, msg       string
		data            map[string]string
		poll            bool // also without notifications (Check polls)
	}{
		{name: "simple command", ver: "0.1", body: host + `<command>true</command>`, status: action.OK},
		{name: "host without user is the job's user", ver: "0.2", body: `<host>gozietest</host><command>true</command>`, status: action.OK},
		{name: "capture output", ver: "0.2", body: host + `<command>printf</command><arg>a=1\nb = two\n# c\n</arg><capture-output/>`,
			status: action.OK, data: map[string]string{"a": "1", "b": "two"}, poll: true},
		{name: "runs in the home directory", ver: "0.2", body: host + `<command>sh</command><arg>-c</arg><arg>echo "pwd=$(pwd)"</arg><capture-output/>`,
			status: action.OK, data: map[string]string{"pwd": s.remoteHome}},
		{name: "arg keeps spaces and quotes, nothing expanded", ver: "0.2",
			body:   host + `<command>printf</command><arg>x=%s|%s|%s\n</arg><arg>hello  world</arg><arg>it's "q" $HOME; ls *</arg><arg>"quoted arg"</arg><capture-output/>`,
			status: action.OK, data: map[string]string{"x": `hello  world|it's "q" $HOME; ls *|quoted arg`}},
		{name: "args are split at spaces (0.1)", ver: "0.1",
			body:   host + `<command>echo</command><args>k=a    b</args><args>c</args><capture-output/>`,
			status: action.OK, data: map[string]string{"k": "a b c"}},
		{name: "command words are split", ver: "0.2", body: host + `<command>echo k=v</command><capture-output/>`,
			status: action.OK, data: map[string]string{"k": "v"}},
		{name: "output not captured", ver: "0.2", body: host + `<command>echo</command><arg>a=1</arg>`, status: action.OK},
		{name: "exit 3", ver: "0.2", body: host + `<command>sh</command><arg>-c</arg><arg>echo oops >&amp;2; exit 3</arg>`,
			status: action.Error, code: "EXECUTION_FAILED", msg: "exit code [3]: oops", poll: true},
		{name: "command not found", ver: "0.2", body: host + `<command>no-such-command-gozie</command>`,
			status: action.Error, code: "FNF", msg: "exit code [127]"},
		{name: "capture too big", ver: "0.2", body: host + `<command>sh</command><arg>-c</arg><arg>i=0; while [ $i -lt 300 ]; do echo k$i=0123456789; i=$((i+1)); done</arg><capture-output/>`,
			status: action.Error, code: "ERR_OUTPUT_EXCEED_MAX_LEN", msg: "Output data exceeds its limit [2048]", poll: true},
		{name: "capture not properties", ver: "0.2", body: host + `<command>printf</command><arg>k=\\uZZZZ</arg><capture-output/>`,
			status: action.Error, code: "UNKNOWN_ERROR", msg: "not Java properties"},
		{name: "configuration from gozie.ssh.config.file", ver: "0.2", body: `<host>` + s.user + `@gozietest-alt</host><command>echo</command><arg>k=alt</arg><capture-output/>`,
			site: map[string]string{"gozie.ssh.config.file": filepath.Join(s.dir, "alt_config")}, status: action.OK, data: map[string]string{"k": "alt"}},
		{name: "key from gozie.ssh.key.file", ver: "0.2", body: `<host>` + s.user + `@gozietest-nokey</host><command>echo</command><arg>k=v</arg><capture-output/>`,
			site: map[string]string{"gozie.ssh.key.file": filepath.Join(s.dir, "client_key")}, status: action.OK, data: map[string]string{"k": "v"}},
	}
	for _, tc := range tests {
		for _, watch := range []bool{true, false} {
			if !watch && !tc.poll {
				continue
			}
			name := tc.name
			if !watch {
				name += " (polled)"
			}
			t.Run(name, func(t *testing.T) {
				e := NewSSH(sshOpts(tc.site))
				a := s.sshCtx(t, tc.ver, tc.body)
				res := sshRun(t, e, a, watch)
				if res.Status != tc.status || res.ErrorCode != tc.code || !strings.Contains(res.ErrorMessage, tc.msg) {
					t.Fatalf("got %s %s %q, want %s %s %q", res.Status, res.ErrorCode, res.ErrorMessage, tc.status, tc.code, tc.msg)
				}
				if fmt.Sprint(res.Data) != fmt.Sprint(tc.data) {
					t.Errorf("data = %v, want %v", res.Data, tc.data)
				}
				if !strings.HasPrefix(res.ExternalID, "ssh://") || res.TrackerURI == "" {
					t.Errorf("external id %q, tracker %q", res.ExternalID, res.TrackerURI)
				}
			})
		}
	}
}

// TestSSHConnectErrors: failures to reach or log in to the host carry
// Oozie's codes and kinds, with ssh's own words.
func TestSSHConnectErrors(t *testing.T) {
	s := startSSHServer(t)
	tests := []struct {
		host, code string
		kind       action.ErrorKind
		msg        string
	}{
		{"gozie-no-such-host.invalid", "COULD_NOT_RESOLVE_HOST", action.Transient, "Could not resolve hostname"},
		{s.user + "@gozietest-otherkey", "AUTH_FAILED", action.NonTransient, "Permission denied"},
		{s.user + "@gozietest-closed", "COULD_NOT_CONNECT", action.Transient, "Connection refused"},
	}
	for _, tc := range tests {
		t.Run(tc.code, func(t *testing.T) {
			a := s.sshCtx(t, "0.2", `<host>`+tc.host+`</host><command>true</command>`)
			_, err := NewSSH(sshOpts(nil)).Start(context.Background(), a)
			var ee *action.ExecError
			if !errors.As(err, &ee) || ee.Code != tc.code || ee.Kind != tc.kind || !strings.Contains(ee.Msg, tc.msg) {
				t.Fatalf("got %#v, want %s (kind %d) %q", err, tc.code, tc.kind, tc.msg)
			}
		})
	}
	t.Run("check fails the job after retries", func(t *testing.T) {
		a := s.sshCtx(t, "0.2", `<host>`+s.user+`@gozietest-closed</host><command>true</command>`)
		e := NewSSH(sshOpts(map[string]string{"gozie.ssh.check.retries.max": "2", "gozie.ssh.check.initial.retry.wait.time": "1"}))
		_, err := e.Check(context.Background(), a, "ssh://"+s.user+"@gozietest-closed/"+remoteDir(a))
		var ee *action.ExecError
		if !errors.As(err, &ee) || ee.Code != "COULD_NOT_CONNECT" || ee.Kind != action.Failed {
			t.Fatalf("got %#v", err)
		}
	})
}

// remoteFile is a file of the action's remote directory (the remote host
// is this machine).
func (s *sshTestServer) remoteFile(a *action.Context, name string) string {
	return filepath.Join(s.remoteHome, remoteDir(a), name)
}

func readPIDFile(t *testing.T, path string) int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		t.Fatalf("empty pid file %s", path)
	}
	pid, err := strconv.Atoi(f[0])
	if err != nil {
		t.Fatal(err)
	}
	return pid
}

func TestSSHKill(t *testing.T) {
	if testing.Short() {
		t.Skip("slow end-to-end test: runs without -short, e.g. in .ci/run")
	}
	s := startSSHServer(t)
	e := NewSSH(sshOpts(nil))
	// The shell ignores TERM, so that the kill has to escalate; the sleep
	// is its child in the same group.
	a := s.sshCtx(t, "0.2", `<host>`+s.user+`@gozietest</host><command>sh</command><arg>-c</arg><arg>trap "" TERM; sleep 300 &amp; echo $! >sleep.pid; wait</arg>`)
	res, err := e.Start(context.Background(), a)
	if err != nil || res.Done {
		t.Fatalf("Start: %+v %v", res, err)
	}
	sleepPID := filepath.Join(s.remoteHome, "sleep.pid")
	launchtest.WaitFor(t, "the remote sleep", func() bool { _, err := os.Stat(sleepPID); return err == nil })
	wrapper := readPIDFile(t, s.remoteFile(a, "pid"))
	sleep := readPIDFile(t, sleepPID)
	if err := e.Kill(context.Background(), a, res.ExternalID); err != nil {
		t.Fatalf("Kill: %v", err)
	}
	for _, pid := range []int{wrapper, sleep} {
		if err := syscall.Kill(pid, 0); err == nil {
			t.Errorf("process %d still alive after Kill", pid)
		}
	}
	if err := syscall.Kill(-wrapper, 0); err == nil {
		t.Errorf("process group %d still alive after Kill", wrapper)
	}
	res, err = e.Check(context.Background(), a, res.ExternalID)
	if err != nil || !res.Done || res.Status != action.Error || res.ExternalStatus != "KILLED" {
		t.Fatalf("Check after Kill: %+v %v", res, err)
	}
	if err := e.Kill(context.Background(), a, res.ExternalID); err != nil {
		t.Errorf("second Kill: %v", err)
	}
}

// TestSSHRestart: a new executor (a restarted server) starting the same
// attempt again re-attaches to the running command, which runs once.
func TestSSHRestart(t *testing.T) {
	if testing.Short() {
		t.Skip("slow end-to-end test: runs without -short, e.g. in .ci/run")
	}
	s := startSSHServer(t)
	a := s.sshCtx(t, "0.2", `<host>`+s.user+`@gozietest</host><command>sh</command><arg>-c</arg>`+
		`<arg>echo run >>runs.txt; while [ ! -f go ]; do sleep 0.02; done; echo done=yes</arg><capture-output/>`)
	first, err := NewSSH(sshOpts(nil)).Start(context.Background(), a)
	if err != nil || first.Done {
		t.Fatalf("Start: %+v %v", first, err)
	}
	runs := filepath.Join(s.remoteHome, "runs.txt")
	launchtest.WaitFor(t, "the command to run", func() bool { _, err := os.Stat(runs); return err == nil })

	// After the restart, with the engine's notifications: one ssh
	// connection watches the run, and checks meanwhile do not connect
	// (calls counts the ssh calls).
	calls := filepath.Join(t.TempDir(), "calls")
	countingSSH := filepath.Join(t.TempDir(), "ssh")
	ssh, _ := exec.LookPath("ssh")
	writeFile(t, countingSSH, "#!/bin/sh\necho call >>"+calls+"\nexec "+ssh+` "$@"`+"\n")
	os.Chmod(countingSSH, 0o755)
	ncalls := func() int { b, _ := os.ReadFile(calls); return strings.Count(string(b), "call") }
	e := NewSSH(sshOpts(map[string]string{"gozie.ssh.command": countingSSH}))
	notified := make(chan struct{}, 16)
	a.Notify = func() { notified <- struct{}{} }
	again, err := e.Start(context.Background(), a)
	if err != nil || again.Done || again.ExternalID != first.ExternalID {
		t.Fatalf("second Start: %+v %v (first %+v)", again, err, first)
	}
	for i := 0; i < 20; i++ {
		if res, err := e.Check(context.Background(), a, first.ExternalID); err != nil || res.Done {
			t.Fatalf("Check while running: %+v %v", res, err)
		}
	}
	if n := ncalls(); n > 2 {
		t.Errorf("%d ssh calls for a start and 20 checks; want the start and one watch", n)
	}
	writeFile(t, filepath.Join(s.remoteHome, "go"), "")
	select {
	case <-notified:
	case <-time.After(launchtest.Deadline):
		t.Fatal("no notification that the command ended")
	}
	res, err := e.Check(context.Background(), a, first.ExternalID)
	if err != nil || !res.Done || res.Status != action.OK || res.Data["done"] != "yes" {
		t.Fatalf("result %+v %v", res, err)
	}
	if n := ncalls(); n > 2 {
		t.Errorf("%d ssh calls; want the start and one watch, which reported the end", n)
	}
	// Started once more after it ended: reports, does not run.
	res, err = NewSSH(sshOpts(nil)).Start(context.Background(), a)
	if err != nil || !res.Done || res.Status != action.OK || res.Data["done"] != "yes" {
		t.Fatalf("Start after the end: %+v %v", res, err)
	}
	if b, _ := os.ReadFile(runs); string(b) != "run\n" {
		t.Fatalf("command ran %d times: %q", strings.Count(string(b), "run"), b)
	}
}

// TestSSHInterruptedStart: a run whose Start broke off before the
// wrapper claimed it is given up by Check (and can then never start).
func TestSSHInterruptedStart(t *testing.T) {
	if testing.Short() {
		t.Skip("slow end-to-end test: runs without -short, e.g. in .ci/run")
	}
	s := startSSHServer(t)
	a := s.sshCtx(t, "0.2", `<host>`+s.user+`@gozietest</host><command>true</command>`)
	if err := os.MkdirAll(filepath.Join(s.remoteHome, remoteDir(a)), 0o700); err != nil {
		t.Fatal(err)
	}
	e := NewSSH(sshOpts(nil))
	res, err := e.Check(context.Background(), a, "")
	if err != nil || !res.Done || res.ErrorCode != "SETUP_FAILED" {
		t.Fatalf("Check: %+v %v", res, err)
	}
	res, err = e.Start(context.Background(), a)
	if err != nil || !res.Done || res.ErrorCode != "SETUP_FAILED" {
		t.Fatalf("Start: %+v %v", res, err)
	}
}

func TestSSHParse(t *testing.T) {
	tests := []struct {
		name, body string
		site       map[string]string
		runAs      bool
		host       string
		argv       []string
		code       string
	}{
		{name: "user at host", body: `<host>bob@h</host><command>ls</command>`, host: "bob@h", argv: []string{"ls"}},
		{name: "job user added", body: `<host>h</host><command>ls -l</command><args>a b</args><args>c</args>`, host: "job@h", argv: []string{"ls", "-l", "a", "b", "c"}},
		{name: "arg kept", body: `<host>h</host><command>echo</command><arg> a  b </arg><arg>'x y'</arg><arg>"z"</arg>`, host: "job@h", argv: []string{"echo", "a  b", "x y", "z"}},
		{name: "mismatch refused", body: `<host>bob@h</host><command>ls</command>`, site: map[string]string{"gozie.ssh.allow.user.at.host": "false"}, code: "ERR_USER_MISMATCH"},
		{name: "own user allowed", body: `<host>job@h</host><command>ls</command>`, site: map[string]string{"gozie.ssh.allow.user.at.host": "false"}, host: "job@h", argv: []string{"ls"}},
		// With gozie.launch.as.user the server's ssh identity reaches only
		// the job user's own accounts, unless the key says otherwise.
		{name: "run-as: other user refused", body: `<host>bob@h</host><command>ls</command>`, runAs: true, code: "ERR_USER_MISMATCH"},
		{name: "run-as: own user", body: `<host>job@h</host><command>ls</command>`, runAs: true, host: "job@h", argv: []string{"ls"}},
		{name: "run-as: allowed by the key", body: `<host>bob@h</host><command>ls</command>`, runAs: true, site: map[string]string{"gozie.ssh.allow.user.at.host": "true"}, host: "bob@h", argv: []string{"ls"}},
		{name: "option as host", body: `<host>-oProxyCommand=x</host><command>ls</command>`, code: "E0701"},
		{name: "both args and arg", body: `<host>h</host><command>ls</command><args>a</args><arg>b</arg>`, code: "E0701"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := &sshExecutor{opts: launch.Options{Site: tc.site, RunAsUser: tc.runAs}}
			a := &action.Context{ActionID: "j@a", User: "job", Element: launchtest.ActionBody(t, `<ssh xmlns="uri:oozie:ssh-action:0.2">`+tc.body+`</ssh>`)}
			p, err := e.parse(a)
			if tc.code != "" {
				var ee *action.ExecError
				if !errors.As(err, &ee) || ee.Code != tc.code {
					t.Fatalf("err = %v, want %s", err, tc.code)
				}
				return
			}
			if err != nil || p.host != tc.host || fmt.Sprint(p.argv) != fmt.Sprint(tc.argv) {
				t.Fatalf("got %q %q %v", p.host, p.argv, err)
			}
		})
	}
}

func TestSSHQuote(t *testing.T) {
	for _, s := range []string{"", "a b", "it's", `"$HOME" $(id) ; | & * ~`, "'", "x\ny"} {
		out, err := exec.Command("sh", "-c", "printf %s "+shQuote(s)).Output()
		if err != nil || string(out) != s {
			t.Errorf("shQuote(%q): sh printed %q (%v)", s, out, err)
		}
	}
	if d := remoteDir(&action.Context{ActionID: "0000001-x-W@a/../b", Attempt: 2}); d != ".gozie-ssh/0000001-x-W@a_.._b/2" {
		t.Errorf("remoteDir = %q", d)
	}
}

// TestSSHRetention: a start removes the user's finished runs older than
// gozie.ssh.remote.retention.days, and nothing else.
func TestSSHRetention(t *testing.T) {
	s := startSSHServer(t)
	root := filepath.Join(s.remoteHome, sshDirRoot)
	old := time.Now().Add(-10 * 24 * time.Hour)
	for _, f := range []string{"old-W@a/0/status", "new-W@a/0/status", "oldrunning-W@a/0/pid"} {
		p := filepath.Join(root, f)
		writeFile(t, p, "0\n")
		if !strings.HasPrefix(f, "new") {
			if err := os.Chtimes(p, old, old); err != nil {
				t.Fatal(err)
			}
		}
	}
	a := s.sshCtx(t, "0.2", `<host>`+s.user+`@gozietest</host><command>true</command>`)
	if res := sshRun(t, NewSSH(sshOpts(nil)), a, true); res.Status != action.OK {
		t.Fatalf("result %+v", res)
	}
	for f, want := range map[string]bool{"old-W@a": false, "new-W@a/0/status": true, "oldrunning-W@a/0/pid": true, remoteDir(a)[len(sshDirRoot)+1:] + "/status": true} {
		if _, err := os.Stat(filepath.Join(root, f)); (err == nil) != want {
			t.Errorf("%s: exists %v, want %v", f, err == nil, want)
		}
	}
}

// TestSSHLost: a command killed on the remote host behind gozie's back
// (no exit status recorded) ends the action with an error, not OK.
func TestSSHLost(t *testing.T) {
	if testing.Short() {
		t.Skip("slow end-to-end test: runs without -short, e.g. in .ci/run")
	}
	s := startSSHServer(t)
	e := NewSSH(sshOpts(nil))
	a := s.sshCtx(t, "0.2", `<host>`+s.user+`@gozietest</host><command>sleep</command><arg>300</arg>`)
	res, err := e.Start(context.Background(), a)
	if err != nil || res.Done {
		t.Fatalf("Start: %+v %v", res, err)
	}
	pid := readPIDFile(t, s.remoteFile(a, "pid"))
	if err := syscall.Kill(-pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	res = sshWait(t, e, a, res)
	if res.Status != action.Error || res.ErrorCode != "EXECUTION_FAILED" || !strings.Contains(res.ErrorMessage, "without recording an exit status") {
		t.Fatalf("result %+v", res)
	}
}
