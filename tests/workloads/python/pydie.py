"""pydie - code objects made and freed in a loop, as exec, compile and
reloaded modules make them: each round compiles a function of a name
never used before, fn_N in a file gen_N.py, runs it once and drops it;
then one named work, alternately from heavy.py (3 units of work) and
light.py (1 unit), both the same name and first line. A freed code
object's memory is reused by the next one, so a profiler that names
frames by address shows the wrong ones. Names its process pydie.
    python3 pydie.py SECONDS
"""
import sys
import time

BODY = "    s = 0\n    for k in range(n):\n        s += k\n    return s\n"
UNIT = 20000


def run(name, path, n):
    ns = {}
    exec(compile("def %s(n):\n%s" % (name, BODY), path, "exec"), ns)
    return ns[name](n)


def main():
    with open("/proc/self/comm", "w") as f:
        f.write("pydie")
    end = time.monotonic() + float(sys.argv[1])
    i = 0
    while time.monotonic() < end:
        i += 1
        run("fn_%d" % i, "gen_%d.py" % i, UNIT)
        if i % 2:
            run("work", "heavy.py", 3 * UNIT)
        else:
            run("work", "light.py", UNIT)


main()
