// Package fs is the fs action (spec: wf 3.2.4): file-system
// commands run in the server, with the job user's rights under run-as,
// journalled so that a retried or re-attached run does not repeat them.
package fs

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/gozie/gozie/internal/action"
	"github.com/gozie/gozie/internal/launch"

	"github.com/gozie/gozie/internal/fsys"
	"github.com/gozie/gozie/internal/vocab"
)

func init() {
	launch.Register("fs", func(l *launch.Runtime) action.Executor { return fsExecutor{runAsUser: l.Opts.RunAsUser} })
}

// DefaultGlobMax is Oozie's default for oozie.action.fs.glob.max: the most
// paths one glob of an fs command may match.
const DefaultGlobMax = 1000

// Files the fs executor keeps in the action's WorkDir so that a replayed
// Start neither repeats a finished action nor fails on work it had done:
// the outcome of a finished run, and the journal of the commands run so
// far (fsjournal.go explains the recovery rule).
const (
	fsResultFile  = "fs-result.json"
	fsJournalFile = "fs-journal"
)

// fsExecutor runs the fs action inside the server. With runAsUser (the
// server's gozie.launch.as.user) every command runs with the job user's
// permission checks (osuser.Do), as Oozie's fs action runs with the user's
// identity on HDFS: a job cannot make the server, running as root, change
// what its user could not.
type fsExecutor struct{ runAsUser bool }

// NewFS returns the executor of the fs action. It is synchronous, as the
// specification says: Start runs every command and returns Done.
func NewFS() action.Executor { return fsExecutor{} }

// fsCommand is one validated command of an <fs> body.
type fsCommand struct {
	op        string // element name: delete, mkdir, move, chmod, touchz, chgrp, setrep
	path      string // resolved path or glob (move: the source)
	target    string // move only
	perm      fs.FileMode
	group     string
	dirFiles  bool
	recursive bool
	repl      int16 // setrep only
}

// fsOutcome is what fs-result.json holds.
type fsOutcome struct {
	Code string           `json:"code,omitempty"`
	Msg  string           `json:"msg,omitempty"`
	Kind action.ErrorKind `json:"kind,omitempty"`
}

// Start validates every path of the action, then runs the commands in
// document order. A failure is returned as an *ExecError with the codes
// listed above; the Result then carries only the ExternalID.
func (e fsExecutor) Start(ctx context.Context, a *action.Context) (action.Result, error) {
	res := action.Result{ExternalID: "-", ExternalStatus: "OK", Done: true, Status: action.OK} // "-" as Oozie's synchronous actions: no external job
	if res.ExternalID == "" {
		res.ExternalID = "-"
	}
	if out, ok := readFSOutcome(a.WorkDir); ok {
		return fsReport(res, out)
	}
	runAs, err := launch.RunAsIf(launch.Options{RunAsUser: e.runAsUser}, a.User)
	if err != nil {
		return action.Result{ExternalID: res.ExternalID}, err
	}
	err = runFS(ctx, a, runAs)
	var out fsOutcome
	if err != nil {
		xe := vocab.Classified(err) // only an executor's verdict, not any coded error
		if xe == nil {
			xe = &action.ExecError{Kind: action.Transient, Code: launch.CodeIO, Msg: err.Error(), Err: err}
		}
		out = fsOutcome{Code: xe.Code, Msg: xe.Msg, Kind: xe.Kind}
		// A transient failure must run again on retry, so only errors
		// that end the action are remembered.
		if xe.Kind == action.Transient {
			return action.Result{ExternalID: res.ExternalID}, xe
		}
	}
	writeFSOutcome(a.WorkDir, out)
	return fsReport(res, out)
}

func fsReport(res action.Result, out fsOutcome) (action.Result, error) {
	if out.Code == "" {
		return res, nil
	}
	return action.Result{ExternalID: res.ExternalID}, &action.ExecError{Kind: out.Kind, Code: out.Code, Msg: out.Msg}
}

func readFSOutcome(dir string) (fsOutcome, bool) {
	var out fsOutcome
	if dir == "" {
		return out, false
	}
	b, err := os.ReadFile(filepath.Join(dir, fsResultFile))
	if err != nil || json.Unmarshal(b, &out) != nil {
		return out, false
	}
	return out, true
}

