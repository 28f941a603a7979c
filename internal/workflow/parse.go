package workflow

import (
	"strings"

	"github.com/gozie/gozie/internal/xmltree"
)

// Parse reads workflow.xml, checks its structure against the schema of its
// namespace (when opts.SchemaValidation), applies <global> and the server
// defaults to the action bodies, and validates the graph. The returned error,
// when not nil, is an *Error carrying the Oozie code.
func Parse(data []byte, opts Options) (*App, error) {
	if max := opts.maxDefinitionLength(); max > 0 && len(data) > max {
		return nil, newError(CodeDefinitionTooLong,
			"Workflow definition length [%d] exceeded maximum allowed length [%d]", len(data), max)
	}
	root, err := parseTree(data)
	if err != nil {
		return nil, err
	}
	if err := checkRoot(root); err != nil {
		return nil, err
	}
	if opts.SchemaValidation {
		v := &xmltree.Validator{NS: root.Name.Space, Ext: extensionType}
		if err := v.Check(root, appSchemas()[root.Name.Space]); err != nil {
			return nil, treeError(err)
		}
	}
	app, err := build(root)
	if err != nil {
		return nil, err
	}
	if err := app.resolve(opts); err != nil {
		return nil, err
	}
	if err := app.Validate(opts); err != nil {
		return nil, err
	}
	return app, nil
}

// ParseNoValidate turns well-formed workflow.xml into the model without any
// schema, resolution or graph checks. Tools use it to show broken workflows.
func ParseNoValidate(data []byte) (*App, error) {
	root, err := parseTree(data)
	if err != nil {
		return nil, err
	}
	if err := checkRoot(root); err != nil {
		return nil, err
	}
	return buildLenient(root), nil
}

// checkRoot accepts only <workflow-app> in a workflow namespace gozie knows.
func checkRoot(root *Element) error {
	if root.Name.Local != "workflow-app" || versionOf(root.Name.Space) == "" {
		return schemaError(root.Line, root.Col, "cvc-elt.1.a: Cannot find the declaration of element '%s'.", root.Name.Local)
	}
	return nil
}

// build converts the document tree into an App, rejecting what the graph
// code cannot represent: missing or repeated start/end, unknown top-level
// elements, decisions without default, kill nodes without message.
func build(root *Element) (*App, error) {
	app := buildLenient(root)
	starts, ends := 0, 0
	for _, c := range root.Children {
		if c.Name.Space != root.Name.Space {
			if isSLA(c) {
				continue
			}
			return nil, schemaError(c.Line, c.Col, "unexpected element '%s' in namespace '%s'", c.Name.Local, c.Name.Space)
		}
		switch c.Name.Local {
		case "parameters", "global", "credentials", "decision", "fork", "join", "kill", "action":
		case "start":
			starts++
		case "end":
			ends++
		default:
			return nil, schemaError(c.Line, c.Col, "unexpected element '%s'", c.Name.Local)
		}
	}
	if starts != 1 {
		return nil, schemaError(root.Line, root.Col, "a workflow must have exactly one start node, found %d", starts)
	}
	if ends != 1 {
		return nil, schemaError(root.Line, root.Col, "a workflow must have exactly one end node, found %d", ends)
	}
	for _, n := range app.Nodes {
		switch n.Kind {
		case DecisionNode:
			if !n.HasDefault {
				return nil, schemaError(n.Line, n.Col, "decision node [%s] has no default transition", n.Name)
			}
		case KillNode:
			if n.Element != nil && n.Element.Child("message") == nil {
				return nil, schemaError(n.Line, n.Col, "kill node [%s] has no message", n.Name)
			}
		case ActionNode:
			if n.Action == nil {
				return nil, schemaError(n.Line, n.Col, "action node [%s] has no action element", n.Name)
			}
		}
	}
	return app, nil
}

func isSLA(e *Element) bool {
	return e.Name.Local == "info" && (e.Name.Space == SLANamespace01 || e.Name.Space == SLANamespace02)
}

