#!/usr/bin/env python3
"""Compares two samebits reports case by case: the same case ids, verdicts and output digests (both
sides of every comparison), and the same outcome per (contract, check, implementation, device).
Reads schema 1.x and 2.x alike (seeds were numbers, are decimal strings). Usage:
compare-reports.py BEFORE.json[.gz] AFTER.json[.gz]; exits 0 when nothing differs, 1 otherwise."""
import gzip
import json
import sys


def load(path):
    with (gzip.open(path, "rt") if path.endswith(".gz") else open(path)) as f:
        return json.load(f)


def case_view(c):
    return {
        "seed": str(c["seed"]),
        "verdict": c["verdict"],
        "outputs": [(o["name"], o["baseline_sha256"], o["variant_sha256"]) for o in c["outputs"]],
    }


def main(argv):
    if len(argv) != 3:
        print(__doc__)
        return 2
    a, b = load(argv[1]), load(argv[2])
    cases_a = {c["id"]: case_view(c) for c in a["cases"]}
    cases_b = {c["id"]: case_view(c) for c in b["cases"]}
    key = lambda g: (g["contract"], g["check"], g["impl"], g["device"])
    checks_a = {key(g): g["outcome"] for g in a["checks"]}
    checks_b = {key(g): g["outcome"] for g in b["checks"]}
    differences = []
    for cid in sorted(set(cases_a) | set(cases_b)):
        if cid not in cases_b:
            differences.append(f"case only in the first: {cid}")
        elif cid not in cases_a:
            differences.append(f"case only in the second: {cid}")
        elif cases_a[cid] != cases_b[cid]:
            for field in ("seed", "verdict", "outputs"):
                if cases_a[cid][field] != cases_b[cid][field]:
                    differences.append(f"{cid}: {field} {cases_a[cid][field]} -> {cases_b[cid][field]}")
    for k in sorted(set(checks_a) | set(checks_b)):
        if checks_a.get(k) != checks_b.get(k):
            differences.append(f"check {'/'.join(k)}: {checks_a.get(k)} -> {checks_b.get(k)}")
    for d in differences[:50]:
        print(d)
    if len(differences) > 50:
        print(f"... {len(differences) - 50} more")
    digests = sum(len(v["outputs"]) * 2 for v in cases_a.values())
    print(f"{len(cases_a)} and {len(cases_b)} cases, {len(checks_a)} and {len(checks_b)} checks, "
          f"{digests} output digests compared: "
          f"{'no differences' if not differences else f'{len(differences)} differences'}")
    return 1 if differences else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
