"""pyhot - the 5:3:2 workload in Python: run_round calls hot_a, hot_b and
hot_c, whose own loops do 5:3:2 of the work, so that a sample of a loop is
its function's. Names its process (comm) pyhot, or COMM.
    python3 pyhot.py SECONDS [COMM]
"""
import sys
import time


def hot_a(n):
    s = 0
    for i in range(n):
        s += i
    return s


def hot_b(n):
    s = 0
    for i in range(n):
        s += i
    return s


def hot_c(n):
    s = 0
    for i in range(n):
        s += i
    return s


# A round takes tens of milliseconds: each function, hot_c too, spans
# several sampling periods at 999 Hz, so their shares do not depend on
# where in a round the samples fall (rounds of 3 ms, hot_c shorter than a
# period, beat against the sampling: 500/250/248 seen).
def run_round():
    hot_a(500000)
    hot_b(300000)
    hot_c(200000)


def main():
    with open("/proc/self/comm", "w") as f:
        f.write(sys.argv[2] if len(sys.argv) > 2 else "pyhot")
    end = time.monotonic() + float(sys.argv[1])
    while time.monotonic() < end:
        run_round()


main()
