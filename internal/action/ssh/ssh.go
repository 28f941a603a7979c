// Package ssh is the ssh action: the command runs detached on the remote
// host and is polled there.
package ssh

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gozie/gozie/internal/action"
	"github.com/gozie/gozie/internal/launch"

	"github.com/gozie/gozie/internal/conf"
	"github.com/gozie/gozie/internal/vocab"
)

// The ssh action (uri:oozie:ssh-action:0.1 and 0.2): <command> with its
// <args> or <arg>s runs on <host> as [user@]host, in the background; the
// workflow waits for it to end, and <capture-output/> makes its stdout,
// Java properties of at most oozie.action.max.output.data bytes, the
// action's data.
//
// gozie runs the system's OpenSSH client rather than an SSH library
// (golang.org/x/crypto/ssh): users already have ~/.ssh/config (Host
// aliases, HostName, Port, User, IdentityFile, ProxyJump, ControlMaster),
// known_hosts, the agent and their default keys set up for `ssh`, and an
// action must reach exactly the host that `ssh user@host` reaches from the
// server's account. Reimplementing that configuration language would
// differ in the corners people rely on.
//
// Remote protocol. Everything lives in a directory of the remote user,
// ~/.gozie-ssh/<actionId>/<attempt>/ (remoteDir). One ssh call per step
// runs a POSIX sh script fed on stdin (`/bin/sh -s`, whatever the login
// shell is); the arguments are written into that script single-quoted, so
// no remote shell ever expands them.
//
//   - Start creates the directory with mkdir, which is atomic: only the
//     Start that created it launches the command; a repeated Start (a
//     restarted server, the same attempt) finds it and reports on what
//     runs there instead of running the command again.
//   - The command runs under a small sh wrapper started with setsid, so it
//     is detached from the ssh session and leads a process group of its
//     own, with stdin from /dev/null and stdout and stderr in files of the
//     directory, in the remote user's home directory as Oozie runs it.
//   - The wrapper claims the run before running anything by creating the
//     pid file with ln (atomic, exclusive): it holds its pid and the boot
//     id of the host. Whoever gives up on a start that never claimed
//     (Start after a wait, Check after an interrupted Start) links a pid
//     file of 0 first, so a late wrapper then runs nothing: a command runs
//     at most once per attempt.
//   - When the command ends the wrapper writes its exit status into
//     `status`, atomically (write then rename).
//   - Check reads `status` (done), else whether the pid lives on the same
//     boot (running), else the command was lost: killed from outside or
//     the host rebooted.
//   - Kill signals the process group (TERM, then KILL after a grace) and
//     records "killed" as the status.
//   - While the command runs, a watch (one ssh connection, follow) waits
//     on the remote host for the end and notifies the engine, so that the
//     engine's polls do not each log in.
//
// Error codes are Oozie's (SshActionExecutor): COULD_NOT_RESOLVE_HOST and
// COULD_NOT_CONNECT (transient: the engine retries the start), AUTH_FAILED
// (non-transient: a person must fix keys or known_hosts), FNF for a
// command the remote shell cannot find (exit 127), NO_EXEC_PERM for one
// it cannot execute (126), ERR_USER_MISMATCH, ERR_OUTPUT_EXCEED_MAX_LEN,
// FAILED_TO_KILL, UNKNOWN_ERROR; a command that exits non-zero ends the
// action with EXECUTION_FAILED and its exit code.
const (
	CodeSSHSetupFailed   = "SETUP_FAILED"
	CodeSSHExecFailed    = "EXECUTION_FAILED"
	CodeSSHUnknown       = "UNKNOWN_ERROR"
	CodeSSHConnect       = "COULD_NOT_CONNECT"
	CodeSSHResolve       = "COULD_NOT_RESOLVE_HOST"
	CodeSSHFNF           = "FNF"
	CodeSSHAuthFailed    = "AUTH_FAILED"
	CodeSSHNoExecPerm    = "NO_EXEC_PERM"
	CodeSSHUserMismatch  = "ERR_USER_MISMATCH"
	CodeSSHOutputTooLong = "ERR_OUTPUT_EXCEED_MAX_LEN"
	CodeSSHKillFailed    = "FAILED_TO_KILL"
)

