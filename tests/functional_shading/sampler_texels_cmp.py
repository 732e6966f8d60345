#!/usr/bin/env python3
"""functional_shading.sampler_texels: compare the texels functional/reference/sampler.c
reports to its observer (sampler_softpipe_diff's SAMPLER_DIFF_TEXELS log, lines
"case qx qy lane level layer x y") with the TEXELS records the recorder wrote for the
same run (`tbr-dump -v -t quads,texels` text): per quad and lane, the same texels in
the same order. Draw seq = case number; a fetch's quad ordinal is located through
the QUADS records' positions. usage: sampler_texels_cmp.py SAMPLER_LOG DUMP_TXT"""
import re, sys
from collections import defaultdict

mine = defaultdict(list)  # (case, qx, qy, lane) -> [(level, layer, x, y)]
for line in open(sys.argv[1]):
    c, qx, qy, lane, level, layer, x, y = map(int, line.split())
    mine[(c, qx, qy, lane)].append((level, layer, x, y))

quad_pos = defaultdict(list)  # draw -> [(x, y)] in quad ordinal order
rec = defaultdict(list)  # (draw, qx, qy) -> [fetch: {lane: [texels]}] (a quad on the
                         # diagonal of the two triangles is shaded twice)
draw = None; kind = None; cur_quad = None
for line in open(sys.argv[2]):
    m = re.match(r'\s+\[\d+\] (QUADS|TEXELS) draw=(\d+)', line)
    if m:
        kind, draw = m.group(1), int(m.group(2)); continue
    if re.match(r'\s+\[\d+\] ', line):
        kind = None; continue
    if kind == 'QUADS':
        m = re.match(r'\s+\((\d+),(\d+)\) prim=', line)
        if m: quad_pos[draw].append((int(m.group(1)), int(m.group(2))))
    elif kind == 'TEXELS':
        m = re.match(r'\s+quad=(\d+) ', line)
        if m:
            cur_quad = int(m.group(1))
            qx, qy = quad_pos[draw][cur_quad]
            fetch = defaultdict(list)
            rec[(draw, qx, qy)].append(fetch)
            continue
        m = re.match(r'\s+lane (\d+): (.*)', line)
        if m:
            lane = int(m.group(1)); level = layer = None; out = []
            for tok in re.findall(r'L\d+/\d+:|\(-?\d+,-?\d+\)', m.group(2)):
                if tok[0] == 'L':
                    level, layer = map(int, tok[1:-1].split('/'))
                else:
                    x, y = map(int, tok[1:-1].split(','))
                    out.append((level, layer, x, y))
            fetch[lane].extend(out)

quads = set(k[:3] for k in mine) | set(rec)
bad = 0; fetches = 0
for q in sorted(quads):
    expect = {lane: mine.get(q + (lane,), []) for lane in range(4)}
    if q not in rec:
        if any(expect.values()):
            bad += 1; print('MISSING recorded fetch for', q)
        continue
    for fetch in rec[q]:
        fetches += 1
        got = {lane: fetch.get(lane, []) for lane in range(4)}
        if got != expect:
            bad += 1
            if bad <= 5:
                print('MISMATCH', q, 'sampler', expect, 'recorded', got)
print(f'{len(quads)} quads, {fetches} recorded fetches, {bad} mismatches')
sys.exit(1 if bad else 0)
