package server

import (
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"net/http"
	"strings"

	"github.com/gozie/gozie/internal/engine"
	"github.com/gozie/gozie/internal/store"
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

// errStoreUnavailable is the answer while the database is out of reach.
// The request changed nothing: every write is one transaction.
func errStoreUnavailable(err error) *apiError {
	return errorf(http.StatusServiceUnavailable, "E0603", "SQL error in operation, %v", err)
}

// httpStatusOf maps an Oozie error code to the status the REST layer sends
// it with (rest-api.md 9.1): authorization failures are 401, everything
// else an engine refuses is 400.
func httpStatusOf(code string) int {
	switch code {
	case "E0002":
		return http.StatusServiceUnavailable
	case "E0503", "E0508", "E0509", "E1400":
		return http.StatusUnauthorized
	}
	return http.StatusBadRequest
}

// toAPIError converts an engine, workflow or other error. A database that
// cannot be reached is 503 E0603 (Oozie's SQL error), so that clients and
// load balancers retry; other errors without an Oozie code are internal:
// 500 E0307 (Oozie's runtime error).
func toAPIError(err error) *apiError {
	var ae *apiError
	if errors.As(err, &ae) {
		return ae
	}
	if errors.Is(err, store.ErrUnavailable) {
		return errStoreUnavailable(err)
	}
	var ee *engine.Error
	if errors.As(err, &ee) {
		return &apiError{status: httpStatusOf(ee.Code), code: ee.Code, msg: ee.Error()}
	}
	if code := engine.ErrorCode(err); code != "" {
		msg := err.Error()
		if !strings.HasPrefix(msg, code) {
			msg = code + ": " + msg
		}
		return &apiError{status: httpStatusOf(code), code: code, msg: msg}
	}
	return &apiError{status: http.StatusInternalServerError, code: "E0307", msg: "E0307: Runtime error [" + err.Error() + "]"}
}

// writeError sends an error as Oozie does: the code and message in the
// oozie-error-* headers and the JSON body of its error page.
func writeError(w http.ResponseWriter, err error) {
	ae := toAPIError(err)
	h := w.Header()
	if ae.code != "" {
		h.Set("oozie-error-code", ae.code)
		h.Set("oozie-error-message", oneLine(ae.msg))
	}
	writeJSONStatus(w, ae.status, map[string]any{"httpStatusCode": ae.status, "errorMessage": html.EscapeString(ae.msg)})
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
