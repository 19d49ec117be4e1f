// gohot - hotspots.c in Go: burns CPU in three functions in a 5:3:2
// ratio by time, for argv[1] seconds (0: for ever). main -> runRound ->
// hotA / hotB / hotC, each a loop of no calls. Built stripped (-ldflags
// "-s -w": no .symtab, no DWARF) by tests/integration/gosyms.sh, with
// Debian's Go and a newer one: the profiler names its frames from the
// function table alone.
//
// A round gives each function a time, not a count of iterations (the
// three loops need not run at the same speed), and lasts 50 ms, far from
// the sample period; the clock is read between chunks of work. The time
// is the thread's CPU time (main keeps its goroutine on its thread), which
// is what cpu-clock samples: on a machine busy with other work, wall time
// would give a function the time others ran in.
package main

import (
	"os"
	"runtime"
	"strconv"
	"syscall"
	"time"
	"unsafe"
)

const clockThreadCPUTime = 3 // CLOCK_THREAD_CPUTIME_ID

// cpuNow is this thread's CPU time.
func cpuNow() time.Duration {
	var ts syscall.Timespec

	syscall.RawSyscall(syscall.SYS_CLOCK_GETTIME, clockThreadCPUTime, uintptr(unsafe.Pointer(&ts)), 0)
	return time.Duration(ts.Nano())
}

const chunk = 100000

var sink uint64

// mix is inlined into each hot function, and is most of its work:
// --lines shows it as a frame of its own, from the function table's
// inline tree.
func mix(s uint64, i int) uint64 {
	s ^= uint64(i)
	s *= 0x9e3779b97f4a7c15
	return s ^ s>>29
}

//go:noinline
func hotA(n int) {
	s := sink
	for i := 0; i < n; i++ {
		s = mix(s, i)
	}
	sink = s
}

//go:noinline
func hotB(n int) {
	s := sink
	for i := 0; i < n; i++ {
		s = mix(s, i)
	}
	sink = s
}

//go:noinline
func hotC(n int) {
	s := sink
	for i := 0; i < n; i++ {
		s = mix(s, i)
	}
	sink = s
}

// runRound calls each hot function itself (a helper taking the function
// would be a frame between them), until its time has passed.
//
//go:noinline
func runRound() {
	end := cpuNow() + 25*time.Millisecond
	for cpuNow() < end {
		hotA(chunk)
	}
	end = cpuNow() + 15*time.Millisecond
	for cpuNow() < end {
		hotB(chunk)
	}
	end = cpuNow() + 10*time.Millisecond
	for cpuNow() < end {
		hotC(chunk)
	}
}

func main() {
	runtime.LockOSThread()
	seconds := 0
	if len(os.Args) > 1 {
		seconds, _ = strconv.Atoi(os.Args[1])
	}
	end := time.Now().Add(time.Duration(seconds) * time.Second)
	for {
		runRound()
		if seconds > 0 && !time.Now().Before(end) {
			return
		}
	}
}
