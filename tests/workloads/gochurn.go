// gochurn - Go goroutines that burn CPU in known functions and allocate,
// so that the garbage collector runs on system stacks (systemstack, the
// background mark workers, mark assists), for argv[1] seconds (0: for
// ever). Built by tests/integration/unwind.sh with Debian's Go: the
// profiler's Go stacks are held to what a frame-pointer walk gives.
//
// Four goroutines each run worker -> spinHot (a loop, no calls) and
// worker -> churn -> newNode (pointer-rich objects, a live set of 4 MiB
// per goroutine replaced slowly, so marking has work to do).
package main

import (
	"os"
	"strconv"
	"sync"
	"time"
)

type node struct {
	next  *node
	left  *node
	right *node
	pad   [5]uint64
}

var sink uint64

//go:noinline
func spinHot(n int) uint64 {
	var s uint64
	for i := 0; i < n; i++ {
		s += uint64(i) * 2654435761
		s ^= s >> 13
	}
	return s
}

//go:noinline
func newNode(prev *node, i int) *node {
	n := &node{next: prev}
	n.pad[0] = uint64(i)
	if prev != nil {
		n.left = prev.next
	}
	return n
}

// churn replaces part of the goroutine's live set with new nodes.
//
//go:noinline
func churn(live []*node, round int) {
	for i := 0; i < 2000; i++ {
		slot := (round*2000 + i) % len(live)
		var head *node
		for j := 0; j < 8; j++ {
			head = newNode(head, j)
		}
		live[slot] = head
	}
}

//go:noinline
func worker(wg *sync.WaitGroup, end time.Time) {
	defer wg.Done()
	live := make([]*node, 8192)
	for round := 0; end.IsZero() || time.Now().Before(end); round++ {
		sink += spinHot(200000)
		churn(live, round)
	}
}

func main() {
	var end time.Time
	if len(os.Args) > 1 {
		secs, err := strconv.Atoi(os.Args[1])
		if err != nil {
			os.Exit(2)
		}
		if secs > 0 {
			end = time.Now().Add(time.Duration(secs) * time.Second)
		}
	}
	var wg sync.WaitGroup
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go worker(&wg, end)
	}
	wg.Wait()
}