var (
	sshCommandKey = action.DeclareSiteKey("gozie.ssh.command", "ssh",
		"OpenSSH client run by ssh actions: a path, or a name looked up on the server's PATH")
	sshConfigKey = action.DeclareSiteKey("gozie.ssh.config.file", "",
		"ssh client configuration passed to ssh with -F (then /etc/ssh/ssh_config is not read); empty: the user's ~/.ssh/config as ssh finds it, or $HOME/.ssh/config when HOME is not the account's home directory")
	sshKeyFileKey = action.DeclareSiteKey("gozie.ssh.key.file", "",
		"private key file passed to ssh with -i for every ssh action, in addition to the keys ~/.ssh/config and the agent offer; empty: none")
	sshConnectTimeoutKey = action.DeclareSiteKey("gozie.ssh.connect.timeout", "20",
		"seconds ssh waits for the remote host to accept a connection (ssh -o ConnectTimeout)")
	sshAllowUserAtHostKey = action.DeclareSiteKey("gozie.ssh.allow.user.at.host", "",
		"Oozie's oozie.action.ssh.allow.user.at.host: true lets <host> name any remote user; false requires the job's user (ERR_USER_MISMATCH otherwise); empty: true, false with gozie.launch.as.user")
	sshRetentionKey = action.DeclareSiteKey("gozie.ssh.remote.retention.days", "7",
		"days a finished run's directory (~/.gozie-ssh/<actionId>/<attempt>) is kept on the remote host; each ssh action start removes older ones of that user; 0 keeps them")
	sshCheckRetriesKey = action.DeclareSiteKey("gozie.ssh.check.retries.max", "3",
		"Oozie's oozie.action.ssh.check.retries.max: connection attempts a status check retries before failing the job with COULD_NOT_CONNECT")
	sshCheckWaitKey = action.DeclareSiteKey("gozie.ssh.check.initial.retry.wait.time", "3000",
		"Oozie's oozie.action.ssh.check.initial.retry.wait.time: milliseconds before the first retry of a status check that could not connect; each further retry waits twice as long")
)

// sshDirRoot is the directory under the remote user's home that holds the
// action directories.
const sshDirRoot = ".gozie-ssh"

// sshMarker starts the lines of the remote scripts' reports, so that what
// a login script prints (a .bashrc that echoes) is told apart from them.
const sshMarker = "GOZIE-SSH-"

// sshNoHome is the exit status of a remote script that cannot change to
// the home directory.
const sshNoHome = 97

// sshClaimWait bounds how long Start waits for the detached wrapper to
// claim the run before giving up on it (it then never runs).
const sshClaimWait = 10 * time.Second

func init() {
	launch.Register("ssh", func(l *launch.Runtime) action.Executor { return NewSSH(l.Opts) })
}

// NewSSH returns the executor of the ssh action.
func NewSSH(opts launch.Options) action.Executor {
	return &sshExecutor{opts: opts, watches: make(map[string]*sshWatch)}
}

// sshExecutor keeps no state that a restarted server needs: the external
// id names host and remote directory, and everything else is on the
// remote host. What it keeps in memory, the watches, only saves ssh
// connections.
type sshExecutor struct {
	opts    launch.Options
	mu      sync.Mutex
	watches map[string]*sshWatch // by external id
}

// sshWatch is one ssh connection that waits on the remote host for a
// run to end and then notifies the engine. While it waits, Check answers
// RUNNING without connecting: without it every poll of the engine (each
// second) would be an ssh login on the remote host for as long as the
// command runs.
type sshWatch struct {
	waiting bool
	ended   time.Time
	final   *sshReply // the report of the ended run, when the watch saw it
}

// sshWatchGap is the least time between two watches of one run, so that
// a watch that fails at once (a flapping host) does not turn into a
// loop of logins; meanwhile Check connects itself.
const sshWatchGap = 5 * time.Second

// sshWatchRound is the longest one watch connection waits; then it
// reconnects.
const sshWatchRound = 5 * time.Minute

