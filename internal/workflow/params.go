package workflow

import "strings"

// ApplyParameters checks the <parameters> section against the job
// properties at submission. Parameters without a <value> are required: when
// defined(name) is false for any of them the result is E0738 naming all of
// them. It returns the default values of the optional parameters the job did
// not define, in declaration order, for the caller to add to the job
// configuration. A parameter with an empty name is E0739.
func (a *App) ApplyParameters(defined func(name string) bool) ([]Property, error) {
	var missing []string
	var defaults []Property
	for _, p := range a.Parameters {
		if strings.TrimSpace(p.Name) == "" {
			return nil, newError(CodeEmptyParameterName, "Parameter name cannot be empty")
		}
		if defined(p.Name) {
			continue
		}
		if !p.HasValue {
			missing = append(missing, p.Name)
			continue
		}
		defaults = append(defaults, Property{Name: p.Name, Value: p.Value})
	}
	if len(missing) > 0 {
		return nil, newError(CodeMissingParameters,
			"The following %d parameters are required but were not defined and no default values are available: %s",
			len(missing), strings.Join(missing, ","))
	}
	return defaults, nil
}
