"""pydie - code objects made and freed in a loop, as exec, compile and
reloaded modules make them: each round compiles a function of a name
never used before, fn_N in a file gen_N.py, runs it once and drops it;
then one named work, alternately from heavy.py (3 ms of CPU) and
light.py (1 ms), both the same name and first line. A freed code
object's memory is reused by the next one, so a profiler that names
frames by address shows the wrong ones. Names its process pydie.
    python3 pydie.py SECONDS
"""
import sys
import time

# n seconds of the thread's CPU time: by time, not by iterations, whose
# speed differs between versions and between a code object's first and
# later runs (heavy.py's 3 units of iterations took 81% on 3.13 and 3.15)
BODY = ("    s = 0\n    end = thread_time() + n\n    while thread_time() < end:\n"
        "        for k in range(200):\n            s += k\n    return s\n")
UNIT = 0.001


def run(name, path, n):
    ns = {"thread_time": time.thread_time}
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
