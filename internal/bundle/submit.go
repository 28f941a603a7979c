package bundle

import (
	"bytes"
	"errors"
	"io/fs"
	"strings"

	"github.com/gozie/gozie/internal/conf"
	"github.com/gozie/gozie/internal/vocab"
	"github.com/gozie/gozie/internal/xmltree"
)

// disallowedUserProps are the names a bundle job configuration may not
// set (Oozie's BundleSubmitXCommand list): EL constants a property would
// shadow.
var disallowedUserProps = []string{
	"YEAR", "MONTH", "DAY", "HOUR", "MINUTE", "DAYS", "HOURS", "MINUTES",
	"KB", "MB", "GB", "TB", "PB", "RECORDS", "MAP_IN", "MAP_OUT", "REDUCE_IN",
	"REDUCE_OUT", "GROUPS",
}

// disallowedDefaultProps are the names bundle-config-default.xml may not
// set: the user list and user.name.
var disallowedDefaultProps = append(append([]string(nil), disallowedUserProps...), PropUser)

// Submit reads, validates and resolves the bundle application of the job
// configuration props (oozie.bundle.application.path: the bundle.xml file
// or its directory; user.name), as Oozie's bundle submission does:
// bundle-config-default.xml beside the definition fills in what props do
// not set, the definition is checked against its schema, <parameters>
// defaults fill in further, and EL is resolved with the result. It returns
// the app and that full job configuration (values expanded, as Oozie
// stores it). Failures are *Error with Oozie's codes.
func Submit(props *conf.Config, opts SubmitOptions) (*App, *conf.Config, error) {
	if props == nil {
		props = conf.New()
	}
	for _, name := range []string{PropUser, PropAppPath} {
		if v, _ := props.Get(name); strings.TrimSpace(v) == "" {
			return nil, nil, vocab.Errorf(CodeNoProperty, "Missing configuration property [%s]", name)
		}
	}
	if opts.ReadFile == nil {
		return nil, nil, vocab.Errorf(CodeRead, "Could not read the bundle job definition, [no file reader]")
	}
	appURI, _ := props.Get(PropAppPath)
	// Oozie merges the defaults before it reads the definition, so their
	// refusals come first; where the defaults are depends on whether the
	// path names the file or its directory, which the read tells.
	data, file, readErr := readDefinition(strings.TrimSpace(appURI), opts.ReadFile)
	job := props.Clone()
	if err := mergeDefaults(job, conf.JoinAppPath(conf.AppPathDir(file), ConfigDefaultFile), opts.ReadFile); err != nil {
		return nil, nil, err
	}
	if readErr != nil {
		return nil, nil, readErr
	}
	root, err := parseValid(data)
	if err != nil {
		return nil, nil, err
	}
	if err := applyParameters(root, job); err != nil {
		return nil, nil, err
	}
	job = expanded(job)
	a, err := resolve(string(data), root, job)
	if err != nil {
		return nil, nil, err
	}
	return a, job, nil
}

// Load rebuilds an App from its stored Definition and the job
// configuration it was submitted with (Submit's second result); it reads
// no file.
func Load(definition string, props *conf.Config) (*App, error) {
	if props == nil {
		props = conf.New()
	}
	root, err := parseValid([]byte(definition))
	if err != nil {
		return nil, err
	}
	job := props.Clone()
	if err := applyParameters(root, job); err != nil {
		return nil, err
	}
	return resolve(definition, root, expanded(job))
}

// readDefinition reads the definition at appURI, or the bundle.xml in it
// when appURI is a directory (a read that fails or gives nothing). It
// returns the bytes and the file they came from.
func readDefinition(appURI string, read func(string) ([]byte, error)) ([]byte, string, error) {
	file := strings.TrimSuffix(appURI, "/")
	if i := strings.IndexAny(appURI, " \t\n\"<>\\^`{|}"); i >= 0 {
		// java.net.URI's refusal, which Oozie reports as E1302.
		return nil, conf.JoinAppPath(file, DefinitionFile), vocab.Errorf(CodeURI, "Invalid bundle application URI [%s], Illegal character in path at index %d: %s", appURI, i, appURI)
	}
	data, err := read(file)
	if refused, ok := err.(*Error); ok {
		return nil, file, refused
	}
	if err == nil && len(bytes.TrimSpace(data)) > 0 {
		return data, file, nil
	}
	file = conf.JoinAppPath(file, DefinitionFile)
	data, err = read(file)
	if refused, ok := err.(*Error); ok {
		return nil, file, refused
	}
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, file, vocab.Errorf(CodeRead, "Could not read the bundle job definition, [File %s does not exist]", file)
		}
		return nil, file, vocab.Errorf(CodeRead, "Could not read the bundle job definition, [%v]", err)
	}
	return data, file, nil
}

// mergeDefaults adds the properties of bundle-config-default.xml (at
// file) that job does not set, then refuses reserved names in the result.
func mergeDefaults(job *conf.Config, file string, read func(string) ([]byte, error)) error {
	def, err := read(file)
	if refused, ok := err.(*Error); ok {
		return refused
	}
	switch {
	case err == nil:
		dc, err := conf.ParseXML(bytes.NewReader(def), file)
		if err != nil {
			return submitErrorf(CodeConfigDefault, "%v : Problem reading default config %s", err, file)
		}
		if err := checkDisallowed(dc, disallowedDefaultProps); err != nil {
			return err
		}
		job.MergeDefaults(dc)
	case !errors.Is(err, fs.ErrNotExist):
		return submitErrorf(CodeConfigDefault, "%v : Problem reading default config %s", err, file)
	}
	return checkDisallowed(job, disallowedUserProps)
}

// checkDisallowed refuses a configuration that sets one of names (E0808,
// inside Oozie's E1310).
func checkDisallowed(c *conf.Config, names []string) error {
	for _, n := range names {
		if c.Has(n) {
			return submitErrorf(CodeDisallowed, "Disallowed user property [%s]", n)
		}
	}
	return nil
}

// parameters returns the <parameters> of a validated definition, names
// and defaults trimmed.
func parameters(root *xmltree.Element) []Parameter {
	var out []Parameter
	for _, p := range root.Child("parameters").ChildrenNamed("property") {
		v, has := p.LookupChildText("value")
		out = append(out, Parameter{Name: strings.TrimSpace(p.ChildText("name")), Value: strings.TrimSpace(v), HasDefault: has})
	}
	return out
}

// applyParameters sets the <parameters> defaults job lacks and fails with
// E0738 naming every required parameter without a value (spec: bundle
// 4.4); an empty name is E0739. Both are inside Oozie's E1310.
func applyParameters(root *xmltree.Element, job *conf.Config) error {
	var missing []string
	for _, p := range parameters(root) {
		if p.Name == "" {
			return submitErrorf(CodeEmptyParam, "Parameter name cannot be empty")
		}
		if job.Has(p.Name) {
			continue
		}
		if !p.HasDefault {
			missing = append(missing, p.Name)
			continue
		}
		job.Set(p.Name, p.Value)
	}
	if len(missing) > 0 {
		return submitErrorf(CodeMissingParam, "The following %d parameters are required but were not defined and no default values are available: %s",
			len(missing), strings.Join(missing, ", "))
	}
	return nil
}

// expanded returns job with every value's ${name} references expanded, as
// Oozie rewrites the job configuration before it resolves the definition.
func expanded(job *conf.Config) *conf.Config {
	out := conf.New()
	for _, n := range job.Names() {
		v, _ := job.Get(n)
		out.Set(n, v)
	}
	return out
}
