//go:build !unix

package worktree

const noFollow = 0
