package workflow

import "encoding/xml"

// Action types whose executors need a cluster (job-tracker/resource-manager
// and name-node). For them <global> and the server defaults fill the gaps and
// a missing value is an error.
var needsCluster = map[string]bool{
	"map-reduce": true, "pig": true, "java": true, "hive": true, "hive2": true,
	"sqoop": true, "shell": true, "spark": true, "distcp": true,
}

// Action types that accept <job-xml> and <configuration>, and so inherit the
// global ones and the <launcher> settings. fs only gained these in 0.4.
var takesConfiguration = map[string]bool{
	"map-reduce": true, "pig": true, "java": true, "hive": true, "hive2": true,
	"sqoop": true, "shell": true, "spark": true, "distcp": true, "fs": true,
}

// launcherKeys maps <launcher> children to the configuration properties the
// launcher reads. Most keep their name; three are spelled differently.
var launcherKeys = map[string]string{
	"memory.mb":  "oozie.launcher.memory.mb",
	"vcores":     "oozie.launcher.vcores",
	"java-opts":  "oozie.launcher.javaopts",
	"env":        "oozie.launcher.env",
	"queue":      "oozie.launcher.queue",
	"sharelib":   "oozie.launcher.sharelib",
	"view-acl":   "oozie.launcher.view.acl",
	"modify-acl": "oozie.launcher.modify.acl",
}

// LauncherProperty returns the configuration key for a <launcher> child
// element, or "" when the element is not a launcher setting.
func LauncherProperty(element string) string { return launcherKeys[element] }

// resolve applies <global> and the server defaults to every action body, the
// way Oozie rewrites action XML before storing the job: missing cluster
// elements are appended as the last children of the action element, global
// job-xml files are added, global configuration is merged (the action's own
// values win) and <launcher> settings become oozie.launcher.* properties.
func (a *App) resolve(opts Options) error {
	for _, n := range a.Nodes {
		if n.Kind != ActionNode || n.Action == nil || n.Action.Body == nil {
			continue
		}
		if err := a.resolveAction(n, opts); err != nil {
			return err
		}
	}
	return nil
}

func (a *App) resolveAction(n *Node, opts Options) error {
	act := n.Action
	body := act.Body
	g := a.Global
	if g == nil {
		g = &Global{}
	}
	if needsCluster[act.Type] {
		// Both values are found before either is added, so that a missing
		// name-node is reported first, as Oozie's parser does.
		jtName, jt := "", ""
		if body.Child("job-tracker") == nil && body.Child("resource-manager") == nil {
			switch {
			case g.JobTracker != "":
				jtName, jt = "job-tracker", g.JobTracker
				if g.ResourceManager {
					jtName = "resource-manager"
				}
			case opts.DefaultJobTracker != "":
				jtName, jt = "job-tracker", opts.DefaultJobTracker
			default:
				jtName = "-"
			}
		}
		nn, needNN := "", body.Child("name-node") == nil
		if needNN {
			switch {
			case g.NameNode != "":
				nn = g.NameNode
			case opts.DefaultNameNode != "":
				nn = opts.DefaultNameNode
			default:
				return schemaError(body.Line, body.Col, "No name-node defined for action [%s]: %s", n.Name, missingHint("name-node", ServerPropDefaultNameNode))
			}
		}
		if jtName == "-" {
			return schemaError(body.Line, body.Col, "No job-tracker or resource-manager defined for action [%s]: %s", n.Name,
				missingHint("job-tracker", ServerPropDefaultJobTrack))
		}
		if jtName != "" {
			appendText(body, jtName, jt)
		}
		if needNN {
			appendText(body, "name-node", nn)
		}
	}
	if !takesConfiguration[act.Type] {
		return nil
	}
	have := map[string]bool{}
	for _, x := range act.JobXML() {
		have[x] = true
	}
	for _, x := range g.JobXML {
		if !have[x] {
			appendText(body, "job-xml", x)
		}
	}
	// Inherited properties: global configuration first, then launcher
	// settings (global, overridden per key by the action's own <launcher>).
	var inherited []Property
	inherited = append(inherited, g.Configuration...)
	launcher := map[string]string{}
	var order []string
	add := func(list []Property) {
		for _, p := range list {
			key := launcherKeys[p.Name]
			if key == "" {
				continue
			}
			if _, seen := launcher[key]; !seen {
				order = append(order, key)
			}
			launcher[key] = p.Value
		}
	}
	add(g.Launcher)
	if l := body.Child("launcher"); l != nil {
		var own []Property
		for _, x := range l.Children {
			own = append(own, Property{Name: x.Name.Local, Value: x.TrimText()})
		}
		add(own)
	}
	for _, k := range order {
		inherited = append(inherited, Property{Name: k, Value: launcher[k]})
	}
	if len(inherited) == 0 {
		return nil
	}
	conf := body.Child("configuration")
	if conf == nil {
		conf = &Element{Name: xml.Name{Space: body.Name.Space, Local: "configuration"}, Line: body.Line, Col: body.Col}
		body.Children = append(body.Children, conf)
	}
	own := map[string]bool{}
	for _, p := range ConfigurationOf(conf) {
		own[p.Name] = true
	}
	var added []*Element
	for _, p := range inherited {
		if own[p.Name] {
			continue
		}
		own[p.Name] = true
		added = append(added, propertyElement(body.Name.Space, p))
	}
	// Inherited properties go first so that a reader applying "last wins"
	// still sees the action's own values on top.
	conf.Children = append(added, conf.Children...)
	return nil
}

// missingHint says where a cluster element an action needs may come from:
// Oozie's rule (the action, <global>, the server default) with what to
// write, so that a first workflow without a cluster gets past it.
func missingHint(element, defaultKey string) string {
	alt := ""
	if element == "job-tracker" {
		alt = " (or <resource-manager>, schema 1.0)"
	}
	return "add <" + element + ">" + alt + " to the action or to <global>, or set " + defaultKey +
		" (gozie-site.xml on a server, -D with gozie validate; gozie run uses " + localDefault(defaultKey) + " unless told)"
}

// localDefault is what gozie run uses for a server default that neither
// its -site file nor the job properties set: the local file system and
// the local runner.
func localDefault(key string) string {
	if key == ServerPropDefaultNameNode {
		return LocalDefaultNameNode
	}
	return LocalDefaultJobTracker
}

func appendText(parent *Element, local, text string) {
	parent.Children = append(parent.Children, &Element{
		Name: xml.Name{Space: parent.Name.Space, Local: local}, Text: text, Line: parent.Line, Col: parent.Col,
	})
}

func propertyElement(ns string, p Property) *Element {
	prop := &Element{Name: xml.Name{Space: ns, Local: "property"}}
	appendText(prop, "name", p.Name)
	appendText(prop, "value", p.Value)
	return prop
}
