package console

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/gozie/gozie/internal/engine"
	"github.com/gozie/gozie/internal/rest"
)

// failure is a console answer that is not a success: its HTTP status, its
// Oozie error code and the message, "CODE: text" as the REST API writes
// them, so that a page and a script see the same code as an Oozie client.
type failure struct {
	status int
	code   string
	msg    string
}

// Oozie's codes for the console's own refusals (rest-api.md 9.1).
const (
	codeInvalidResource = "E0301" // no such page or method
	codeParamValue      = "E0303" // a parameter the console cannot use
	codeMissingParam    = "E0305" // a form without what it needs
	codeRuntime         = "E0307" // the console itself failed
	codeNotAuthorized   = "E0500" // the console is read-only
)

func failf(status int, code, format string, args ...any) failure {
	return failure{status: status, code: code, msg: code + ": " + fmt.Sprintf(format, args...)}
}

// failureOf is what the console says of an error of the engine or the
// store: the REST API's code and message (Options.ErrorOf, which also
// logs what it hides), 404 for a job or action that does not exist, since
// that is a page that does not exist.
func (c *Console) failureOf(err error) failure {
	var f failure
	switch {
	case c.opts.ErrorOf != nil:
		f.status, f.code, f.msg = c.opts.ErrorOf(err)
	case engine.ErrorCode(err) != "":
		f = failure{status: http.StatusBadRequest, code: engine.ErrorCode(err), msg: err.Error()}
	default:
		// The error's text may name hosts or users of the store: not
		// for a page.
		f = failf(http.StatusInternalServerError, codeRuntime, "Runtime error [internal error, see the server log]")
	}
	if f.code == engine.CodeJobNotFound || f.code == engine.CodeActionNotFound {
		f.status = http.StatusNotFound
	}
	if f.code != "" && !strings.HasPrefix(f.msg, f.code) {
		f.msg = f.code + ": " + f.msg
	}
	return f
}

// setErrorHeaders puts the code and message where Oozie's clients look
// for them.
func setErrorHeaders(w http.ResponseWriter, f failure) {
	if f.code == "" {
		return
	}
	w.Header().Set("oozie-error-code", f.code)
	w.Header().Set("oozie-error-message", strings.NewReplacer("\r", " ", "\n", " ").Replace(f.msg))
}

// fail renders the error page of a failure, its code on the page and in
// the headers.
func (c *Console) fail(w http.ResponseWriter, r *http.Request, f failure) {
	setErrorHeaders(w, f)
	c.render(w, f.status, "error", page{Title: "Error", Data: f.msg})
}

// engineFail renders the error page of an engine or store error.
func (c *Console) engineFail(w http.ResponseWriter, r *http.Request, err error) {
	c.fail(w, r, c.failureOf(err))
}

// writeError answers a console request the REST API's way: the
// oozie-error-* headers and the JSON body of Oozie's error page, with the
// code.
func writeError(w http.ResponseWriter, f failure) {
	setErrorHeaders(w, f)
	body := rest.ErrorBody{HTTPStatusCode: f.status, ErrorMessage: f.msg, ErrorCode: f.code}
	b, _ := json.Marshal(body)
	w.Header().Set("Content-Type", `application/json; charset="UTF-8"`)
	w.WriteHeader(f.status)
	_, _ = w.Write(b)
}
