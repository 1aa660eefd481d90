#!/usr/bin/env bash
# bench/sass_regions.py over a small source page whose regions' samples are known: each region's
# share, the copying warps' ratio, instructions per warp and turn, and the loop's bound moving
# with --loop-share (the control); pages it cannot split give one line saying why, exit 1.
set -u
python=$1 script=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

cat > "$dir/page.csv" <<'CSV'
"Kernel Name","void prefill(int)",
"Address","Source","Warp Stall Sampling (All Samples)","Instructions Executed","stall_wait","stall_long_sb"
"0x00","MOV R1, c[0x0][0x28]","1","10","1","0"
"0x10","USETMAXREG.TRY_ALLOC.CTAPOOL UP0, 0xe0","0","10","0","0"
"0x20","@!P0  BRA 0x100","20","10","0","20"
"0x30","FMNMX R1, R2, R3, !PT","50","100","50","0"
"0x40","MUFU.EX2 R4, R5","10","95","10","0"
"0x50","STG.E desc[UR4][R2.64], R6","20","10","20","0"
"0x60","@!P0  EXIT","0","10","0","0"
"0x70","USETMAXREG.DEALLOC.CTAPOOL 0x38","0","5","0","0"
"0x80","LDGSTS.E [R1], desc[UR4][R2.64]","30","50","0","30"
CSV
out=$("$python" "$script" "$dir/page.csv" --turns 1 --warps 1 2>&1) || fail "exit $?: $out"
echo "$out" | grep -q "^start .*( 20.0 % of the computing warps' samples), .*10 a warp and turn" ||
  fail "start: $out"
echo "$out" | grep -q "^loop .*( 60.0 % .*195 a warp and turn; wait 60" || fail "loop: $out"
echo "$out" | grep -q "^end .*( 20.0 % .*20 a warp and turn" || fail "end: $out"
echo "$out" | grep -q "^copying .*(0.30x the computing warps' samples).*long_sb 30" ||
  fail "copying: $out"
# --ops: each region's opcodes by samples (the predicate dropped), with instructions and stalls.
out=$("$python" "$script" "$dir/page.csv" --ops 2 2>&1) || fail "exit $?: $out"
echo "$out" | grep -A2 "^loop" | grep -q "^    FMNMX  .* 50 samples, .*0.0 M instructions; wait 50" ||
  fail "ops, loop's first: $out"
echo "$out" | grep -A2 "^loop" | grep -q "^    MUFU.EX2 .* 10 samples.*; wait 10" ||
  fail "ops, loop's second: $out"
echo "$out" | grep -A1 "^start" | grep -q "^    BRA .* 20 samples.*; long_sb 20" ||
  fail "ops, a predicated line: $out"
out=$("$python" "$script" "$dir/page.csv" --ops 1 2>&1) || fail "exit $?: $out"
echo "$out" | grep -q "MUFU.EX2" && fail "ops 1 lists a second opcode: $out"
# The control: with the loop's bound above the second line's count, that line ends the turn.
out=$("$python" "$script" "$dir/page.csv" --loop-share 0.99 2>&1) || fail "exit $?: $out"
echo "$out" | grep -q "^loop .*( 50.0 %" || fail "control, loop: $out"
echo "$out" | grep -q "^end .*( 30.0 %" || fail "control, end: $out"

grep -v USETMAXREG "$dir/page.csv" > "$dir/plain.csv"
out=$("$python" "$script" "$dir/plain.csv" 2>&1) && fail "a page without USETMAXREG: exit 0"
echo "$out" | grep -q "no USETMAXREG" || fail "a page without USETMAXREG: $out"
echo "not a page" > "$dir/other.csv"
out=$("$python" "$script" "$dir/other.csv" 2>&1) && fail "another file: exit 0"
echo "$out" | grep -q 'no header line starting with "Address"' || fail "another file: $out"
echo "$out" | grep -q Traceback && fail "another file: a traceback: $out"
echo "ok"
