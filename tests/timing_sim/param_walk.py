#!/usr/bin/env python3
"""Parameter walk (issue #22, "Parameters that do nothing"; docs/timing-config.md "Every key acts").

For every key of tbr-sim's parameter table, simulates one frame of a replayed sample with the
key moved away from its default (each enum value, a flipped bool; for a number its minimum,
half, double, maximum, ... until one is accepted and changes something) and checks that some statistic of stats.json changed.
A key may instead be on the list in param_walk_expect.txt, which says per key either
  KEY  needs K=V[,K=V...]   the key acts only when other keys enable its mechanism: the walk
                            then compares against a baseline that has those settings
                            (frames=A-B there: a longer window, for keys acting across frames),
  KEY  value V [K=V,...]    try exactly V, with companion settings on that run only (for keys
                            tied to others by a consistency check, e.g. the DRAM geometry),
  KEY  check  REASON        a consistency check of other keys: every other value is rejected,
  KEY  inert  REASON        it legitimately changes no statistic on this input (REASON says why),
  KEY  inert-with V K=V,... REASON   the same, trying V with companion settings,
  KEY  inert-given K=V,... REASON    every value changes nothing against a baseline that has
                            those settings (a mechanism that exists only with them but cannot
                            act on this input, e.g. an arbitration between work that never meets),
and the walk fails when an "inert" key does change something (the list must stay true).
Keys reported "not modeled yet" by tbr-sim must be rejected for every non-default value.

Usage: param_walk.py TBR_SIM REPLAY_DIR EXPECT_FILE WORK_DIR [--frames A-B] [-j N] [--only KEY...]
Exit 0 when every key behaves as described, 1 otherwise (each offending key named).
"""
import argparse
import concurrent.futures
import json
import os
import re
import shutil
import subprocess
import sys


def parse_params(tbr_sim):
    out = subprocess.run([tbr_sim, "--list-params"], check=True, capture_output=True, text=True).stdout
    params = []
    head = re.compile(r"^(\S+)\s+(uint|double|bool|enum|string)\s+(\S+)\s+(\S+)\s+(.*)$")
    for line in out.splitlines()[1:]:
        m = head.match(line)
        if not m:
            continue
        name, typ, default, _unit, rng = m.groups()
        p = {"name": name, "type": typ, "default": default, "range": rng.strip()}
        params.append(p)
    return params


def fmt_num(typ, v):
    return str(int(v)) if typ == "uint" else repr(float(v))


def candidates(p):
    """Values to try, in order of preference: the first that tbr-sim accepts is used (for
    enums: every other value is tried and each must act)."""
    typ, d = p["type"], p["default"]
    if typ == "bool":
        return ["false" if d == "true" else "true"]
    if typ == "enum":
        return [v for v in p["range"].split("|") if v != d]
    if typ == "string":
        return []
    lo, hi = [float(x) for x in p["range"].strip("[]").split(",")]
    dv = float(d)
    # The minimum first: a resource cut to its minimum (one MSHR, a one-entry queue) is the
    # value most likely to show whether the key is read at all.
    vals = [lo, dv / 2, dv * 2, hi, dv + 1, dv - 1, dv * 4, dv / 4]
    seen, res = set(), []
    for v in vals:
        if typ == "uint":
            v = int(v)
        if v < lo or v > hi or v == dv:
            continue
        s = fmt_num(typ, v)
        if s not in seen:
            seen.add(s)
            res.append(s)
    return res


expect_values = {}  # KEY -> (value, companions) of "inert-with" entries
expect_pre = {}  # KEY -> baseline settings of "inert-given" entries


def load_expect(path):
    expect = {}
    with open(path, encoding="utf-8") as f:
        for lineno, line in enumerate(f, 1):
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            parts = line.split(None, 2)
            if len(parts) < 3 or parts[1] not in ("needs", "value", "check", "inert", "inert-with", "inert-given"):
                sys.exit(f"{path}:{lineno}: expected 'KEY needs K=V,...', 'KEY value V [K=V,...]', "
                         "'KEY check REASON' or 'KEY inert REASON'")
            key, kind, rest = parts
            if key in expect:
                sys.exit(f"{path}:{lineno}: {key} listed twice")
            if kind == "needs":
                expect[key] = ("needs", [kv.strip() for kv in rest.split(",") if kv.strip()])
            elif kind == "inert-with":  # KEY inert-with V K=V,... REASON
                v, comp, reason = (rest.split(None, 2) + ["", ""])[:3]
                expect[key] = ("inert", reason)
                expect_values[key] = (v, [kv.strip() for kv in comp.split(",") if kv.strip()])
            elif kind == "inert-given":  # KEY inert-given K=V,... REASON
                comp, _, reason = rest.partition(" ")
                expect[key] = ("inert", reason.strip())
                expect_pre[key] = [kv.strip() for kv in comp.split(",") if kv.strip()]
            elif kind == "value":
                v, _, comp = rest.partition(" ")
                expect[key] = ("value", (v, [kv.strip() for kv in comp.split(",") if kv.strip()]))
            else:
                expect[key] = (kind, rest.strip())
    return expect


def flatten(prefix, v, out):
    if isinstance(v, dict):
        for k, x in v.items():
            flatten(f"{prefix}.{k}" if prefix else k, x, out)
    elif isinstance(v, list):
        for i, x in enumerate(v):
            flatten(f"{prefix}[{i}]", x, out)
    else:
        out[prefix] = v


