package server

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// The browser tests drive a real headless Chromium over the DevTools
// protocol on a pipe (--remote-debugging-pipe: NUL-terminated JSON on file
// descriptors 3 and 4), so they need no WebSocket library and no driver
// binary. They skip when no Chromium is installed (Debian: apt-get
// install -y chromium); GOZIE_CHROMIUM names another binary, and
// GOZIE_CONSOLE_SCREENSHOTS a directory to keep the page screenshots in.

// findChromium returns the browser binary or "".
func findChromium() string {
	if p := os.Getenv("GOZIE_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// browser is one headless Chromium with one page attached.
type browser struct {
	t       *testing.T
	cmd     *exec.Cmd
	out     io.WriteCloser
	mu      sync.Mutex
	next    int
	pending map[int]chan cdpReply
	session string
	shots   string
}

type cdpReply struct {
	ID     int             `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Message string `json:"message"`
	} `json:"error"`
}

// browserOptions are what a test adds to the browser's command line
// (flags) and environment (env, NAME=value, over the test's own).
type browserOptions struct {
	flags []string
	env   []string
	// localState, when set, is the new profile's "Local State" file
	// (Chromium's browser-wide preferences, JSON).
	localState string
}

// noChromium is the skip message of the browser tests.
const noChromium = "no chromium found: install it (apt-get install -y chromium) or set GOZIE_CHROMIUM to run the browser tests"

func startBrowser(t *testing.T) *browser {
	t.Helper()
	return startBrowserWith(t, browserOptions{})
}

// startBrowserWith is startBrowser with more flags and environment.
func startBrowserWith(t *testing.T, opts browserOptions) *browser {
	t.Helper()
	bin := findChromium()
	if bin == "" {
		t.Skip(noChromium)
	}
	profile := t.TempDir()
	if opts.localState != "" {
		if err := os.WriteFile(filepath.Join(profile, "Local State"), []byte(opts.localState), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	args := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
		"--disable-component-update", "--disable-sync", "--no-first-run", "--disable-dev-shm-usage",
		"--user-data-dir=" + profile, "--remote-debugging-pipe", "--window-size=1280,900"}
	cmd := exec.Command(bin, append(append(args, opts.flags...), "about:blank")...)
	if len(opts.env) > 0 {
		cmd.Env = append(os.Environ(), opts.env...) // the last of a name wins
	}
	// fd 3: what the browser reads; fd 4: what it writes.
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.ExtraFiles = []*os.File{inR, outW}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Skipf("chromium %s does not start: %v", bin, err)
	}
	inR.Close()
	outW.Close()
	b := &browser{t: t, cmd: cmd, out: inW, pending: map[int]chan cdpReply{}, shots: os.Getenv("GOZIE_CONSOLE_SCREENSHOTS")}
	if b.shots == "" {
		b.shots = t.TempDir()
	}
	t.Cleanup(func() {
		inW.Close()
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-done
		}
		if t.Failed() {
			t.Logf("chromium stderr:\n%s", stderr.String())
		}
	})
	go b.read(outR)
	var target struct{ TargetID string }
	b.call("", "Target.createTarget", map[string]any{"url": "about:blank"}, &target)
	var att struct{ SessionID string }
	b.call("", "Target.attachToTarget", map[string]any{"targetId": target.TargetID, "flatten": true}, &att)
	b.session = att.SessionID
	b.call(b.session, "Page.enable", nil, nil)
	b.call(b.session, "Emulation.setDeviceMetricsOverride", map[string]any{"width": 1280, "height": 900, "deviceScaleFactor": 1, "mobile": false}, nil)
	return b
}

// read delivers the browser's replies; events are not used (the tests
// poll the page instead).
func (b *browser) read(r io.Reader) {
	br := bufio.NewReader(r)
	for {
		msg, err := br.ReadBytes(0)
		if err != nil {
			b.mu.Lock()
			for id, ch := range b.pending {
				close(ch)
				delete(b.pending, id)
			}
			b.mu.Unlock()
			return
		}
		var rep cdpReply
		if json.Unmarshal(msg[:len(msg)-1], &rep) != nil || rep.ID == 0 {
			continue
		}
		b.mu.Lock()
		ch := b.pending[rep.ID]
		delete(b.pending, rep.ID)
		b.mu.Unlock()
		if ch != nil {
			ch <- rep
		}
	}
}

// call sends one DevTools command and decodes its result into out.
func (b *browser) call(session, method string, params any, out any) {
	b.t.Helper()
	if err := b.try(session, method, params, out); err != nil {
		b.t.Fatalf("%s: %v", method, err)
	}
}

func (b *browser) try(session, method string, params any, out any) error {
	b.mu.Lock()
	b.next++
	id := b.next
	ch := make(chan cdpReply, 1)
	b.pending[id] = ch
	b.mu.Unlock()
	msg := map[string]any{"id": id, "method": method}
	if params != nil {
		msg["params"] = params
	}
	if session != "" {
		msg["sessionId"] = session
	}
	data, _ := json.Marshal(msg)
	if _, err := b.out.Write(append(data, 0)); err != nil {
		return err
	}
	select {
	case rep, ok := <-ch:
		if !ok {
			return errors.New("browser exited")
		}
		if rep.Error != nil {
			return errors.New(rep.Error.Message)
		}
		if out != nil {
			return json.Unmarshal(rep.Result, out)
		}
		return nil
	case <-time.After(30 * time.Second):
		return errors.New("no answer in 30s")
	}
}

// eval evaluates a JavaScript expression in the page and returns its JSON
// value.
func (b *browser) eval(expr string) (any, error) {
	var res struct {
		Result struct {
			Value any `json:"value"`
		} `json:"result"`
		ExceptionDetails *struct {
			Text string `json:"text"`
		} `json:"exceptionDetails"`
	}
	if err := b.try(b.session, "Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true, "awaitPromise": true}, &res); err != nil {
		return nil, err
	}
	if res.ExceptionDetails != nil {
		return nil, fmt.Errorf("%s: %s", expr, res.ExceptionDetails.Text)
	}
	return res.Result.Value, nil
}

// run evaluates a statement and fails the test on an exception.
func (b *browser) run(expr string) {
	b.t.Helper()
	if _, err := b.eval(expr); err != nil {
		b.t.Fatal(err)
	}
}

// waitTrue polls a JavaScript condition until it holds or 20s pass.
func (b *browser) waitTrue(what, cond string) {
	b.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		v, err := b.eval("!!(" + cond + ")")
		if err == nil && v == true {
			return
		}
		if time.Now().After(deadline) {
			text, _ := b.eval("document.location.href + '\\n' + (document.body ? document.body.innerText : '')")
			b.t.Fatalf("timed out waiting for %s (%s); last error %v; page:\n%.3000v", what, cond, err, text)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// open navigates and waits for the page to load.
func (b *browser) open(url string) {
	b.t.Helper()
	b.call(b.session, "Page.navigate", map[string]any{"url": url}, nil)
	b.waitTrue("load of "+url, "document.readyState === 'complete' && document.location.href === "+jsString(url))
}

// screenshot saves the page as name.png in the screenshot directory.
func (b *browser) screenshot(name string) {
	b.t.Helper()
	var res struct{ Data string }
	b.call(b.session, "Page.captureScreenshot", map[string]any{"format": "png"}, &res)
	png, err := base64.StdEncoding.DecodeString(res.Data)
	if err != nil {
		b.t.Fatal(err)
	}
	p := filepath.Join(b.shots, name+".png")
	if err := os.WriteFile(p, png, 0o644); err != nil {
		b.t.Fatal(err)
	}
	b.t.Logf("screenshot %s", p)
}

func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// TestConsoleInBrowser opens the console in headless Chromium: the jobs
// page and its filter, a failed workflow's failed node and stderr, a
// coordinator's waiting action, a refused and an accepted kill.
func TestConsoleInBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("slow end-to-end test: runs without -short, e.g. in .ci/run")
	}
	b := startBrowser(t)
	e := newEnv(t)
	gate := filepath.Join(e.dir, "gate")
	t.Cleanup(func() { os.WriteFile(gate, nil, 0o644) })
	wait := fmt.Sprintf("i=0; while test ! -e %s; do if test $i -ge 600; then break; fi; sleep 0.1; i=$((i+1)); done", gate)
	ok := e.submit("joe", "start", "oozie.wf.application.path", e.app("fj"))
	bad := e.submit("ann", "start", "oozie.wf.application.path", e.shellApp("breaks", "echo working; echo disk on fire 1&gt;&amp;2; exit 3"))
	running := e.submit("joe", "start", "oozie.wf.application.path", e.shellApp("waits", wait))
	e.waitStatus(ok, "SUCCEEDED")
	e.waitStatus(bad, "KILLED")
	e.waitStatus(running, "RUNNING")
	app := filepath.Join(e.dir, "coord-hourly")
	copyDir(t, "../../examples/apps/coord-hourly", app)
	coord := e.submit("joe", "start", "oozie.coord.application.path", app, "appDir", app,
		"nameNode", "file:///", "jobTracker", "local", "queueName", "default")
	waitFor(t, "coordinator action 2 materialized", func() bool {
		r := e.do("GET", "/oozie/v2/job/"+coord+"?show=missing-dependencies&action-list=2", "", "")
		deps, _ := r.json(t)["missingDependencies"].([]any)
		return len(deps) > 0
	})
	text := func(s string) string { return "document.body.innerText.includes(" + jsString(s) + ")" }

	// The jobs page, reached from / as a browser would.
	b.call(b.session, "Page.navigate", map[string]any{"url": e.ts.URL + "/"}, nil)
	b.waitTrue("jobs page", "document.location.pathname === '/oozie/console/' && "+text(ok)+" && "+text(bad)+" && "+text(running))
	b.waitTrue("status text", text("SUCCEEDED")+" && "+text("KILLED")+" && "+text("RUNNING"))
	b.screenshot("jobs")
	// The lists: ids never wrap inside (each one line box), one date
	// format (UTC, to the second) and a duration column.
	noWrap := "document.querySelectorAll('.id').length > 0 && [...document.querySelectorAll('.id')].every(e => e.getClientRects().length === 1)"
	oneDate := "document.querySelectorAll('time').length > 0 && [...document.querySelectorAll('time')].every(e => /^\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d$/.test(e.innerText)) && !document.body.innerText.includes('GMT')"
	b.waitTrue("coordinator's workflow listed", text(coord+"@1"))
	b.waitTrue("ids on one line", noWrap)
	b.waitTrue("one date format", oneDate)
	b.waitTrue("duration column", "[...document.querySelectorAll('th')].some(e => e.innerText === 'Duration') && document.querySelector('td.dur').innerText !== ''")
	// Live refresh: a job submitted now appears without a page load (the
	// marker set in this page survives).
	b.run(`window.sameLoad = true`)
	late := e.submit("joe", "", "oozie.wf.application.path", e.app("late"))
	b.waitTrue("live refresh", "window.sameLoad === true && "+text(late))
	// Filter by status with the form.
	b.run(`document.querySelector('select[name=status]').value = 'KILLED'; document.querySelector('form.filters button[type=submit]').click()`)
	b.waitTrue("filtered list", "document.location.search.includes('status=KILLED') && document.readyState === 'complete' && "+text(bad)+" && !"+text(ok))
	// The free-text filter: part of a name, any case.
	b.run(`document.querySelector('select[name=status]').value = ''; document.querySelector('input[name=text]').value = 'REAK'; document.querySelector('form.filters button[type=submit]').click()`)
	b.waitTrue("text-filtered list", "document.location.search.includes('text=REAK') && document.readyState === 'complete' && "+text(bad)+" && !"+text(ok))

	// The failed workflow: its failed node, error and stderr.
	b.run(`document.querySelector('a[href$="` + bad + `"]').click()`)
	b.waitTrue("failed workflow page", "document.location.pathname.endsWith("+jsString(bad)+") && "+text("Failed nodes"))
	b.waitTrue("failed node and error", "document.querySelector('.failed').innerText.includes('step') && document.querySelector('.failed').innerText.includes('exit code [3]')")
	// Its stderr's last lines without a click, and the kill node as the
	// path's end, not as a failed node with an OK badge.
	b.waitTrue("stderr tail in the failed view", "document.querySelector('.failed [data-node=step] .stderr-tail pre').innerText.includes('disk on fire')")
	b.waitTrue("kill node is the path's end", "!document.querySelector('.failed [data-node=fail]') && document.getElementById('path-end').innerText.includes('Ended at kill node fail')")
	b.waitTrue("graph drawn in the page", "document.getElementById('graph-box').dataset.ready === '1' && document.getElementById('graph-svg').querySelector('g.node[data-name=step]')")
	b.screenshot("workflow-failed")
	b.run(`document.querySelector('button.tail[data-src$="/stderr"]').click()`)
	b.waitTrue("stderr shown", "document.getElementById('output-text').textContent.includes('disk on fire')")
	b.screenshot("workflow-stderr")

	// The graph of a long linear workflow that failed at its 26th step:
	// folded into columns by default, it fits its box whole, the failed
	// node marked.
	chain := e.submit("joe", "start", "oozie.wf.application.path", e.chainApp("chain", 30, 25))
	e.waitStatus(chain, "KILLED")
	b.open(e.ts.URL + "/oozie/console/job/" + chain)
	box := "document.getElementById('graph-box')"
	b.waitTrue("chain graph drawn", box+".dataset.ready === '1'")
	b.waitTrue("chain wrapped", "document.getElementById('graph-svg').viewBox.baseVal.height < 1200 && document.querySelector('.layouts a[aria-current]').dataset.layout === 'auto'")
	b.waitTrue("graph fits its box", box+".scrollWidth <= "+box+".clientWidth + 1 && "+box+".scrollHeight <= "+box+".clientHeight + 1 && "+box+".clientHeight <= window.innerHeight * 0.6 + 4")
	b.waitTrue("failed node marked", "document.querySelector('#graph-svg g.node.focus').dataset.name === 's25'")
	b.screenshot("graph-wrapped")
	// One column, as Oozie draws it, is a 2,600-pixel column: shown at a
	// readable size, scrolled to the node that failed.
	b.run(`document.querySelector('.layouts a[data-layout=down]').click()`)
	b.waitTrue("one column", "document.location.search === '?layout=down' && "+box+".dataset.ready === '1' && document.getElementById('graph-svg').viewBox.baseVal.height > 2000")
	inBox := func(sel string) string {
		return "(() => { const n = document.querySelector(" + jsString(sel) + ").getBoundingClientRect(), b = " + box + ".getBoundingClientRect(); return n.top >= b.top && n.bottom <= b.bottom && n.left >= b.left && n.right <= b.right; })()"
	}
	b.waitTrue("scrolled to the failed node", box+".scrollTop > 1000 && "+inBox("#graph-svg g.node[data-name=s25]")+" && !"+inBox("#graph-svg g.node[data-name=s02]"))
	b.screenshot("graph-column")
	// Zoom: buttons and the wheel; move: drag; fit; full screen.
	b.run(`window.s0 = +` + box + `.dataset.scale; document.querySelector('#graph-tools [data-zoom=in]').click()`)
	b.waitTrue("zoomed in", "+"+box+".dataset.scale > window.s0 * 1.2")
	b.run(`window.s1 = +` + box + `.dataset.scale; const r = ` + box + `.getBoundingClientRect(); ` + box + `.dispatchEvent(new WheelEvent('wheel', {deltaY: 120, clientX: r.left + 50, clientY: r.top + 50, bubbles: true, cancelable: true}))`)
	b.waitTrue("wheel zooms out", "+"+box+".dataset.scale < window.s1")
	b.run(`window.t0 = ` + box + `.scrollTop; const r2 = ` + box + `.getBoundingClientRect(); const o = {bubbles: true, button: 0, pointerId: 1, clientX: r2.left + 60, clientY: r2.top + 200};
		` + box + `.dispatchEvent(new PointerEvent('pointerdown', o)); ` + box + `.dispatchEvent(new PointerEvent('pointermove', {...o, clientY: r2.top + 50})); ` + box + `.dispatchEvent(new PointerEvent('pointerup', o))`)
	b.waitTrue("dragged", box+".scrollTop > window.t0 + 100")
	b.run(`document.querySelector('#graph-tools [data-zoom=fit]').click()`)
	b.waitTrue("fit", box+".scrollHeight <= "+box+".clientHeight + 1 && "+box+".scrollWidth <= "+box+".clientWidth + 1")
	b.run(`document.getElementById('graph-full').click()`)
	b.waitTrue("full screen", "document.getElementById('graph-view').classList.contains('full') && "+box+".getBoundingClientRect().height > window.innerHeight * 0.8 && document.getElementById('graph-full').getAttribute('aria-pressed') === 'true'")
	b.screenshot("graph-full")
	b.run(`document.dispatchEvent(new KeyboardEvent('keydown', {key: 'Escape', bubbles: true}))`)
	b.waitTrue("full screen closed", "!document.getElementById('graph-view').classList.contains('full')")
	if r := e.do("GET", "/oozie/v2/job/"+chain+"?show=graph&format=svg&show-kill=true&layout=down", "", ""); !strings.Contains(string(r.body), `data-name="s25" data-status="ERROR"`) {
		t.Errorf("graph of the chain lacks the failed node's status")
	}

	// The coordinator: a WAITING action and what it waits for.
	b.open(e.ts.URL + "/oozie/console/job/" + coord)
	b.waitTrue("waiting action", "document.getElementById('a2') && document.getElementById('a2').innerText.includes('WAITING') && document.getElementById('a2').innerText.includes('/data/2026/01/01/02/_SUCCESS')")
	b.screenshot("coordinator")
	b.waitTrue("coordinator: ids on one line", noWrap)
	b.waitTrue("coordinator: one date format", oneDate)
	// Its workflows, from its page, and its run-history grid.
	b.run(`document.getElementById('coord-workflows').click()`)
	b.waitTrue("workflows of the coordinator", "document.location.search.includes('parent=') && document.getElementById('parent-filter') && "+text(coord+"@1")+" && !"+text(bad))
	b.open(e.ts.URL + "/oozie/console/runs?coord=" + coord)
	b.waitTrue("coordinator grid", "document.querySelectorAll('#run-grid th.run').length >= 2 && document.querySelector('#run-grid a.sq[href*=\"#n-count\"]')")
	b.screenshot("runs-coordinator")

	// A kill refused: bob does not own the job; the Oozie error shows.
	// Its graph marks the node that runs.
	b.open(e.ts.URL + "/oozie/console/job/" + running + "?user.name=bob")
	b.waitTrue("running node marked", "document.querySelector('#graph-svg g.node.focus') && document.querySelector('#graph-svg g.node.focus').dataset.name === 'step'")
	b.run(`document.querySelector('button.act[data-action=kill]').click()`)
	b.waitTrue("confirmation", "document.getElementById('confirm').open")
	b.screenshot("confirm")
	b.run(`document.getElementById('confirm-ok').click()`)
	b.waitTrue("refusal shown", "!document.getElementById('confirm-error').hidden && document.getElementById('confirm-error').textContent.includes('E0508')")
	b.run(`document.getElementById('confirm-cancel').click()`)
	if s := e.do("GET", "/oozie/v2/job/"+running+"?show=status", "", "").json(t)["status"]; s != "RUNNING" {
		t.Fatalf("after a refused kill: %v", s)
	}

	// The owner kills it from the page. The simple-auth cookie outlives a
	// new user.name: log bob out first.
	b.call(b.session, "Network.clearBrowserCookies", nil, nil)
	b.open(e.ts.URL + "/oozie/console/job/" + running + "?user.name=joe")
	b.run(`document.querySelector('button.act[data-action=kill]').click()`)
	b.waitTrue("confirmation", "document.getElementById('confirm').open")
	b.run(`window.sameLoad = true; document.getElementById('confirm-ok').click()`)
	b.waitTrue("KILLED on the page", "window.sameLoad === true && !document.getElementById('confirm').open && document.getElementById('job-status').textContent === 'KILLED'")
	if s := e.do("GET", "/oozie/v2/job/"+running+"?show=status", "", "").json(t)["status"]; s != "KILLED" {
		t.Errorf("REST status after the console's kill: %v", s)
	}

	// Rerun with a chosen skip list: the nodes that succeeded come ticked;
	// untick right, so that only right runs again.
	b.open(e.ts.URL + "/oozie/console/job/" + ok)
	b.waitTrue("path taken", "document.getElementById('path-taken').innerText.includes('merge')")
	b.run(`document.getElementById('rerun-form').open = true; document.querySelector('input[name=skip][value=right]').checked = false; document.querySelector('#rerun-form button[type=submit]').click()`)
	b.waitTrue("rerun confirmation", "document.getElementById('confirm').open && document.getElementById('confirm-text').textContent.includes('skip=left')")
	b.run(`document.getElementById('confirm-ok').click()`)
	b.waitTrue("rerun accepted", "!document.getElementById('confirm').open")
	waitFor(t, "rerun from the page", func() bool {
		j := e.do("GET", "/oozie/v2/job/"+ok, "", "").json(t)
		return j["run"] == float64(1) && j["status"] == "SUCCEEDED"
	})

	// Coordinator change from its form, and an ignore refused with the
	// engine's error shown.
	b.open(e.ts.URL + "/oozie/console/job/" + coord)
	b.run(`document.getElementById('coord-forms').open = true; document.querySelector('#coord-change input[name=concurrency]').value = '4'; document.querySelector('#coord-change button[type=submit]').click()`)
	b.waitTrue("change confirmation", "document.getElementById('confirm').open && document.getElementById('confirm-text').textContent.includes('concurrency=4')")
	b.screenshot("coordinator-change")
	b.run(`document.getElementById('confirm-ok').click()`)
	b.waitTrue("change accepted", "!document.getElementById('confirm').open")
	if c := e.do("GET", "/oozie/v2/job/"+coord, "", "").json(t)["concurrency"]; c != float64(4) {
		t.Errorf("concurrency after the page's change: %v", c)
	}
	b.run(`document.querySelector('#coord-ignore input[name=scope]').value = 'x'; document.querySelector('#coord-ignore button[type=submit]').click()`)
	b.waitTrue("ignore confirmation", "document.getElementById('confirm').open")
	b.run(`document.getElementById('confirm-ok').click()`)
	b.waitTrue("ignore refused", "!document.getElementById('confirm-error').hidden && document.getElementById('confirm-error').textContent.includes('Refused: E')")
	b.run(`document.getElementById('confirm-cancel').click()`)

	// The run history of a repeated workflow, from its page.
	b.open(e.ts.URL + "/oozie/console/job/" + ok)
	b.run(`document.getElementById('runs-link').click()`)
	b.waitTrue("workflow grid", "document.location.pathname === '/oozie/console/runs' && document.querySelectorAll('#run-grid a.sq[data-status=OK]').length >= 3")
	b.waitTrue("runs: one date format", oneDate)
	b.screenshot("runs-workflow")

	b.open(e.ts.URL + "/oozie/console/system")
	b.waitTrue("system page", text("NORMAL")+" && "+text("postgres")+" && "+text("Workflows by status")+" && "+text("jobs.submitted"))
	// KILLED counts with FAILED, as in Oozie's console: breaks, chain
	// and the job killed from the page.
	b.waitTrue("failures counted", "[...document.querySelectorAll('tr')].some(r => r.innerText.replace(/\\s+/g, ' ').trim() === 'workflows FAILED or KILLED 3')")
	b.screenshot("system")
}