// sshWrapper is the script of the detached process: $1 is the directory,
// the rest the command. It claims the run (exclusive ln of its pid file),
// runs the command in the home directory and records the exit status.
const sshWrapper = `D=$1; shift
b=$(cat /proc/sys/kernel/random/boot_id 2>/dev/null)
echo "$$ $b" >"$D/pid.$$" || exit 1
if ! ln "$D/pid.$$" "$D/pid" 2>/dev/null; then rm -f "$D/pid.$$"; exit 0; fi
rm -f "$D/pid.$$"
"$@" </dev/null >"$D/stdout" 2>"$D/stderr"
rc=$?
echo "$rc" >"$D/status.tmp" && mv -f "$D/status.tmp" "$D/status"
`

// sshReport is the shell function that prints the state of the run in D:
// DONE <exit status>|KILLED, RUNNING <pid>, LOST <pid>, NOTRUN (given up
// before the wrapper claimed it) or PENDING (not claimed yet); after a
// DATA line, the captured stdout (at most $MAX+1 bytes) of a success or
// the end of stderr of a failure.
const sshReport = `boot() { cat /proc/sys/kernel/random/boot_id 2>/dev/null; }
alive() { kill -0 -"$pid" 2>/dev/null || kill -0 "$pid" 2>/dev/null; }
report() {
  if [ -f "$D/status" ]; then
    rc=$(cat "$D/status")
    if [ "$rc" = killed ]; then echo "${M}STATE KILLED"; return; fi
    echo "${M}STATE DONE $rc"
    if [ "$rc" = 0 ]; then
      if [ "$CAPTURE" = 1 ]; then echo "${M}DATA"; head -c $((MAX + 1)) "$D/stdout" 2>/dev/null; fi
    else
      echo "${M}DATA"; tail -c 1000 "$D/stderr" 2>/dev/null
    fi
    return
  fi
  if [ ! -f "$D/pid" ]; then echo "${M}STATE PENDING"; return; fi
  read -r pid pboot <"$D/pid"
  if [ "$pid" = 0 ]; then echo "${M}STATE NOTRUN"; return; fi
  if [ "$pboot" = "$(boot)" ] && alive; then echo "${M}STATE RUNNING $pid"; return; fi
  if [ -f "$D/status" ]; then report; return; fi
  echo "${M}STATE LOST $pid"
}
abandon() {
  echo "0 none" >"$D/pid.none" && ln "$D/pid.none" "$D/pid" 2>/dev/null
  rm -f "$D/pid.none"
}
`

// sshNap sets how the scripts that wait poll: TICK seconds per round,
// PERSEC rounds a second; whole seconds where sleep takes no fractions.
const sshNap = `if sleep 0.01 2>/dev/null; then TICK=0.02; PERSEC=50; else TICK=1; PERSEC=1; fi
`

// scriptHead starts every remote script: it reports that it runs, goes
// to the home directory and sets the variables the functions use.
func (s *sshExecutor) scriptHead(dir string, capture bool) string {
	c := "0"
	if capture {
		c = "1"
	}
	return "M=" + shQuote(sshMarker) + "\necho \"${M}BEGIN\"\ncd || exit " + strconv.Itoa(sshNoHome) + "\n" +
		"D=" + shQuote(dir) + "\nCAPTURE=" + c + "\nMAX=" + strconv.Itoa(s.maxOutput()) + "\n" + sshReport
}

// maxOutput is the server's oozie.action.max.output.data: an ssh action
// has no configuration of its own to set it, as in Oozie.
func (s *sshExecutor) maxOutput() int { return s.opts.MaxOutputOf(nil) }

