package workflow

import (
	"fmt"
	"sort"
	"strings"
	"sync"
)

// The content models of the extension action schemas Oozie ships
// (client/src/main/resources/*-action-*.xsd), one per namespace version:
// a body is checked against its own version's elements and order, so an
// element a later version added (<bcc> in email 0.1) is refused with
// E0701 as Oozie refuses it. Element values are not typed (xs:int,
// xs:unsignedInt are read as text), as in the workflow schemas here.

// clusterMode is how a version of an extension schema declares the
// cluster elements leading its body.
type clusterMode int

const (
	clusterRequired clusterMode = iota // job-tracker and name-node, both required (the first versions)
	clusterOptional                    // both optional: <global> or the server may supply them
	clusterRM                          // 1.0: job-tracker or resource-manager, name-node, all optional
)

// extBuilder holds the types the extension schemas share.
type extBuilder struct {
	str, flag, conf, prepare, launcher *ctype
}

func newExtBuilder() *extBuilder {
	b := newAppBuilder(versionFeatures{})
	return &extBuilder{str: b.str, flag: b.flag, conf: b.configuration, prepare: b.prepare, launcher: b.launcher}
}

// text is an element of simple content occurring min to max times.
func (x *extBuilder) text(name string, min, max int) *particle { return elem(name, x.str, min, max) }

// head returns the cluster elements, <prepare> and, in 1.0, <launcher>.
func (x *extBuilder) head(mode clusterMode) []*particle {
	var out []*particle
	switch mode {
	case clusterRequired:
		out = one(x.text("job-tracker", 1, 1), x.text("name-node", 1, 1))
	case clusterOptional:
		out = one(x.text("job-tracker", 0, 1), x.text("name-node", 0, 1))
	default:
		out = one(choice(1, 1, x.text("job-tracker", 0, 1), x.text("resource-manager", 0, 1)), x.text("name-node", 0, 1))
	}
	out = append(out, elem("prepare", x.prepare, 0, 1))
	if mode == clusterRM {
		out = append(out, elem("launcher", x.launcher, 0, 1))
	}
	return out
}

// jobConf returns <job-xml> (at most jobXML times) and <configuration>.
func (x *extBuilder) jobConf(jobXML int) []*particle {
	return one(x.text("job-xml", 0, jobXML), elem("configuration", x.conf, 0, 1))
}

func (x *extBuilder) files() []*particle {
	return one(x.text("file", 0, unbounded), x.text("archive", 0, unbounded))
}

// body is the action element's type: its items in one sequence.
func (x *extBuilder) body(items ...[]*particle) *ctype {
	return complexType(seq(1, 1, cat(items...)...))
}

func (x *extBuilder) shell(mode clusterMode, jobXML int) *ctype {
	return x.body(x.head(mode), x.jobConf(jobXML),
		one(x.text("exec", 1, 1), x.text("argument", 0, unbounded), x.text("env-var", 0, unbounded)),
		x.files(), one(elem("capture-output", x.flag, 0, 1)))
}

// hive: query is an alternative to script from 0.6, <argument> came in 0.5.
func (x *extBuilder) hive(mode clusterMode, jobXML int, query, argument bool) *ctype {
	return x.body(x.head(mode), x.jobConf(jobXML), x.script(query),
		one(x.text("param", 0, unbounded)), x.arguments(argument), x.files())
}

func (x *extBuilder) hive2(mode clusterMode, query bool) *ctype {
	return x.body(x.head(mode), x.jobConf(unbounded),
		one(x.text("jdbc-url", 1, 1), x.text("password", 0, 1)), x.script(query),
		one(x.text("param", 0, unbounded)), x.arguments(true), x.files())
}

func (x *extBuilder) script(query bool) []*particle {
	if query {
		return one(choice(1, 1, x.text("script", 1, 1), x.text("query", 1, 1)))
	}
	return one(x.text("script", 1, 1))
}

func (x *extBuilder) arguments(on bool) []*particle {
	if on {
		return one(x.text("argument", 0, unbounded))
	}
	return nil
}

// sqoop: one <command> or a list of <arg>, never both.
func (x *extBuilder) sqoop(mode clusterMode, jobXML int) *ctype {
	return x.body(x.head(mode), x.jobConf(jobXML),
		one(choice(1, 1, x.text("command", 1, 1), x.text("arg", 1, unbounded))), x.files())
}

// spark: 0.1 ends with an optional <version> where 0.2 has <file> and
// <archive>.
func (x *extBuilder) spark(mode clusterMode, v01 bool) *ctype {
	tail := x.files()
	if v01 {
		tail = one(x.text("version", 0, 1))
	}
	return x.body(x.head(mode), x.jobConf(unbounded),
		one(x.text("master", 1, 1), x.text("mode", 0, 1), x.text("name", 1, 1), x.text("class", 0, 1),
			x.text("jar", 1, 1), x.text("spark-opts", 0, 1), x.text("arg", 0, unbounded)), tail)
}

