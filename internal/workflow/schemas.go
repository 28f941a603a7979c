package workflow

import (
	"strings"
	"sync"
)

// versionFeatures captures how the workflow schemas differ from one version
// to the next (Appendix A of the specification). One builder turns these
// flags into content models, so a difference between versions is one line
// here instead of eight copies of a schema.
type versionFeatures struct {
	ns              string
	parameters      bool     // 0.4+: <parameters> and <global>
	credentials     bool     // 0.2.5+: <credentials> and action/@cred
	sla             []string // namespaces accepted for <sla:info>; nil = none
	ssh             bool     // 0.1 only: <ssh> is a built-in action
	retry           bool     // 0.3+: retry-max and retry-interval
	retryPolicy     bool     // 0.5+: retry-policy
	resourceManager bool     // 1.0: <resource-manager> and <launcher>
	multiJobXML     bool     // 0.4+: several <job-xml>
	fsExtended      bool     // 0.4+: fs name-node/job-xml/configuration, free order, touchz
	chgrp           bool     // 0.4.5+: fs chgrp
	setrep          bool     // fs setrep (section 3.2.4; missing from the appendix XSDs)
	pigArgument     bool     // 0.2+: pig <argument>
	configClass     bool     // 0.5+: map-reduce <config-class>
	skipTrash       bool     // 0.5+: delete/@skip-trash
	javaOpt         bool     // 0.4.5+: <java-opt> as an alternative to <java-opts>
}

var versionTable = []versionFeatures{
	{ns: "uri:oozie:workflow:0.1", ssh: true},
	{ns: "uri:oozie:workflow:0.2", sla: []string{SLANamespace01}, pigArgument: true},
	{ns: "uri:oozie:workflow:0.2.5", sla: []string{SLANamespace01}, pigArgument: true, credentials: true},
	{ns: "uri:oozie:workflow:0.3", sla: []string{SLANamespace01}, pigArgument: true, credentials: true, retry: true},
	{ns: "uri:oozie:workflow:0.4", parameters: true, sla: []string{SLANamespace01}, pigArgument: true, credentials: true, retry: true,
		multiJobXML: true, fsExtended: true},
	{ns: "uri:oozie:workflow:0.4.5", parameters: true, sla: []string{SLANamespace01}, pigArgument: true, credentials: true, retry: true,
		multiJobXML: true, fsExtended: true, chgrp: true, javaOpt: true},
	{ns: "uri:oozie:workflow:0.5", parameters: true, sla: []string{SLANamespace01, SLANamespace02}, pigArgument: true, credentials: true,
		retry: true, retryPolicy: true, multiJobXML: true, fsExtended: true, chgrp: true, setrep: true, configClass: true, skipTrash: true, javaOpt: true},
	{ns: "uri:oozie:workflow:1.0", parameters: true, sla: []string{SLANamespace01, SLANamespace02}, pigArgument: true, credentials: true,
		retry: true, retryPolicy: true, resourceManager: true, multiJobXML: true, fsExtended: true, chgrp: true, setrep: true,
		configClass: true, skipTrash: true, javaOpt: true},
}

// appSchemas maps a workflow namespace to the type of its <workflow-app>.
// The tables are built on first use rather than at package initialisation:
// every gozie process (a shell action's launcher included) links this
// package, and most never parse a workflow.
var appSchemas = sync.OnceValue(func() map[string]*ctype {
	m := make(map[string]*ctype, len(versionTable))
	for _, f := range versionTable {
		m[f.ns] = buildAppType(f)
	}
	return m
})

// builtinActions maps a workflow namespace to the action elements it defines.
var builtinActions = func() map[string]map[string]bool {
	m := map[string]map[string]bool{}
	for _, f := range versionTable {
		set := map[string]bool{"map-reduce": true, "pig": true, "sub-workflow": true, "fs": true, "java": true}
		if f.ssh {
			set["ssh"] = true
		}
		m[f.ns] = set
	}
	return m
}()