// startScript claims the directory and launches the wrapper, waits for
// it to claim the run (giving up on it after sshClaimWait) and reports.
func (s *sshExecutor) startScript(dir string, p sshAction) string {
	var b strings.Builder
	b.WriteString(s.scriptHead(dir, p.capture))
	b.WriteString(sshNap)
	b.WriteString("W=" + shQuote(sshWrapper) + "\n")
	// Only the directories are private (the command keeps the user's
	// umask).
	b.WriteString(`(umask 077 && mkdir -p "$(dirname "$D")") || { echo "${M}STATE SETUP"; exit 0; }
if mkdir -m 700 "$D" 2>/dev/null; then
  echo "${M}LAUNCHED"
  if command -v setsid >/dev/null 2>&1; then S=setsid; else S=; set -m; fi
  $S /bin/sh -c "$W" gozie-ssh "$D"`)
	for _, w := range p.argv {
		b.WriteString(" " + shQuote(w))
	}
	fmt.Fprintf(&b, ` </dev/null >/dev/null 2>&1 &
  i=0
  while [ ! -f "$D/pid" ] && [ $i -lt $((%d * PERSEC)) ]; do sleep $TICK; i=$((i + 1)); done
  [ -f "$D/pid" ] || abandon
else
  [ -f "$D/status" ] || [ -f "$D/pid" ] || abandon
fi
report
`, int(sshClaimWait/time.Second))
	if days := s.siteInt(sshRetentionKey, 7); days > 0 {
		// Finished runs older than the retention go; a run without a
		// status (running, or lost) stays for a person to look at.
		fmt.Fprintf(&b, `find %s -mindepth 3 -maxdepth 3 -name status -type f -mtime +%d 2>/dev/null |
  while read -r f; do rm -rf "${f%%/status}"; done >/dev/null 2>&1
find %s -mindepth 1 -maxdepth 1 -type d -empty -exec rmdir {} + >/dev/null 2>&1
`, sshDirRoot, days-1, sshDirRoot)
	}
	return b.String()
}

// checkScript reports; a run never claimed (its Start was interrupted)
// is given up first, so that it cannot start behind the report's back.
func (s *sshExecutor) checkScript(dir string, capture bool) string {
	return s.scriptHead(dir, capture) + `if [ ! -d "$D" ]; then echo "${M}STATE NODIR"; exit 0; fi
[ -f "$D/status" ] || [ -f "$D/pid" ] || abandon
report
`
}

// killScript signals the group of the run: TERM, KILL after the grace,
// and records the run as killed.
func (s *sshExecutor) killScript(dir string, grace time.Duration) string {
	secs := int((grace + time.Second - 1) / time.Second)
	return s.scriptHead(dir, false) + sshNap + fmt.Sprintf(`if [ ! -d "$D" ] || [ -f "$D/status" ]; then echo "${M}STATE GONE"; exit 0; fi
[ -f "$D/pid" ] || abandon
read -r pid pboot <"$D/pid"
if [ "$pid" != 0 ] && [ "$pboot" = "$(boot)" ]; then
  kill -TERM -"$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null
  i=0
  while alive && [ $i -lt $((%d * PERSEC)) ]; do sleep $TICK; i=$((i + 1)); done
  if alive; then
    kill -KILL -"$pid" 2>/dev/null || kill -KILL "$pid" 2>/dev/null
    i=0
    while alive && [ $i -lt $((5 * PERSEC)) ]; do sleep $TICK; i=$((i + 1)); done
  fi
  if alive; then echo "${M}STATE ALIVE $pid"; exit 0; fi
fi
[ -f "$D/status" ] || { echo killed >"$D/status.tmp" && mv -f "$D/status.tmp" "$D/status"; }
echo "${M}STATE KILLED"
`, secs)
}

// sshCommand returns the ssh client and the options every call uses.
func (s *sshExecutor) sshCommand() (string, []string, error) {
	name := s.opts.Setting(sshCommandKey)
	if name == "" {
		name = "ssh"
	}
	path, err := exec.LookPath(name)
	if err != nil {
		return "", nil, action.Errorf(action.ErrorKindError, launch.CodeToolMissing, "ssh client [%s] not found (%v); install OpenSSH's client or set %s", name, err, sshCommandKey)
	}
	timeout := s.opts.Setting(sshConnectTimeoutKey)
	if n, err := strconv.Atoi(timeout); err != nil || n <= 0 {
		timeout = "20"
	}
	args := []string{"-T", "-o", "BatchMode=yes", "-o", "ConnectTimeout=" + timeout,
		"-o", "ServerAliveInterval=15", "-o", "ServerAliveCountMax=4"}
	if cfg := s.opts.Setting(sshConfigKey); cfg != "" {
		if _, err := os.Stat(cfg); err != nil {
			return "", nil, action.Errorf(action.ErrorKindError, CodeSSHSetupFailed, "ssh configuration file of %s: %v", sshConfigKey, err)
		}
		args = append(args, "-F", cfg)
	} else if cfg := userSSHConfig(); cfg != "" {
		args = append(args, "-F", cfg)
	}
	if key := s.opts.Setting(sshKeyFileKey); key != "" {
		args = append(args, "-i", key)
	}
	return path, args, nil
}

