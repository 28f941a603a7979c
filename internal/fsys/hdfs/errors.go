package hdfs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"strings"
	"syscall"

	gohdfs "github.com/colinmarc/hdfs/v2"

	"github.com/gozie/gozie/internal/fsys"
)

// NameNode exceptions that mean "not now": a standby NameNode (the library
// fails over on its own and reports it only when every NameNode is one),
// safe mode after a restart, an overloaded call queue, a call to retry.
var unavailableClasses = map[string]bool{
	"org.apache.hadoop.ipc.StandbyException":                            true,
	"org.apache.hadoop.hdfs.server.namenode.SafeModeException":          true,
	"org.apache.hadoop.ipc.RetriableException":                          true,
	"org.apache.hadoop.ipc.ObserverRetryOnActiveException":              true,
	"org.apache.hadoop.ipc.CallQueueManager$CallQueueOverflowException": true,
}

// NameNode exceptions with an fs error of their own. The library maps the
// first three on the calls it interprets; gozie's own calls (setrep) and
// the calls it does not interpret come here raw.
var classErrors = map[string]error{
	"java.io.FileNotFoundException":                                fs.ErrNotExist,
	"org.apache.hadoop.fs.FileAlreadyExistsException":              fs.ErrExist,
	"org.apache.hadoop.security.AccessControlException":            fs.ErrPermission,
	"org.apache.hadoop.hdfs.protocol.AlreadyBeingCreatedException": fs.ErrExist,
	"org.apache.hadoop.security.authorize.AuthorizationException":  fs.ErrPermission,
}

// mapErr turns what the library returned for operation op on p (a URI)
// into the contract's errors: *fs.PathError matching fs.ErrNotExist,
// fs.ErrExist or fs.ErrPermission; *fsys.UnavailableError for a cluster
// that did not answer or asked to be asked later; fsys.ErrCredentials for
// a refused Kerberos login; otherwise a *fs.PathError with the cause.
func mapErr(store, op, p string, err error) error {
	if err == nil {
		return nil
	}
	var ue *fsys.UnavailableError
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) || errors.As(err, &ue) {
		return err
	}
	if errors.Is(err, fsys.ErrCredentials) {
		return fmt.Errorf("%s %s: %w", op, p, err)
	}
	cause := err
	var pe *fs.PathError
	if errors.As(err, &pe) {
		if strings.Contains(pe.Path, "://") {
			return err // made by this package, already in the contract's terms
		}
		cause = pe.Err
	}
	var re gohdfs.Error
	if errors.As(cause, &re) {
		class, msg := re.Exception(), firstLine(re.Message())
		switch {
		case unavailableClasses[class]:
			return unavailable(store, op, p, fmt.Errorf("%s: %s", shortClass(class), msg))
		case classErrors[class] != nil:
			return &fs.PathError{Op: op, Path: p, Err: fmt.Errorf("%w (%s)", classErrors[class], msg)}
		case class != "":
			return &fs.PathError{Op: op, Path: p, Err: fmt.Errorf("%s: %s", shortClass(class), msg)}
		}
	}
	for _, target := range []error{fs.ErrNotExist, fs.ErrExist, fs.ErrPermission} {
		if errors.Is(cause, target) {
			return &fs.PathError{Op: op, Path: p, Err: cause}
		}
	}
	switch {
	case refusedLogin(cause):
		return fmt.Errorf("%w: %s %s: the NameNode refused the Kerberos login (check %s, the principal in %s and its keytab, or the ticket cache): %v", fsys.ErrCredentials, op, p, keyNNPrincipal, keyPrincipal, cause)
	case transient(cause):
		return unavailable(store, op, p, cause)
	}
	return &fs.PathError{Op: op, Path: p, Err: cause}
}

func unavailable(store, op, p string, cause error) error {
	return &fsys.UnavailableError{Store: store, Err: fmt.Errorf("%s %s: %w", op, p, cause)}
}

// transient reports a failure to reach or hear from a node.
func transient(err error) bool {
	var ne net.Error
	if errors.As(err, &ne) {
		return true
	}
	for _, t := range []error{io.EOF, io.ErrUnexpectedEOF, syscall.ECONNREFUSED, syscall.ECONNRESET,
		syscall.EPIPE, syscall.ETIMEDOUT, syscall.EHOSTUNREACH, syscall.ENETUNREACH, gohdfs.ErrReplicating} {
		if errors.Is(err, t) {
			return true
		}
	}
	// The library words these with %s, so only the text is left.
	msg := strings.ToLower(err.Error())
	return strings.HasPrefix(msg, "no available namenodes") || strings.Contains(msg, "no available datanodes")
}

// refusedLogin reports a Kerberos handshake the NameNode or the KDC
// refused (not one that failed for want of a network).
func refusedLogin(err error) bool {
	msg := err.Error()
	return strings.Contains(msg, "SASL handshake") && strings.Contains(msg, "[Root cause: ") && !strings.Contains(msg, "Networking_Error")
}

// shortClass drops the package of a Java class name.
func shortClass(c string) string {
	if i := strings.LastIndexByte(c, '.'); i >= 0 {
		return c[i+1:]
	}
	return c
}

// firstLine is the first line of a remote message (the rest is a Java
// stack trace when there is one).
func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(s)
}