func writeFSOutcome(dir string, out fsOutcome) {
	if dir == "" {
		return
	}
	b, _ := json.Marshal(out)
	_ = launch.WriteFileAtomic(filepath.Join(dir, fsResultFile), b)
}

// Check reports the outcome Start recorded: the fs action is synchronous,
// so there is never anything running.
func (e fsExecutor) Check(_ context.Context, a *action.Context, externalID string) (action.Result, error) {
	res := action.Result{ExternalID: externalID, ExternalStatus: "OK", Done: true, Status: action.OK}
	if out, ok := readFSOutcome(a.WorkDir); ok {
		return fsReport(res, out)
	}
	return res, nil
}

// Kill does nothing: the commands ran inside Start.
func (fsExecutor) Kill(context.Context, *action.Context, string) error { return nil }

func runFS(ctx context.Context, a *action.Context, runAs *launch.RunAs) error {
	if a.Element == nil {
		return action.Errorf(action.ErrorKindError, launch.CodeSchema, "fs action without body")
	}
	// Every path is checked for syntax before any command runs (spec
	// 3.2.4); whether a path exists is a question for the command's own
	// turn, since earlier commands of the action may create it.
	cmds, err := planFS(a)
	if err != nil {
		return err
	}
	max := DefaultGlobMax
	if a.Conf != nil {
		if v, ok := a.Conf.Get("oozie.action.fs.glob.max"); ok {
			if n, err := strconv.Atoi(strings.TrimSpace(v)); err == nil && n > 0 {
				max = n
			}
		}
	}
	// The commands reach stores with the job's settings and as its user.
	fctx := launch.FilesContext(ctx, a)
	j, err := openFSJournal(a, cmds)
	if err != nil {
		return err
	}
	defer j.close()
	for i, c := range cmds {
		if err := ctx.Err(); err != nil {
			return &action.ExecError{Kind: action.Transient, Code: launch.CodeIO, Msg: err.Error(), Err: err}
		}
		state := j.state(i)
		if state == fsDone {
			continue // done by an earlier run of this action
		}
		if err := j.begin(i); err != nil {
			return err
		}
		if fsCrashHook != nil && fsCrashHook(i, false) {
			return errFSCrash
		}
		// A command that began but was not recorded as done may have
		// done all or part of its work before the crash: Oozie's recovery
		// rule, a move whose source is already gone passes.
		if err := launch.AsUser(runAs, func() error { return execFS(fctx, c, state == fsBegun, max) }); err != nil {
			return err
		}
		if fsCrashHook != nil && fsCrashHook(i, true) {
			return errFSCrash
		}
		if err := j.done(i); err != nil {
			return err
		}
	}
	return nil
}

// planFS reads and validates every command before any runs (spec: wf 3.2.4:
// the validity of all paths is evaluated first).
func planFS(a *action.Context) ([]fsCommand, error) {
	body := a.Element
	nnPrefix := ""
	if nn := body.ChildText("name-node"); nn != "" {
		if fsys.Scheme(nn) == "" {
			return nil, action.Errorf(action.ErrorKindError, launch.CodeFSMissingScheme, "Missing scheme in path [%s]", nn)
		}
		nnPrefix = fsys.Scheme(nn) + "://" + fsys.Authority(nn)
	}
	var cmds []fsCommand
	for _, el := range body.Children {
		c := fsCommand{op: el.Name.Local}
		var err error
		switch c.op {
		case "name-node", "job-xml", "configuration":
			continue
		case "delete", "mkdir", "touchz", "setrep":
			c.path, err = launch.ResolveFSPath(c.op, el, "path", nnPrefix)
			if err == nil && c.op == "setrep" {
				rf := strings.TrimSpace(el.Attr("replication-factor"))
				if n, perr := strconv.ParseInt(rf, 10, 16); perr != nil || n < 1 {
					err = action.Errorf(action.ErrorKindError, launch.CodeSchema, "setrep, path [%s] invalid replication-factor [%s]", c.path, rf)
				} else {
					c.repl = int16(n)
				}
			}
		case "move":
			c.path, err = launch.ResolveFSPath(c.op, el, "source", nnPrefix)
			if err == nil {
				c.target, err = resolveMoveTarget(c.path, el.Attr("target"))
			}
		case "chmod", "chgrp":
			c.path, err = launch.ResolveFSPath(c.op, el, "path", nnPrefix)
			c.dirFiles = true
			if v, ok := el.LookupAttr("dir-files"); ok {
				c.dirFiles = strings.EqualFold(strings.TrimSpace(v), "true")
			}
			c.recursive = el.Child("recursive") != nil
			if err != nil {
				break
			}
			if c.op == "chmod" {
				mask := strings.TrimSpace(el.Attr("permissions"))
				if c.perm, err = fsys.ParsePermission(mask); err != nil {
					err = action.Errorf(action.ErrorKindError, launch.CodeFSPermissions, "chmod, path [%s] invalid permissions mask [%s]", c.path, mask)
				}
			} else if c.group = strings.TrimSpace(el.Attr("group")); c.group == "" {
				err = action.Errorf(action.ErrorKindError, launch.CodeSchema, "chgrp, path [%s] has no group", c.path)
			}
		default:
			continue // unknown elements were refused by schema validation
		}
		if err != nil {
			return nil, err
		}
		cmds = append(cmds, c)
	}
	return cmds, nil
}

