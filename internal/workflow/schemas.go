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

func buildAppType(f versionFeatures) *ctype {
	str := textType()
	flag := emptyType()
	max := func(multi bool) int {
		if multi {
			return unbounded
		}
		return 1
	}
	property := func(valueMin int) *ctype {
		return complexType(seq(1, 1,
			elem("name", str, 1, 1),
			elem("value", str, valueMin, 1),
			elem("description", str, 0, 1)))
	}
	configuration := complexType(seq(1, 1, elem("property", property(1), 1, unbounded)))
	pathType := emptyType(req("path"))
	prepare := complexType(seq(1, 1, elem("delete", pathType, 0, unbounded), elem("mkdir", pathType, 0, unbounded)))
	launcher := complexType(choice(1, unbounded,
		elem("memory.mb", str, 0, 1), elem("vcores", str, 0, 1), elem("java-opts", str, 0, 1), elem("env", str, 0, 1),
		elem("queue", str, 0, 1), elem("sharelib", str, 0, 1), elem("view-acl", str, 0, 1), elem("modify-acl", str, 0, 1)))

	// jobTracker returns the leading cluster particles of Hadoop actions. They
	// are optional here because <global> and server defaults may supply them;
	// their presence is enforced after that resolution ("No name-node defined").
	jobTracker := func() []*particle {
		if f.resourceManager {
			return []*particle{choice(1, 1, elem("job-tracker", str, 0, 1), elem("resource-manager", str, 0, 1)), elem("name-node", str, 0, 1)}
		}
		return []*particle{elem("job-tracker", str, 0, 1), elem("name-node", str, 0, 1)}
	}
	launch := func() []*particle {
		if f.resourceManager {
			return []*particle{elem("launcher", launcher, 0, 1)}
		}
		return nil
	}
	cat := func(groups ...[]*particle) []*particle {
		var out []*particle
		for _, g := range groups {
			out = append(out, g...)
		}
		return out
	}
	one := func(p ...*particle) []*particle { return p }

	streaming := complexType(seq(1, 1, elem("mapper", str, 0, 1), elem("reducer", str, 0, 1), elem("record-reader", str, 0, 1),
		elem("record-reader-mapping", str, 0, unbounded), elem("env", str, 0, unbounded)))
	pipes := complexType(seq(1, 1, elem("map", str, 0, 1), elem("reduce", str, 0, 1), elem("inputformat", str, 0, 1),
		elem("partitioner", str, 0, 1), elem("writer", str, 0, 1), elem("program", str, 0, 1)))
	var configClass []*particle
	if f.configClass {
		configClass = one(elem("config-class", str, 0, 1))
	}
	mapReduce := complexType(seq(1, 1, cat(jobTracker(),
		one(elem("prepare", prepare, 0, 1), choice(0, 1, elem("streaming", streaming, 0, 1), elem("pipes", pipes, 0, 1))),
		launch(),
		one(elem("job-xml", str, 0, max(f.multiJobXML)), elem("configuration", configuration, 0, 1)),
		configClass,
		one(elem("file", str, 0, unbounded), elem("archive", str, 0, unbounded)))...))

	var pigArg []*particle
	if f.pigArgument {
		pigArg = one(elem("argument", str, 0, unbounded))
	}
	pig := complexType(seq(1, 1, cat(jobTracker(), one(elem("prepare", prepare, 0, 1)), launch(),
		one(elem("job-xml", str, 0, max(f.multiJobXML)), elem("configuration", configuration, 0, 1),
			elem("script", str, 1, 1), elem("param", str, 0, unbounded)),
		pigArg,
		one(elem("file", str, 0, unbounded), elem("archive", str, 0, unbounded)))...))

	subWorkflow := complexType(seq(1, 1, elem("app-path", str, 1, 1), elem("propagate-configuration", flag, 0, 1),
		elem("configuration", configuration, 0, 1)))

	deleteAttrs := []attrSpec{req("path")}
	if f.skipTrash {
		deleteAttrs = append(deleteAttrs, opt("skip-trash"))
	}
	del := emptyType(deleteAttrs...)
	move := emptyType(req("source"), req("target"))
	var fs *ctype
	if f.fsExtended {
		recursive := elem("recursive", flag, 0, 1)
		chmod := complexType(seq(1, 1, recursive), req("path"), req("permissions"), opt("dir-files"))
		ops := []*particle{elem("delete", del, 1, 1), elem("mkdir", pathType, 1, 1), elem("move", move, 1, 1),
			elem("chmod", chmod, 1, 1), elem("touchz", pathType, 1, 1)}
		if f.chgrp {
			ops = append(ops, elem("chgrp", complexType(seq(1, 1, recursive), req("path"), req("group"), opt("dir-files")), 1, 1))
		}
		if f.setrep {
			ops = append(ops, elem("setrep", emptyType(req("path"), req("replication-factor")), 1, 1))
		}
		fs = complexType(seq(1, 1, elem("name-node", str, 0, 1), elem("job-xml", str, 0, unbounded),
			elem("configuration", configuration, 0, 1), choice(0, unbounded, ops...)))
	} else {
		chmod := emptyType(req("path"), req("permissions"), opt("dir-files"))
		fs = complexType(seq(1, 1, elem("delete", del, 0, unbounded), elem("mkdir", pathType, 0, unbounded),
			elem("move", move, 0, unbounded), elem("chmod", chmod, 0, unbounded)))
	}

	javaOpts := []*particle{elem("java-opts", str, 0, 1)}
	if f.javaOpt {
		javaOpts = one(choice(0, 1, elem("java-opts", str, 1, 1), elem("java-opt", str, 1, unbounded)))
	}
	java := complexType(seq(1, 1, cat(jobTracker(), one(elem("prepare", prepare, 0, 1)), launch(),
		one(elem("job-xml", str, 0, max(f.multiJobXML)), elem("configuration", configuration, 0, 1), elem("main-class", str, 1, 1)),
		javaOpts,
		one(elem("arg", str, 0, unbounded), elem("file", str, 0, unbounded), elem("archive", str, 0, unbounded),
			elem("capture-output", flag, 0, 1)))...))

	actionBodies := []*particle{elem("map-reduce", mapReduce, 1, 1), elem("pig", pig, 1, 1)}
	if f.ssh {
		ssh := complexType(seq(1, 1, elem("host", str, 1, 1), elem("command", str, 1, 1), elem("args", str, 0, unbounded),
			elem("capture-output", flag, 0, 1)))
		actionBodies = append(actionBodies, elem("ssh", ssh, 1, 1))
	}
	actionBodies = append(actionBodies, elem("sub-workflow", subWorkflow, 1, 1), elem("fs", fs, 1, 1), elem("java", java, 1, 1),
		anyOf(1, 1, "##other"))

	transition := emptyType(reqID("to"))
	actionSeq := []*particle{choice(1, 1, actionBodies...), elem("ok", transition, 1, 1), elem("error", transition, 1, 1)}
	if f.sla != nil {
		actionSeq = append(actionSeq, anyOf(0, 1, f.sla...))
	}
	actionAttrs := []attrSpec{reqID("name")}
	if f.credentials {
		actionAttrs = append(actionAttrs, opt("cred"))
	}
	if f.retry {
		actionAttrs = append(actionAttrs, opt("retry-max"), opt("retry-interval"))
	}
	if f.retryPolicy {
		actionAttrs = append(actionAttrs, opt("retry-policy"))
	}
	action := complexType(seq(1, 1, actionSeq...), actionAttrs...)

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
		params := complexType(seq(1, 1, elem("property", property(0), 1, unbounded)))
		globalItems := []*particle{elem("job-tracker", str, 0, 1)}
		if f.resourceManager {
			globalItems = one(choice(1, 1, elem("job-tracker", str, 0, 1), elem("resource-manager", str, 0, 1)))
		}
		globalItems = append(globalItems, elem("name-node", str, 0, 1))
		globalItems = append(globalItems, launch()...)
		globalItems = append(globalItems, elem("job-xml", str, 0, unbounded), elem("configuration", configuration, 0, 1))
		top = append(top, elem("parameters", params, 0, 1), elem("global", complexType(seq(1, 1, globalItems...)), 0, 1))
	}
	if f.credentials {
		credential := complexType(seq(0, unbounded, elem("property", property(1), 1, unbounded)), req("name"), req("type"))
		top = append(top, elem("credentials", complexType(seq(0, unbounded, elem("credential", credential, 1, 1))), 0, 1))
	}
	top = append(top, elem("start", start, 1, 1),
		choice(0, unbounded, elem("decision", decision, 1, 1), elem("fork", fork, 1, 1), elem("join", join, 1, 1),
			elem("kill", kill, 1, 1), elem("action", action, 1, 1)),
		elem("end", end, 1, 1))
	if f.sla != nil {
		top = append(top, anyOf(0, 1, f.sla...))
	}
	// workflow-app/@name is any string in every version. The appendix
	// XSDs of the specification type it IDENTIFIER in 0.1-0.3, but the
	// schemas Oozie ships declare xs:string there too, so a name written
	// as ${...} (resolved with EL at submission) is accepted.
	return complexType(seq(1, 1, top...), req("name"))
}
