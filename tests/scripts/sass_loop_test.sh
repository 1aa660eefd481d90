#!/usr/bin/env bash
# bench/sass_loop.py over small cuobjdump listings whose figures are known: the computing warps'
# code and the tile loop's uniform and R2UR counts; --against says identical for the same code in
# another anonymous namespace, and names the first line that differs (exit 1) for changed code.
set -u
python=$1 script=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

listing() {  # listing HASH DESCRIPTOR_LINE: a kernel in an anonymous namespace named by HASH
  cat <<SASS
	code for sm_90a
		Function : _ZN8samebits7kernels${1}6kernelEv
	.headerflags	@"EF_CUDA_SM90 EF_CUDA_VIRTUAL_SM(EF_CUDA_SM90)"
        /*0000*/                   LDC R1, c[0x0][0x28] ;                 /* 0x00000a00ff017b82 */
                                                                          /* 0x000fe20000000800 */
        /*0010*/                   USETMAXREG.TRY_ALLOC.CTAPOOL UP0, 0xe0 ;  /* 0x000000e0000079c8 */
        /*0020*/                   ISETP.NE.AND P0, PT, R2, RZ, PT ;      /* 0x000000e0000079c8 */
        /*0030*/                   HGMMA.64x64x16.F32.BF16 R88, gdesc[UR40], RZ, !UPT ;  /* 0x0 */
        /*0040*/                   $2 ;                                   /* 0x0 */
        /*0050*/              @!UP1 UIADD3 UR14, UR47, 0x270, URZ ;       /* 0x0 */
        /*0060*/                   HGMMA.64x128x16.F32.BF16 R24, R124, gdesc[UR12].tnspB, R24 ;  /* 0x0 */
        /*0070*/                   STG.E desc[UR4][R2.64], R6 ;           /* 0x0 */
        /*0080*/                   USETMAXREG.DEALLOC.CTAPOOL 0x38 ;      /* 0x0 */
        /*0090*/                   LDGSTS.E [R1], desc[UR4][R2.64] ;      /* 0x0 */
        /*00a0*/                   EXIT ;                                 /* 0x0 */
SASS
}
listing _GLOBAL__N__0abc_2 "ULEA UR14, UR46, UR14, 0x18" > "$dir/a.sass"
listing _GLOBAL__N__0def_2 "ULEA UR14, UR46, UR14, 0x18" > "$dir/same.sass"
listing _GLOBAL__N__0abc_2 "R2UR UR14, R14" > "$dir/moved.sass"

out=$("$python" "$script" "$dir/a.sass" 2>&1) || fail "exit $?: $out"
echo "$out" | grep -q ": computing warps 6 instructions; tile loop 4 (2 HGMMA, 2 uniform, 0 R2UR, uniform predicates UP1)$" ||
  fail "figures: $out"
out=$("$python" "$script" "$dir/moved.sass" 2>&1) || fail "exit $?: $out"
echo "$out" | grep -q "tile loop 4 (2 HGMMA, 1 uniform, 1 R2UR, uniform predicates UP1)$" ||
  fail "figures, moved: $out"
out=$("$python" "$script" "$dir/a.sass" --against "$dir/same.sass" 2>&1) || fail "same: exit $?: $out"
echo "$out" | grep -q "against .*same.sass: identical (11 instructions)$" || fail "same: $out"
# The control: one line changed is found, and named.
out=$("$python" "$script" "$dir/moved.sass" --against "$dir/a.sass" 2>&1) && fail "moved: exit 0: $out"
echo "$out" | grep -q "1 of 11 lines differ; first at 4: 'R2UR UR14, R14' here, 'ULEA UR14, UR46, UR14, 0x18' there" ||
  fail "moved: $out"

out=$("$python" "$script" "$dir/a.sass" --kernel nothing 2>&1) && fail "--kernel nothing: exit 0"
echo "$out" | grep -q "^--kernel nothing: no kernel in .* matches; it has: " || fail "--kernel: $out"
echo "not a listing" > "$dir/other.txt"
out=$("$python" "$script" "$dir/other.txt" 2>&1) && fail "another file: exit 0"
echo "$out" | grep -q "no 'Function :' lines: not cuobjdump -sass output" || fail "another file: $out"
echo "$out" | grep -q Traceback && fail "another file: a traceback: $out"
echo "ok"