// resolveMoveTarget puts the target on the source's file system. A target
// with a scheme must name the same file system (FS007).
func resolveMoveTarget(source, raw string) (string, error) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return "", action.Errorf(action.ErrorKindError, launch.CodeSchema, "move, attribute [target] missing")
	}
	if s := fsys.Scheme(raw); s != "" {
		if s != fsys.Scheme(source) || fsys.Authority(raw) != fsys.Authority(source) {
			return "", action.Errorf(action.ErrorKindError, launch.CodeFSMoveOtherFS, "move, target NN URI different from that of source [%s]", raw)
		}
		return raw, nil
	}
	if !strings.HasPrefix(raw, "/") {
		return "", action.Errorf(action.ErrorKindError, launch.CodeFSRelative, "Path [%s] cannot be relative", raw)
	}
	if sc := fsys.Scheme(source); sc != "" && sc != "file" {
		return sc + "://" + fsys.Authority(source) + raw, nil
	}
	local, _ := fsys.Local(source)
	return strings.TrimSuffix(source, local) + raw, nil
}

func execFS(ctx context.Context, c fsCommand, recovery bool, max int) error {
	matches := func() ([]string, error) {
		m, err := fsys.Glob(ctx, c.path)
		if err != nil {
			return nil, launch.FsIOError(c.path, err, "")
		}
		if len(m) > max {
			return nil, action.Errorf(action.ErrorKindError, launch.CodeFSGlobMax, "too many globbed files/dirs to do FS operation, limit [%d]", max)
		}
		return m, nil
	}
	switch c.op {
	case "mkdir":
		if err := fsys.MkdirAll(ctx, c.path); err != nil {
			return launch.FsIOError(c.path, err, launch.CodeFSMkdir, "mkdir, path [%s] could not create directory", c.path)
		}
	case "delete":
		// skip-trash is accepted and ignored: there is no trash locally.
		paths := []string{c.path}
		if fsys.HasGlob(c.path) {
			m, err := matches()
			if err != nil {
				return err
			}
			paths = m
		}
		for _, p := range paths {
			if err := fsys.Delete(ctx, p); err != nil {
				return launch.FsIOError(p, err, launch.CodeFSDelete, "delete, path [%s] could not delete path", p)
			}
		}
	case "touchz":
		if err := fsys.Touchz(ctx, c.path); err != nil {
			var pe *fs.PathError
			if errors.As(err, &pe) && !errors.Is(err, fs.ErrPermission) && !errors.Is(err, fs.ErrNotExist) {
				return action.Errorf(action.ErrorKindError, launch.CodeIO, "touchz, %v", err)
			}
			return launch.FsIOError(c.path, err, "")
		}
	case "move":
		return execMove(ctx, c, recovery, matches)
	case "chmod", "chgrp":
		m, err := matches()
		if err != nil {
			return err
		}
		if len(m) == 0 {
			return action.Errorf(action.ErrorKindError, launch.CodeFSNoMatch, "%s, path(s) that matches [%s] does not exist", c.op, c.path)
		}
		for _, p := range m {
			if err := walkFS(ctx, c, p, true); err != nil {
				return err
			}
		}
	case "setrep":
		// Replication means nothing to a local file system or an object
		// store; Hadoop's connectors accept the call and do nothing, so
		// does gozie. HDFS sets it.
		m, err := matches()
		if err != nil {
			return err
		}
		for _, p := range m {
			if err := fsys.Default().SetReplication(ctx, p, c.repl); err != nil {
				return launch.FsIOError(p, err, "")
			}
		}
	}
	return nil
}