// userSSHConfig returns $HOME/.ssh/config when OpenSSH would not read it
// by itself: OpenSSH takes the home directory from the user database, not
// from $HOME, so a server (or a test) run with another HOME names the
// file. Passing -F when not needed would lose /etc/ssh/ssh_config, which
// ssh skips when given -F.
func userSSHConfig() string {
	home := os.Getenv("HOME")
	if home == "" {
		return ""
	}
	cfg := filepath.Join(home, ".ssh", "config")
	if _, err := os.Stat(cfg); err != nil {
		return ""
	}
	if u, err := user.Current(); err == nil && filepath.Clean(u.HomeDir) == filepath.Clean(home) {
		return ""
	}
	return cfg
}

// sshReply is what a remote script reported.
type sshReply struct {
	began    bool   // the script ran (its first line arrived)
	launched bool   // this Start created the directory and launched the wrapper
	state    string // DONE, RUNNING, ...
	arg      string // exit status or pid
	data     []byte
}

// errSSH is a failed ssh call: the client's exit status and stderr.
type errSSH struct {
	code   int
	stderr string
}

func (e *errSSH) Error() string {
	return fmt.Sprintf("ssh exited with status %d: %s", e.code, e.stderr)
}

// run runs script on host with /bin/sh and parses its report.
func (s *sshExecutor) run(ctx context.Context, host, script string) (sshReply, error) {
	var r sshReply
	path, args, err := s.sshCommand()
	if err != nil {
		return r, err
	}
	cmd := exec.CommandContext(ctx, path, append(args, "--", host, "/bin/sh -s")...)
	cmd.Stdin = strings.NewReader(script)
	// ssh may pass variables on (SendEnv): never the server's secrets.
	cmd.Env = launch.StepEnv(os.Environ(), s.opts.Setting(launch.LaunchEnvKeep))
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	runErr := cmd.Run()
	r = parseSSHReply(out.Bytes())
	if runErr != nil {
		var ee *exec.ExitError
		if !errors.As(runErr, &ee) {
			return r, action.Errorf(action.Transient, CodeSSHUnknown, "running %s: %v", path, runErr)
		}
		if ee.ExitCode() == sshNoHome && r.began {
			return r, action.Errorf(action.ErrorKindError, CodeSSHSetupFailed, "cannot change to the home directory on [%s]: %s", host, sshTail(errb.String()))
		}
		return r, &errSSH{code: ee.ExitCode(), stderr: sshTail(errb.String())}
	}
	if r.state == "" {
		return r, &errSSH{code: 0, stderr: "no report from the remote script: " + sshTail(out.String()+errb.String())}
	}
	return r, nil
}

func parseSSHReply(out []byte) sshReply {
	var r sshReply
	begin := []byte(sshMarker + "BEGIN\n")
	i := bytes.Index(out, begin)
	if i < 0 {
		return r
	}
	r.began = true
	rest := out[i+len(begin):]
	for len(rest) > 0 {
		line, after, _ := bytes.Cut(rest, []byte("\n"))
		l := string(line)
		switch {
		case strings.HasPrefix(l, sshMarker+"STATE "):
			f := strings.Fields(strings.TrimPrefix(l, sshMarker+"STATE "))
			if len(f) > 0 {
				r.state = f[0]
				r.arg = strings.Join(f[1:], " ")
			}
		case l == sshMarker+"LAUNCHED":
			r.launched = true
		case l == sshMarker+"DATA":
			r.data = after
			return r
		}
		rest = after
	}
	return r
}

// sshTail trims ssh's stderr for messages.
func sshTail(s string) string {
	s = strings.TrimSpace(s)
	if len(s) > 1000 {
		s = "..." + s[len(s)-1000:]
	}
	return s
}

