#!/usr/bin/env python3
"""The include graph of the source tree: a top-level folder includes only folders on lower floors
(FLOORS below, the README's layout table), and no file includes itself through others (no cycle).
Usage: include_floors.py [--expect-problems N] ROOT; exits 1 naming each upward include and each
cycle, 0 otherwise (with --expect-problems, 0 exactly when N problems are found: the control)."""
import os
import re
import sys

# Each folder's floor: a file may include its own folder and any folder on a lower floor. A folder
# inside another (reports/model) has a floor of its own; a file belongs to the longest that holds it.
FLOORS = {
    "common": 0, "kernels": 0,
    "contracts": 1,
    "cases": 2, "reports/model": 2,
    "harness": 3, "dispatch": 3, "reports/render": 3,
    "cli": 4,
}
SOURCES = (".h", ".hpp", ".cpp", ".cu", ".cuh")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def includes(root):
    """Every project file (path relative to ROOT) under a FLOORS folder -> the project files it
    includes, by their path from ROOT."""
    graph = {}
    for folder in FLOORS:
        for base, _, files in os.walk(os.path.join(root, folder)):
            for name in files:
                if not name.endswith(SOURCES):
                    continue
                path = os.path.relpath(os.path.join(base, name), root)
                with open(os.path.join(root, path), errors="replace") as f:
                    graph[path] = [m.group(1) for m in map(INCLUDE.match, f) if m]
    return graph


def folder_of(path):
    """The FLOORS folder that holds `path` (the longest one), or None."""
    parts = path.replace(os.sep, "/").split("/")
    for n in range(len(parts) - 1, 0, -1):
        if "/".join(parts[:n]) in FLOORS:
            return "/".join(parts[:n])
    return None


def upward(graph):
    for path, targets in sorted(graph.items()):
        mine = folder_of(path)
        for target in targets:
            theirs = folder_of(target)
            if theirs is not None and theirs != mine and FLOORS[theirs] >= FLOORS[mine]:
                yield (f"{path} includes {target}: {mine}/ (floor {FLOORS[mine]}) may include "
                       f"only lower floors, {theirs}/ is on floor {FLOORS[theirs]}")


def cycles(graph):
    """One include cycle per strongly connected knot, as the files around it."""
    found, state = [], {}
    for start in sorted(graph):
        if start in state:
            continue
        stack = [(start, iter(graph.get(start, ())))]
        state[start] = "open"
        trail = [start]
        while stack:
            node, it = stack[-1]
            nxt = next((t for t in it if t in graph), None)
            if nxt is None:
                state[node] = "done"
                stack.pop()
                trail.pop()
            elif state.get(nxt) == "open":
                found.append(trail[trail.index(nxt):] + [nxt])
            elif nxt not in state:
                state[nxt] = "open"
                stack.append((nxt, iter(graph[nxt])))
                trail.append(nxt)
    return found


def main():
    args = sys.argv[1:]
    expected = None
    if len(args) == 3 and args[0] == "--expect-problems":
        expected, args = int(args[1]), args[2:]
    if len(args) != 1:
        sys.exit(__doc__)
    graph = includes(args[0])
    if not graph:
        sys.exit(f"include_floors: no sources under {args[0]} (folders {', '.join(FLOORS)})")
    problems = list(upward(graph)) + [" -> ".join(c) + ": an include cycle" for c in cycles(graph)]
    for p in problems:
        print(p)
    print(f"include_floors: {len(graph)} files, {len(problems)} problems")
    if expected is not None:
        return 0 if len(problems) == expected else 1
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
