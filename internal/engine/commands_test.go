package engine

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gozie/gozie/internal/action"
	"github.com/gozie/gozie/internal/store"
)

func twoStepApp() string {
	return wf(`<start to="a"/>` + testAction("a", "b", "fail") + testAction("b", "end", "fail") +
		`<kill name="fail"><message>failed at ${wf:lastErrorNode()}</message></kill><end name="end"/>`)
}

func TestSuspendResume(t *testing.T) {
	h := newHarness(t)
	h.exec.set("a", &behaviour{async: true})
	id := h.run(props(h.writeApp("sr", twoStepApp(), nil)))
	ctx := context.Background()
	h.eventually("a running", func() bool { return h.actionStatus(id, "a") == store.ActionRunning })
	if err := h.e.Suspend(ctx, id); err != nil {
		t.Fatal(err)
	}
	if s := h.status(id); s != store.JobSuspended {
		t.Fatalf("status %s", s)
	}
	// The running action completes while the job is suspended: it is
	// recorded, but its transition waits for the resume.
	h.exec.finish(t, "a", action.Result{})
	h.eventually("a OK", func() bool { return h.actionStatus(id, "a") == store.ActionOK })
	if h.exec.count(h.exec.starts, "b") != 0 || h.actionStatus(id, "b") != "" {
		t.Fatal("b started while the job was suspended")
	}
	if err := h.e.Suspend(ctx, id); ErrorCode(err) != CodeCannotSuspend {
		t.Fatalf("second suspend: %v, want E0727", err)
	}
	if err := h.e.Resume(ctx, id); err != nil {
		t.Fatal(err)
	}
	if j := h.wait(id); j.Status != store.JobSucceeded {
		t.Fatalf("status %s: %s", j.Status, h.describe(id))
	}
	if err := h.e.Resume(ctx, id); ErrorCode(err) != CodeNotSuspended {
		t.Fatalf("resume of an ended job: %v, want E0717", err)
	}
}

func TestKillJob(t *testing.T) {
	h := newHarness(t)
	h.exec.set("a", &behaviour{async: true})
	id := h.run(props(h.writeApp("kill", twoStepApp(), nil)))
	h.eventually("a running", func() bool { return h.actionStatus(id, "a") == store.ActionRunning })
	ctx := context.Background()
	if err := h.e.Kill(ctx, id); err != nil {
		t.Fatal(err)
	}
	if j := h.wait(id); j.Status != store.JobKilled {
		t.Fatalf("status %s", j.Status)
	}
	if s := h.actionStatus(id, "a"); s != store.ActionKilled {
		t.Fatalf("a = %s", s)
	}
	h.eventually("executor Kill", func() bool { return h.exec.count(h.exec.kills, "a") == 1 })
	if err := h.e.Kill(ctx, id); ErrorCode(err) != CodeCannotKill {
		t.Fatalf("kill of a killed job: %v, want E0725", err)
	}
	if err := h.e.Suspend(ctx, id); ErrorCode(err) != CodeCannotSuspend {
		t.Fatalf("suspend of a killed job: %v, want E0727", err)
	}
}

