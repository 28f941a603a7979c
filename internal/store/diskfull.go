package store

import (
	"errors"
	"strings"
	"syscall"
)

// IsDiskFull reports whether err says the store could not write because
// its disk (or quota) is full: ENOSPC or EDQUOT from the operating system,
// SQLite's SQLITE_FULL, PostgreSQL's disk_full (SQLSTATE 53100). The
// server keeps answering reads then and refuses writes with a clear
// message instead of a runtime error.
func IsDiskFull(err error) bool {
	if err == nil {
		return false
	}
	if errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT) {
		return true
	}
	// The drivers' error types, matched by method so that this package
	// needs neither driver.
	var coded interface{ Code() int }
	if errors.As(err, &coded) && coded.Code()&0xff == sqliteFull {
		return true
	}
	var pg interface{ SQLState() string }
	if errors.As(err, &pg) && pg.SQLState() == "53100" {
		return true
	}
	// Some paths keep only the text (a driver that formats the cause).
	msg := err.Error()
	return strings.Contains(msg, "database or disk is full") || strings.Contains(msg, syscall.ENOSPC.Error())
}

// sqliteFull is SQLITE_FULL, the primary result code of a write that found
// no room.
const sqliteFull = 13
