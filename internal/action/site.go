package action

import (
	"sort"
)

// SiteKey is one server configuration key (gozie-site.xml) read by an
// executor, with its default and what it does (declared by the family that
// reads it, so the keys are those of the types linked in). The server
// lists them with its own keys (server.ConfigKeys), so that each is
// documented, defaulted and overridable by the environment like any other.
type SiteKey struct {
	Name    string
	Default string
	Doc     string
}

// siteKeys are the keys declared by the executors, each in its own file.
var siteKeys []SiteKey

// DeclareSiteKey declares a key; it is called from package-level var
// declarations, so that a key lives next to the code that reads it.
func DeclareSiteKey(name, def, doc string) string {
	siteKeys = append(siteKeys, SiteKey{Name: name, Default: def, Doc: doc})
	return name
}

// SiteKeys returns the keys the executors read, sorted by name.
func SiteKeys() []SiteKey {
	out := append([]SiteKey(nil), siteKeys...)
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}