// buildLenient maps whatever it finds into the model, never failing; missing
// pieces stay empty.
func buildLenient(root *Element) *App {
	app := &App{
		Name:      root.Attr("name"),
		Namespace: root.Name.Space,
		Version:   versionOf(root.Name.Space),
		Root:      root,
	}
	start := &Node{Name: StartNodeName, Kind: StartNode}
	app.Nodes = append(app.Nodes, start)
	for _, c := range root.Children {
		if isSLA(c) {
			app.SLA = c
			continue
		}
		if c.Name.Space != root.Name.Space {
			continue
		}
		switch c.Name.Local {
		case "parameters":
			for _, p := range c.ChildrenNamed("property") {
				v := p.Child("value")
				app.Parameters = append(app.Parameters, Parameter{
					Name: p.ChildText("name"), Value: v.TrimText(), HasValue: v != nil,
					Description: p.ChildText("description"),
				})
			}
		case "global":
			app.Global = buildGlobal(c)
		case "credentials":
			for _, cr := range c.ChildrenNamed("credential") {
				cred := Credential{Name: cr.Attr("name"), Type: cr.Attr("type")}
				for _, p := range cr.ChildrenNamed("property") {
					cred.Properties = append(cred.Properties, Property{
						Name: p.ChildText("name"), Value: p.ChildText("value"), Description: p.ChildText("description"),
					})
				}
				app.Credentials = append(app.Credentials, cred)
			}
		case "start":
			if start.Element == nil {
				start.To = c.Attr("to")
				start.Line, start.Col, start.Element = c.Line, c.Col, c
				app.Start = start.To
			}
		default:
			if n := buildNode(c); n != nil {
				app.Nodes = append(app.Nodes, n)
			}
		}
	}
	app.reindex()
	return app
}

func buildGlobal(c *Element) *Global {
	g := &Global{Element: c, NameNode: c.ChildText("name-node")}
	if jt := c.Child("job-tracker"); jt != nil {
		g.JobTracker = jt.TrimText()
	} else if rm := c.Child("resource-manager"); rm != nil {
		g.JobTracker, g.ResourceManager = rm.TrimText(), true
	}
	for _, x := range c.ChildrenNamed("job-xml") {
		g.JobXML = append(g.JobXML, x.TrimText())
	}
	g.Configuration = ConfigurationOf(c.Child("configuration"))
	if l := c.Child("launcher"); l != nil {
		for _, x := range l.Children {
			g.Launcher = append(g.Launcher, Property{Name: x.Name.Local, Value: x.TrimText()})
		}
	}
	return g
}

// buildNode maps one node element; it returns nil for elements that are not nodes.
func buildNode(c *Element) *Node {
	n := &Node{Name: c.Attr("name"), Line: c.Line, Col: c.Col, Element: c}
	switch c.Name.Local {
	case "end":
		n.Kind = EndNode
	case "kill":
		n.Kind = KillNode
		// The message is kept verbatim apart from surrounding white space;
		// EL in it is resolved when the node is reached.
		n.Message = c.ChildText("message")
	case "decision":
		n.Kind = DecisionNode
		sw := c.Child("switch")
		for _, cs := range sw.ChildrenNamed("case") {
			n.Cases = append(n.Cases, Case{Predicate: strings.TrimSpace(cs.Text), To: cs.Attr("to")})
		}
		if d := sw.Child("default"); d != nil {
			n.Default, n.HasDefault = d.Attr("to"), true
		}
	case "fork":
		n.Kind = ForkNode
		for _, p := range c.ChildrenNamed("path") {
			n.Paths = append(n.Paths, p.Attr("start"))
		}
	case "join":
		n.Kind = JoinNode
		n.To = c.Attr("to")
	case "action":
		n.Kind = ActionNode
		for _, x := range c.Children {
			switch {
			case isSLA(x):
				if n.Action != nil {
					n.Action.SLA = x
				}
			case x.Name.Space == c.Name.Space && x.Name.Local == "ok":
				n.OK = x.Attr("to")
			case x.Name.Space == c.Name.Space && x.Name.Local == "error":
				n.Error = x.Attr("to")
			case n.Action == nil:
				n.Action = &Action{
					Type: x.Name.Local, Namespace: x.Name.Space, Body: x,
					RetryMax: c.Attr("retry-max"), RetryInterval: c.Attr("retry-interval"),
					RetryPolicy: c.Attr("retry-policy"), Cred: c.Attr("cred"),
				}
			}
		}
	default:
		return nil
	}
	return n
}
