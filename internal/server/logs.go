package server

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/gozie/gozie/internal/engine"
	"github.com/gozie/gozie/internal/launch"
	"github.com/gozie/gozie/internal/redact"
	"github.com/gozie/gozie/internal/store"
	"github.com/gozie/gozie/internal/vocab"
)

// logFilter is the logfilter parameter of show=log (rest-api.md 7.5).
type logFilter struct {
	levels     map[string]bool // nil: all
	text       string
	limit      int
	start, end time.Time
}

// parseLogFilter reads opt=val;opt=val. now anchors recent= and offsets.
func parseLogFilter(s string, now time.Time) (*logFilter, error) {
	f := &logFilter{}
	bad := func(why string) error {
		return errorf(http.StatusBadRequest, "E0302", "Invalid parameter [logfilter: %s]", why)
	}
	for _, tok := range strings.Split(s, ";") {
		if strings.TrimSpace(tok) == "" {
			continue
		}
		k, v, ok := strings.Cut(tok, "=")
		if !ok {
			return nil, bad("elements must be name=value pairs, got [" + tok + "]")
		}
		k, v = strings.ToLower(strings.TrimSpace(k)), strings.TrimSpace(v)
		switch k {
		case "recent":
			d, err := logDuration(v)
			if err != nil {
				return nil, bad(err.Error())
			}
			f.start = now.Add(-d)
		case "start", "end":
			t, err := logTime(v, now)
			if err != nil {
				return nil, bad(err.Error())
			}
			if k == "start" {
				f.start = t
			} else {
				f.end = t
			}
		case "loglevel":
			f.levels = map[string]bool{}
			for _, l := range strings.Split(v, "|") {
				l = strings.ToUpper(strings.TrimSpace(l))
				switch l {
				case "ALL":
					f.levels = nil
				case "DEBUG", "ERROR", "INFO", "TRACE", "WARN", "FATAL":
					if f.levels != nil {
						f.levels[l] = true
					}
				default:
					return nil, bad("unknown log level [" + l + "]")
				}
				if f.levels == nil {
					break
				}
			}
		case "text":
			f.text = v
		case "limit":
			n, err := strconv.ParseInt(v, 10, 32)
			if err != nil || n < 0 {
				return nil, bad("limit must be a number, got [" + v + "]")
			}
			f.limit = int(n)
		case "debug":
		default:
			return nil, bad("unknown option [" + k + "]")
		}
	}
	return f, nil
}

// logDuration reads 3h, 30m or a bare number of hours.
func logDuration(v string) (time.Duration, error) {
	unit := time.Hour
	num := v
	if strings.HasSuffix(v, "h") {
		num = v[:len(v)-1]
	} else if strings.HasSuffix(v, "m") {
		num, unit = v[:len(v)-1], time.Minute
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("invalid duration [%s]", v)
	}
	d, ok := relative(n, unit)
	if !ok {
		return 0, fmt.Errorf("duration [%s] is longer than %d hours", v, int64(maxRelative/time.Hour))
	}
	return d, nil
}

// logTime reads yyyy-MM-ddTHH:mmZ, yyyy-MM-dd HH:mm:ss,SSS or an offset in
// minutes from now (e.g. -30).
func logTime(v string, now time.Time) (time.Time, error) {
	for _, layout := range []string{"2006-01-02T15:04Z", engine.LogTimeLayout, "2006-01-02 15:04:05"} {
		if t, err := time.Parse(layout, v); err == nil {
			return t, nil
		}
	}
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		d, ok := relative(n, time.Minute)
		if !ok {
			return time.Time{}, fmt.Errorf("time offset [%s] is more than %d minutes from now", v, int64(maxRelative/time.Minute))
		}
		return now.Add(d), nil
	}
	return time.Time{}, fmt.Errorf("invalid time [%s]", v)
}

func (f *logFilter) match(l *store.LogEntry, line string) bool {
	if f.levels != nil && !f.levels[l.Level] {
		return false
	}
	if !f.start.IsZero() && l.Time.Before(f.start) {
		return false
	}
	if !f.end.IsZero() && l.Time.After(f.end) {
		return false
	}
	return f.text == "" || strings.Contains(line, f.text)
}

