package viewer

import (
	"fmt"
	"html/template"
	"strings"
	"testing"
)

// TestBodyCacheIsBoundedInBytes: the timeline cache kept the last 16
// bodies whatever their size, and 17 revisions of a 20 MB session took
// the viewer from 186 to 1,089 MiB. It is bounded in bytes now: what it
// keeps adds up to at most maxBodyBytes, the newest are kept, and a body
// larger than the bound alone is not kept at all. (A timeline over
// maxKeptBody is not even offered to it: see streamTimeline.)
func TestBodyCacheIsBoundedInBytes(t *testing.T) {
	var c bodyCache
	big := template.HTML(strings.Repeat("x", maxBodyBytes/4+1)) // a render, shared
	for i := range 17 {
		c.put(fmt.Sprint("rev ", i), &timelineBody{Body: big})
	}
	kept := 0
	for _, b := range c.byID {
		kept += len(b.Body)
	}
	if kept > maxBodyBytes {
		t.Errorf("the cache holds %d MiB of bodies, over its %d MiB", kept>>20, maxBodyBytes>>20)
	}
	if c.get("rev 16") == nil {
		t.Error("the newest body was not kept")
	}
	huge := template.HTML(strings.Repeat("y", maxBodyBytes+1))
	c.put("huge", &timelineBody{Body: huge})
	if c.get("huge") != nil || c.get("rev 16") == nil {
		t.Error("a body over the whole bound was kept, or pushed the others out")
	}
}
