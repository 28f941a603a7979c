package engine

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/gozie/gozie/internal/launch"
	"github.com/gozie/gozie/internal/store"
)

// startIntent is what a start effect records, in the commit that creates
// it, of the server about to perform it: its instance, its host, and its
// data directory with that directory's identity (launch.DataDirID).
//
// Why: a server performs a start effect by launching the program in its
// data directory, then commits RUNNING. Killed in between, it leaves the
// effect pending with the program running, and the server taking the
// job over performs the effect again. Computing the work directory from
// its own data directory, it found nothing there and launched the
// program a second time. With the intent it looks where the first server
// launched: when it sees that directory (the same host, or a data
// directory shared between hosts) it starts the attempt there, and the
// executor re-attaches to the program already running or finished (or
// launches it, once: a launcher claims a directory with link(2)).
//
// Recording costs no commit: the intent is the effect's payload, written
// with the effect, and the same for every start of this server instance.
type startIntent struct {
	Server string `json:"server,omitempty"`
	Host   string `json:"host,omitempty"`
	Data   string `json:"data"`
	DataID string `json:"dataid"`
}

// intentPayload is this server's start intent, encoded; kept for the
// instance token it names, which changes only when the server registers
// anew.
type intentPayload struct{ server, payload string }

// recordIntents makes the start effects of a change record this server
// as the one starting them. Effects made by another server keep theirs.
func (e *Engine) recordIntents(effects []*store.Effect) {
	if e.opts.DataID == "" {
		return
	}
	payload := ""
	for _, ef := range effects {
		if ef.Kind != store.EffectStart || ef.Payload != "" {
			continue
		}
		if payload == "" {
			payload = e.myIntent()
		}
		ef.Payload = payload
	}
}

// myIntent is this server's intent, encoded once for each instance token.
func (e *Engine) myIntent() string {
	server := ""
	if e.opts.ServerID != nil {
		server = e.opts.ServerID()
	}
	if p := e.intent.Load(); p != nil && p.server == server {
		return p.payload
	}
	b, _ := json.Marshal(startIntent{Server: server, Host: e.opts.Host, Data: e.dataDir, DataID: e.opts.DataID})
	e.intent.Store(&intentPayload{server: server, payload: string(b)})
	return string(b)
}

// ownDataIDTag is how an intent encodes a data directory identity, to
// recognize this server's own intents without decoding them.
func ownDataIDTag(id string) string {
	b, _ := json.Marshal(id)
	return `"dataid":` + string(b)
}

// parseIntent reads a start effect's payload; ok is false for an effect
// that records none (one server per store, or made by an earlier
// version) or a payload that is not an intent.
func parseIntent(payload string) (in startIntent, ok bool) {
	if payload == "" || payload[0] != '{' {
		return in, false
	}
	if json.Unmarshal([]byte(payload), &in) != nil || in.DataID == "" || !filepath.IsAbs(in.Data) {
		return startIntent{}, false
	}
	return in, true
}

// startDir says where the attempt of a start effect runs. in is nil for
// this server's own work directory: the effect records no intent, or
// this server's (same data directory, perhaps an earlier life of this
// server), or the action keeps nothing in a directory (sub-workflows).
// Otherwise in is the intent of another server, and dir the attempt's
// directory in that server's data directory when this host sees it, ""
// when it does not: the first server may have launched the program
// where this one cannot look.
func (e *Engine) startDir(ef *store.Effect, a *store.Action) (in *startIntent, dir string) {
	if e.opts.DataID == "" || a.Type == "sub-workflow" || strings.Contains(ef.Payload, e.ownDataID) {
		// The last test is the usual case, a start this server
		// recorded, without decoding it.
		return nil, ""
	}
	got, ok := parseIntent(ef.Payload)
	if !ok || got.DataID == e.opts.DataID {
		return nil, ""
	}
	if launch.SameDataDir(got.Data, got.DataID) {
		return &got, launch.WorkDir(got.Data, a.ID, a.Attempt)
	}
	return &got, ""
}

// who names the server of an intent in log lines.
func (in *startIntent) who() string {
	who := in.Server
	if who == "" {
		who = "another server"
	}
	if in.Host != "" {
		who += " on " + in.Host
	}
	return who
}

// startAgain replaces a start effect whose intent names a data directory
// this host cannot see by one naming this server, and says, in the job
// log and the server log, that the step may run twice. Committed before
// the program is launched, so that should this server die too, the next
// one looks in this server's directory, not in the lost one. st.mu must
// be held; the caller commits.
func (e *Engine) startAgain(st *jobState, a *store.Action, ef *store.Effect, in *startIntent) {
	msg := fmt.Sprintf("Action [%s] attempt [%d] was being started by %s in data directory [%s], which this "+
		"server cannot see; starting it again here: the step may run twice", a.Name, a.Attempt, in.who(), in.Data)
	st.note(e, a.ID, LevelWarn, "%s", msg)
	e.logf("gozie: job %s: %s", st.job.ID, msg)
	st.done = append(st.done, ef.ID)
	st.addEffect(&store.Effect{ActionID: a.ID, Kind: store.EffectStart, Attempt: a.Attempt})
}

// ActionDir is the work directory of an action's attempt: under this
// server's data directory (launch.WorkDir), or, for an attempt another
// server launched in its own data directory and this one re-attached to
// there, that directory (its external id, launch.RunDir). Process actions
// keep their stdout and stderr there.
func (e *Engine) ActionDir(a *store.Action) string {
	return launch.RunDir(e.opts.DataDir, a.ID, a.Attempt, a.ExternalID)
}
