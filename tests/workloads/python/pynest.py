"""pynest - Python called from C called from Python: level(n) calls
level(n - 1) through map(), so that each level runs in an activation of
the eval loop of its own, with C frames between them; level(0) spins.
Names its process pynest.
    python3 pynest.py SECONDS DEPTH
"""
import sys
import time


def level(n, end):
    if n:
        return list(map(level, [n - 1], [end]))
    s = 0
    while time.monotonic() < end:
        for i in range(1000):
            s += i
    return s


def main():
    with open("/proc/self/comm", "w") as f:
        f.write("pynest")
    level(int(sys.argv[2]), time.monotonic() + float(sys.argv[1]))


main()
