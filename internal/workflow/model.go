package workflow

import (
	"strings"
)

// Supported workflow schema namespaces, oldest first.
var workflowNamespaces = []string{
	"uri:oozie:workflow:0.1",
	"uri:oozie:workflow:0.2",
	"uri:oozie:workflow:0.2.5",
	"uri:oozie:workflow:0.3",
	"uri:oozie:workflow:0.4",
	"uri:oozie:workflow:0.4.5",
	"uri:oozie:workflow:0.5",
	"uri:oozie:workflow:1.0",
}

// SLA namespaces accepted for <sla:info> elements.
const (
	SLANamespace01 = "uri:oozie:sla:0.1"
	SLANamespace02 = "uri:oozie:sla:0.2"
)

// StartNodeName is the internal name of the start node. It cannot clash with
// user nodes because ':' is not allowed in node names.
const StartNodeName = ":start:"

// NodeKind tells what a node does in the graph.
type NodeKind int

// Node kinds. The start node is synthesised from <start to="..."/> and named
// ":start:". The names carry a Node suffix because Action is also the type of
// an action body.
const (
	StartNode NodeKind = iota
	EndNode
	KillNode
	DecisionNode
	ForkNode
	JoinNode
	ActionNode
)

var nodeKindNames = [...]string{"start", "end", "kill", "decision", "fork", "join", "action"}

// String returns the hPDL element name of the kind ("start", "fork", ...).
func (k NodeKind) String() string {
	if k < 0 || int(k) >= len(nodeKindNames) {
		return "unknown"
	}
	return nodeKindNames[k]
}

// App is a parsed workflow application.
type App struct {
	Name      string // the name attribute of <workflow-app>; may hold EL
	Namespace string // e.g. "uri:oozie:workflow:0.5"
	Version   string // e.g. "0.5"
	// Start is the name of the first node (the "to" of <start>).
	Start string
	// Nodes holds every node in definition order; Nodes[0] is the synthetic
	// start node named StartNodeName.
	Nodes       []*Node
	Parameters  []Parameter
	Global      *Global
	Credentials []Credential
	// SLA is the application level <sla:info>, nil when absent.
	SLA *Element
	// Root is the whole document as a generic tree (after global and default
	// resolution has been applied to action bodies by Parse).
	Root *Element

	index map[string]*Node
}

// Node returns the node with the given name, or nil.
func (a *App) Node(name string) *Node {
	if a.index == nil {
		a.reindex()
	}
	return a.index[name]
}

// reindex rebuilds the name lookup; the first definition of a name wins so
// that duplicates never hide the node the graph walk will meet first.
func (a *App) reindex() {
	a.index = make(map[string]*Node, len(a.Nodes))
	for _, n := range a.Nodes {
		if _, dup := a.index[n.Name]; !dup {
			a.index[n.Name] = n
		}
	}
}

// Parameter is one <parameters><property> entry. Value is the default value
// and HasValue tells an absent <value> (a required parameter) from an empty one.
type Parameter struct {
	Name        string
	Value       string
	HasValue    bool
	Description string
}

// Property is one name/value pair of a <configuration> block.
type Property struct {
	Name        string
	Value       string
	Description string
}

// Global is the <global> section that actions inherit from.
type Global struct {
	JobTracker      string // <job-tracker> or <resource-manager> text
	ResourceManager bool   // true when the value came from <resource-manager>
	NameNode        string
	JobXML          []string
	Configuration   []Property
	// Launcher holds <launcher> children in order (name = element name).
	Launcher []Property
	Element  *Element
}

// Credential is one <credentials><credential> entry.
type Credential struct {
	Name       string
	Type       string
	Properties []Property
}

// Case is one <case> of a decision: an EL predicate (unevaluated) and a target.
type Case struct {
	Predicate string
	To        string
}

