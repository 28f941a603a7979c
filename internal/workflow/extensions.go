package workflow

import (
	"slices"
	"strings"
	"sync"
)

// Extension action namespaces gozie knows, by action type, with the versions
// the Oozie distribution ships.
var extensionNamespaces = map[string][]string{
	"shell":  {"0.1", "0.2", "0.3", "1.0"},
	"email":  {"0.1", "0.2"},
	"ssh":    {"0.1", "0.2"},
	"hive":   {"0.2", "0.3", "0.4", "0.5", "0.6", "1.0"},
	"hive2":  {"0.1", "0.2", "1.0"},
	"sqoop":  {"0.2", "0.3", "0.4", "1.0"},
	"spark":  {"0.1", "0.2", "1.0"},
	"distcp": {"0.1", "0.2", "1.0"},
	"git":    {"1.0"},
}

// ExtensionNamespace returns the namespace of an extension action type and
// version, e.g. ("shell", "0.3") -> "uri:oozie:shell-action:0.3".
func ExtensionNamespace(actionType, version string) string {
	return "uri:oozie:" + actionType + "-action:" + version
}

// knownExtension returns the action type of a known extension namespace.
func knownExtension(ns string) (string, bool) {
	rest, ok := strings.CutPrefix(ns, "uri:oozie:")
	if !ok {
		return "", false
	}
	typ, ver, ok := strings.Cut(rest, "-action:")
	if !ok {
		return "", false
	}
	for _, v := range extensionNamespaces[typ] {
		if v == ver {
			return typ, true
		}
	}
	return "", false
}

// extensionRequirement lists, for one extension type, groups of elements of
// which at least one must be present. Full content models of the extension
// schemas are not reproduced: the required children catch the mistakes that
// matter (an email without recipient, a shell without exec) while staying
// tolerant of the many optional elements that vary between versions.
var extensionRequirement = map[string][][]string{
	"shell":  {{"exec"}},
	"email":  {{"to"}, {"subject"}, {"body"}},
	"ssh":    {{"host"}, {"command"}},
	"hive":   {{"script", "query"}},
	"hive2":  {{"jdbc-url"}, {"script", "query"}},
	"sqoop":  {{"command", "arg"}},
	"spark":  {{"master"}, {"name"}, {"jar"}},
	"distcp": nil,
	"git":    {{"git-uri"}, {"destination-uri"}},
}

// extensionChoice lists, for one extension type, groups of elements that
// are alternatives in its schema (an xs:choice): a body may use the
// elements of one name only. A sqoop action has one <command> or a list
// of <arg>, never both.
var extensionChoice = map[string][][]string{
	"sqoop": {{"command", "arg"}},
}

// slaTypes are the <sla:info> content models of the SLA schemas 0.1 and 0.2.
var slaTypes = sync.OnceValue(func() map[string]*ctype {
	str := textType()
	opt := func(name string) *particle { return elem(name, str, 0, 1) }
	one := func(name string) *particle { return elem(name, str, 1, 1) }
	return map[string]*ctype{
		SLANamespace01: complexType(seq(1, 1, one("app-name"), one("nominal-time"), one("should-start"), one("should-end"),
			opt("parent-client-id"), opt("parent-sla-id"), opt("notification-msg"), one("alert-contact"),
			one("dev-contact"), one("qa-contact"), one("se-contact"), opt("alert-frequency"), opt("alert-percentage"),
			opt("upstream-apps"))),
		SLANamespace02: complexType(seq(1, 1, one("nominal-time"), opt("should-start"), one("should-end"),
			opt("max-duration"), opt("alert-events"), opt("alert-contact"), opt("notification-msg"), opt("upstream-apps"))),
	}
})

// extensionType is the validator hook for wildcard-matched children: SLA
// blocks get their schema; extension action bodies are checked separately
// (checkExtensionBodies) and anything else is accepted as is.
func extensionType(e *Element) *ctype {
	if isSLA(e) {
		return slaTypes()[e.Name.Space]
	}
	return openType
}

// checkExtensionBodies applies extensionRequirement to every action whose
// element is in a known extension namespace.
func checkExtensionBodies(root *Element) error {
	for _, a := range root.ChildrenNamed("action") {
		if a.Name.Space != root.Name.Space {
			continue
		}
		for _, body := range a.Children {
			typ, ok := knownExtension(body.Name.Space)
			if !ok || typ != body.Name.Local {
				continue
			}
			if err := checkChoice(body, extensionChoice[typ]); err != nil {
				return err
			}
			for _, group := range extensionRequirement[typ] {
				found := false
				for _, name := range group {
					if body.Child(name) != nil {
						found = true
					}
				}
				if !found {
					quoted := make([]string, len(group))
					for i, name := range group {
						quoted[i] = `"` + body.Name.Space + `":` + name
					}
					return schemaError(body.Line, body.Col,
						"cvc-complex-type.2.4.b: The content of element '%s' is not complete. One of '{%s}' is expected.",
						body.Name.Local, strings.Join(quoted, ", "))
				}
			}
		}
	}
	return nil
}

// checkChoice refuses a body holding elements of two names of one group
// of alternatives, naming the first element of the second name as a schema
// validator does.
func checkChoice(body *Element, groups [][]string) error {
	for _, group := range groups {
		first := ""
		for _, c := range body.Children {
			if c.Name.Space != body.Name.Space || !slices.Contains(group, c.Name.Local) {
				continue
			}
			if first == "" {
				first = c.Name.Local
			} else if c.Name.Local != first {
				return schemaError(c.Line, c.Col,
					"cvc-complex-type.2.4.a: Invalid content was found starting with element '%s'. <%s> and <%s> cannot both appear in '%s' (the schema allows one of them)",
					c.Name.Local, first, c.Name.Local, body.Name.Local)
			}
		}
	}
	return nil
}

func equalFoldTrim(s, want string) bool { return strings.EqualFold(strings.TrimSpace(s), want) }
