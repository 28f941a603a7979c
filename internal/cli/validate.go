package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/gozie/gozie/internal/action/custom"
	"github.com/gozie/gozie/internal/engine"
	"github.com/gozie/gozie/internal/fsys"
	"github.com/gozie/gozie/internal/vocab"
)

// appFiles are the definition files a directory argument of validate is
// searched for, as an Oozie application directory holds them.
var appFiles = []string{"workflow.xml", "coordinator.xml", "bundle.xml"}

func runValidate(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("validate", "[-config job.properties] [-D name=value]... [-site gozie-site.xml] FILE|DIR...", stderr)
	pf := addPropertyFlags(fs, "job properties (.properties or .xml) whose settings apply, e.g. oozie.wf.validate.ForkJoin")
	oozie := fs.String("oozie", "", "validate on this server instead of offline (one FILE)")
	site := siteFlag(fs)
	files, err := parseInterspersed(fs, args)
	if err != nil {
		return flagStatus(err)
	}
	if *oozie != "" {
		return remoteValidate(*oozie, files, stdout, stderr)
	}
	if len(files) == 0 {
		fmt.Fprintln(stderr, "Error: at least one file must be specified")
		fs.Usage()
		return exitUsage
	}
	props, err := pf.load()
	if err == nil {
		err = useStores(*site)
	}
	if err != nil {
		fmt.Fprintf(stderr, "Error: %v\n", err)
		return exitUsage
	}
	opts, err := engine.ValidateSettings(props)
	if err != nil {
		fmt.Fprintf(stderr, "Error: %v\n", err)
		return exitUsage
	}
	// -config names the job's properties: a coordinator then gets every
	// submission check, and what a workflow will not resolve at run time
	// is warned about. Without it, what needs a property is a warning.
	opts.Complete = pf.config != ""
	// Custom action types (gozie.action.executable.<element>) are server
	// keys too: offline they come from the same properties.
	for name := range custom.CustomTypes(opts.Workflow.JobConf) {
		opts.Workflow.ExtensionActions[name] = true
	}

	paths, err := expandAppDirs(files)
	if err != nil {
		fmt.Fprintf(stderr, "Error: %v\n", err)
		return exitFail
	}
	status := exitOK
	for _, path := range paths {
		kind, warnings, err := validateFile(path, opts)
		prefix := ""
		if len(paths) > 1 {
			prefix = path + ": "
		}
		if err != nil {
			fmt.Fprintf(stderr, "Error: %s: %v\n", path, err)
			status = exitFail
			continue
		}
		fmt.Fprintf(stdout, "%sValid %s\n", prefix, kind)
		for _, w := range warnings {
			fmt.Fprintf(stderr, "Warning: %s%s\n", prefix, w)
		}
	}
	return status
}

// expandAppDirs replaces each directory argument by the definition files it
// holds; plain files pass through unchanged.
func expandAppDirs(args []string) ([]string, error) {
	var out []string
	ctx := context.Background()
	for _, a := range args {
		if fsys.Scheme(a) == "file" {
			l, err := fsys.Local(a) // refuses file://otherhost/...
			if err != nil {
				return nil, err
			}
			a = l
		}
		info, err := fsys.Stat(ctx, a)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil, fmt.Errorf("file does not exist: %s", a)
			}
			return nil, err
		}
		if !info.IsDir() {
			out = append(out, a)
			continue
		}
		found := false
		for _, name := range appFiles {
			p := filepath.Join(a, name)
			if fsys.Scheme(a) != "" {
				p = strings.TrimSuffix(a, "/") + "/" + name
			}
			if ok, _ := fsys.Exists(ctx, p); ok {
				out = append(out, p)
				found = true
			}
		}
		if !found {
			return nil, fmt.Errorf("directory %s holds none of %s", a, strings.Join(appFiles, ", "))
		}
	}
	return out, nil
}

// validateFile checks one definition and returns the name of its root
// element ("workflow-app", ...) as Oozie's validate reports it, with
// warnings about what is valid but would not run here (action types this
// build does not run), what could not be checked without the job's
// properties and, with them, what will not resolve at run time. It takes
// the code path of the server's validate (engine.ValidateDefinition), with
// the job properties: a coordinator is checked as its submission would be.
func validateFile(path string, opts engine.ValidateOptions) (string, []string, error) {
	data, err := readLocalFile(path)
	if err != nil {
		return "", nil, err
	}
	v, err := engine.ValidateDefinition(data, path, opts)
	if err != nil {
		return "", nil, withLocation(err)
	}
	warnings := v.Warnings
	if v.Workflow != nil {
		warnings = append(unrunnableActions(v.Workflow, custom.CustomTypes(opts.Workflow.JobConf)), warnings...)
	}
	return v.Kind, warnings, nil
}

// withLocation appends the line and column of a workflow error to its
// message when the message does not already carry them: graph errors keep
// Oozie's exact wording, but a person fixing the file needs the place.
func withLocation(err error) error {
	if loc := vocab.Location(err); loc != "" {
		return fmt.Errorf("%w%s", err, loc)
	}
	return err
}