// versionOf returns "0.5" for "uri:oozie:workflow:0.5", "" when ns is not a
// workflow namespace gozie knows.
func versionOf(ns string) string {
	if _, ok := appSchemas()[ns]; !ok {
		return ""
	}
	return strings.TrimPrefix(ns, "uri:oozie:workflow:")
}

// buildAppType builds the <workflow-app> type of one schema version.
func buildAppType(f versionFeatures) *ctype {
	b := newAppBuilder(f)
	// workflow-app/@name is any string in every version. The appendix
	// XSDs of the specification type it IDENTIFIER in 0.1-0.3, but the
	// schemas Oozie ships declare xs:string there too, so a name written
	// as ${...} (resolved with EL at submission) is accepted.
	return complexType(seq(1, 1, b.topLevel()...), req("name"))
}

// appBuilder holds the features of one version and the types its schema
// uses in several places.
type appBuilder struct {
	f                                versionFeatures
	str, flag                        *ctype
	configuration, pathType, prepare *ctype
	launcher                         *ctype
}

func newAppBuilder(f versionFeatures) *appBuilder {
	b := &appBuilder{f: f, str: textType(), flag: emptyType()}
	b.configuration = complexType(seq(1, 1, elem("property", b.property(1), 1, unbounded)))
	b.pathType = emptyType(req("path"))
	b.prepare = complexType(seq(1, 1, elem("delete", b.pathType, 0, unbounded), elem("mkdir", b.pathType, 0, unbounded)))
	str := b.str
	b.launcher = complexType(choice(1, unbounded,
		elem("memory.mb", str, 0, 1), elem("vcores", str, 0, 1), elem("java-opts", str, 0, 1), elem("env", str, 0, 1),
		elem("queue", str, 0, 1), elem("sharelib", str, 0, 1), elem("view-acl", str, 0, 1), elem("modify-acl", str, 0, 1)))
	return b
}

// property is the type of a <property>; valueMin 0 makes <value> optional
// (in <parameters>).
func (b *appBuilder) property(valueMin int) *ctype {
	return complexType(seq(1, 1,
		elem("name", b.str, 1, 1),
		elem("value", b.str, valueMin, 1),
		elem("description", b.str, 0, 1)))
}

// many returns the maxOccurs of an element that multi makes repeatable.
func many(multi bool) int {
	if multi {
		return unbounded
	}
	return 1
}

// cat concatenates particle groups.
func cat(groups ...[]*particle) []*particle {
	var out []*particle
	for _, g := range groups {
		out = append(out, g...)
	}
	return out
}

func one(p ...*particle) []*particle { return p }

// jobTracker returns the leading cluster particles of Hadoop actions. They
// are optional here because <global> and server defaults may supply them;
// their presence is enforced after that resolution ("No name-node defined").
func (b *appBuilder) jobTracker() []*particle {
	if b.f.resourceManager {
		return []*particle{choice(1, 1, elem("job-tracker", b.str, 0, 1), elem("resource-manager", b.str, 0, 1)), elem("name-node", b.str, 0, 1)}
	}
	return []*particle{elem("job-tracker", b.str, 0, 1), elem("name-node", b.str, 0, 1)}
}

func (b *appBuilder) launch() []*particle {
	if b.f.resourceManager {
		return []*particle{elem("launcher", b.launcher, 0, 1)}
	}
	return nil
}

