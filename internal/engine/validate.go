package engine

import (
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/gozie/gozie/internal/bundle"
	"github.com/gozie/gozie/internal/conf"
	"github.com/gozie/gozie/internal/coord"
	"github.com/gozie/gozie/internal/credentials"
	"github.com/gozie/gozie/internal/fsys"
	"github.com/gozie/gozie/internal/vocab"
	"github.com/gozie/gozie/internal/workflow"
	"github.com/gozie/gozie/internal/xmltree"
)

// Server settings a validation reads. Offline (gozie validate) there is no
// server configuration, so they are read from the job properties, as the
// fork/join switch and the action defaults are (see ValidateSettings).
const (
	// PropOozieDefinitionMax is Oozie's name for the definition length
	// limit; gozie's own key is PropDefinitionMax.
	PropOozieDefinitionMax = vocab.PropOozieDefinitionMax
	PropDefinitionMax      = vocab.PropDefinitionMax
	// PropCoordCheckMaxFrequency false turns the coordinator frequency
	// check off (Oozie's oozie.service.coord.check.maximum.frequency).
	PropCoordCheckMaxFrequency = vocab.PropCoordCheckMaxFrequency
	PropCoordMinFrequency      = vocab.PropCoordMinFrequency
)

// DefinitionMaxBytes picks the definition length limit from two settings:
// gozie.definition.max.bytes when set, else Oozie's
// oozie.service.WorkflowAppService.WorkflowDefinitionMaxLength when set,
// else Oozie's default of 100000 bytes. A value that is not an integer is
// an error naming the key.
func DefinitionMaxBytes(get func(string) (string, bool)) (int64, error) {
	for _, key := range []string{PropDefinitionMax, PropOozieDefinitionMax} {
		v, ok := get(key)
		if v = strings.TrimSpace(v); !ok || v == "" {
			continue
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("configuration key %s: %q is not an integer", key, v)
		}
		return n, nil
	}
	return fsys.DefaultMaxDefinition, nil
}

// ValidateOptions are the settings of ValidateDefinition.
type ValidateOptions struct {
	// Workflow are the parser options of workflow definitions.
	Workflow workflow.Options
	// Props are the job properties known; nil means none (the server's
	// validate of an uploaded file, which reads no other file).
	Props *conf.Config
	// Complete says Props are the job's configuration (gozie validate
	// -config): a coordinator gets every check of a submission, a
	// variable they do not define failing it (E1004), and the variables
	// a workflow reads at run time — the one validated, or the one a
	// coordinator's actions launch — that its configuration will not
	// define are warned about. Without it a coordinator is checked as far
	// as Props allow: what needs a variable they do not define is left
	// unchecked and said in Validation.Warnings.
	Complete bool
	// MaxDefinitionBytes bounds the document (E0736); 0 means 100000,
	// negative no bound.
	MaxDefinitionBytes int64
	// MinFrequencyMinutes is the coordinator frequency check, as
	// coord.SubmitOptions has it.
	MinFrequencyMinutes int
	// ReadFile reads the files a coordinator refers to (config-default.xml
	// and dataset includes); nil reads local files, bounded.
	ReadFile func(path string) ([]byte, error)
	// Credentials are the credential types a workflow's <credentials> may
	// use (the submission's JA021/JA020 checks); nil: the built-ins.
	Credentials *credentials.Providers
}

// ValidateSettings derives validation options from a property set: the
// job's own switches and, offline, the server switches Oozie reads from
// oozie-site.xml (oozie.validate.ForkJoin, oozie.actions.default.*, the
// definition length limit, the coordinator frequency check), taken from
// the same properties.
func ValidateSettings(props *conf.Config) (ValidateOptions, error) {
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
	max, err := DefinitionMaxBytes(props.Get)
	if err != nil {
		return ValidateOptions{}, err
	}
	opts.MaxDefinitionLength = int(max)
	if max <= 0 {
		opts.MaxDefinitionLength = -1
	}
	v := ValidateOptions{Workflow: opts, Props: props, MaxDefinitionBytes: max}
	// Offline, the server's credential keys come with the properties.
	if v.Credentials, err = credentials.FromConfig(jobConf); err != nil {
		return ValidateOptions{}, err
	}
	if s, ok := props.Get(PropCoordMinFrequency); ok {
		if n, err := strconv.Atoi(strings.TrimSpace(s)); err == nil {
			v.MinFrequencyMinutes = n
		}
	}
	if s, ok := props.Get(PropCoordCheckMaxFrequency); ok && strings.EqualFold(strings.TrimSpace(s), "false") {
		v.MinFrequencyMinutes = -1
	}
	return v, nil
}