// Node is one workflow node. Which fields are meaningful depends on Kind.
type Node struct {
	Name string
	Kind NodeKind
	// Line and Col locate the node element in workflow.xml (1-based).
	Line, Col int

	// Action nodes.
	Action    *Action
	OK, Error string

	// Start nodes use To; join nodes too.
	To string

	// Decision nodes: cases in order, then the default target.
	Cases      []Case
	Default    string
	HasDefault bool

	// Fork nodes: the start of each concurrent path, in order.
	Paths []string

	// Kill nodes.
	Message string

	// Transitions, when set, overrides the transitions derived from the fields
	// above. It exists for graphs built programmatically (tests, tools) whose
	// nodes are not described by hPDL elements.
	Transitions []string

	// Element is the node's XML element, nil for nodes built in code.
	Element *Element
}

// Targets returns the node's outgoing transitions in Oozie's order: decision
// cases then default, action ok then error, fork paths in order.
func (n *Node) Targets() []string {
	if n.Transitions != nil {
		return n.Transitions
	}
	switch n.Kind {
	case StartNode, JoinNode:
		return []string{n.To}
	case ActionNode:
		return []string{n.OK, n.Error}
	case DecisionNode:
		t := make([]string, 0, len(n.Cases)+1)
		for _, c := range n.Cases {
			t = append(t, c.To)
		}
		if n.HasDefault {
			t = append(t, n.Default)
		}
		return t
	case ForkNode:
		return n.Paths
	}
	return nil
}

// Action is the body of an action node.
type Action struct {
	// Type is the local name of the action element: "map-reduce", "shell", ...
	Type string
	// Namespace is the action element's namespace: the workflow namespace for
	// built-in types, e.g. "uri:oozie:shell-action:0.3" for extensions.
	Namespace string
	// Body is the action element (e.g. <map-reduce>) with everything in it.
	Body *Element

	RetryMax      string
	RetryInterval string
	RetryPolicy   string
	Cred          string

	// SLA is the action's <sla:info>, nil when absent.
	SLA *Element
}

// BuiltIn reports whether the action type belongs to the workflow namespace.
func (a *Action) BuiltIn() bool { return strings.HasPrefix(a.Namespace, "uri:oozie:workflow:") }

// JobTracker returns the <job-tracker> or <resource-manager> text.
func (a *Action) JobTracker() string {
	if e := a.Body.Child("job-tracker"); e != nil {
		return e.TrimText()
	}
	return a.Body.ChildText("resource-manager")
}

// ResourceManager is an alias of JobTracker: schema 1.0 renamed the element.
func (a *Action) ResourceManager() string { return a.JobTracker() }

// NameNode returns the <name-node> text.
func (a *Action) NameNode() string { return a.Body.ChildText("name-node") }

// JobXML returns every <job-xml> in order.
func (a *Action) JobXML() []string {
	var out []string
	for _, c := range a.Body.ChildrenNamed("job-xml") {
		out = append(out, c.TrimText())
	}
	return out
}

// Configuration returns the <configuration> properties in document order.
func (a *Action) Configuration() []Property {
	return ConfigurationOf(a.Body.Child("configuration"))
}

// ConfigValue returns the value of a configuration property and whether it
// is set; the last definition wins, as in Hadoop configuration files.
func (a *Action) ConfigValue(name string) (string, bool) {
	val, ok := "", false
	for _, p := range a.Configuration() {
		if p.Name == name {
			val, ok = p.Value, true
		}
	}
	return val, ok
}

// PrepareOp is one <prepare> operation.
type PrepareOp struct {
	Op   string // "delete" or "mkdir"
	Path string
}

// Prepare returns the <prepare> operations in order.
func (a *Action) Prepare() []PrepareOp {
	var out []PrepareOp
	if p := a.Body.Child("prepare"); p != nil {
		for _, c := range p.Children {
			out = append(out, PrepareOp{Op: c.Name.Local, Path: c.Attr("path")})
		}
	}
	return out
}

// ConfigurationOf reads the <property> children of a <configuration> element.
func ConfigurationOf(conf *Element) []Property {
	if conf == nil {
		return nil
	}
	var out []Property
	for _, p := range conf.ChildrenNamed("property") {
		out = append(out, Property{
			Name:        p.ChildText("name"),
			Value:       p.ChildText("value"),
			Description: p.ChildText("description"),
		})
	}
	return out
}