func TestKillFailureMarksActionFailed(t *testing.T) {
	h := newHarness(t)
	h.exec.set("a", &behaviour{async: true, killErr: action.Errorf(action.ErrorKindError, "K1", "cannot kill")})
	id := h.run(props(h.writeApp("kill", twoStepApp(), nil)))
	h.eventually("a running", func() bool { return h.actionStatus(id, "a") == store.ActionRunning })
	if err := h.e.Kill(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	h.eventually("a FAILED", func() bool { return h.actionStatus(id, "a") == store.ActionFailed })
}

func TestPrepJobCommands(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	id, err := h.e.Submit(ctx, props(h.writeApp("prep", twoStepApp(), nil)))
	if err != nil {
		t.Fatal(err)
	}
	if s := h.status(id); s != store.JobPrep {
		t.Fatalf("submitted job is %s, want PREP", s)
	}
	if err := h.e.Suspend(ctx, id); ErrorCode(err) != CodeCannotSuspend {
		t.Fatalf("suspend PREP: %v", err)
	}
	if err := h.e.Resume(ctx, id); ErrorCode(err) != CodeNotSuspended {
		t.Fatalf("resume PREP: %v", err)
	}
	if err := h.e.Kill(ctx, id); err != nil {
		t.Fatalf("kill PREP: %v", err)
	}
	if s := h.status(id); s != store.JobKilled {
		t.Fatalf("status %s", s)
	}
	if err := h.e.StartJob(ctx, id); ErrorCode(err) != CodeAlreadyStarted {
		t.Fatalf("start of a killed job: %v, want E0719", err)
	}
	if _, _, err := h.e.Job(ctx, "0000099-000000000000000-oozie-x-W"); ErrorCode(err) != CodeJobNotFound {
		t.Fatalf("unknown job: %v, want E0604", err)
	}
}

func TestUserRetry(t *testing.T) {
	h := newHarness(t)
	fail := action.Result{Done: true, Status: action.Error, ErrorCode: "JA018", ErrorMessage: "output exists"}
	h.exec.set("a", &behaviour{results: []action.Result{fail, fail, {Done: true, Status: action.OK}}})
	app := h.writeApp("retry", wf(`<start to="a"/>
		<action name="a" retry-max="2" retry-interval="1"><test xmlns="uri:gozie:test:1.0"/><ok to="end"/><error to="fail"/></action>
		<kill name="fail"><message>x</message></kill><end name="end"/>`), nil)
	id := h.run(props(app))
	for try := 1; try <= 2; try++ {
		h.eventually("USER_RETRY", func() bool {
			_, m := h.job(id)
			a := m["a"]
			return a != nil && a.Status == store.ActionUserRetry && a.UserRetryCount == try && h.clock.Pending() > 0
		})
		if n := h.exec.count(h.exec.runs, "a"); n != try {
			t.Fatalf("runs before interval = %d, want %d", n, try)
		}
		h.clock.Advance(59 * time.Second)
		if n := h.exec.count(h.exec.runs, "a"); n != try {
			t.Fatalf("retried before the interval passed")
		}
		h.clock.Advance(time.Second)
	}
	if j := h.wait(id); j.Status != store.JobSucceeded {
		t.Fatalf("status %s: %s", j.Status, h.describe(id))
	}
	_, m := h.job(id)
	if a := m["a"]; a.UserRetryCount != 2 || a.UserRetryMax != 2 || a.Attempt != 2 {
		t.Fatalf("a = %+v", a)
	}
	// Each attempt was given its own work directory, which the engine
	// leaves to the executor to create.
	h.exec.mu.Lock()
	dirs := h.exec.workDirs["a"]
	h.exec.mu.Unlock()
	if len(dirs) != 3 {
		t.Fatalf("work dirs %v, want one per attempt", dirs)
	}
	for i, d := range dirs {
		if want := filepath.Join(h.dir, "actions", id+"@a."+strconv.Itoa(i)); d != want {
			t.Errorf("work dir of attempt %d = %s, want %s", i, d, want)
		}
		if _, err := os.Stat(d); err == nil {
			t.Errorf("the engine created %s for an executor that does not use it", d)
		}
	}
}

func TestUserRetryExhaustedTakesErrorTransition(t *testing.T) {
	h := newHarness(t)
	fail := action.Result{Done: true, Status: action.Error, ErrorCode: "JA009", ErrorMessage: "bad"}
	h.exec.set("a", &behaviour{results: []action.Result{fail}})
	app := h.writeApp("retry", wf(`<start to="a"/>
		<action name="a" retry-max="1" retry-interval="2"><test xmlns="uri:gozie:test:1.0"/><ok to="end"/><error to="fail"/></action>
		<kill name="fail"><message>x</message></kill><end name="end"/>`), nil)
	id := h.run(props(app))
	h.eventually("USER_RETRY", func() bool { return h.actionStatus(id, "a") == store.ActionUserRetry && h.clock.Pending() > 0 })
	h.clock.Advance(2 * time.Minute)
	if j := h.wait(id); j.Status != store.JobKilled {
		t.Fatalf("status %s", j.Status)
	}
	if a := h.actionStatus(id, "a"); a != store.ActionError {
		t.Fatalf("a = %s", a)
	}
}

func TestStartRetryThenManual(t *testing.T) {
	h := newHarness(t, func(o *Options) { o.StartRetryMax = 2; o.StartRetryInterval = time.Minute })
	transient := action.Errorf(action.Transient, "T1", "busy")
	h.exec.set("a", &behaviour{startErrs: []error{transient, transient, transient}})
	id := h.run(props(h.writeApp("sr", twoStepApp(), nil)))
	for i := 1; i <= 2; i++ {
		h.eventually("START_RETRY", func() bool {
			_, m := h.job(id)
			return m["a"].Status == store.ActionStartRetry && m["a"].Retries == i && h.clock.Pending() > 0
		})
		h.clock.Advance(time.Minute)
	}
	// Retries exhausted: START_MANUAL, and the job waits suspended.
	h.eventually("START_MANUAL", func() bool { return h.actionStatus(id, "a") == store.ActionStartManual })
	if s := h.status(id); s != store.JobSuspended {
		t.Fatalf("job %s, want SUSPENDED", s)
	}
	// A person fixed the problem and resumes: the start is tried again.
	if err := h.e.Resume(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	if j := h.wait(id); j.Status != store.JobSucceeded {
		t.Fatalf("status %s: %s", j.Status, h.describe(id))
	}
}

func TestNonTransientStartGoesManual(t *testing.T) {
	h := newHarness(t)
	h.exec.set("a", &behaviour{startErrs: []error{action.Errorf(action.NonTransient, "N1", "needs a person")}})
	id := h.run(props(h.writeApp("nt", twoStepApp(), nil)))
	h.eventually("START_MANUAL", func() bool { return h.actionStatus(id, "a") == store.ActionStartManual })
	if s := h.status(id); s != store.JobSuspended {
		t.Fatalf("job %s", s)
	}
}

func TestStartErrorKinds(t *testing.T) {
	cases := []struct {
		kind       action.ErrorKind
		job, actSt string
	}{
		{action.ErrorKindError, store.JobKilled, store.ActionError},
		{action.Failed, store.JobFailed, store.ActionFailed},
	}
	for _, c := range cases {
		h := newHarness(t)
		h.exec.set("a", &behaviour{startErrs: []error{action.Errorf(c.kind, "C9", "no")}})
		id := h.run(props(h.writeApp("k", twoStepApp(), nil)))
		if j := h.wait(id); j.Status != c.job {
			t.Errorf("kind %d: job %s, want %s", c.kind, j.Status, c.job)
		}
		_, m := h.job(id)
		if a := m["a"]; a.Status != c.actSt || a.ErrorCode != "C9" {
			t.Errorf("kind %d: action %s %s", c.kind, a.Status, a.ErrorCode)
		}
	}
}

// killVector is a kill_message vector of testdata/conformance/basic_el.json.
type killVector struct {
	ID       string          `json:"id"`
	Kind     string          `json:"kind"`
	Message  string          `json:"kill_message_expression"`
	Raw      json.RawMessage `json:"expected"`
	Expected struct {
		Code          string `json:"kill_action_error_code"`
		Message       string `json:"kill_action_error_message"`
		MessagePrefix string `json:"kill_action_error_message_starts_with"`
		Status        string `json:"kill_action_status"`
	} `json:"-"`
}

// TestConformanceKillMessage runs the kill_message vectors at the engine
// level: action a fails with message "end", the job reaches the kill node,
// and the kill node's record carries the status, code and message.
func TestConformanceKillMessage(t *testing.T) {
	dir := os.Getenv("GOZIE_CONFORMANCE_DIR")
	if dir == "" {
		dir = filepath.Join("..", "..", "testdata", "conformance")
	}
	data, err := os.ReadFile(filepath.Join(dir, "basic_el.json"))
	if err != nil {
		t.Fatal(err)
	}
	var vectors []killVector
	if err := json.Unmarshal(data, &vectors); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, v := range vectors {
		if v.Kind != "kill_message" {
			continue
		}
		if err := json.Unmarshal(v.Raw, &v.Expected); err != nil {
			t.Fatalf("%s: %v", v.ID, err)
		}
		n++
		t.Run(v.ID, func(t *testing.T) {
			h := newHarness(t)
			h.exec.set("a", &behaviour{results: []action.Result{{Done: true, Status: action.Error, ErrorCode: "E", ErrorMessage: "end"}}})
			app := h.writeApp("kv", wf(`<start to="a"/>`+testAction("a", "end", "kill")+
				`<kill name="kill"><message>`+v.Message+`</message></kill><end name="end"/>`), nil)
			id := h.run(props(app))
			if j := h.wait(id); j.Status != store.JobKilled {
				t.Fatalf("job %s", j.Status)
			}
			_, m := h.job(id)
			k := m["kill"]
			if k.Status != v.Expected.Status || k.ErrorCode != v.Expected.Code {
				t.Errorf("kill record %s %s, want %s %s", k.Status, k.ErrorCode, v.Expected.Status, v.Expected.Code)
			}
			if v.Expected.Message != "" && k.ErrorMessage != v.Expected.Message {
				t.Errorf("message %q, want %q", k.ErrorMessage, v.Expected.Message)
			}
			if !strings.HasPrefix(k.ErrorMessage, v.Expected.MessagePrefix) {
				t.Errorf("message %q, want prefix %q", k.ErrorMessage, v.Expected.MessagePrefix)
			}
		})
	}
	if n == 0 {
		t.Fatal("no kill_message vectors")
	}
}

// TestCallback: the callback endpoint's entry point triggers a check, like
// an executor's Notify; unknown actions are E0605.
func TestCallback(t *testing.T) {
	h := newHarness(t, func(o *Options) { o.PollInterval = time.Hour; o.CallbackURL = "http://localhost:11000/oozie/callback" })
	h.exec.set("a", &behaviour{async: true})
	id := h.run(props(h.writeApp("cb", twoStepApp(), nil)))
	h.eventually("a running", func() bool { return h.actionStatus(id, "a") == store.ActionRunning })
	if got := h.exec.contexts["a"].CallbackURL; got != "http://localhost:11000/oozie/callback?id="+strings.ReplaceAll(id, "@", "%40")+"%40a&status=$status" {
		t.Errorf("callback URL %q", got)
	}
	h.exec.mu.Lock()
	h.exec.finished["a"] = action.Result{Done: true, Status: action.OK}
	h.exec.mu.Unlock()
	ctx := context.Background()
	if err := h.e.Callback(ctx, id+"@a", "SUCCEEDED"); err != nil {
		t.Fatal(err)
	}
	if j := h.wait(id); j.Status != store.JobSucceeded {
		t.Fatalf("status %s", j.Status)
	}
	if err := h.e.Callback(ctx, id+"@nope", "OK"); ErrorCode(err) != CodeActionNotFound {
		t.Fatalf("unknown action: %v", err)
	}
}

// TestUserRetryOnlyForListedCodes: like Oozie, retry-max applies to the
// configured error codes only, unless ALL is configured.
func TestUserRetryOnlyForListedCodes(t *testing.T) {
	for _, c := range []struct {
		codes   []string
		retried bool
	}{{nil, false}, {[]string{"ALL"}, true}, {[]string{"X7"}, true}} {
		h := newHarness(t, func(o *Options) { o.UserRetryErrorCodes = c.codes })
		fail := action.Result{Done: true, Status: action.Error, ErrorCode: "X7", ErrorMessage: "bad"}
		h.exec.set("a", &behaviour{results: []action.Result{fail, {Done: true, Status: action.OK}}})
		app := h.writeApp("retry", wf(`<start to="a"/>
			<action name="a" retry-max="1" retry-interval="1"><test xmlns="uri:gozie:test:1.0"/><ok to="end"/><error to="fail"/></action>
			<kill name="fail"><message>x</message></kill><end name="end"/>`), nil)
		id := h.run(props(app))
		if !c.retried {
			if j := h.wait(id); j.Status != store.JobKilled {
				t.Fatalf("codes %v: job %s, want KILLED without retry", c.codes, j.Status)
			}
			continue
		}
		h.eventually("USER_RETRY", func() bool { return h.actionStatus(id, "a") == store.ActionUserRetry && h.clock.Pending() > 0 })
		h.clock.Advance(time.Minute)
		if j := h.wait(id); j.Status != store.JobSucceeded {
			t.Fatalf("codes %v: job %s", c.codes, j.Status)
		}
	}
}

type panicky struct{ noop }

func (panicky) Start(ctx context.Context, a *action.Context) (action.Result, error) {
	panic("executor bug")
}

func TestExecutorPanicFailsTheAction(t *testing.T) {
	h := newHarness(t)
	h.e.actions.Register("boom", panicky{})
	app := h.writeApp("panic", wf(`<start to="a"/><action name="a"><boom xmlns="uri:gozie:boom:1.0"/>
		<ok to="end"/><error to="end"/></action><end name="end"/>`), nil)
	id := h.run(props(app))
	if j := h.wait(id); j.Status != store.JobFailed {
		t.Fatalf("status %s", j.Status)
	}
	_, m := h.job(id)
	if a := m["a"]; a.Status != store.ActionFailed || !strings.Contains(a.ErrorMessage, "executor bug") {
		t.Fatalf("a = %+v", a)
	}
}