// Validation is the verdict of ValidateDefinition on a valid document.
type Validation struct {
	// Kind is the root element: workflow-app, coordinator-app, datasets.
	Kind string
	// Workflow is the parsed workflow of a workflow-app.
	Workflow *workflow.App
	// Warnings are what could not be checked without the job's
	// properties, and what is valid but will fail at run time.
	Warnings []string
}

// ValidateDefinition checks one definition document read from path, the
// one code path of gozie validate and of the server's validate: the same
// mistake gets the same Oozie error code from both. Workflows are parsed
// as at submission; coordinators are submitted without a store
// (coord.Submit: every check that needs no clock), completely with the
// job's properties (Complete), else as far as the properties known allow
// (coord.CheckDefinition: the rest is in the warnings); dataset files are
// checked as includes are. Bundles are submitted without a store
// (bundle.Submit) with the job's properties (Complete), else checked as
// far as the properties known allow (bundle.CheckDefinitionProps).
func ValidateDefinition(data []byte, path string, o ValidateOptions) (*Validation, error) {
	max := o.MaxDefinitionBytes
	if max == 0 {
		max = fsys.DefaultMaxDefinition
	}
	root, err := rootElement(data)
	if err != nil {
		return nil, err
	}
	if max > 0 && int64(len(data)) > max && root != "workflow-app" {
		return nil, errorf(CodeDefinitionTooLarge, "Definition length of [%s] exceeded the maximum allowed length [%d] bytes", path, max)
	}
	switch root {
	case "workflow-app":
		wo := o.Workflow
		wo.MaxDefinitionLength = int(max)
		if max < 0 {
			wo.MaxDefinitionLength = -1
		}
		app, err := workflow.Parse(data, wo)
		if err != nil {
			return nil, err
		}
		creds := o.Credentials
		if creds == nil {
			creds = defaultCredentials
		}
		if err := creds.Check(app); err != nil {
			return nil, err
		}
		v := &Validation{Kind: root, Workflow: app}
		if o.Complete && o.Props != nil {
			local := fsys.Scheme(path) == "" || fsys.Scheme(path) == "file"
			v.Warnings = workflowRunWarnings(context.Background(), data, app, parentOf(path, local), o.Props.Clone(), "")
		}
		return v, nil
	case "coordinator-app":
		warnings, err := validateCoordinator(data, path, o, max)
		if err != nil {
			return nil, err
		}
		return &Validation{Kind: root, Warnings: warnings}, nil
	case "datasets":
		if err := coord.ValidateDatasets(data); err != nil {
			return nil, CoordError(err)
		}
		return &Validation{Kind: root}, nil
	case "bundle-app":
		warnings, err := validateBundle(data, path, o)
		if err != nil {
			return nil, err
		}
		return &Validation{Kind: root, Warnings: warnings}, nil
	default:
		return nil, errorf(workflow.CodeSchema, "XML schema error, unknown root element <%s>; expected workflow-app, coordinator-app, bundle-app or datasets", root)
	}
}