def stats_of(path):
    """Every simulated figure of stats.json (statistics, energy, per-frame results), flattened;
    not the configuration echo (it changes with every key by construction) nor host times."""
    with open(path, encoding="utf-8") as f:
        d = json.load(f)
    flat = {}
    for k, v in d.items():
        if k not in ("config", "tool", "version"):
            flatten(k, v, flat)
    return {k: v for k, v in flat.items() if "wall" not in k and not k.startswith("host")}


class Walker:
    def __init__(self, a):
        self.a = a
        self.runs = 0

    def run(self, sets, tag):
        out = os.path.join(self.a.work, tag)
        shutil.rmtree(out, ignore_errors=True)
        frames = self.a.frames
        cmd = [self.a.tbr_sim, self.a.replay, "-o", out, "--quiet"]
        for kv in sets:
            if kv.startswith("frames="):  # a longer window, for keys that act across frames
                frames = kv[len("frames="):]
            else:
                cmd += ["--set", kv]
        cmd += ["--frames", frames]
        r = subprocess.run(cmd, capture_output=True, text=True)
        self.runs += 1
        try:
            if r.returncode == 2:
                return ("rejected", r.stderr.strip())
            if r.returncode != 0:
                return ("failed", f"exit {r.returncode}: {r.stderr.strip()[-400:]}")
            return ("ok", stats_of(os.path.join(out, "stats.json")))
        finally:
            shutil.rmtree(out, ignore_errors=True)


def safe(s):
    return re.sub(r"[^A-Za-z0-9_.=-]", "_", s)[:120]


def walk_key(w, p, expect, baselines):
    """Returns a list of problems (strings) for key P."""
    name = p["name"]
    kind, arg = expect.get(name, (None, None))
    pre = arg if kind == "needs" else expect_pre.get(name, [])
    base = baselines[tuple(pre)]
    if base[0] != "ok":
        return [f"{name}: baseline with {pre} failed: {base[1]}"]
    vals, companions = ([arg[0]], arg[1]) if kind == "value" else (candidates(p), [])
    if name in expect_values:
        vals, companions = [expect_values[name][0]], expect_values[name][1]
    if kind == "check":
        for v in vals:
            res = w.run([f"{name}={v}"], safe(f"{name}={v}"))
            if res[0] != "rejected":
                return [f"{name}={v}: listed as a check ({arg}) but accepted"]
        return []
    if not vals:
        return [f"{name}: no alternative value to try (add it to the expect file)"]
    problems, acted, accepted = [], [], []
    for v in vals:
        res = w.run(pre + companions + [f"{name}={v}"], safe(f"{name}={v}"))
        if res[0] == "rejected":
            if "not modeled yet" in res[1]:
                accepted.append((v, "not-modeled"))
                continue
            if p["type"] == "enum":
                problems.append(f"{name}={v}: rejected: {res[1]}")
            continue
        if res[0] == "failed":
            problems.append(f"{name}={v}: {res[1]}")
            continue
        changed = sorted(k for k in set(res[1]) | set(base[1]) if res[1].get(k) != base[1].get(k))
        accepted.append((v, "changed" if changed else "same"))
        acted.append((v, changed))
        if p["type"] != "enum" and (changed or kind == "inert"):
            break
    if p["type"] != "enum" and any(how == "changed" for _, how in accepted):
        accepted = [a for a in accepted if a[1] != "same"]  # a number acts if some value acts
    if not accepted:
        return problems + [f"{name}: every candidate value {vals} was rejected"]
    same = [v for v, how in accepted if how == "same"]
    if same and kind != "inert":
        problems.append(f"{name}: accepted {same} but no statistic changed (baseline {pre or 'default'})")
    for v, how in accepted:
        if how == "changed" and kind == "inert":
            ch = [c for vv, c in acted if vv == v][0]
            problems.append(f"{name}={v}: listed inert ({arg}) but changed {len(ch)} statistics, e.g. {ch[:3]}")
    return problems


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("tbr_sim")
    ap.add_argument("replay")
    ap.add_argument("expect")
    ap.add_argument("work")
    ap.add_argument("--frames", default="1-1")
    ap.add_argument("-j", type=int, default=2)
    ap.add_argument("--only", nargs="*")
    a = ap.parse_args()
    os.makedirs(a.work, exist_ok=True)
    params = parse_params(a.tbr_sim)
    names = {p["name"] for p in params}
    expect = load_expect(a.expect)
    bad = [k for k in expect if k not in names]
    if bad:
        sys.exit(f"{a.expect}: keys not in the parameter table: {bad}")
    if a.only:
        params = [p for p in params if p["name"] in a.only]
    w = Walker(a)
    pres = {()} | {tuple(v[1]) for k, v in expect.items() if v[0] == "needs"} | {tuple(v) for v in expect_pre.values()}
    baselines = {pre: w.run(list(pre), safe("base-" + "-".join(pre))) for pre in pres}
    problems = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=a.j) as ex:
        for probs in ex.map(lambda p: walk_key(w, p, expect, baselines), params):
            problems += probs
    for pr in problems:
        print("param_walk: " + pr)
    print(f"param_walk: {len(params)} keys, {w.runs} runs, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