// showLog writes a job's log (show=log), its WARN and ERROR lines
// (errorlog), or the audit lines of the requests about it (auditlog) as
// text, masked for the caller c. The text filter applies to the masked
// lines, so that nobody finds a secret by filtering for it.
func (s *Server) showLog(w http.ResponseWriter, r *http.Request, c *call, id, kind, show string) error {
	ctx := r.Context()
	f, err := parseLogFilter(r.URL.Query().Get("logfilter"), s.opts.Now())
	if err != nil {
		return err
	}
	jobID, actionID := id, ""
	if kind == kindWfAction || kind == kindCoordAction {
		jobID = vocab.JobOf(id)
		actionID = id
	}
	var only map[string]bool // coordinator log scope: action ids
	if q := r.URL.Query(); kind == kindCoord && q.Get("scope") != "" {
		if t := q.Get("type"); t != "" && t != "action" {
			return errorf(http.StatusBadRequest, "E0302", "Invalid parameter [log type [%s]: only type=action scopes are supported]", t)
		}
		nums, err := parseActionRange(q.Get("scope"))
		if err != nil {
			return err
		}
		only = map[string]bool{}
		for _, n := range nums {
			only[vocab.CoordActionID(jobID, n)] = true
		}
	}
	var user, group, app string
	var m *redact.Masker
	switch idKind(jobID) {
	case kindWf:
		j, err := s.engine.JobRecord(ctx, jobID)
		if err != nil {
			return err
		}
		user, group, app = j.User, j.Group, j.AppName
		if s.readerMasker(c.user, j.User, j.Group, j.ACL) != nil {
			// Only a masked reader needs the actions' secrets.
			j, acts, err := s.engine.Job(ctx, jobID)
			if err != nil {
				return err
			}
			m = s.jobMasker(c.user, j, acts)
		}
	case kindBundle:
		if user, group, app, m, err = s.bundleLogMeta(ctx, c.user, jobID); err != nil {
			return err
		}
	default:
		if s.coords == nil {
			return errNoCoordinators()
		}
		if user, group, _, err = s.coords.CoordOwner(ctx, jobID); err != nil {
			return err
		}
		if info, err := s.coords.CoordJobInfo(ctx, jobID, 1, 1, false, nil); err == nil {
			app = string(info.CoordJobName)
		}
		if m, err = s.coordMasker(ctx, c.user, jobID); err != nil {
			return err
		}
	}
	entries, err := s.engine.Logs(ctx, jobID)
	if err != nil {
		return err
	}
	var b strings.Builder
	n := 0
	for _, l := range entries {
		if actionID != "" && l.ActionID != actionID {
			continue
		}
		if only != nil && !only[l.ActionID] {
			continue
		}
		switch show {
		case "log":
			if l.Level == engine.LevelAudit {
				continue
			}
		case "errorlog":
			if l.Level != engine.LevelWarn && l.Level != engine.LevelError {
				continue
			}
		case "auditlog":
			if l.Level != engine.LevelAudit {
				continue
			}
		}
		line := m.Text(engine.FormatLogLine(user, group, app, l))
		if !f.match(l, line) {
			continue
		}
		b.WriteString(line)
		b.WriteByte('\n')
		n++
		if f.limit > 0 && n >= f.limit {
			break
		}
	}
	w.Header().Set("Content-Type", textType)
	s.writeInParts(w, strings.NewReader(b.String()))
	return nil
}

// writePart is how much writeInParts writes per write deadline.
const writePart = 64 << 10

