//go:build unix

package worktree

import "syscall"

// noFollow makes an open fail on a symlink instead of following it.
const noFollow = syscall.O_NOFOLLOW
