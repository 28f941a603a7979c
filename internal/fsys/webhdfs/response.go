package webhdfs

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/gozie/gozie/internal/fsys"
)

// fileStatus is the FileStatus JSON object of the WebHDFS REST API (the
// fields gozie uses; the API allows any others).
type fileStatus struct {
	AccessTime       int64  `json:"accessTime"`
	BlockSize        int64  `json:"blockSize"`
	Group            string `json:"group"`
	Length           int64  `json:"length"`
	ModificationTime int64  `json:"modificationTime"`
	Owner            string `json:"owner"`
	PathSuffix       string `json:"pathSuffix"`
	Permission       string `json:"permission"`
	Replication      int    `json:"replication"`
	Type             string `json:"type"` // FILE, DIRECTORY, SYMLINK
}

type fileStatusBody struct {
	FileStatus *fileStatus `json:"FileStatus"`
}

type fileStatusesBody struct {
	FileStatuses *struct {
		FileStatus []fileStatus `json:"FileStatus"`
	} `json:"FileStatuses"`
}

type contentSummaryBody struct {
	ContentSummary *struct {
		DirectoryCount int64 `json:"directoryCount"`
		FileCount      int64 `json:"fileCount"`
		Length         int64 `json:"length"`
		SpaceConsumed  int64 `json:"spaceConsumed"`
	} `json:"ContentSummary"`
}

type booleanBody struct {
	Boolean *bool `json:"boolean"`
}

// remoteException is the RemoteException JSON object of an error answer.
type remoteException struct {
	Exception     string `json:"exception"`
	JavaClassName string `json:"javaClassName"`
	Message       string `json:"message"`
}

type remoteExceptionBody struct {
	RemoteException *remoteException `json:"RemoteException"`
}

// decode reads a JSON answer into v, failing when the member want (the
// object's one key) is missing.
func decode(r io.Reader, v any, want string) error {
	if err := json.NewDecoder(r).Decode(v); err != nil {
		return fmt.Errorf("reading the %s answer: %v", want, err)
	}
	return nil
}

func parseFileStatus(r io.Reader) (*fileStatus, error) {
	var b fileStatusBody
	if err := decode(r, &b, "FileStatus"); err != nil {
		return nil, err
	}
	if b.FileStatus == nil {
		return nil, errors.New("the answer has no FileStatus")
	}
	return b.FileStatus, nil
}

func parseFileStatuses(r io.Reader) ([]fileStatus, error) {
	var b fileStatusesBody
	if err := decode(r, &b, "FileStatuses"); err != nil {
		return nil, err
	}
	if b.FileStatuses == nil {
		return nil, errors.New("the answer has no FileStatuses")
	}
	return b.FileStatuses.FileStatus, nil
}

func parseContentSummary(r io.Reader) (int64, error) {
	var b contentSummaryBody
	if err := decode(r, &b, "ContentSummary"); err != nil {
		return 0, err
	}
	if b.ContentSummary == nil {
		return 0, errors.New("the answer has no ContentSummary")
	}
	return b.ContentSummary.Length, nil
}

// parseBoolean reads a {"boolean": b} answer. An empty body (rename2's
// answer) is true.
func parseBoolean(r io.Reader) (bool, error) {
	data, err := io.ReadAll(io.LimitReader(r, 64<<10))
	if err != nil {
		return false, err
	}
	if strings.TrimSpace(string(data)) == "" {
		return true, nil
	}
	var b booleanBody
	if err := json.Unmarshal(data, &b); err != nil || b.Boolean == nil {
		return false, fmt.Errorf("want a boolean answer, got %q", excerpt(data))
	}
	return *b.Boolean, nil
}

// info describes URI p from a FileStatus.
func (st *fileStatus) info(p string) *fsys.FileInfo {
	out := &fsys.FileInfo{
		Path:     p,
		Length:   st.Length,
		Dir:      st.Type == "DIRECTORY",
		Modified: time.UnixMilli(st.ModificationTime),
		Owner:    st.Owner,
		Group:    st.Group,
	}
	if perm, err := strconv.ParseUint(st.Permission, 8, 32); err == nil {
		out.Perm = fs.FileMode(perm) & fs.ModePerm
		if perm&0o1000 != 0 {
			out.Perm |= fs.ModeSticky
		}
	}
	if !out.Dir {
		out.BlockSize, out.Replication = st.BlockSize, st.Replication
	}
	return out
}

