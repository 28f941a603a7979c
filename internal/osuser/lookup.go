package osuser

import (
	"errors"
	"fmt"
	"os/user"
	"strconv"
)

// Reasons Lookup refuses a name, matched with errors.Is.
var (
	// ErrNoUser: the job has no user name.
	ErrNoUser = errors.New("the job has no user")
	// ErrUnknown: the host has no such account.
	ErrUnknown = errors.New("no such user on this host")
	// ErrRoot: the account is root. Acting as root for a job is what the
	// server does without gozie.launch.as.user, so asking for it per job
	// is almost always a mistake (a default or proxied user) that would
	// hand out the server's full power.
	ErrRoot = errors.New("actions never run as root when gozie.launch.as.user is set")
)

// lookupUser is user.Lookup, a variable for tests.
var lookupUser = user.Lookup

// Lookup resolves an account name to its uid, gid, supplementary groups
// and home directory, from the host's user database. root is refused
// (ErrRoot), as are names the host does not know (ErrUnknown).
func Lookup(name string) (*User, error) {
	if name == "" {
		return nil, ErrNoUser
	}
	u, err := lookupUser(name)
	if err != nil {
		var unknown user.UnknownUserError
		if errors.As(err, &unknown) {
			return nil, ErrUnknown
		}
		return nil, err
	}
	uid, err1 := strconv.ParseUint(u.Uid, 10, 32)
	gid, err2 := strconv.ParseUint(u.Gid, 10, 32)
	if err1 != nil || err2 != nil {
		return nil, fmt.Errorf("uid %q, gid %q are not numeric", u.Uid, u.Gid)
	}
	if uid == 0 {
		return nil, ErrRoot
	}
	r := &User{Name: u.Username, UID: uint32(uid), GID: uint32(gid), Home: u.HomeDir}
	gids, err := u.GroupIds()
	if err != nil {
		return nil, fmt.Errorf("groups: %w", err)
	}
	for _, g := range gids {
		if n, err := strconv.ParseUint(g, 10, 32); err == nil {
			r.Groups = append(r.Groups, uint32(n))
		}
	}
	return r, nil
}
