package cli

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/gozie/gozie/internal/action"
	"github.com/gozie/gozie/internal/conf"
	"github.com/gozie/gozie/internal/coord"
	"github.com/gozie/gozie/internal/workflow"
)

// appFiles are the definition files a directory argument of validate is
// searched for, as an Oozie application directory holds them.
var appFiles = []string{"workflow.xml", "coordinator.xml", "bundle.xml"}

func runValidate(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("validate", "[-config job.properties] [-D name=value]... FILE|DIR...", stderr)
	pf := addPropertyFlags(fs, "job properties (.properties or .xml) whose settings apply, e.g. oozie.wf.validate.ForkJoin")
	oozie := fs.String("oozie", "", "validate on this server instead of offline (one FILE)")
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
	if err != nil {
		fmt.Fprintf(stderr, "Error: %v\n", err)
		return exitUsage
	}
	opts := workflowOptions(props)

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

// workflowOptions derives parser options from the property set. Offline
// there is no server configuration, so the server switches Oozie reads from
// oozie-site.xml (oozie.validate.ForkJoin, oozie.actions.default.*) are taken
// from the same properties as the job's own settings.
func workflowOptions(props *conf.Config) workflow.Options {
	opts := workflow.DefaultOptions()
	if v, ok := props.Get(workflow.ServerPropValidateForkJoin); ok {
		if b, err := strconv.ParseBool(strings.TrimSpace(v)); err == nil {
			opts.ValidateForkJoin = b
		}
	}
	if v, ok := props.Get(workflow.ServerPropDefaultNameNode); ok {
		opts.DefaultNameNode = v
	}
	if v, ok := props.Get(workflow.ServerPropDefaultJobTrack); ok {
		opts.DefaultJobTracker = v
	}
	jobConf := make(map[string]string, props.Len())
	for _, name := range props.Names() {
		v, _ := props.Get(name)
		jobConf[name] = v
	}
	opts.JobConf = jobConf
	// Custom action types (gozie.action.executable.<element>) are server
	// keys too: offline they come from the same properties.
	for name := range action.CustomTypes(jobConf) {
		opts.ExtensionActions[name] = true
	}
	return opts
}

// expandAppDirs replaces each directory argument by the definition files it
// holds; plain files pass through unchanged.
func expandAppDirs(args []string) ([]string, error) {
	var out []string
	for _, a := range args {
		a = strings.TrimPrefix(a, "file://")
		info, err := os.Stat(a)
		if err != nil {
			return nil, fmt.Errorf("file does not exist: %s", a)
		}
		if !info.IsDir() {
			out = append(out, a)
			continue
		}
		found := false
		for _, name := range appFiles {
			p := filepath.Join(a, name)
			if _, err := os.Stat(p); err == nil {
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
// build does not run).
func validateFile(path string, opts workflow.Options) (string, []string, error) {
	data, err := readLocalFile(path)
	if err != nil {
		return "", nil, err
	}
	root, err := rootElement(data)
	if err != nil {
		return "", nil, err
	}
	switch root {
	case "workflow-app":
		app, err := workflow.Parse(data, opts)
		if err != nil {
			return "", nil, withLocation(err)
		}
		return root, unrunnableActions(app), nil
	case "coordinator-app":
		if _, err := coord.ParseApp(data); err != nil {
			return "", nil, err
		}
		return root, nil, nil
	case "datasets":
		if err := coord.ValidateDatasets(data); err != nil {
			return "", nil, err
		}
		return root, nil, nil
	case "bundle-app":
		return "", nil, fmt.Errorf("%s definitions cannot be validated yet: workflow-app, coordinator-app and datasets are supported in this version", root)
	default:
		return "", nil, fmt.Errorf("E0701: XML schema error, unknown root element <%s>; expected workflow-app, coordinator-app or datasets", root)
	}
}

// rootElement returns the local name of the document's first element without
// parsing the rest, so that the right parser can be chosen.
func rootElement(data []byte) (string, error) {
	d := xml.NewDecoder(bytes.NewReader(data))
	for {
		tok, err := d.Token()
		if err != nil {
			line, col := d.InputPos()
			if errors.Is(err, io.EOF) {
				return "", fmt.Errorf("E0701: XML schema error, no root element (line %d, column %d)", line, col)
			}
			return "", fmt.Errorf("E0701: XML schema error, %v (line %d, column %d)", err, line, col)
		}
		if se, ok := tok.(xml.StartElement); ok {
			return se.Name.Local, nil
		}
	}
}

// withLocation appends the line and column of a workflow error to its
// message when the message does not already carry them: graph errors keep
// Oozie's exact wording, but a person fixing the file needs the place.
func withLocation(err error) error {
	var we *workflow.Error
	if !errors.As(err, &we) || we.Line <= 0 || strings.Contains(we.Msg, "(line ") {
		return err
	}
	return fmt.Errorf("%w (line %d, column %d)", err, we.Line, we.Col)
}