// distcp has no <job-xml>.
func (x *extBuilder) distcp(mode clusterMode) *ctype {
	return x.body(x.head(mode), one(elem("configuration", x.conf, 0, 1), x.text("java-opts", 0, 1), x.text("arg", 0, unbounded)))
}

func (x *extBuilder) email(v02 bool) *ctype {
	if !v02 {
		return x.body(one(x.text("to", 1, 1), x.text("cc", 0, 1), x.text("subject", 1, 1), x.text("body", 1, 1)))
	}
	return x.body(one(x.text("to", 1, 1), x.text("cc", 0, 1), x.text("bcc", 0, 1), x.text("subject", 1, 1),
		x.text("body", 1, 1), x.text("content_type", 0, 1), x.text("attachment", 0, 1)))
}

// ssh: 0.2 accepts <arg> as an alternative to <args>.
func (x *extBuilder) ssh(v02 bool) *ctype {
	args := x.text("args", 0, unbounded)
	if v02 {
		args = choice(1, 1, args, x.text("arg", 0, unbounded))
	}
	return x.body(one(x.text("host", 1, 1), x.text("command", 1, 1), args, elem("capture-output", x.flag, 0, 1)))
}

// git 1.0 requires its name-node and has no job-tracker.
func (x *extBuilder) git() *ctype {
	return x.body(one(x.text("resource-manager", 0, 1), x.text("name-node", 1, 1), elem("prepare", x.prepare, 0, 1),
		x.text("git-uri", 1, 1), x.text("branch", 0, 1), x.text("key-path", 0, 1), x.text("destination-uri", 1, 1),
		elem("configuration", x.conf, 0, 1)))
}

// extSchemas are the extension schemas: the type of each namespace's
// action element (named as the action type), and each type's versions.
type extSchemas struct {
	types    map[string]*ctype
	versions map[string][]string
}

// extensionSchemas builds the tables on first use, like appSchemas.
var extensionSchemas = sync.OnceValue(func() extSchemas {
	x := newExtBuilder()
	req, opt, rm, many := clusterRequired, clusterOptional, clusterRM, unbounded
	byType := map[string]map[string]*ctype{
		"shell": {"0.1": x.shell(req, 1), "0.2": x.shell(req, many), "0.3": x.shell(opt, many), "1.0": x.shell(rm, many)},
		"email": {"0.1": x.email(false), "0.2": x.email(true)},
		"ssh":   {"0.1": x.ssh(false), "0.2": x.ssh(true)},
		"hive": {"0.2": x.hive(req, 1, false, false), "0.3": x.hive(req, many, false, false), "0.4": x.hive(opt, many, false, false),
			"0.5": x.hive(opt, many, false, true), "0.6": x.hive(opt, many, true, true), "1.0": x.hive(rm, many, true, true)},
		"hive2":  {"0.1": x.hive2(opt, false), "0.2": x.hive2(opt, true), "1.0": x.hive2(rm, true)},
		"sqoop":  {"0.2": x.sqoop(req, 1), "0.3": x.sqoop(req, many), "0.4": x.sqoop(opt, many), "1.0": x.sqoop(rm, many)},
		"spark":  {"0.1": x.spark(req, true), "0.2": x.spark(opt, false), "1.0": x.spark(rm, false)},
		"distcp": {"0.1": x.distcp(req), "0.2": x.distcp(opt), "1.0": x.distcp(rm)},
		"git":    {"1.0": x.git()},
	}
	s := extSchemas{types: map[string]*ctype{}, versions: map[string][]string{}}
	for typ, versions := range byType {
		for v, t := range versions {
			s.types[ExtensionNamespace(typ, v)] = t
			s.versions[typ] = append(s.versions[typ], v)
		}
		sort.Strings(s.versions[typ])
	}
	return s
})

// ExtensionNamespace returns the namespace of an extension action type and
// version, e.g. ("shell", "0.3") -> "uri:oozie:shell-action:0.3".
func ExtensionNamespace(actionType, version string) string {
	return "uri:oozie:" + actionType + "-action:" + version
}

// splitExtensionNS splits "uri:oozie:<type>-action:<version>".
func splitExtensionNS(ns string) (typ, version string, ok bool) {
	rest, ok := strings.CutPrefix(ns, "uri:oozie:")
	if !ok {
		return "", "", false
	}
	return strings.Cut(rest, "-action:")
}

// extensionBodyType is the type of an action body in namespace ns: its
// schema's, the body named as the action type. A body in the namespace of
// an extension type gozie knows, at a version (or under a name) no schema
// declares, is refused (E0701, "no declaration can be found"), as Xerces
// refuses it in Oozie; any other namespace (a custom action type's) is
// not modelled and accepted.
func extensionBodyType(e *Element) *ctype {
	s := extensionSchemas()
	typ, _, ok := splitExtensionNS(e.Name.Space)
	versions := s.versions[typ]
	if !ok || len(versions) == 0 {
		return openType
	}
	if t := s.types[e.Name.Space]; t != nil && e.Name.Local == typ {
		return t
	}
	return undeclared(fmt.Sprintf("The %s action is <%s> in uri:oozie:%s-action:{%s}.", typ, typ, typ, strings.Join(versions, ", ")))
}