func (b *appBuilder) mapReduce() *ctype {
	str := b.str
	streaming := complexType(seq(1, 1, elem("mapper", str, 0, 1), elem("reducer", str, 0, 1), elem("record-reader", str, 0, 1),
		elem("record-reader-mapping", str, 0, unbounded), elem("env", str, 0, unbounded)))
	pipes := complexType(seq(1, 1, elem("map", str, 0, 1), elem("reduce", str, 0, 1), elem("inputformat", str, 0, 1),
		elem("partitioner", str, 0, 1), elem("writer", str, 0, 1), elem("program", str, 0, 1)))
	var configClass []*particle
	if b.f.configClass {
		configClass = one(elem("config-class", str, 0, 1))
	}
	return complexType(seq(1, 1, cat(b.jobTracker(),
		one(elem("prepare", b.prepare, 0, 1), choice(0, 1, elem("streaming", streaming, 0, 1), elem("pipes", pipes, 0, 1))),
		b.launch(),
		one(elem("job-xml", str, 0, many(b.f.multiJobXML)), elem("configuration", b.configuration, 0, 1)),
		configClass,
		one(elem("file", str, 0, unbounded), elem("archive", str, 0, unbounded)))...))
}

func (b *appBuilder) pig() *ctype {
	str := b.str
	var pigArg []*particle
	if b.f.pigArgument {
		pigArg = one(elem("argument", str, 0, unbounded))
	}
	return complexType(seq(1, 1, cat(b.jobTracker(), one(elem("prepare", b.prepare, 0, 1)), b.launch(),
		one(elem("job-xml", str, 0, many(b.f.multiJobXML)), elem("configuration", b.configuration, 0, 1),
			elem("script", str, 1, 1), elem("param", str, 0, unbounded)),
		pigArg,
		one(elem("file", str, 0, unbounded), elem("archive", str, 0, unbounded)))...))
}

func (b *appBuilder) fs() *ctype {
	deleteAttrs := []attrSpec{req("path")}
	if b.f.skipTrash {
		deleteAttrs = append(deleteAttrs, opt("skip-trash"))
	}
	del := emptyType(deleteAttrs...)
	move := emptyType(req("source"), req("target"))
	if !b.f.fsExtended {
		chmod := emptyType(req("path"), req("permissions"), opt("dir-files"))
		return complexType(seq(1, 1, elem("delete", del, 0, unbounded), elem("mkdir", b.pathType, 0, unbounded),
			elem("move", move, 0, unbounded), elem("chmod", chmod, 0, unbounded)))
	}
	recursive := elem("recursive", b.flag, 0, 1)
	chmod := complexType(seq(1, 1, recursive), req("path"), req("permissions"), opt("dir-files"))
	ops := []*particle{elem("delete", del, 1, 1), elem("mkdir", b.pathType, 1, 1), elem("move", move, 1, 1),
		elem("chmod", chmod, 1, 1), elem("touchz", b.pathType, 1, 1)}
	if b.f.chgrp {
		ops = append(ops, elem("chgrp", complexType(seq(1, 1, recursive), req("path"), req("group"), opt("dir-files")), 1, 1))
	}
	if b.f.setrep {
		ops = append(ops, elem("setrep", emptyType(req("path"), req("replication-factor")), 1, 1))
	}
	return complexType(seq(1, 1, elem("name-node", b.str, 0, 1), elem("job-xml", b.str, 0, unbounded),
		elem("configuration", b.configuration, 0, 1), choice(0, unbounded, ops...)))
}

func (b *appBuilder) java() *ctype {
	str := b.str
	javaOpts := []*particle{elem("java-opts", str, 0, 1)}
	if b.f.javaOpt {
		javaOpts = one(choice(0, 1, elem("java-opts", str, 1, 1), elem("java-opt", str, 1, unbounded)))
	}
	return complexType(seq(1, 1, cat(b.jobTracker(), one(elem("prepare", b.prepare, 0, 1)), b.launch(),
		one(elem("job-xml", str, 0, many(b.f.multiJobXML)), elem("configuration", b.configuration, 0, 1), elem("main-class", str, 1, 1)),
		javaOpts,
		one(elem("arg", str, 0, unbounded), elem("file", str, 0, unbounded), elem("archive", str, 0, unbounded),
			elem("capture-output", b.flag, 0, 1)))...))
}

