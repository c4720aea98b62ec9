#!/usr/bin/env python3
"""Write src/tzdb/tzdata.bin (and its start, the names alone: tznames.bin), mqlplay's compact copy of the time-zone offsets in
chrono-tz's prebuilt tables (the Rust source it ships): every Olson name and, per
distinct zone, its UTC offsets and transition instants. Only the total offset is
kept (utc + dst): all the engine needs (src/expr/ops/date.rs). The test
tests in src/tzdb checks the copy against chrono-tz itself.

Usage: tools/tzdb.py ~/.cargo/registry/src/*/chrono-tz-0.10.4/src/prebuilt/timezones.rs

Format "TZDB2" (integers are LEB128 varints; zz() is zigzag, so small negative
numbers stay short):
  "TZDB2", start of the offsets stream, names count, zones count,
  per name (sorted): length, bytes, zone index,
  per zone: zz(first offset), transitions count,
  the times stream, per zone and transition, one tag:
    0 or 1: a yearly rule repeating: 52 (0) or 53 (1) weeks after the transition
      two before, to the offset it had (about 80% of all transitions);
    else 2 + 3 * zz(seconds since the previous transition / unit) + u, with unit
      900, 60 or 1 seconds for u = 0, 1, 2 (the first: since the epoch);
  the offsets stream, per transition of the second kind: 0 for the offset of the
    transition two before, else 1 + 2 * zz(offset / 900) or 2 + 2 * zz(offset).
Runs of yearly rules cost a byte each and gzip well: about 18 KB gzipped where
plain deltas took 26 KB.
"""
import re, sys

src = open(sys.argv[1]).read()
names = dict(re.findall(r'Tz::(\w+) => "([^"]+)",', src))
body_re = re.compile(r'            Tz::(\w+) => \{\n(.*?)\n            \},', re.S)
span_re = re.compile(r'\((-?\d+), FixedTimespan \{ utc_offset: (-?\d+), dst_offset: (-?\d+)')
first_re = re.compile(r'first: FixedTimespan \{\s*utc_offset: (-?\d+),\s*dst_offset: (-?\d+),')
zones = {}
for var, body in body_re.findall(src):
    f = first_re.search(body)
    if not f or var not in names:
        continue
    first = int(f.group(1)) + int(f.group(2))
    trans = []
    cur = first
    for t, u, d in span_re.findall(body):
        off = int(u) + int(d)
        if off != cur:  # only changes of the total offset matter
            trans.append((int(t), off))
            cur = off
    zones[names[var]] = (first, tuple(trans))
assert len(zones) == len(names), (len(zones), len(names))

def uvar(n):
    assert n >= 0
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)

def zz(n):
    return n << 1 if n >= 0 else ((-n) << 1) - 1

WEEK, YEAR = 7 * 86400, 364 * 86400

def scaled(n):
    """A signed count of seconds in the largest unit that divides it."""
    for u, unit in enumerate((900, 60, 1)):
        if n % unit == 0:
            return zz(n // unit) * 3 + u

distinct = sorted(set(zones.values()))
index = {z: i for i, z in enumerate(distinct)}
head, times, offsets = bytearray(), bytearray(), bytearray()
head += uvar(len(zones)) + uvar(len(distinct))
for name in sorted(zones, key=lambda s: s.encode()):
    b = name.encode()
    head += uvar(len(b)) + b + uvar(index[zones[name]])
head_names = len(head)
for first, trans in distinct:
    head += uvar(zz(first)) + uvar(len(trans))
for first, trans in distinct:
    prev = 0
    for i, (t, off) in enumerate(trans):
        back = trans[i - 2] if i >= 2 else None
        weeks = (t - back[0] - YEAR) // WEEK if back else None
        if back and off == back[1] and t - back[0] - YEAR == weeks * WEEK and weeks in (0, 1):
            times += uvar(weeks)
        else:
            times += uvar(2 + scaled(t - prev))
            if back and off == back[1]:
                offsets += uvar(0)
            elif off % 900 == 0:
                offsets += uvar(1 + 2 * zz(off // 900))
            else:
                offsets += uvar(2 + 2 * zz(off))
        prev = t
body = head + times
out = bytearray(b"TZDB2")
# The offsets stream starts after the magic, this number and the body.
n = len(out) + len(body)
while len(out) + len(uvar(n)) + len(body) != n:
    n = len(out) + len(uvar(n)) + len(body)
out += uvar(n) + body + offsets
path = sys.argv[2] if len(sys.argv) > 2 else "src/tzdb/tzdata.bin"
open(path, "wb").write(out)
# The names alone (the page's wasm carries them and fetches the rest): src/tzdb/mod.rs.
open(path.replace("tzdata.bin", "tznames.bin"), "wb").write(out[: len(b"TZDB2") + len(uvar(n)) + head_names])
print(f"{len(zones)} names, {len(distinct)} distinct zones, {sum(len(t) for _, t in distinct)} transitions, {len(out)} bytes")
