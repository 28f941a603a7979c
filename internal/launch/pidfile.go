package launch

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// The pid file (launcher.pid) is how a run is claimed and how its
// processes are found again after a restart. It is a list of JSON lines,
// each a whole LauncherPID, the last complete one being current:
//
//	{"pid":…,"pgid":…,"start":…}                  the claim: who records the run
//	{"pid":…,"pgid":…,"start":…,"childPid":…}     once the program runs
//
// The claim is written into the executor's pid reserve (pidReserveFile:
// 4 KiB of zeros) without shortening it and hard-linked into place; the
// second line is written after the first, inside the same blocks. So the
// step needs no new inode and frees none after its claim, and a full disk
// cannot keep the program's group unknown. Earlier versions replaced the
// file with a second one (rename over it), which freed an inode per step:
// on a file system without a journal ext4 then scans every recently freed
// inode on each later allocation, which made steps slower the more of
// them had just run.
//
// A reader takes a line only when it ends in a newline and holds no NUL
// byte: the bytes of a line being written that the reader cannot see yet
// are still the reserve's zeros, so a partly written line is skipped,
// never misread. A file without newline is one JSON object, as earlier
// versions wrote it.

// claimPID creates the pid file unless it exists, atomically: the first
// line is written under a temporary name and hard-linked into place, and
// link fails when the name is taken. It records in pid the length of the
// claim line, where recordStarted writes the next one.
//
// The temporary file is the executor's pid reserve when this launcher can
// take it (rename is atomic: one launcher gets it), so that claiming needs
// no new block on a full disk; a fresh file otherwise.
func claimPID(dir string, pid *LauncherPID) (claimed bool, err error) {
	data, _ := json.Marshal(pid)
	data = append(data, '\n')
	pid.claimLen = len(data)
	tmp := filepath.Join(dir, fmt.Sprintf(".pid.tmp%d", pid.PID))
	if os.Rename(filepath.Join(dir, PidReserveFile), tmp) != nil || writeInReserve(tmp, 0, data) != nil {
		f, err := os.CreateTemp(dir, ".pid.tmp*")
		if err != nil {
			return false, err
		}
		os.Remove(tmp)
		tmp = f.Name()
		if _, err := f.Write(data); err != nil {
			f.Close()
			os.Remove(tmp)
			return false, err
		}
		if err := f.Close(); err != nil {
			os.Remove(tmp)
			return false, err
		}
	}
	defer os.Remove(tmp)
	err = os.Link(tmp, filepath.Join(dir, PIDFile))
	if errors.Is(err, fs.ErrExist) {
		return false, nil
	}
	return err == nil, err
}

// recordStarted adds the line of a started program (pid with ChildPID,
// and PGID when supervised) to the pid file claimed by pid, after the
// claim line.
func recordStarted(dir string, pid LauncherPID) error {
	data, _ := json.Marshal(pid)
	return writeInReserve(filepath.Join(dir, PIDFile), int64(pid.claimLen), append(data, '\n'))
}

// writeInReserve writes data at off in the file at path, which must be a
// private regular file of this user (see overwriteReserve), without
// truncating it: the rest of a reserve stays allocated for later lines.
func writeInReserve(path string, off int64, data []byte) error {
	f, err := OpenOwn(path, os.O_WRONLY, false)
	if err != nil {
		return err
	}
	_, err = f.WriteAt(data, off)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// ReadPID reads the pid file of dir: its last complete line.
func ReadPID(dir string) (LauncherPID, bool) {
	b, err := readOwn(filepath.Join(dir, PIDFile))
	if err != nil {
		return LauncherPID{}, false
	}
	return parsePID(b)
}

// parsePID reads a pid file's content (see the top of this file).
func parsePID(b []byte) (LauncherPID, bool) {
	var cur LauncherPID
	found := false
	if bytes.IndexByte(b, '\n') < 0 {
		// One object without newline: the format of earlier versions.
		if bytes.IndexByte(b, 0) >= 0 || json.Unmarshal(b, &cur) != nil || cur.PID <= 0 {
			return LauncherPID{}, false
		}
		return cur, true
	}
	for {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			break // the rest is the reserve, or a line not yet written
		}
		line := b[:i]
		b = b[i+1:]
		var p LauncherPID
		if len(line) == 0 || bytes.IndexByte(line, 0) >= 0 || json.Unmarshal(line, &p) != nil || p.PID <= 0 {
			continue
		}
		if found && p.PID != cur.PID {
			continue // a later line always comes from the claimer
		}
		cur, found = p, true
	}
	return cur, found
}

// ReadLauncherPID reads the pid file of the work directory dir: who runs
// or ran its program. ok is false when there is none (yet) or it is not
// the server's own file.
func ReadLauncherPID(dir string) (p LauncherPID, ok bool) { return ReadPID(dir) }