// classifySSH turns a failed ssh call into Oozie's error codes. Only
// failures that happen before the remote side runs anything are told
// apart (ssh exits with 255 and says why).
func classifySSH(host string, err error) *action.ExecError {
	if ee := vocab.Classified(err); ee != nil {
		return ee
	}
	var se *errSSH
	if !errors.As(err, &se) {
		return action.Errorf(action.ErrorKindError, CodeSSHUnknown, "ssh to [%s]: %v", host, err)
	}
	msg := fmt.Sprintf("ssh to [%s] failed (exit status %d): %s", host, se.code, se.stderr)
	if se.code != 255 {
		return action.Errorf(action.ErrorKindError, CodeSSHUnknown, "%s", msg)
	}
	low := strings.ToLower(se.stderr)
	switch {
	case strings.Contains(low, "could not resolve hostname") || strings.Contains(low, "service not known") ||
		strings.Contains(low, "no address associated"):
		return action.Errorf(action.Transient, CodeSSHResolve, "%s", msg)
	case strings.Contains(low, "permission denied") || strings.Contains(low, "host key verification failed") ||
		strings.Contains(low, "no matching host key") || strings.Contains(low, "too many authentication failures"):
		return action.Errorf(action.NonTransient, CodeSSHAuthFailed, "%s", msg)
	case strings.Contains(low, "timed out") || strings.Contains(low, "connection refused") ||
		strings.Contains(low, "no route to host") || strings.Contains(low, "network is unreachable") ||
		strings.Contains(low, "connection closed") || strings.Contains(low, "connection reset"):
		return action.Errorf(action.Transient, CodeSSHConnect, "%s", msg)
	}
	return action.Errorf(action.ErrorKindError, CodeSSHUnknown, "%s", msg)
}

// Start launches the command on the remote host, or reports on the run
// an earlier Start of the same attempt launched there.
func (s *sshExecutor) Start(ctx context.Context, a *action.Context) (action.Result, error) {
	p, err := s.parse(a)
	if err != nil {
		return action.Result{}, err
	}
	dir := remoteDir(a)
	id := sshExternalID(p.host, dir)
	r, err := s.run(ctx, p.host, s.startScript(dir, p))
	if err != nil {
		var se *errSSH
		if r.began && errors.As(err, &se) && se.code == 255 {
			// The script ran and may have launched the command before
			// the connection broke: the command must not be started
			// again (a transient error would start a new attempt), so
			// the action counts as started; Check finds out.
			return action.Result{ExternalID: id, TrackerURI: p.host, ExternalStatus: "RUNNING"}, nil
		}
		return action.Result{ExternalID: id, TrackerURI: p.host}, classifySSH(p.host, err)
	}
	switch r.state {
	case "SETUP":
		return action.Result{ExternalID: id, TrackerURI: p.host}, action.Errorf(action.Transient, CodeSSHSetupFailed,
			"cannot create the remote directory [~/%s] on [%s]", dir, p.host)
	case "NOTRUN":
		if r.launched {
			// Given up by this very Start: nothing ran, a new attempt may.
			return action.Result{ExternalID: id, TrackerURI: p.host}, action.Errorf(action.Transient, CodeSSHSetupFailed,
				"the command did not start on [%s] within %s; it was not run", p.host, sshClaimWait)
		}
	}
	res := s.Result(id, p, a, r)
	s.follow(res, p.host, dir, a.Notify, p.capture)
	return res, nil
}

