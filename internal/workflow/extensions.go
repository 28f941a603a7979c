package workflow

import (
	"strings"
	"sync"
)

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
// blocks and extension action bodies get their schema (extschemas.go);
// anything else is accepted as is.
func extensionType(e *Element) *ctype {
	if isSLA(e) {
		return slaTypes()[e.Name.Space]
	}
	return extensionBodyType(e)
}

func equalFoldTrim(s, want string) bool { return strings.EqualFold(strings.TrimSpace(s), want) }
