package conf

import (
	"fmt"
	"slices"
	"strconv"
)

// Property is one named configuration value together with what Hadoop keeps
// beside it. Source and Line say where the value was read, so that messages
// about a bad value can point at the file a user has to edit.
type Property struct {
	Name        string
	Value       string
	Description string
	// Source names the file (or other origin) the value came from; empty for
	// values set by code.
	Source string
	// Line is the 1-based line of the definition in Source, 0 when unknown.
	Line int
	// Final protects the value from being replaced by a later Merge.
	Final bool
}

// Where returns "source:line", "source" or "" for use at the front of a
// message about p's value.
func (p Property) Where() string {
	if p.Source == "" || p.Line <= 0 {
		return p.Source
	}
	return p.Source + ":" + strconv.Itoa(p.Line)
}

// Config is an ordered set of properties. Names keep the order in which they
// were first defined, because users read written-out configurations and job
// logs more easily in the order of their own files.
//
// The zero value is an empty Config ready to use. A Config is safe for
// concurrent reads; writes need the caller's synchronisation, as with a map.
// Copying a Config value shares its storage: use Clone for an independent copy.
type Config struct {
	props    []Property
	index    map[string]int // name -> position in props
	resolver Resolver
}

// New returns an empty Config. It is equivalent to new(Config) and exists so
// call sites read naturally.
func New() *Config { return &Config{} }

// FromMap returns a Config holding m, with names in sorted order since a map
// has none of its own.
func FromMap(m map[string]string) *Config {
	c := New()
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	slices.Sort(names)
	for _, k := range names {
		c.Set(k, m[k])
	}
	return c
}

// Set assigns value to name. Like Hadoop's Configuration.set it is a
// programmatic override and ignores finality; an existing property keeps its
// position, description and Final flag, and its source becomes empty because
// the value no longer comes from that file.
func (c *Config) Set(name, value string) {
	if i, ok := c.index[name]; ok {
		p := &c.props[i]
		p.Value, p.Source, p.Line = value, "", 0
		return
	}
	c.add(Property{Name: name, Value: value})
}

// SetProperty stores p as is, replacing any property of the same name (final
// or not) but keeping that name's position.
func (c *Config) SetProperty(p Property) {
	if i, ok := c.index[p.Name]; ok {
		c.props[i] = p
		return
	}
	c.add(p)
}

// load applies p the way a resource load does: it replaces an existing value
// unless that value is final. It reports whether p was applied.
func (c *Config) load(p Property) bool {
	if i, ok := c.index[p.Name]; ok {
		if c.props[i].Final {
			return false
		}
		c.props[i] = p
		return true
	}
	c.add(p)
	return true
}

func (c *Config) add(p Property) {
	if c.index == nil {
		c.index = make(map[string]int)
	}
	c.index[p.Name] = len(c.props)
	c.props = append(c.props, p)
}

// Get returns the value of name with ${var} references expanded (see Expand),
// and whether name is defined at all.
func (c *Config) Get(name string) (string, bool) {
	i, ok := c.index[name]
	if !ok {
		return "", false
	}
	v := c.props[i].Value
	if !hasRef(v) {
		return v, true
	}
	e := expander{c: c}
	return e.run(name, v), true
}

// GetDefault returns the expanded value of name, or def when name is not
// defined.
func (c *Config) GetDefault(name, def string) string {
	if v, ok := c.Get(name); ok {
		return v
	}
	return def
}

// Raw returns the value of name exactly as it was set, without expansion.
func (c *Config) Raw(name string) (string, bool) {
	if i, ok := c.index[name]; ok {
		return c.props[i].Value, true
	}
	return "", false
}

// Lookup returns the whole property record for name, for callers that need its
// source or finality.
func (c *Config) Lookup(name string) (Property, bool) {
	if i, ok := c.index[name]; ok {
		return c.props[i], true
	}
	return Property{}, false
}

// Has reports whether name is defined, even with an empty value.
func (c *Config) Has(name string) bool {
	_, ok := c.index[name]
	return ok
}

// Delete removes name; deleting an undefined name does nothing. Deletion
// ignores finality, as Hadoop's unset does.
func (c *Config) Delete(name string) {
	i, ok := c.index[name]
	if !ok {
		return
	}
	c.props = slices.Delete(c.props, i, i+1)
	delete(c.index, name)
	for j := i; j < len(c.props); j++ {
		c.index[c.props[j].Name] = j
	}
}

// Len returns the number of defined names.
func (c *Config) Len() int { return len(c.props) }

// Names returns the defined names in insertion order.
func (c *Config) Names() []string {
	names := make([]string, len(c.props))
	for i, p := range c.props {
		names[i] = p.Name
	}
	return names
}

// SortedNames returns the defined names in byte-wise sorted order, for output
// that must not depend on how the Config was assembled.
func (c *Config) SortedNames() []string {
	names := c.Names()
	slices.Sort(names)
	return names
}

// Properties returns a copy of all properties in insertion order, with raw
// values.
func (c *Config) Properties() []Property {
	return slices.Clone(c.props)
}

// Merge applies each of others to c in turn, in place, and returns c so that
// New().Merge(a, b) reads as "a, overridden by b". A later value replaces an
// earlier one (keeping the earlier position) unless the earlier property is
// final; this is Hadoop's resource-loading rule. Nil Configs are skipped.
func (c *Config) Merge(others ...*Config) *Config {
	for _, o := range others {
		if o == nil {
			continue
		}
		// Copy first so that c.Merge(c) cannot observe its own changes.
		for _, p := range slices.Clone(o.props) {
			c.load(p)
		}
	}
	return c
}

// MergeDefaults adds the properties of each of defaults whose names c does not
// define yet, and returns c. This is how Oozie applies config-default.xml: a
// default never overrides a job property, final or not.
func (c *Config) MergeDefaults(defaults ...*Config) *Config {
	for _, d := range defaults {
		if d == nil {
			continue
		}
		for _, p := range slices.Clone(d.props) {
			if !c.Has(p.Name) {
				c.add(p)
			}
		}
	}
	return c
}

// Clone returns an independent copy of c, including its Resolver.
func (c *Config) Clone() *Config {
	n := &Config{props: slices.Clone(c.props), resolver: c.resolver}
	if len(c.props) > 0 {
		n.index = make(map[string]int, len(c.props))
		for i, p := range n.props {
			n.index[p.Name] = i
		}
	}
	return n
}

// ToMap returns the raw (unexpanded) values keyed by name.
func (c *Config) ToMap() map[string]string {
	m := make(map[string]string, len(c.props))
	for _, p := range c.props {
		m[p.Name] = p.Value
	}
	return m
}

// ExpandedMap returns every value expanded as Get would, keyed by name: the
// configuration an action actually sees.
func (c *Config) ExpandedMap() map[string]string {
	m := make(map[string]string, len(c.props))
	for _, p := range c.props {
		m[p.Name], _ = c.Get(p.Name)
	}
	return m
}

// String summarises c for debugging; it is not a serialisation format.
func (c *Config) String() string {
	return fmt.Sprintf("conf.Config(%d properties)", len(c.props))
}
