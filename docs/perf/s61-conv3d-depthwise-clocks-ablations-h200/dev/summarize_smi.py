"""Per phase of call 1 (call1_marks.txt), in fifths of the phase: the SM clock (MHz) and the
instant power (W) nvidia-smi reported, the temperatures and the clock-event reasons seen
(0x1: idle, 0x4: the software power cap). Usage: python3 summarize_smi.py"""
import collections
import csv
from datetime import datetime


def stamp(s):
    return datetime.strptime(s.strip()[:26], "%Y/%m/%d %H:%M:%S.%f")


rows = list(csv.reader(open("call1_smi_100ms.csv")))
header = rows[0]
marks = []
for line in open("call1_marks.txt"):
    day, time, what = line.strip().split(" ", 2)
    marks.append((stamp(day + " " + time), what))


def phase(t):
    current = "before"
    for at, what in marks:
        if t >= at:
            current = what
    return current


def number(v):
    try:
        return float(v.split()[0])
    except (ValueError, IndexError):
        return float("nan")


phases = collections.OrderedDict()
previous, count = None, 0
for r in rows[1:]:
    p = phase(stamp(r[0]))
    if p != previous:
        count, previous = count + 1, p
    phases.setdefault((count, p), []).append(r)
for (_, p), rs in phases.items():
    n = len(rs)
    column = lambda name: [number(r[header.index(name)]) for r in rs]
    sm, power = column("clocks.current.sm [MHz]"), column("power.draw.instant [W]")
    gpu, memory = column("temperature.gpu"), column("temperature.memory")
    reasons = collections.Counter(r[header.index("clocks_event_reasons.active")][-1] for r in rs)

    def fifths(a):
        out = []
        for k in range(5):
            lo, hi = k * n // 5, (k + 1) * n // 5
            part = a[lo:max(hi, lo + 1)]
            out.append(sum(part) / len(part))
        return out

    print(f"{p:27s} n={n:3d} SM MHz " + " ".join(f"{v:5.0f}" for v in fifths(sm)) + "  W " +
          " ".join(f"{v:4.0f}" for v in fifths(power)) +
          f"  GPU {gpu[0]:.0f}-{gpu[-1]:.0f} C, HBM {memory[0]:.0f}-{memory[-1]:.0f} C, reasons {dict(reasons)}")
