package hadoop

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/gozie/gozie/internal/action"
	"github.com/gozie/gozie/internal/launch"

	"github.com/gozie/gozie/internal/fsys"
)

// GitHome says where Git is installed.
var GitHome = action.DeclareSiteKey("gozie.git.home", "", "Git installation (the directory holding bin/git) for git actions; empty: git on PATH")

// CodeGitConf is Oozie's code for a git action without a required
// element (GitActionExecutor's GIT010).
const CodeGitConf = "GIT010"

// gitKeyFile is the private copy of <key-path> in the working directory:
// ssh refuses keys that others may read.
const gitKeyFile = "git-ssh-key"

func init() {
	launch.Register("git", func(l *launch.Runtime) action.Executor {
		return launch.NewProcess(l, toolProgram{l: l, tool: "git", exe: "git", homeKey: GitHome, mainClass: gitMain, args: gitArgs, env: gitEnv})
	})
}

// gitArgs builds `git clone` for a git action (uri:oozie:git-action:1.0):
// <git-uri> cloned into <destination-uri>, only <branch> when one is
// given. The destination is a local directory (a path or a file:// URI)
// that must not exist or be empty: Oozie's documentation says it should
// not exist before (its GitMain copies over whatever is there; gozie
// refuses, as git clone does, rather than mix two trees).
func gitArgs(_, _ string, a *action.Context) ([]string, error) {
	uri := a.Element.ChildText("git-uri")
	if uri == "" {
		return nil, action.Errorf(action.ErrorKindError, CodeGitConf, "Action Configuration does not have [oozie.git.source.uri] property: <git-uri> is missing")
	}
	dest, err := gitDestination(a)
	if err != nil {
		return nil, err
	}
	args := []string{"clone"}
	if b := a.Element.ChildText("branch"); b != "" {
		args = append(args, "--branch", b, "--single-branch")
	}
	return append(args, "--", uri, dest), nil
}

// gitDestination resolves <destination-uri> to a local directory and
// checks that cloning into it adds a tree rather than mixing two.
func gitDestination(a *action.Context) (string, error) {
	d := a.Element.ChildText("destination-uri")
	if d == "" {
		return "", action.Errorf(action.ErrorKindError, CodeGitConf, "Action Configuration does not have [oozie.git.destination.uri] property: <destination-uri> is missing")
	}
	local, isLocal, err := fsys.Default().LocalPath(context.Background(), d)
	if err == nil && !isLocal {
		err = fmt.Errorf("gozie clones into local directories (a plain path, file:// or a mounted prefix, gozie.fs.mount.*) only")
	}
	if err != nil {
		return "", action.Errorf(action.ErrorKindError, launch.CodeUnsupportedFS, "git destination [%s]: %v", d, err)
	}
	if !filepath.IsAbs(local) {
		return "", action.Errorf(action.ErrorKindError, launch.CodeFSRelative, "git destination [%s] is not an absolute path", d)
	}
	if f, err := os.Open(local); err == nil {
		_, err := f.Readdirnames(1)
		f.Close()
		if err != io.EOF {
			return "", action.Errorf(action.ErrorKindError, launch.CodeLauncher, "git destination [%s] already exists and is not empty", d)
		}
	}
	return local, nil
}

// gitEnv keeps git from prompting (there is no one to answer) and, with
// <key-path>, makes ssh use that key alone, in batch mode. The key is
// copied into the working directory, readable by its owner only, as
// Oozie's GitMain copies it into its container.
func gitEnv(dir string, a *action.Context) ([]string, error) {
	env := []string{"GIT_TERMINAL_PROMPT=0"}
	kp := a.Element.ChildText("key-path")
	if kp == "" {
		return env, nil
	}
	ctx := launch.FilesContext(context.Background(), a)
	src, isLocal, err := fsys.Default().LocalPath(ctx, kp)
	if err != nil {
		return nil, action.Errorf(action.ErrorKindError, launch.CodeUnsupportedFS, "git key-path [%s]: %v", kp, err)
	}
	if !isLocal {
		// A key on a store is fetched into the working directory.
		if src, err = launch.Localize(ctx, dir, kp); err != nil {
			return nil, err
		}
	}
	if !filepath.IsAbs(src) {
		// Relative to the application, like the action's other files.
		appDir, err := launch.AppDirOf(a.AppPath)
		if err != nil {
			return nil, err
		}
		src = filepath.Join(appDir, src)
	}
	// A key is a small regular file: /dev/zero or a FIFO named as one
	// must not make the server read for ever. With RunAsUser this runs
	// with the job user's rights, so a key only root may read is refused.
	key := filepath.Join(dir, gitKeyFile)
	_ = os.Remove(key) // from an earlier start of this attempt
	if err := launch.CopyJobFile(src, key, launch.MaxKeyBytes, 0o600); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, action.Errorf(action.ErrorKindError, launch.CodeFileNotFound, "git key-path [%s]: %v", kp, err)
		}
		return nil, launch.StagingError("git key-path", kp, err)
	}
	ssh := "ssh -i " + shellQuote(key) + " -o IdentitiesOnly=yes -o BatchMode=yes -o StrictHostKeyChecking=accept-new"
	return append(env, "GIT_SSH_COMMAND="+ssh), nil
}

// shellQuote quotes s for the shell that git runs GIT_SSH_COMMAND with.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
