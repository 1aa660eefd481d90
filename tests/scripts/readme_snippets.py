#!/usr/bin/env python3
# Every ```json snippet of a Markdown file must pass `samebits validate`, so the README shows the
# contract syntax the parser takes: a whole contract as it is, a check or a sweep wrapped into one.
"""Validates the ```json snippets of Markdown files with `samebits validate`.

A snippet with "op" is a whole contract. One with "kind" is a check: it is wrapped into a minimal
contract (op sum, sweep {"N": [8]}, the implementations its "expect" and "against" name). Any
other object is a sweep block: wrapped into a contract of op sum with one determinism check.
An HTML comment on the line before the fence changes this:
  <!-- not-a-contract -->                 the snippet is skipped
  <!-- wrap: {"op": "topk", ...} -->      fields of the wrapping contract (op, sweep,
                                          implementations), for a check or a sweep of another op
Exit 0 when every snippet is as expected, 1 otherwise (each failure named FILE:LINE), 2 on usage.
--expect-broken LINE,... names the fences that must fail (a control for this script itself).
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

FENCE = re.compile(r"^\s*```json\s*$")
SKIP = "<!-- not-a-contract -->"
WRAP = re.compile(r"^<!--\s*wrap:\s*(\{.*\})\s*-->$")


def snippets(path):
    """(line of the fence, marker line before it, body) for each ```json block."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    i = 0
    while i < len(lines):
        if FENCE.match(lines[i]):
            fence = i + 1
            before = lines[i - 1].strip() if i > 0 else ""
            body = []
            i += 1
            while i < len(lines) and not lines[i].lstrip().startswith("```"):
                body.append(lines[i])
                i += 1
            if i == len(lines):
                raise ValueError(f"{path}:{fence}: the ```json block is never closed")
            yield fence, before, "\n".join(body)
        i += 1


def as_contract(doc, wrap):
    """The contract a snippet stands for, and what it was taken as."""
    if not isinstance(doc, dict):
        raise ValueError("not a JSON object: a contract, a check or a sweep (or mark the block "
                         + SKIP + ")")
    if "op" in doc:
        return doc, "contract"
    contract = {"op": "sum", "sweep": {"N": [8]}}
    if "kind" in doc:
        impls = [name for name in doc.get("expect", {})]
        if "against" in doc:
            impls.append(doc["against"])
        contract.update({"implementations": impls or ["aten"], "checks": [doc]})
        what = "check"
    else:
        contract.update({"implementations": ["aten"], "sweep": doc,
                         "checks": [{"kind": "determinism", "expect": {"aten": "unknown"}}]})
        what = "sweep"
    contract.update(wrap)
    return contract, what


def check_file(samebits, path, folder):
    """{fence line: None when it validates, else why not}."""
    results = {}
    for fence, before, body in snippets(path):
        if before == SKIP:
            print(f"{path}:{fence}: skipped ({SKIP})")
            continue
        wrap = {}
        match = WRAP.match(before)
        try:
            if match:
                wrap = json.loads(match.group(1))
            contract, what = as_contract(json.loads(body), wrap)
        except (ValueError, json.JSONDecodeError) as e:
            results[fence] = f"not JSON samebits could read: {e}"
            continue
        target = os.path.join(folder, f"snippet-L{fence}.json")
        with open(target, "w", encoding="utf-8") as f:
            json.dump(contract, f, indent=2)
        run = subprocess.run([samebits, "validate", target], capture_output=True, text=True)
        if run.returncode == 0:
            print(f"{path}:{fence}: ok ({what})")
            results[fence] = None
        else:
            results[fence] = f"samebits validate exit {run.returncode} ({what}): " + \
                run.stderr.strip()
    return results


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--samebits", required=True, help="the samebits binary")
    parser.add_argument("--expect-broken", default="",
                        help="comma-separated fence lines that must fail (a control)")
    parser.add_argument("markdown", help="the Markdown file, e.g. README.md")
    args = parser.parse_args()
    expected = {int(x) for x in args.expect_broken.split(",") if x}
    try:
        with tempfile.TemporaryDirectory(prefix="samebits-snippets-") as folder:
            results = check_file(args.samebits, args.markdown, folder)
    except (OSError, ValueError) as e:
        print(f"readme_snippets: {e}", file=sys.stderr)
        return 2
    bad = 0
    if not results:
        print(f"{args.markdown}: no ```json snippet to check", file=sys.stderr)
        bad += 1
    for fence, why in sorted(results.items()):
        if why is not None and fence not in expected:
            print(f"{args.markdown}:{fence}: FAILED: {why}", file=sys.stderr)
            bad += 1
        elif why is None and fence in expected:
            print(f"{args.markdown}:{fence}: expected to fail, but validates", file=sys.stderr)
            bad += 1
        elif why is not None:
            print(f"{args.markdown}:{fence}: fails as expected: {why}")
    for fence in sorted(expected - set(results)):
        print(f"{args.markdown}:{fence}: no ```json snippet there", file=sys.stderr)
        bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
