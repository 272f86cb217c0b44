//go:build !unix

package watchman

import (
	"io"
	"os"
	"time"
)

// dial opens the server's named pipe.
func dial(sock string) (io.ReadWriteCloser, error) {
	return os.OpenFile(sock, os.O_RDWR, 0)
}

func setDeadline(conn io.ReadWriteCloser, d time.Time) {
	if f, ok := conn.(*os.File); ok {
		_ = f.SetDeadline(d)
	}
}
