#!/usr/bin/env python3
"""Write src/tzdb/tzdata.bin, mqlplay's compact copy of the time-zone offsets in
chrono-tz's prebuilt tables (the Rust source it ships): every Olson name and, per
distinct zone, its UTC offsets and transition instants. Only the total offset is
kept (utc + dst): all the engine needs (src/expr/ops/date.rs). The test
tests in src/tzdb checks the copy against chrono-tz itself.

Usage: tools/tzdb.py ~/.cargo/registry/src/*/chrono-tz-0.10.4/src/prebuilt/timezones.rs

Format (all integers LEB128 varints, signed ones zigzag-encoded):
  "TZDB1", names count, zones count,
  per name (sorted): length, bytes, zone index,
  per zone: first offset, transitions count, per transition: seconds since the
  previous transition (the first: since the epoch, signed), new offset.
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
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)

def svar(n):
    return uvar((n << 1) ^ (n >> 63) if n < 0 else n << 1)

distinct = sorted(set(zones.values()))
index = {z: i for i, z in enumerate(distinct)}
out = bytearray(b"TZDB1")
out += uvar(len(zones)) + uvar(len(distinct))
for name in sorted(zones, key=lambda s: s.encode()):
    b = name.encode()
    out += uvar(len(b)) + b + uvar(index[zones[name]])
for first, trans in distinct:
    out += svar(first) + uvar(len(trans))
    prev = 0
    for t, off in trans:
        out += svar(t - prev) + svar(off)
        prev = t
open(sys.argv[2] if len(sys.argv) > 2 else "src/tzdb/tzdata.bin", "wb").write(out)
print(f"{len(zones)} names, {len(distinct)} distinct zones, {sum(len(t) for _, t in distinct)} transitions, {len(out)} bytes")