// Exceptions by their simple name (the "exception" member; also the last
// element of javaClassName).
var (
	notExistExceptions   = []string{"FileNotFoundException"}
	existExceptions      = []string{"FileAlreadyExistsException", "AlreadyBeingCreatedException"}
	permissionExceptions = []string{"AccessControlException", "SecurityException", "AuthorizationException"}
	// A standby NameNode passes the call to the next one.
	standbyExceptions     = []string{"StandbyException"}
	unavailableExceptions = []string{"StandbyException", "RetriableException", "SafeModeException", "ObserverRetryOnActiveException"}
)

// remoteError is a RemoteException answer, kept for the mapped error's
// message and the failover decision.
type remoteError struct {
	status int
	remoteException
}

func (e *remoteError) Error() string {
	return fmt.Sprintf("%s: %s", e.name(), firstLine(e.Message))
}

func (e *remoteError) name() string {
	if e.Exception != "" {
		return e.Exception
	}
	return e.JavaClassName[strings.LastIndexByte(e.JavaClassName, '.')+1:]
}

func (e *remoteError) is(names []string) bool {
	n := e.name()
	for _, x := range names {
		if n == x {
			return true
		}
	}
	return false
}

// responseError maps an error answer (status >= 400, or an unexpected
// one) of operation op on URI p, and closes its body.
func responseError(store, op, p string, resp *http.Response) error {
	defer resp.Body.Close()
	data, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	return answerError(store, op, p, resp.StatusCode, resp.Header.Get("WWW-Authenticate"), data)
}

// answerError maps status and body: the RemoteException's name first
// (WebHDFS answers 403 for any IOException, standby included), then the
// status.
func answerError(store, op, p string, status int, authenticate string, body []byte) error {
	var b remoteExceptionBody
	if json.Unmarshal(body, &b) == nil && b.RemoteException != nil && (b.RemoteException.Exception != "" || b.RemoteException.JavaClassName != "") {
		re := &remoteError{status: status, remoteException: *b.RemoteException}
		switch {
		case re.is(notExistExceptions):
			return &fs.PathError{Op: op, Path: p, Err: fmt.Errorf("%w (%s)", fs.ErrNotExist, firstLine(re.Message))}
		case re.is(existExceptions):
			return &fs.PathError{Op: op, Path: p, Err: fmt.Errorf("%w (%s)", fs.ErrExist, firstLine(re.Message))}
		case re.is(permissionExceptions):
			return &fs.PathError{Op: op, Path: p, Err: fmt.Errorf("%w (%s)", fs.ErrPermission, firstLine(re.Message))}
		case re.is(unavailableExceptions) || status >= 500:
			return unavailable(store, op, p, re)
		}
		return &fs.PathError{Op: op, Path: p, Err: re}
	}
	cause := fmt.Errorf("HTTP %d %s: %s", status, http.StatusText(status), excerpt(body))
	switch {
	case status == http.StatusUnauthorized:
		how := ""
		if strings.HasPrefix(authenticate, "Negotiate") {
			how = " (it asks for SPNEGO, i.e. Kerberos: set hadoop.security.authentication=kerberos and the server's keytab, oozie.service.HadoopAccessorService.keytab.file and .kerberos.principal, or kinit as the server's user; a server that is Kerberized already was refused its ticket)"
		}
		return fmt.Errorf("%w: %s %s: the server refused the request as unauthenticated%s: %v", fsys.ErrCredentials, op, p, how, cause)
	case status == http.StatusForbidden:
		return &fs.PathError{Op: op, Path: p, Err: fmt.Errorf("%w (%v)", fs.ErrPermission, cause)}
	case status == http.StatusNotFound:
		return &fs.PathError{Op: op, Path: p, Err: fmt.Errorf("%w (%v)", fs.ErrNotExist, cause)}
	case status == http.StatusTooManyRequests || status >= 500:
		return unavailable(store, op, p, cause)
	}
	return &fs.PathError{Op: op, Path: p, Err: cause}
}

// isStandby reports an answer from a standby NameNode.
func isStandby(err error) bool {
	var re *remoteError
	return errors.As(err, &re) && re.is(standbyExceptions)
}

func unavailable(store, op, p string, cause error) error {
	return &fsys.UnavailableError{Store: store, Err: fmt.Errorf("%s %s: %w", op, p, cause)}
}

// excerpt is the start of a body for a message.
func excerpt(b []byte) string {
	s := strings.TrimSpace(string(b))
	if len(s) > 200 {
		s = s[:200] + "..."
	}
	return s
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(s)
}
