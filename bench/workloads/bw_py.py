"""bw_py - workload (f): a pure-Python loop in Debian's python3, an
interpreter built as the archive builds it (gcc -O2, no frame pointers).
Each round calls a few Python functions, some through C (sorted's key,
map), so the C stack re-enters the interpreter. The process names itself
bw_py so that the bench counts its samples; the measurement window, the
report and the linger are those of bw_common.h.
    python3 bw_py.py SECONDS    prints "iterations ROUNDS cpu_us N procs 1"
"""
import signal
import sys
import time

stop = False


def on_alarm(sig, frame):
    global stop
    stop = True


def leaf(n):
    s = 0
    for i in range(n):
        s += i * i
    return s


def key(x):
    return (x * 7919) % 101


def middle(data):
    return sum(map(leaf, data)) + sorted(data, key=key)[0]


def run_round(data):
    return middle(data) + leaf(50)


def cpu_us():
    return time.process_time_ns() // 1000


def main():
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 5.0
    if seconds <= 0:
        print("workload: duration must be > 0", file=sys.stderr)
        sys.exit(2)
    with open("/proc/self/comm", "w") as f:
        f.write("bw_py")
    data = list(range(20))
    rounds = 0
    # the CPU of the window only: the interpreter's start-up is not work
    start = cpu_us()
    signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    while not stop:
        run_round(data)
        rounds += 1
    print("iterations %d cpu_us %d procs 1" % (rounds, cpu_us() - start), flush=True)
    # linger until killed, as bw_common.h does; SIGALRM ends a forgotten one
    signal.signal(signal.SIGALRM, signal.SIG_DFL)
    signal.alarm(600)
    while True:
        signal.pause()


main()
