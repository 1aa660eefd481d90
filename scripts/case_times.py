# Where a report's time went: seconds per check kind and per contract/check/impl (the cases' own
# durations), against the whole run; for the suite-speed work (issue 27). Usage: case_times.py REPORT [N]
import json, sys, gzip, collections
p = sys.argv[1]
r = json.load(gzip.open(p) if p.endswith('.gz') else open(p))
d = collections.Counter(); n = collections.Counter(); kinds = collections.Counter()
for c in r['cases']:
    k = c['contract'] + '/' + c['check'] + '/' + c['impl']
    d[k] += c.get('duration_ms', 0); n[k] += 1; kinds[c['kind']] += c.get('duration_ms', 0)
tot = sum(d.values())
print(f"cases {len(r['cases'])} in-case {tot/1000:.1f}s of run {r['summary']['duration_s']:.1f}s")
for k, v in kinds.most_common(): print(f"  kind {k:24s} {v/1000:7.1f}s")
for k, v in d.most_common(int(sys.argv[2]) if len(sys.argv) > 2 else 25): print(f"  {v/1000:7.1f}s {n[k]:5d} {k}")
