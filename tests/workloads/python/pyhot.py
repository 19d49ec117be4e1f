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


# A round takes milliseconds: each function spans many sampling periods,
# so their shares do not depend on where in a round the samples fall.
def run_round():
    hot_a(50000)
    hot_b(30000)
    hot_c(20000)


def main():
    with open("/proc/self/comm", "w") as f:
        f.write(sys.argv[2] if len(sys.argv) > 2 else "pyhot")
    end = time.monotonic() + float(sys.argv[1])
    while time.monotonic() < end:
        run_round()


main()
