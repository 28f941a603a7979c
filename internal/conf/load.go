package conf

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// LoadFile reads the configuration file at path: Hadoop XML when the name
// ends in .xml (in any case), Java .properties otherwise. Errors name path as
// the source.
func LoadFile(path string) (*Config, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if strings.EqualFold(filepath.Ext(path), ".xml") {
		return ParseXML(f, path)
	}
	return ParseProperties(f, path)
}

// ParseFileBytes parses data read from the file at path as LoadFile would:
// Hadoop XML when the name ends in .xml, Java .properties otherwise. It lets
// callers read the file through a bounded reader (fsys.ReadFileLimit) first.
func ParseFileBytes(data []byte, path string) (*Config, error) {
	if strings.EqualFold(filepath.Ext(path), ".xml") {
		return ParseXML(bytes.NewReader(data), path)
	}
	return ParseProperties(bytes.NewReader(data), path)
}

// ParseDefine splits a command-line definition "name=value" (the argument of
// -D) at its first '='. Whitespace around the name is dropped; the value is
// kept verbatim and may be empty or contain further '=' signs.
func ParseDefine(s string) (name, value string, err error) {
	name, value, ok := strings.Cut(s, "=")
	if !ok {
		return "", "", fmt.Errorf("conf: definition %q is not of the form name=value", s)
	}
	name = strings.TrimSpace(name)
	if name == "" {
		return "", "", fmt.Errorf("conf: definition %q has an empty name", s)
	}
	return name, value, nil
}

// ParseDefines applies each "name=value" definition to a new Config in order,
// with source "-D" so messages say where the values came from.
func ParseDefines(defs []string) (*Config, error) {
	c := New()
	for _, d := range defs {
		name, value, err := ParseDefine(d)
		if err != nil {
			return nil, err
		}
		c.SetProperty(Property{Name: name, Value: value, Source: "-D"})
	}
	return c, nil
}
