"""pyhot - the 5:3:2 workload in Python: run_round calls hot_a, hot_b and
hot_c, whose own loops run 25, 15 and 10 ms of the thread's CPU time, so
that a sample of a loop is its function's. Names its process (comm)
pyhot, or COMM.
    python3 pyhot.py SECONDS [COMM]
"""
import sys
import time

# Iterations between two readings of the thread's CPU time: about 0.1 ms.
CHUNK = 2000


def hot_a(secs):
    s = 0
    end = time.thread_time() + secs
    while time.thread_time() < end:
        for i in range(CHUNK):
            s += i
    return s


def hot_b(secs):
    s = 0
    end = time.thread_time() + secs
    while time.thread_time() < end:
        for i in range(CHUNK):
            s += i
    return s


def hot_c(secs):
    s = 0
    end = time.thread_time() + secs
    while time.thread_time() < end:
        for i in range(CHUNK):
            s += i
    return s


# A round takes 50 ms of CPU: each function, hot_c too, spans several
# sampling periods at 999 Hz, so their shares do not depend on where in a
# round the samples fall. By CPU time, not by iterations: a fixed count of
# iterations ran at another speed while the other CPU (a hyperthread of
# the same core, maybe) was busy, and the shares with it (472/344/182 seen).
def run_round():
    hot_a(0.025)
    hot_b(0.015)
    hot_c(0.010)


def main():
    with open("/proc/self/comm", "w") as f:
        f.write(sys.argv[2] if len(sys.argv) > 2 else "pyhot")
    end = time.monotonic() + float(sys.argv[1])
    while time.monotonic() < end:
        run_round()


main()