// writeInParts copies r to w in parts, moving the connection's write
// deadline WriteTimeout ahead before each: a long job log or action output
// reaches a slow but live client, while a client that stops reading is
// still cut off after WriteTimeout. Writers without deadlines (test
// recorders) are written to as they are. Errors end the response; its
// status has been sent, so there is nothing else to tell the client.
func (s *Server) writeInParts(w http.ResponseWriter, r io.Reader) {
	rc := http.NewResponseController(w)
	buf := make([]byte, writePart)
	for {
		n, err := io.ReadFull(r, buf)
		if n > 0 {
			_ = rc.SetWriteDeadline(time.Now().Add(s.opts.HTTP.WriteTimeout))
			if _, werr := w.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// handleConsole serves an action's captured stdout or stderr, the target
// of its consoleUrl: /oozie/console/action/<actionId>/stdout|stderr,
// masked line by line for a reader the job does not name.
func (s *Server) handleConsole(w http.ResponseWriter, r *http.Request, c *call) error {
	rest := strings.TrimPrefix(r.URL.Path, "/oozie/console/action/")
	id, stream, ok := strings.Cut(rest, "/")
	if r.Method != http.MethodGet || !ok || (stream != "stdout" && stream != "stderr") || strings.Contains(id, "/") || id == "" {
		return errInvalidResource(rest)
	}
	jobID := vocab.JobOf(id)
	j, acts, err := s.engine.Job(r.Context(), jobID)
	if err != nil {
		return err
	}
	m := s.jobMasker(c.user, j, acts)
	for _, a := range acts {
		if a.ID != id {
			continue
		}
		// Streamed, not read whole: a chatty action's output can be
		// far larger than anything else the server sends.
		dir := s.actionDir(a)
		if v := r.URL.Query().Get("attempt"); v != "" {
			// An earlier run of a retried action (show=retries).
			n, err := strconv.Atoi(v)
			if err != nil || n < 0 || n > a.Attempt {
				return errParamValue("attempt", v)
			}
			if n != a.Attempt {
				dir = launch.WorkDir(s.opts.DataDir, a.ID, n)
			}
		}
		// Never through a link, never waiting on a FIFO: the job's user
		// may own the work directory (launch.OpenOutput). A file that
		// was replaced is served as empty, like a missing one.
		f, err := launch.OpenOutput(filepath.Join(dir, stream))
		if err != nil {
			f = nil
		}
		w.Header().Set("Content-Type", textType)
		if f != nil {
			defer f.Close()
			s.writeInParts(w, m.Reader(f))
		}
		return nil
	}
	return errorf(http.StatusBadRequest, engine.CodeActionNotFound, "Action does not exist [%s]", id)
}

func itoa(n int) string { return strconv.Itoa(n) }

// maxLogActions bounds a coordinator log scope, as Oozie's
// oozie.coord.actions.log.max.count.
const maxLogActions = 50

// parseActionRange reads an action list like 1,3-4,7 (rest-api.md 7.3).
func parseActionRange(scope string) ([]int, error) {
	bad := func() error {
		return errorf(http.StatusBadRequest, "E0302", "Invalid parameter [action range [%s]]", scope)
	}
	var out []int
	for _, part := range strings.Split(scope, ",") {
		part = strings.TrimSpace(part)
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.Atoi(strings.TrimSpace(lo))
		if err != nil || a < 1 {
			return nil, bad()
		}
		b := a
		if isRange {
			if b, err = strconv.Atoi(strings.TrimSpace(hi)); err != nil || b < a {
				return nil, bad()
			}
		}
		// Checked before the loop: 1-9223372036854775807 must cost
		// nothing, and n++ must never run past the largest int.
		if b-a >= maxLogActions || len(out)+(b-a+1) > maxLogActions {
			return nil, errorf(http.StatusBadRequest, "E0302", "Invalid parameter [action range [%s] has more than %d actions]", scope, maxLogActions)
		}
		for n := a; ; n++ {
			out = append(out, n)
			if n == b {
				break
			}
		}
	}
	return out, nil
}

// audit records a request about a job in the job's audit log
// (show=auditlog), in the fields of Oozie's audit lines. Requests about
// jobs that do not exist have no log to go to.
func (s *Server) audit(r *http.Request, c *call, id, op string, err error) {
	s.auditParam(r, c.logUser(), id, op, id, err)
}

// auditParam is audit for a request whose parameter is not the job's id
// (a callback names an action), by user ("" for none).
func (s *Server) auditParam(r *http.Request, user, jobID, op, param string, err error) {
	status, code, msg, httpCode := "SUCCESS", "null", "null", http.StatusOK
	if err != nil {
		ae := toAPIError(err)
		if ae.code == engine.CodeJobNotFound {
			return
		}
		status, code, msg, httpCode = "FAILED", ae.code, ae.msg, ae.status
	}
	host, _, splitErr := net.SplitHostPort(r.RemoteAddr)
	if splitErr != nil {
		host = r.RemoteAddr
	}
	line := fmt.Sprintf("IP [%s] USER [%s] GROUP [-] APP [-] JOBID [%s] OPERATION [%s] PARAMETER [%s] STATUS [%s] HTTPCODE [%d] ERRORCODE [%s] ERRORMESSAGE [%s]",
		host, userOrQ(user), jobID, op, param, status, httpCode, code, msg)
	if err := s.engine.Audit(context.WithoutCancel(r.Context()), jobID, line); err != nil {
		s.opts.Logf("gozie: audit %s %s: %v", op, jobID, err)
	}
}
