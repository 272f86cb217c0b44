//go:build unix

package codestate

import (
	"io/fs"
	"syscall"
)

// sysStat is what git's index keeps of a file's stat beyond its size,
// mode and modification time.
func sysStat(fi fs.FileInfo) (ctimeS, ctimeN, ino, uid, gid uint32) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, 0, 0, 0, 0
	}
	c := ctimespec(st)
	return uint32(c.Sec), uint32(c.Nsec), uint32(st.Ino), st.Uid, st.Gid
}