// action is the type of an <action> node: one body (built-in or from
// another namespace), the transitions, the optional SLA block.
func (b *appBuilder) action() *ctype {
	str, f := b.str, b.f
	subWorkflow := complexType(seq(1, 1, elem("app-path", str, 1, 1), elem("propagate-configuration", b.flag, 0, 1),
		elem("configuration", b.configuration, 0, 1)))
	bodies := []*particle{elem("map-reduce", b.mapReduce(), 1, 1), elem("pig", b.pig(), 1, 1)}
	if f.ssh {
		ssh := complexType(seq(1, 1, elem("host", str, 1, 1), elem("command", str, 1, 1), elem("args", str, 0, unbounded),
			elem("capture-output", b.flag, 0, 1)))
		bodies = append(bodies, elem("ssh", ssh, 1, 1))
	}
	bodies = append(bodies, elem("sub-workflow", subWorkflow, 1, 1), elem("fs", b.fs(), 1, 1), elem("java", b.java(), 1, 1),
		anyOf(1, 1, "##other"))

	transition := emptyType(reqID("to"))
	items := []*particle{choice(1, 1, bodies...), elem("ok", transition, 1, 1), elem("error", transition, 1, 1)}
	if f.sla != nil {
		items = append(items, anyOf(0, 1, f.sla...))
	}
	attrs := []attrSpec{reqID("name")}
	if f.credentials {
		attrs = append(attrs, opt("cred"))
	}
	if f.retry {
		attrs = append(attrs, opt("retry-max"), opt("retry-interval"))
	}
	if f.retryPolicy {
		attrs = append(attrs, opt("retry-policy"))
	}
	return complexType(seq(1, 1, items...), attrs...)
}

// topLevel returns the particles of <workflow-app>: parameters, global and
// credentials where the version has them, then the nodes.
func (b *appBuilder) topLevel() []*particle {
	str, f := b.str, b.f
	transition := emptyType(reqID("to"))
	caseType := textType(reqID("to"))
	sw := complexType(seq(1, 1, elem("case", caseType, 1, unbounded), elem("default", transition, 1, 1)))
	decision := complexType(seq(1, 1, elem("switch", sw, 1, 1)), reqID("name"))
	fork := complexType(seq(1, 1, elem("path", emptyType(reqID("start")), 2, unbounded)), reqID("name"))
	join := emptyType(reqID("name"), reqID("to"))
	kill := complexType(seq(1, 1, elem("message", str, 1, 1)), reqID("name"))
	start := emptyType(reqID("to"))
	end := emptyType(reqID("name"))

	var top []*particle
	if f.parameters {
		params := complexType(seq(1, 1, elem("property", b.property(0), 1, unbounded)))
		globalItems := []*particle{elem("job-tracker", str, 0, 1)}
		if f.resourceManager {
			globalItems = one(choice(1, 1, elem("job-tracker", str, 0, 1), elem("resource-manager", str, 0, 1)))
		}
		globalItems = append(globalItems, elem("name-node", str, 0, 1))
		globalItems = append(globalItems, b.launch()...)
		globalItems = append(globalItems, elem("job-xml", str, 0, unbounded), elem("configuration", b.configuration, 0, 1))
		top = append(top, elem("parameters", params, 0, 1), elem("global", complexType(seq(1, 1, globalItems...)), 0, 1))
	}
	if f.credentials {
		credential := complexType(seq(0, unbounded, elem("property", b.property(1), 1, unbounded)), req("name"), req("type"))
		top = append(top, elem("credentials", complexType(seq(0, unbounded, elem("credential", credential, 1, 1))), 0, 1))
	}
	top = append(top, elem("start", start, 1, 1),
		choice(0, unbounded, elem("decision", decision, 1, 1), elem("fork", fork, 1, 1), elem("join", join, 1, 1),
			elem("kill", kill, 1, 1), elem("action", b.action(), 1, 1)),
		elem("end", end, 1, 1))
	if f.sla != nil {
		top = append(top, anyOf(0, 1, f.sla...))
	}
	return top
}
