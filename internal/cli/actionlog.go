package cli

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/gozie/gozie/internal/client"
)

// actionLog is `gozie job -log ID@node`: the action's lines of the job
// log, then what its program wrote to stdout and to stderr (the files the
// action's consoleUrl serves), so that a step's output is one command
// away, as `gozie run` shows a failed step's. With -stream stdout|stderr
// only that stream is printed, byte for byte, for a pipe or a file.
func (j *jobCmd) actionLog(id string, o client.LogOptions) error {
	if s := j.f.stream; s != "" {
		if s != client.StreamStdout && s != client.StreamStderr {
			return userError("-stream must be stdout or stderr, not [" + s + "]")
		}
		out, err := j.c.ActionOutput(j.ctx, id, s)
		if err != nil {
			return explainNoOutput(err)
		}
		j.out.Write(out)
		return nil
	}
	text, err := j.c.JobLog(j.ctx, id, "log", o)
	if err != nil {
		return err
	}
	j.out.Write(text)
	for _, s := range []string{client.StreamStdout, client.StreamStderr} {
		out, err := j.c.ActionOutput(j.ctx, id, s)
		if noOutputResource(err) {
			// The log was the answer the server has (Apache Oozie).
			fmt.Fprintf(j.out, "----- no stdout or stderr: %s -----\n", errNoOutput)
			return nil
		}
		if err != nil {
			return err
		}
		fmt.Fprintf(j.out, "----- %s of %s -----\n", s, id)
		if len(out) == 0 {
			fmt.Fprintln(j.out, "(empty)")
			continue
		}
		j.out.Write(out)
		if out[len(out)-1] != '\n' {
			fmt.Fprintln(j.out)
		}
	}
	return nil
}

// errNoOutput is what a server without action output (Apache Oozie: the
// launcher's output is in Hadoop's logs) answers for it, in words.
const errNoOutput userError = "this server does not serve the stdout and stderr of actions (an Oozie server keeps them in Hadoop's logs: use the action's Console URL from -info)"

// noOutputResource reports the 404 without an Oozie code of a server
// that has no action output resource.
func noOutputResource(err error) bool {
	var ce *client.CallError
	return errors.As(err, &ce) && ce.Status == http.StatusNotFound && ce.Code == "HTTP error code: 404"
}

// explainNoOutput words noOutputResource's errors; others pass unchanged.
func explainNoOutput(err error) error {
	if noOutputResource(err) {
		return errNoOutput
	}
	return err
}
