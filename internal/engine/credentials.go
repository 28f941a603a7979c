package engine

import (
	"context"

	"github.com/gozie/gozie/internal/action"
	"github.com/gozie/gozie/internal/credentials"
	"github.com/gozie/gozie/internal/vocab"
	"github.com/gozie/gozie/internal/workflow"
)

// credentials returns the credential types of the engine.
func (e *Engine) credentials() *credentials.Providers {
	if e.opts.Credentials != nil {
		return e.opts.Credentials
	}
	return defaultCredentials
}

var defaultCredentials = credentials.Default()

// CredentialProviders returns the credential types the engine's workflows
// may use (the server's validate checks a definition against them).
func (e *Engine) CredentialProviders() *credentials.Providers { return e.credentials() }

// credExecutor hands an action the credentials its cred attribute names
// before its executor starts it. It runs outside the job's lock (runStart),
// so that a credential executable taking its time holds up no other work
// of the job.
type credExecutor struct {
	action.Executor
	providers *credentials.Providers
	app       *workflow.App
	cred      string
}

// Start applies the credentials to the action's configuration, then
// starts it. A credential that cannot be obtained fails the action with
// its code (its error transition), as Oozie's JavaActionExecutor does.
func (c *credExecutor) Start(ctx context.Context, a *action.Context) (action.Result, error) {
	info := credentials.Info{User: a.User, JobID: a.JobID, ActionID: a.ActionID}
	if err := c.providers.Apply(ctx, c.app, c.cred, a.Conf, info); err != nil {
		return action.Result{}, action.Errorf(action.ErrorKindError, vocab.CodeOf(err), "%s", messageOf(err))
	}
	return c.Executor.Start(ctx, a)
}

// messageOf is a coded error's message without its code prefix.
func messageOf(err error) string {
	if ve := vocab.AsCoded(err); ve != nil {
		return ve.Msg
	}
	return err.Error()
}