func execMove(ctx context.Context, c fsCommand, recovery bool, matches func() ([]string, error)) error {
	m, err := matches()
	if err != nil {
		return err
	}
	if len(m) == 0 {
		if recovery {
			return nil // moved before the crash
		}
		return action.Errorf(action.ErrorKindError, launch.CodeFSMoveNoSource, "move, source path [%s] does not exist", c.path)
	}
	if len(m) > 1 {
		if dir, _ := fsys.IsDir(ctx, c.target); !dir {
			if recovery {
				return nil
			}
			return action.Errorf(action.ErrorKindError, launch.CodeFSMoveManySources, "move, could not rename multiple sources to the same target name")
		}
	}
	for _, p := range m {
		if _, err := fsys.Rename(ctx, p, c.target); err != nil && !recovery {
			return launch.FsIOError(p, err, launch.CodeFSMove, "move, could not move [%s] to [%s]: %v", p, c.target, err)
		}
	}
	return nil
}

// walkFS applies chmod/chgrp the way Oozie does: with dir-files (the
// default) a directory and the entries one level inside it, every level
// with <recursive/>; without dir-files, the path alone.
func walkFS(ctx context.Context, c fsCommand, p string, root bool) error {
	apply := func(q string) error {
		var err error
		if c.op == "chmod" {
			err = fsys.Chmod(ctx, q, c.perm)
		} else {
			err = fsys.Chgrp(ctx, q, c.group)
		}
		if err != nil {
			return launch.FsIOError(q, err, "")
		}
		return nil
	}
	dir, err := fsys.IsDir(ctx, p)
	if err != nil {
		return launch.FsIOError(p, err, "")
	}
	if !c.dirFiles || !dir {
		return apply(p)
	}
	if root {
		if err := apply(p); err != nil {
			return err
		}
	}
	children, err := fsys.List(ctx, p)
	if err != nil {
		return launch.FsIOError(p, err, "")
	}
	for _, ch := range children {
		if err := apply(ch); err != nil {
			return err
		}
		if c.recursive {
			if sub, _ := fsys.IsDir(ctx, ch); sub {
				if err := walkFS(ctx, c, ch, false); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// The recovery rule. Oozie marks an fs action's run with a recovery
// directory before the first command: when the marker is already there
// the action is being run again after a failure or a crash, and a move
// whose source has gone (moved by the earlier run) no longer fails. gozie
// keeps a finer record, a journal in the WorkDir: each command is written
// down when it begins and when it is done. A run of the action after a
// crash (the same WorkDir) or a retry after a transient failure (the
// previous attempt's WorkDir, which holds no outcome) skips the commands
// that are done, runs the one that had begun under Oozie's recovery rule
// and the rest normally. A re-run of a workflow whose fs action had ended
// (its WorkDir holds the outcome) starts afresh, like Oozie's new run.

// fsCmdState is what the journal says of one command.
type fsCmdState int

const (
	fsNotRun fsCmdState = iota
	fsBegun
	fsDone
)

// fsCrashHook, when set by a test, is called before (done=false) and after
// (done=true) command i runs; returning true makes the run stop there, as
// if the server had died.
var fsCrashHook func(i int, done bool) bool

var errFSCrash = errors.New("fs action stopped by the test's crash hook")

type fsJournal struct {
	f      *os.File // nil: no WorkDir, nothing is recorded
	fps    []string // fingerprint of each command
	states []fsCmdState
}

// fingerprint identifies a command, so that a journal is applied only to
// the commands it was written for.
func (c fsCommand) fingerprint() string {
	h := sha256.Sum256(fmt.Appendf(nil, "%s\x00%s\x00%s\x00%o\x00%s\x00%t\x00%t", c.op, c.path, c.target, c.perm, c.group, c.dirFiles, c.recursive))
	return hex.EncodeToString(h[:8])
}

// openFSJournal reads what earlier runs of the action recorded and opens
// the journal for appending.
func openFSJournal(a *action.Context, cmds []fsCommand) (*fsJournal, error) {
	j := &fsJournal{states: make([]fsCmdState, len(cmds))}
	for _, c := range cmds {
		j.fps = append(j.fps, c.fingerprint())
	}
	if a.WorkDir == "" {
		return j, nil
	}
	path := filepath.Join(a.WorkDir, fsJournalFile)
	data, err := os.ReadFile(path)
	inherited := false
	if errors.Is(err, fs.ErrNotExist) {
		if prev := previousAttemptDir(a); prev != "" && !launch.Exists(filepath.Join(prev, fsResultFile)) {
			data, _ = os.ReadFile(filepath.Join(prev, fsJournalFile))
			inherited = len(data) > 0
		}
	} else if err != nil {
		return nil, action.Errorf(action.Transient, launch.CodeIO, "reading the fs journal: %v", err)
	}
	valid := j.parse(data)
	if err := os.MkdirAll(a.WorkDir, 0o755); err != nil {
		return nil, action.Errorf(action.Transient, launch.CodeIO, "creating the working directory: %v", err)
	}
	flags := os.O_WRONLY | os.O_CREATE | os.O_APPEND
	if !valid || inherited {
		// Written for other commands (a changed body), or another
		// attempt's: start this journal from what applies.
		flags |= os.O_TRUNC
	}
	if j.f, err = os.OpenFile(path, flags, 0o644); err != nil {
		return nil, action.Errorf(action.Transient, launch.CodeIO, "opening the fs journal: %v", err)
	}
	if inherited && valid {
		for i, st := range j.states {
			if st >= fsBegun {
				if err := j.write('B', i); err != nil {
					return nil, err
				}
			}
			if st == fsDone {
				if err := j.write('D', i); err != nil {
					return nil, err
				}
			}
		}
	}
	return j, nil
}

// previousAttemptDir returns the WorkDir of the attempt before a's when
// the engine's layout is recognizable (WorkDir: .../<actionId>.<attempt>,
// or .../<actionId>/<attempt> as earlier versions made it), else "".
func previousAttemptDir(a *action.Context) string {
	if a.Attempt <= 0 {
		return ""
	}
	n, prev := strconv.Itoa(a.Attempt), strconv.Itoa(a.Attempt-1)
	base := filepath.Base(a.WorkDir)
	switch {
	case base == n:
		return filepath.Join(filepath.Dir(a.WorkDir), prev)
	case strings.HasSuffix(base, "."+n):
		return filepath.Join(filepath.Dir(a.WorkDir), strings.TrimSuffix(base, n)+prev)
	}
	return ""
}

// parse applies journal lines "B i fp" and "D i fp". A line cut short by
// a crash is ignored; a line that names another command than the action
// has makes the whole journal void (false), and nothing is skipped.
func (j *fsJournal) parse(data []byte) bool {
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) != 3 {
			continue
		}
		i, err := strconv.Atoi(f[1])
		if err != nil || i < 0 || i >= len(j.fps) || f[2] != j.fps[i] {
			if len(f[2]) == 16 {
				clear(j.states)
				return false
			}
			continue // torn line
		}
		switch {
		case f[0] == "B" && j.states[i] == fsNotRun:
			j.states[i] = fsBegun
		case f[0] == "D":
			j.states[i] = fsDone
		}
	}
	return true
}

func (j *fsJournal) state(i int) fsCmdState { return j.states[i] }

func (j *fsJournal) begin(i int) error { return j.write('B', i) }

func (j *fsJournal) done(i int) error {
	j.states[i] = fsDone
	return j.write('D', i)
}

// write appends one line. It is not synced: the journal must survive the
// server being killed, which the page cache guarantees (writeFileAtomic).
func (j *fsJournal) write(kind byte, i int) error {
	if j.f == nil {
		return nil
	}
	if _, err := fmt.Fprintf(j.f, "%c %d %s\n", kind, i, j.fps[i]); err != nil {
		return action.Errorf(action.Transient, launch.CodeIO, "writing the fs journal: %v", err)
	}
	return nil
}

func (j *fsJournal) close() {
	if j.f != nil {
		j.f.Close()
	}
}
