"""pychain - a deep stack of distinct functions: f0 calls f1 ... f19,
which calls leaf, whose loop takes the CPU; main calls f0 in a loop, so
that each call site is specialized and every fN has a version in 3.11.
The stack of pyhot.py is 4 frames deep, 3 of them without a version:
this one shows what a deep stack of a real program costs the Python
walk (bench/ab.sh's WL). Names its process pychain, or COMM.
    python3 pychain.py SECONDS [COMM]
"""
import sys
import time

DEPTH = 20


def leaf(n):
    s = 0
    for i in range(n):
        s += i
    return s


# f0 ... f19 in a file of their own (pychain_fns.py, which is not on disk),
# made side by side as the functions of a module are
SOURCE = "".join("def f%d(n):\n    return %s(n)\n" % (i, "f%d" % (i + 1) if i < DEPTH - 1
                                                      else "leaf")
                 for i in range(DEPTH))
exec(compile(SOURCE, "pychain_fns.py", "exec"))


def main():
    with open("/proc/self/comm", "w") as f:
        f.write(sys.argv[2] if len(sys.argv) > 2 else "pychain")
    end = time.monotonic() + float(sys.argv[1])
    while time.monotonic() < end:
        f0(2000)  # noqa: F821 (made by exec above)


main()
