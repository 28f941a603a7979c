package custom

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gozie/gozie/internal/action"
	"github.com/gozie/gozie/internal/launch"
	"github.com/gozie/gozie/internal/launch/launchtest"

	"github.com/gozie/gozie/internal/conf"
	"github.com/gozie/gozie/internal/workflow"
)

// customScript is a custom action executable: it checks the contract
// (argv[1] and $GOZIE_ACTION_XML name the action element, the
// configuration is in $OOZIE_ACTION_CONF_XML), writes output properties
// and fails with 4 when the element holds <fail/>.
const customScript = `#!/bin/sh
[ "$1" = "$GOZIE_ACTION_XML" ] || { echo "argv[1] is not GOZIE_ACTION_XML" >&2; exit 9; }
grep -q 'my.prop' "$OOZIE_ACTION_CONF_XML" || exit 8
greeting=$(sed -n 's:.*<greeting>\(.*\)</greeting>.*:\1:p' "$1")
{
  echo "greeting=$greeting"
  echo "lines=$(wc -l < "$1" | tr -d ' ')"
  echo "pwd=$(pwd)"
} > "$GOZIE_ACTION_OUTPUT_PROPERTIES"
grep -q '<fail/>' "$1" && exit 4
exit 0
`

const helloNS = "uri:example:hello-action:0.1"

// customExecutors registers the built-in types with the custom type
// <hello> backed by customScript, plus site keys.
func customExecutors(t testing.TB, opts launch.Options, site map[string]string) (*action.Registry, string) {
	t.Helper()
	exe := filepath.Join(t.TempDir(), "hello.sh")
	if err := os.WriteFile(exe, []byte(customScript), 0o755); err != nil {
		t.Fatal(err)
	}
	opts.Site = map[string]string{CustomExecutablePrefix + "hello": exe}
	for k, v := range site {
		opts.Site[k] = v
	}
	r := action.NewRegistry()
	launch.RegisterBuiltins(r, opts)
	return r, exe
}

func TestCustomAction(t *testing.T) {
	tests := []struct {
		name, body string
		status     action.Status
		code, msg  string
		data       map[string]string
	}{
		{name: "ok", body: `<hello xmlns="` + helloNS + `"><greeting>hi &amp; bye</greeting>
<other a="1"/></hello>`,
			status: action.OK, data: map[string]string{"greeting": "hi &amp; bye", "lines": "5"}},
		{name: "fails", body: `<hello xmlns="` + helloNS + `"><greeting>x</greeting><fail/></hello>`,
			status: action.Error, code: "JA018", msg: "Custom action <hello>: executable [", data: nil},
	}
	for _, mode := range launchtest.Modes {
		t.Run(mode.Name, func(t *testing.T) {
			r, exe := customExecutors(t, mode.Opts(t), nil)
			e, ok := r.Lookup("hello")
			if !ok {
				t.Fatalf("custom type not registered: %v", r.Types())
			}
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					a, notified := launchtest.ToolAction(t, "hello", t.TempDir(), tt.body, nil)
					res := launchtest.RunToEnd(t, e, a, notified)
					if res.Status != tt.status || res.ErrorCode != tt.code || !strings.Contains(res.ErrorMessage, tt.msg) {
						t.Errorf("result = %+v; want %s %s %q", res, tt.status, tt.code, tt.msg)
					}
					if tt.status == action.Error && !strings.Contains(res.ErrorMessage, exe+"], exit code [4]") {
						t.Errorf("message = %q", res.ErrorMessage)
					}
					for k, v := range tt.data {
						if res.Data[k] != v {
							t.Errorf("Data[%s] = %q, want %q (%v)", k, res.Data[k], v, res.Data)
						}
					}
					if tt.status == action.OK && res.Data["pwd"] != a.WorkDir {
						t.Errorf("ran in %q, want %q", res.Data["pwd"], a.WorkDir)
					}
					// The element file is the action body, parseable.
					b, err := os.ReadFile(filepath.Join(a.WorkDir, customActionFile))
					if err != nil {
						t.Fatal(err)
					}
					if _, err := workflow.ParseNoValidate([]byte(`<workflow-app xmlns="uri:oozie:workflow:0.5" name="w"><start to="a"/><action name="a">` +
						strings.TrimPrefix(string(b), `<?xml version="1.0" encoding="UTF-8"?>`+"\n") + `<ok to="end"/><error to="end"/></action><end name="end"/></workflow-app>`)); err != nil {
						t.Errorf("element file does not parse: %v\n%s", err, b)
					}
				})
			}
		})
	}
}

func TestCustomStartErrors(t *testing.T) {
	r, _ := customExecutors(t, launchtest.Launcher(t), map[string]string{
		CustomNamespacePrefix + "hello":  helloNS,
		CustomExecutablePrefix + "gone":  filepath.Join(t.TempDir(), "nothere.sh"),
		CustomExecutablePrefix + "blank": "  ",
	})
	if _, ok := r.Lookup("blank"); ok {
		t.Error("a blank executable registered a type")
	}
	tests := []struct{ name, typ, body, code, msg string }{
		{"wrong namespace", "hello", `<hello xmlns="uri:other:1"><greeting>x</greeting></hello>`, "E0701", "must be in namespace [" + helloNS + "]"},
		{"executable missing", "gone", `<gone xmlns="uri:x"/>`, "JA008", CustomExecutablePrefix + "gone is set to"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, ok := r.Lookup(tt.typ)
			if !ok {
				t.Fatalf("no executor for %s", tt.typ)
			}
			a, _ := launchtest.ToolAction(t, tt.typ, t.TempDir(), tt.body, nil)
			_, err := e.Start(context.Background(), a)
			xe, ok := err.(*action.ExecError)
			if !ok || xe.Code != tt.code || !strings.Contains(xe.Msg, tt.msg) {
				t.Fatalf("err = %v, want %s %q", err, tt.code, tt.msg)
			}
		})
	}
}

// A workflow using a custom type validates when the type is configured
// (as gozie validate and the engine set the parser's options) and is
// refused with E0723 otherwise.
func TestCustomActionValidates(t *testing.T) {
	doc := []byte(`<workflow-app xmlns="uri:oozie:workflow:1.0" name="w"><start to="a"/>
<action name="a"><hello xmlns="` + helloNS + `"><greeting>hi</greeting></hello><ok to="end"/><error to="end"/></action>
<end name="end"/></workflow-app>`)
	opts := workflow.DefaultOptions()
	if _, err := workflow.Parse(doc, opts); err == nil || !strings.Contains(err.Error(), "E0723") {
		t.Errorf("unconfigured type: err = %v, want E0723", err)
	}
	site := conf.FromMap(map[string]string{CustomExecutablePrefix + "hello": "/bin/true"}).ToMap()
	for name := range CustomTypes(site) {
		opts.ExtensionActions[name] = true
	}
	if _, err := workflow.Parse(doc, opts); err != nil {
		t.Errorf("configured type: %v", err)
	}
}
