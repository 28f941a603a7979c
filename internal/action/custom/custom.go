// Package custom runs the custom action types a server configuration
// declares (an executable per element name) through the launch runtime.
package custom

import (
	"bytes"
	"context"
	"encoding/xml"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"

	"github.com/gozie/gozie/internal/action"
	"github.com/gozie/gozie/internal/launch"

	"github.com/gozie/gozie/internal/workflow"
)

// Custom action types run a program of the site's choosing for every
// action node whose element has a configured name, without a change to
// gozie: Oozie's custom ActionExecutor classes, as an executable.
//
//	gozie.action.executable.<element>   the program (an absolute path)
//	gozie.action.namespace.<element>    optional: the namespace the element
//	                                    must be in
//
// The program runs through the launcher, in the action's working
// directory, like a shell action's, and gets:
//
//	argv[1], $GOZIE_ACTION_XML           the action element, EL resolved
//	$OOZIE_ACTION_CONF_XML               the action configuration (Hadoop XML)
//	$GOZIE_ACTION_OUTPUT_PROPERTIES      a file to write Java properties to:
//	                                     the action's data (wf:actionData)
//
// Exit status 0 is the action's ok transition, anything else its error
// transition (JA018). <prepare>, <file> and <archive> children, when the
// element has them, are done as for the shell action.
const (
	CustomExecutablePrefix = "gozie.action.executable."
	CustomNamespacePrefix  = "gozie.action.namespace."
	ActionXMLEnvVar        = "GOZIE_ACTION_XML"
	OutputPropsEnvVar      = "GOZIE_ACTION_OUTPUT_PROPERTIES"
)

// Files of a custom action's working directory.
const (
	customActionFile = "action-element.xml"
	customOutputFile = "output.properties"
)

func init() {
	launch.RegisterHook(registerCustom)
}

// CustomTypes returns the custom action types that a server configuration
// (or, offline, a property set) declares: element name -> executable.
func CustomTypes(site map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range site {
		name, ok := strings.CutPrefix(k, CustomExecutablePrefix)
		if !ok || name == "" || strings.TrimSpace(v) == "" {
			continue
		}
		out[name] = strings.TrimSpace(v)
	}
	return out
}

// registerCustom registers an executor for every configured custom type. A
// custom type may replace a built-in one of the same element name: the
// site asked for it.
func registerCustom(r *action.Registry, l *launch.Runtime) {
	types := CustomTypes(l.Opts.Site)
	names := make([]string, 0, len(types))
	for n := range types {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		exe := types[name]
		if !filepath.IsAbs(exe) {
			// Relative to where the server was started, fixed now so
			// that it does not change with the launcher's directory.
			if abs, err := filepath.Abs(exe); err == nil {
				exe = abs
			}
		}
		r.Register(name, launch.NewProcess(l, customProgram{l: l, name: name, exe: exe,
			ns: l.Opts.Setting(CustomNamespacePrefix + name)}))
	}
}

// customProgram runs one custom action type's executable.
type customProgram struct {
	l             *launch.Runtime
	name, exe, ns string
}

func (p customProgram) Build(dir string, a *action.Context) (*launch.LaunchSpec, error) {
	body := a.Element
	if p.ns != "" && body.Name.Space != p.ns {
		return nil, action.Errorf(action.ErrorKindError, launch.CodeSchema, "custom action <%s> must be in namespace [%s] (%s%s), not [%s]",
			p.name, p.ns, CustomNamespacePrefix, p.name, body.Name.Space)
	}
	if _, err := exec.LookPath(p.exe); err != nil {
		return nil, action.Errorf(action.ErrorKindError, launch.CodeToolMissing, "executable of custom action type <%s> not found: %s%s is set to [%s]: %v",
			p.name, CustomExecutablePrefix, p.name, p.exe, err)
	}
	if err := launch.RunPrepare(launch.FilesContext(context.Background(), a), body); err != nil {
		return nil, err
	}
	if _, err := launch.StageFiles(dir, a, ""); err != nil {
		return nil, err
	}
	confPath, err := launch.WriteActionConf(dir, a.Conf)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	buf.WriteString(xml.Header)
	writeElement(&buf, body, "", 0)
	buf.WriteByte('\n')
	actionPath := filepath.Join(dir, customActionFile)
	if err := launch.WriteFileAtomic(actionPath, buf.Bytes()); err != nil {
		return nil, action.Errorf(action.Transient, launch.CodeIO, "writing the action element: %v", err)
	}
	return &launch.LaunchSpec{
		Exec: p.exe, Args: []string{actionPath},
		Env: []string{
			ActionXMLEnvVar + "=" + actionPath,
			launch.ConfEnvVar + "=" + confPath,
			OutputPropsEnvVar + "=" + filepath.Join(dir, customOutputFile),
		},
		Capture: true, CaptureFile: customOutputFile, MaxOutput: p.l.Opts.MaxOutput,
	}, nil
}

func (p customProgram) Result(dir string, _ *action.Context, st launch.LaunchStatus) action.Result {
	r := launch.DefaultResult(dir, st, p.exe)
	if st.Error == "" && r.Status == action.Error {
		r.ErrorMessage = "Custom action <" + p.name + ">: executable" + strings.TrimPrefix(r.ErrorMessage, "Main class")
	}
	return r
}

// writeElement writes e as XML, indented by depth, declaring its
// namespace where it differs from its parent's. Element keeps the
// character data of an element as one string: an element with children
// has its whitespace between them replaced by the indentation, and any
// other text written before its children.
func writeElement(buf *bytes.Buffer, e *workflow.Element, parentNS string, depth int) {
	buf.WriteByte('<')
	buf.WriteString(e.Name.Local)
	if e.Name.Space != parentNS {
		buf.WriteString(` xmlns="`)
		buf.WriteString(xmlEscaper.Replace(e.Name.Space))
		buf.WriteByte('"')
	}
	for _, at := range e.Attrs {
		if at.Name.Space == "xmlns" || at.Name.Local == "xmlns" || at.Name.Space != "" {
			continue
		}
		buf.WriteString(" " + at.Name.Local + `="`)
		buf.WriteString(xmlEscaper.Replace(at.Value))
		buf.WriteByte('"')
	}
	text := e.Text
	if len(e.Children) > 0 && strings.TrimSpace(text) == "" {
		text = ""
	}
	if text == "" && len(e.Children) == 0 {
		buf.WriteString("/>")
		return
	}
	buf.WriteByte('>')
	buf.WriteString(xmlEscaper.Replace(text))
	for _, c := range e.Children {
		buf.WriteString("\n" + strings.Repeat("  ", depth+1))
		writeElement(buf, c, e.Name.Space, depth+1)
	}
	if len(e.Children) > 0 {
		buf.WriteString("\n" + strings.Repeat("  ", depth))
	}
	buf.WriteString("</" + e.Name.Local + ">")
}

// xmlEscaper escapes markup characters only, so that line breaks in the
// text stay line breaks for the scripts that read the file.
var xmlEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;")
