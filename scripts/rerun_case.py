#!/usr/bin/env python3
"""Reruns one case of a report alone (`samebits run REPORT --case ID`: the contracts come from the
report itself) and checks that its verdict and output digests equal those in the full run: the case
id and seed alone reproduce the case bit for bit.
Usage: rerun_case.py SAMEBITS REPORT.json[.gz] [CASE_ID]  (default: the first violated case).
Exit 0 same, 1 different, 2 a bad argument or report (named on stderr), 3 the rerun failed."""
import gzip
import json
import subprocess
import sys
import tempfile


class Refused(Exception):
    pass


def read_report(path):
    try:
        opener = gzip.open if path.endswith(".gz") else open
        with opener(path, "rt") as f:
            report = json.load(f)
    except OSError as e:
        raise Refused(f"{path}: cannot read the report: {e.strerror or e}")
    except (json.JSONDecodeError, UnicodeDecodeError, EOFError) as e:
        raise Refused(f"{path}: not a complete JSON report ({e})")
    if not isinstance(report, dict) or report.get("schema") != "samebits.report":
        raise Refused(f"{path}: not a samebits report (its \"schema\" is not \"samebits.report\")")
    cases = report.get("cases")
    seed = report.get("settings", {}).get("seed") if isinstance(report.get("settings"), dict) else None
    if not isinstance(cases, list) or seed is None:
        raise Refused(f"{path}: the report lacks its \"cases\" list or \"settings\"/\"seed\"")
    return report


def main(argv):
    if len(argv) not in (3, 4):
        raise Refused("usage: rerun_case.py SAMEBITS REPORT.json[.gz] [CASE_ID]")
    binary, report_path = argv[1], argv[2]
    report = read_report(report_path)
    cases = {c.get("id"): c for c in report["cases"] if isinstance(c, dict)}
    if len(argv) > 3:
        case_id = argv[3]
        if case_id not in cases:
            raise Refused(f"{report_path}: no case \"{case_id}\" in the report")
    else:
        case_id = next((i for i, c in cases.items() if c.get("verdict") == "violated"), None)
        if case_id is None:
            raise Refused(f"{report_path}: no violated case to rerun; name one")
    with tempfile.NamedTemporaryFile(suffix=".json") as out:
        cmd = [binary, "run", report_path, "--case", case_id,
               "--seed", str(report["settings"]["seed"]), "--report", out.name]
        try:
            rc = subprocess.run(cmd, stdout=subprocess.DEVNULL, check=False).returncode
        except OSError as e:
            raise Refused(f"{binary}: cannot run samebits: {e.strerror or e}")
        try:
            with open(out.name) as f:
                alone = json.load(f)["cases"][0]
        except (OSError, ValueError, KeyError, IndexError):
            print(f"rerun failed: `{' '.join(cmd)}` exited {rc} without a report of the case",
                  file=sys.stderr)
            return 3
    full = cases[case_id]
    digests = lambda c: [(o["name"], o["baseline_sha256"], o["variant_sha256"]) for o in c.get("outputs", [])]
    same = alone["verdict"] == full.get("verdict") and digests(alone) == digests(full)
    print(f"{'same' if same else 'DIFFERENT'}: {case_id} ({full.get('verdict')}, "
          f"{len(full.get('outputs', []))} outputs) rerun alone")
    return 0 if same else 1


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv))
    except Refused as e:
        print(f"rerun_case.py: {e}", file=sys.stderr)
        sys.exit(2)
