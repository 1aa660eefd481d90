#!/usr/bin/env python3
"""Reruns one case of a report alone (`samebits run REPORT --case ID`: the contracts come from the
report itself) and checks that its verdict and output digests equal those in the full run: the case
id and seed alone reproduce the case bit for bit.
Usage: rerun_case.py SAMEBITS REPORT.json [CASE_ID]  (default: the first violated case)."""
import json
import subprocess
import sys
import tempfile


def main(argv):
    binary, report_path = argv[1], argv[2]
    with open(report_path) as f:
        report = json.load(f)
    cases = {c["id"]: c for c in report["cases"]}
    case_id = argv[3] if len(argv) > 3 else next(
        c["id"] for c in report["cases"] if c["verdict"] == "violated")
    with tempfile.NamedTemporaryFile(suffix=".json") as out:
        cmd = [binary, "run", report_path, "--case", case_id,
               "--seed", str(report["settings"]["seed"]), "--report", out.name]
        subprocess.run(cmd, stdout=subprocess.DEVNULL, check=False)
        with open(out.name) as f:
            alone = json.load(f)["cases"][0]
    full = cases[case_id]
    digests = lambda c: [(o["name"], o["baseline_sha256"], o["variant_sha256"]) for o in c["outputs"]]
    same = alone["verdict"] == full["verdict"] and digests(alone) == digests(full)
    print(f"{'same' if same else 'DIFFERENT'}: {case_id} ({full['verdict']}, "
          f"{len(full['outputs'])} outputs) rerun alone")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
