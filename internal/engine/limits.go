package engine

import (
	"context"
	"errors"

	"github.com/gozie/gozie/internal/conf"
	"github.com/gozie/gozie/internal/coord"
	"github.com/gozie/gozie/internal/fsys"
	"github.com/gozie/gozie/internal/launch"
	"github.com/gozie/gozie/internal/osuser"
	"github.com/gozie/gozie/internal/vocab"
)

// CodeDefinitionTooLarge is Oozie's code for a workflow definition longer
// than oozie.service.WorkflowAppService.WorkflowDefinitionMaxLength; gozie
// uses it for every definition file over Options.MaxDefinitionBytes.
const CodeDefinitionTooLarge = "E0736"

// ReadDefinition reads a workflow or coordinator definition (or a dataset
// include) through the bounded reader: only a regular file, at most
// MaxDefinitionBytes, and no longer than ctx lives. Refusals are *Error
// with E0736 (too large) or E0710 (not a regular file).
func (e *Engine) ReadDefinition(ctx context.Context, p string) ([]byte, error) {
	data, err := fsys.ReadFileLimit(ctx, p, e.opts.MaxDefinitionBytes)
	if err != nil {
		return nil, readFailure(err)
	}
	return data, nil
}

// ReadConfFile reads and parses a config-default.xml or <job-xml> file,
// bounded by MaxConfFileBytes, refusing as ReadDefinition does.
func (e *Engine) ReadConfFile(ctx context.Context, p string) (*conf.Config, error) {
	c, _, err := e.readConfFileSize(ctx, p)
	return c, err
}

// readConfFileSize is ReadConfFile also returning the file's size.
func (e *Engine) readConfFileSize(ctx context.Context, p string) (*conf.Config, int, error) {
	data, err := fsys.ReadFileLimit(ctx, p, e.opts.MaxConfFileBytes)
	if err != nil {
		return nil, 0, readFailure(err)
	}
	c, err := conf.ParseFileBytes(data, p)
	return c, len(data), err
}

// expandTotal is the limit in force on one configuration's expanded size.
func (e *Engine) expandTotal() int {
	if e.opts.Expand.Total > 0 {
		return e.opts.Expand.Total
	}
	return conf.DefaultExpandLimits.Total
}

// readFailure gives a refused read its Oozie code: E0736 for a file over
// its limit, E0710 (cannot read the definition) for a FIFO, device or
// directory. Other errors (missing file, canceled request) are returned
// as they are for the caller to word.
func readFailure(err error) error {
	var re *fsys.ReadError
	if !errors.As(err, &re) {
		return err
	}
	if errors.Is(err, fsys.ErrTooLarge) {
		return errorf(CodeDefinitionTooLarge, "Definition length of [%s] exceeded the maximum allowed length [%d] bytes", re.Path, re.Limit)
	}
	return errorf(CodeCannotRead, "Could not read the workflow definition, %v", err)
}

// JobUserContext returns ctx carrying the identity of the job's user when
// the server acts for it (Options.RunAsUser), so that what ReadDefinition
// and ReadConfFile read with it is checked against that user's rights; an
// unknown user (or root) is refused with JA002, as the actions would be.
// Without RunAsUser it returns ctx.
func (e *Engine) JobUserContext(ctx context.Context, user string) (context.Context, error) {
	u, err := e.jobUser(user)
	if err != nil {
		return nil, err
	}
	return fsys.WithUser(osuser.NewContext(ctx, u), user), nil
}

// jobUser is the identity the server acts with for user's jobs: nil
// (the server's own) without Options.RunAsUser.
func (e *Engine) jobUser(user string) (*osuser.User, error) {
	if !e.opts.RunAsUser {
		return nil, nil
	}
	u, err := osuser.Lookup(user)
	if err != nil {
		return nil, errorf(launch.CodeRunAsUser, "cannot read the job's files as user [%s]: %v", user, err)
	}
	return u, nil
}

// AsJobUser runs fn with the job user's file-system permission checks
// when the server acts for it (Options.RunAsUser), else as it is: the
// coordinator engine's input checks run through it.
func (e *Engine) AsJobUser(user string, fn func() error) error {
	u, err := e.jobUser(user)
	if err != nil {
		return err
	}
	return osuser.Do(u, fn)
}

// CheckExpansion refuses a configuration whose ${var} expansion passes the
// engine's limits (Options.Expand), as an *Error with code E1004 naming the
// property and the limit.
func (e *Engine) CheckExpansion(c *conf.Config) error {
	if err := c.CheckExpansion(e.opts.Expand); err != nil {
		var ee *conf.ExpandError
		if errors.As(err, &ee) {
			msg := err.Error()[len(conf.CodeExpand)+2:]
			return &Error{Code: conf.CodeExpand, Msg: msg}
		}
		return err
	}
	return nil
}

// cannotRead words a failed read of a workflow definition or its
// config-default.xml: coded refusals as they are, anything else (a missing
// file, a parse error, a canceled request) as E0710.
func cannotRead(err error) error {
	if vocab.AsCoded(err) != nil {
		return err
	}
	return errorf(CodeCannotRead, "Could not read the workflow definition, %v", err)
}

// MaxDefinitionBytes is the definition size limit in force, for callers
// that parse definitions themselves (the validate endpoint).
func (e *Engine) MaxDefinitionBytes() int64 { return e.opts.MaxDefinitionBytes }

// DefaultMaxActionBytes is the default of Options.MaxActionBytes: the
// largest action, as XML after EL, the engine starts and stores. Real
// actions are a few kilobytes (paths, arguments, a configuration of a few
// dozen properties); 2 MiB leaves room for one value as large as a
// configuration may expand to (conf.DefaultExpandLimits.Value, 1 MiB) and
// the rest of the action, and keeps what one action stores and show=info
// serves per action far from the 270 MB a few hundred references to a
// large property build. Coordinator actions' configurations have the same
// default.
const DefaultMaxActionBytes = coord.DefaultMaxActionBytes