// validateCoordinator submits the coordinator at path with the job
// properties, as the server would, but stores nothing. The user defaults
// to the one running the check and the application path to the file (to
// its directory for a coordinator.xml, as job properties name it). With
// the job's properties (Complete) it fails as a submission would and
// warns about what the workflow its actions launch will not resolve;
// otherwise what needs an undefined variable is reported in the warnings.
// Without any properties (the server) it reads no file but the document.
func validateCoordinator(data []byte, path string, o ValidateOptions, max int64) ([]string, error) {
	props := conf.New()
	if o.Props != nil {
		props = o.Props.Clone()
	}
	if u, _ := props.Get(PropUser); strings.TrimSpace(u) == "" {
		name := "gozie"
		if cu, err := user.Current(); err == nil && cu.Username != "" {
			name = cu.Username
		}
		props.Set(PropUser, name)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		abs = path
	}
	appPath := abs
	if filepath.Base(abs) == "coordinator.xml" {
		appPath = filepath.Dir(abs)
	}
	props.Set(coord.PropAppPath, appPath)
	read := o.ReadFile
	switch {
	case o.Props == nil:
		read = func(string) ([]byte, error) { return nil, coord.ErrNoFiles }
	case read == nil:
		read = boundedCoordReader(context.Background(), max, fsys.DefaultMaxConfFile)
	}
	// The document was read by the caller: the submission sees those
	// bytes, not the file again.
	readApp := func(p string) ([]byte, error) {
		switch p {
		case abs:
			return data, nil
		case appPath:
			return nil, fs.ErrNotExist // a directory: Submit reads its coordinator.xml
		}
		return read(p)
	}
	opts := coord.SubmitOptions{ReadFile: readApp, Now: time.Now(), MinFrequencyMinutes: o.MinFrequencyMinutes}
	if !o.Complete {
		warnings, err := coord.CheckDefinition(props, opts)
		return warnings, CoordError(err)
	}
	app, job, err := coord.Submit(props, opts)
	if err != nil {
		return nil, CoordError(err)
	}
	return launchedWorkflowWarnings(app, job, o, max), nil
}

// validateBundle checks the bundle at path. With the job's properties
// (Complete) it is submitted as the server would, reading its
// bundle-config-default.xml, but nothing is stored; otherwise what needs a
// variable the properties known do not define is in the warnings. The
// coordinators it names are not read: Oozie reads them when the bundle
// starts.
func validateBundle(data []byte, path string, o ValidateOptions) ([]string, error) {
	if !o.Complete || o.Props == nil {
		return bundle.CheckDefinitionProps(data, o.Props)
	}
	props := o.Props.Clone()
	if u, _ := props.Get(PropUser); strings.TrimSpace(u) == "" {
		name := "gozie"
		if cu, err := user.Current(); err == nil && cu.Username != "" {
			name = cu.Username
		}
		props.Set(PropUser, name)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		abs = path
	}
	props.Set(bundle.PropAppPath, abs)
	read := o.ReadFile
	if read == nil {
		read = func(p string) ([]byte, error) {
			return fsys.ReadFileLimit(context.Background(), p, fsys.DefaultMaxConfFile)
		}
	}
	readApp := func(p string) ([]byte, error) {
		if p == abs {
			return data, nil // the document the caller read
		}
		return read(p)
	}
	_, _, err = bundle.Submit(props, bundle.SubmitOptions{ReadFile: readApp, Now: time.Now()})
	return nil, err
}

// boundedCoordReader reads the files of a coordinator submission through
// the bounded reader: config-default.xml up to maxConf bytes, everything
// else (coordinator.xml, dataset includes) up to maxDef. Refusals (too
// large, not a regular file) are *coord.Error, as coord.SubmitOptions
// wants them; a directory is not one, since the app path may name it.
func boundedCoordReader(ctx context.Context, maxDef, maxConf int64) func(string) ([]byte, error) {
	return func(p string) ([]byte, error) {
		max := maxDef
		if filepath.Base(p) == "config-default.xml" {
			max = maxConf
		}
		if max <= 0 {
			max = 1 << 40
		}
		data, err := fsys.ReadFileLimit(ctx, p, max)
		var re *fsys.ReadError
		if errors.As(err, &re) && !re.Mode.IsDir() {
			var ee *Error
			errors.As(readFailure(err), &ee)
			return nil, &coord.Error{Code: ee.Code, Msg: ee.Msg}
		}
		return data, err
	}
}

// rootElement returns the local name of the document's first element
// without parsing the rest, so that the right parser can be chosen.
// Malformed XML is E0701 with the position.
func rootElement(data []byte) (string, error) {
	d := xmltree.NewDecoder(data)
	for {
		tok, err := d.Token()
		if err != nil {
			line, col := d.InputPos()
			if errors.Is(err, io.EOF) {
				return "", errorf(workflow.CodeSchema, "XML schema error, no root element (line %d, column %d)", line, col)
			}
			return "", errorf(workflow.CodeSchema, "XML schema error, %v (line %d, column %d)", err, line, col)
		}
		if se, ok := tok.(xml.StartElement); ok {
			return se.Name.Local, nil
		}
	}
}
