#!/usr/bin/env python3
"""Validates JSON files against samebits' JSON Schemas: contracts against contracts/contract.schema.json,
reports against reports/report.schema.json (.json or .json.gz). Exits 77 (CTest: skipped) when
`jsonschema` is missing."""
import gzip
import json
import sys

try:
    import jsonschema
except ImportError:
    print("jsonschema is not installed: skipped")
    sys.exit(77)


def main(argv):
    if len(argv) < 3:
        print("usage: check_schemas.py SCHEMA FILE...")
        return 2
    with open(argv[1]) as f:
        schema = json.load(f)
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    failed = 0
    for path in argv[2:]:
        with (gzip.open(path, "rt") if path.endswith(".gz") else open(path)) as f:
            doc = json.load(f)
        errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.path))
        for e in errors[:5]:
            print(f"{path}: /{'/'.join(str(p) for p in e.path)}: {e.message[:300]}")
        failed += bool(errors)
        if not errors:
            print(f"ok: {path}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