// Result turns a report into the action's result.
func (s *sshExecutor) Result(id string, p sshAction, a *action.Context, r sshReply) action.Result {
	res := action.Result{ExternalID: id, TrackerURI: p.host, Done: true, Status: action.Error, ExternalStatus: "ERROR"}
	cmd := strings.Join(p.argv, " ")
	switch r.state {
	case "RUNNING", "PENDING":
		return action.Result{ExternalID: id, TrackerURI: p.host, ExternalStatus: "RUNNING"}
	case "KILLED":
		res.ExternalStatus = "KILLED"
		res.ErrorCode, res.ErrorMessage = CodeSSHExecFailed, fmt.Sprintf("command [%s] on [%s] was killed", cmd, p.host)
	case "NOTRUN", "NODIR":
		res.ErrorCode = CodeSSHSetupFailed
		res.ErrorMessage = fmt.Sprintf("the start of command [%s] on [%s] was interrupted before it ran; it was not run", cmd, p.host)
	case "LOST":
		res.ErrorCode = CodeSSHExecFailed
		res.ErrorMessage = fmt.Sprintf("command [%s] on [%s] (pid %s) ended without recording an exit status: killed from outside, or the host restarted", cmd, p.host, r.arg)
	case "DONE":
		rc, err := strconv.Atoi(strings.TrimSpace(r.arg))
		if err != nil {
			res.ErrorCode, res.ErrorMessage = CodeSSHUnknown, fmt.Sprintf("unreadable exit status [%s] of command [%s] on [%s]", r.arg, cmd, p.host)
			return res
		}
		if rc != 0 {
			res.ErrorCode = CodeSSHExecFailed
			switch {
			case rc == 127:
				res.ErrorCode = CodeSSHFNF
			case rc == 126:
				res.ErrorCode = CodeSSHNoExecPerm
			}
			res.ErrorMessage = fmt.Sprintf("command [%s] on [%s] failed, exit code [%d]", cmd, p.host, rc)
			if e := strings.TrimSpace(string(r.data)); e != "" {
				res.ErrorMessage += ": " + sshTail(e)
			}
			return res
		}
		ok := action.Result{ExternalID: id, TrackerURI: p.host, Done: true, Status: action.OK, ExternalStatus: "OK"}
		if !p.capture {
			return ok
		}
		if max := s.maxOutput(); len(r.data) > max {
			res.ErrorCode, res.ErrorMessage = CodeSSHOutputTooLong, fmt.Sprintf("Output data exceeds its limit [%d]", max)
			return res
		}
		props, err := conf.ParseProperties(bytes.NewReader(r.data), "output of "+cmd)
		if err != nil {
			res.ErrorCode, res.ErrorMessage = CodeSSHUnknown, fmt.Sprintf("captured output is not Java properties: %v", err)
			return res
		}
		ok.Data = props.ToMap()
		return ok
	default:
		res.ErrorCode, res.ErrorMessage = CodeSSHUnknown, fmt.Sprintf("unexpected report [%s %s] from [%s]", r.state, r.arg, p.host)
	}
	return res
}

// target returns the action and the host and directory of its run.
func (s *sshExecutor) target(a *action.Context, externalID string) (sshAction, string, error) {
	p, err := s.parse(a)
	if err != nil {
		return p, "", err
	}
	dir := remoteDir(a)
	if host, d, ok := parseSSHExternalID(externalID); ok {
		p.host, dir = host, d
	}
	return p, dir, nil
}

// Check reports on the run. A host that cannot be reached is retried
// the way Oozie does (gozie.ssh.check.retries.max times, waiting
// gozie.ssh.check.initial.retry.wait.time and then twice as long each
// time); then the job fails with COULD_NOT_CONNECT.
func (s *sshExecutor) Check(ctx context.Context, a *action.Context, externalID string) (action.Result, error) {
	p, dir, err := s.target(a, externalID)
	if err != nil {
		return action.Result{}, err
	}
	id := sshExternalID(p.host, dir)
	s.mu.Lock()
	w := s.watches[id]
	s.mu.Unlock()
	if w != nil && w.waiting {
		return action.Result{ExternalID: id, TrackerURI: p.host, ExternalStatus: "RUNNING"}, nil
	}
	if w != nil && w.final != nil {
		// An ended run does not change any more: the watch's report is
		// as good as a new one.
		res := s.Result(id, p, a, *w.final)
		s.follow(res, p.host, dir, nil, false)
		return res, nil
	}
	retries := s.siteInt(sshCheckRetriesKey, 3)
	wait := time.Duration(s.siteInt(sshCheckWaitKey, 3000)) * time.Millisecond
	for try := 0; ; try++ {
		r, err := s.run(ctx, p.host, s.checkScript(dir, p.capture))
		if err == nil {
			res := s.Result(id, p, a, r)
			s.follow(res, p.host, dir, a.Notify, p.capture)
			return res, nil
		}
		ee := classifySSH(p.host, err)
		if ee.Code != CodeSSHConnect && ee.Code != CodeSSHResolve {
			if ee.Code == CodeSSHUnknown {
				// The check failed, not the command: poll again.
				ee.Kind = action.Transient
			}
			return action.Result{ExternalID: id, TrackerURI: p.host, ExternalStatus: "RUNNING"}, ee
		}
		if try >= retries {
			return action.Result{ExternalID: id, TrackerURI: p.host}, action.Errorf(action.Failed, CodeSSHConnect,
				"Failed to connect to host [%s] for ssh action status check: %s", p.host, ee.Msg)
		}
		select {
		case <-ctx.Done():
			return action.Result{ExternalID: id, TrackerURI: p.host, ExternalStatus: "RUNNING"}, action.Errorf(action.Transient, CodeSSHConnect, "%s", ee.Msg)
		case <-time.After(wait):
		}
		wait *= 2
	}
}

