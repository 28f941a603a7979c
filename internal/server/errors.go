package server

import (
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"net/http"
	"strings"

	"github.com/gozie/gozie/internal/rest"
	"github.com/gozie/gozie/internal/store"
	"github.com/gozie/gozie/internal/vocab"
)

// apiError is a refusal with an Oozie error code and the HTTP status it is
// sent with.
type apiError struct {
	status int
	code   string
	msg    string // the full message, "CODE: text" as Oozie formats it
}

func (e *apiError) Error() string { return e.msg }

// errorf builds an apiError whose message is "<code>: <text>".
func errorf(status int, code, format string, args ...any) *apiError {
	return &apiError{status: status, code: code, msg: code + ": " + fmt.Sprintf(format, args...)}
}

// Request validation errors of the REST layer (rest-api.md 0.3).
func errInvalidResource(res string) *apiError {
	return errorf(http.StatusBadRequest, "E0301", "Invalid resource [%s]", res)
}
func errInvalidParam(name string) *apiError {
	return errorf(http.StatusBadRequest, "E0302", "Invalid parameter [%s]", name)
}
func errParamValue(name, value string) *apiError {
	return errorf(http.StatusBadRequest, "E0303", "Invalid parameter value, [%s] = [%s]", name, value)
}
func errMissingParam(name string) *apiError {
	return errorf(http.StatusBadRequest, "E0305", "Missing parameter [%s]", name)
}
func errContentType(ct string) *apiError {
	return errorf(http.StatusBadRequest, "E0300", "Invalid content-type [%s]", ct)
}

// errSafeMode is sent, without a code prefix in its message, for writes
// while the system mode is not NORMAL.
var errSafeMode = &apiError{status: http.StatusServiceUnavailable, code: "E0002", msg: "System is in safe mode"}

// errDiskFull refuses a write the store could not make for want of disk
// space. 503, like other refusals the client may retry later; reads keep
// working meanwhile. E0603 is Oozie's code for a failed store operation.
var errDiskFull = &apiError{status: http.StatusServiceUnavailable, code: "E0603",
	msg: "E0603: SQL error in operation, disk full: the server cannot write to its store (no space left on device); reads still work, writes are refused until space is freed"}

// errStoreUnavailable is the answer while the database is out of reach.
// The request changed nothing: every write is one transaction. The
// driver's error stays in the server log (it may name hosts and users).
var errStoreUnavailable = &apiError{status: http.StatusServiceUnavailable, code: "E0603",
	msg: "E0603: SQL error in operation, the database is unavailable; retry later (details in the server log)"}

// httpStatusOf maps an Oozie error code to the status the REST layer sends
// it with (rest-api.md 9.1): authorization failures are 401, everything
// else an engine refuses is 400.
func httpStatusOf(code string) int { return vocab.HTTPStatus(code) }

// toAPIError converts an engine, workflow or other error. A database that
// cannot be reached is 503 E0603 (Oozie's SQL error), so that clients and
// load balancers retry, and so is a full disk; other errors without an
// Oozie code are internal (internalError): 500 without their text.
func toAPIError(err error) *apiError {
	var ae *apiError
	if errors.As(err, &ae) {
		return ae
	}
	if store.IsDiskFull(err) {
		return errDiskFull
	}
	if errors.Is(err, store.ErrUnavailable) {
		return errStoreUnavailable
	}
	if errors.Is(err, store.ErrNotOwner) {
		// Handlers that know the job say which (jobMoved); the store's
		// own text stays in the server log.
		return errJobElsewhere("", "the job moved to another server while the command ran")
	}
	if ee := vocab.AsCoded(err); ee != nil {
		// The place in the document, as gozie validate prints it.
		return &apiError{status: httpStatusOf(ee.Code), code: ee.Code, msg: ee.Error() + vocab.Location(ee)}
	}
	if code := vocab.CodeOf(err); code != "" {
		msg := err.Error()
		if !strings.HasPrefix(msg, code) {
			msg = code + ": " + msg
		}
		return &apiError{status: httpStatusOf(code), code: code, msg: msg}
	}
	return internalError(err)
}

// internalError is the answer to an error without an Oozie code: a store
// failure (E0603, Oozie's SQL error) or anything else (E0307, its runtime
// error). The error's own text stays in the server log (redacted), never in
// the response: store and driver errors can name hosts, schemas, users and,
// from a malformed DSN, a password.
func internalError(err error) *apiError {
	if isStoreError(err) {
		return errorf(http.StatusInternalServerError, "E0603", "SQL error in operation, see the server log")
	}
	return errorf(http.StatusInternalServerError, "E0307", "Runtime error [internal error, see the server log]")
}

// isStoreError recognises the store's errors by type (store.ErrStore) or
// a database/sql sentinel.
func isStoreError(err error) bool {
	return store.IsStore(err) || errors.Is(err, sql.ErrConnDone) || errors.Is(err, sql.ErrTxDone)
}

// writeError sends an error as Oozie does: the code and message in the
// oozie-error-* headers and the JSON body of its error page, which also
// carries the code (errorCode), so that whoever reads only the body
// knows it: some messages do not start with their code (E0002, E1603).
// An answer without an Oozie code (hadoop-auth's bare 401, a path outside
// the servlets) has none in either place.
func writeError(w http.ResponseWriter, err error) {
	ae := toAPIError(err)
	h := w.Header()
	body := rest.ErrorBody{HTTPStatusCode: ae.status, ErrorMessage: html.EscapeString(ae.msg)}
	if ae.code != "" {
		h.Set("oozie-error-code", ae.code)
		h.Set("oozie-error-message", oneLine(ae.msg))
		body.ErrorCode = ae.code
	}
	writeJSONStatus(w, ae.status, body)
}

func oneLine(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c == '\n' || c == '\r' {
			b[i] = ' '
		}
	}
	return string(b)
}

const (
	jsonType = `application/json; charset="UTF-8"`
	xmlType  = `application/xml; charset="UTF-8"`
	textType = `text/plain; charset="UTF-8"`
)

func writeJSON(w http.ResponseWriter, v any) { writeJSONStatus(w, http.StatusOK, v) }

func writeJSONStatus(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		status, b = http.StatusInternalServerError, []byte(`{"httpStatusCode":500,"errorMessage":"encoding failed"}`)
	}
	w.Header().Set("Content-Type", jsonType)
	w.WriteHeader(status)
	_, _ = w.Write(b)
}