func (s *sshExecutor) siteInt(key string, def int) int {
	if n, err := strconv.Atoi(s.opts.Setting(key)); err == nil && n >= 0 {
		return n
	}
	return def
}

// Kill stops the remote command's process group; an ended run is left
// alone.
func (s *sshExecutor) Kill(ctx context.Context, a *action.Context, externalID string) error {
	p, dir, err := s.target(a, externalID)
	if err != nil {
		return err
	}
	grace := s.opts.KillGrace
	if grace <= 0 {
		grace = 5 * time.Second
	}
	r, err := s.run(ctx, p.host, s.killScript(dir, grace))
	if err != nil {
		ee := classifySSH(p.host, err)
		if ee.Code == CodeSSHUnknown {
			ee.Code = CodeSSHKillFailed
		}
		return ee
	}
	s.mu.Lock()
	delete(s.watches, sshExternalID(p.host, dir))
	s.mu.Unlock()
	if r.state == "ALIVE" {
		return action.Errorf(action.ErrorKindError, CodeSSHKillFailed, "Unable to kill process %s on %s", r.arg, p.host)
	}
	return nil
}

// follow starts a watch of a running run when the engine can be
// notified, and forgets the watch of an ended one.
func (s *sshExecutor) follow(res action.Result, host, dir string, notify func(), capture bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	id := res.ExternalID
	w := s.watches[id]
	if res.Done {
		delete(s.watches, id)
		return
	}
	if notify == nil || (w != nil && (w.waiting || time.Since(w.ended) < sshWatchGap)) {
		return
	}
	if w == nil {
		w = &sshWatch{}
		s.watches[id] = w
	}
	w.waiting = true
	w.final = nil
	go func() {
		var final *sshReply
		for {
			r, err := s.run(context.Background(), host, s.waitScript(dir, capture))
			if err == nil && r.state == "WAITING" {
				continue
			}
			if err == nil && (r.state == "DONE" || r.state == "KILLED" || r.state == "LOST" || r.state == "NOTRUN") {
				final = &r
			}
			break
		}
		s.mu.Lock()
		w.waiting, w.ended, w.final = false, time.Now(), final
		s.mu.Unlock()
		notify()
	}()
}

// waitScript waits on the remote host until the run has a status, is
// lost or was never run, and reports it, or for at most sshWatchRound
// (WAITING).
// It prints a line each second: once the connection or gozie is gone the
// writes fail and both ends exit, rather than wait out the round.
func (s *sshExecutor) waitScript(dir string, capture bool) string {
	// The first second is watched closely, for the many short commands.
	return s.scriptHead(dir, capture) + sshNap + fmt.Sprintf(`i=0
j=0
while [ ! -f "$D/status" ] && [ -f "$D/pid" ] && [ $i -lt %d ]; do
  read -r pid pboot <"$D/pid"
  { [ "$pid" != 0 ] && [ "$pboot" = "$(boot)" ] && alive; } || break
  if [ $j -lt $PERSEC ]; then sleep $TICK; j=$((j + 1)); continue; fi
  echo "${M}TICK" || exit 1
  sleep 1
  i=$((i + 1))
done
if [ $i -ge %d ]; then echo "${M}STATE WAITING"; else report; fi
`, int(sshWatchRound/time.Second), int(sshWatchRound/time.Second))
}
