#!/usr/bin/env bash
# Nsight Compute of one grouped GEMM call each, megamoe cubins named by NCU_VARIANTS
# (suffixes of gg_e8_n4096_k7168_m32768_bm128<suffix>) and DeepGEMM's, 8 x 4096 rows,
# N x K = 4096 x 7168: SpeedOfLight, WarpStateStats (stall reasons), the L2/DRAM bytes,
# and the SASS source page (samples per instruction). Run after the DeepGEMM build
# (.anchor/deepgemm/run.sh: /tmp/dg_anchor) from the folder holding .anchor/ and the bundle.
#   OUT=... NCU_VARIANTS="_bn256 _bn256_pf" bash BUNDLE/gpu-grouped-gemm-ncu.sh
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:-$here/gpu-out}/ncu
mkdir -p "$out"
source "$here/gpu-env.sh"
export PYTHONPATH=$here/python/tests:$here/bench:/tmp/dg_anchor:$PYTHONPATH DG_JIT_CACHE_DIR=/tmp/dg_anchor_jit
sections="--section SpeedOfLight --section WarpStateStats --section SourceCounters --section Occupancy"
metrics="--metrics lts__t_bytes.sum.per_second,dram__bytes.sum.per_second,dram__bytes.sum,lts__t_bytes.sum,sm__inst_executed.sum,smsp__inst_executed_op_ldgsts.sum"
prof() { # name, kernel regex, driver args
  local name=$1 kre=$2; shift 2
  timeout ${NCU_TIMEOUT:-120} ncu --clock-control none --launch-skip 2 --launch-count 1 -k "regex:$kre" \
    $sections $metrics --import-source no -f -o "$out/$name" python3 "$here/bench/ncu_one_grouped_gemm.py" "$@" \
    > "$out/$name.log" 2>&1
  ncu --import "$out/$name.ncu-rep" --print-details all > "$out/$name.txt" 2>&1
  ncu --import "$out/$name.ncu-rep" --page source --print-source sass --csv > "$out/$name.sass.csv" 2>&1
}
for v in ${NCU_VARIANTS:-_bn256}; do
  prof "mm$v" grouped_gemm "--manifest" "$here/cubins/gg_e8_n4096_k7168_m32768_bm128$v/grouped_gemm.json"
done
[[ -d /tmp/dg_anchor ]] && prof dg sm90_fp8_gemm --deepgemm
# The summary: per kernel duration, tensor pipe, L2/DRAM, issue and the top stall reasons.
python3 - "$out" <<'PY'
import csv, glob, os, re, sys
out = sys.argv[1]
for txt in sorted(glob.glob(os.path.join(out, "*.txt"))):
    name = os.path.basename(txt)[:-4]
    lines = open(txt, errors="replace").read().splitlines()
    keep = [l.strip() for l in lines if re.search(r"Duration|SM Busy|Issue Slots Busy|Executed Ipc A|"
            r"lts__t_bytes|dram__bytes|inst_executed|Warp Cycles Per Issued|Stall|Registers Per", l)]
    print(f"--- {name}")
    for l in keep[:40]:
        print("  " + re.sub(r"\s+", " ", l))
    # The SASS page: the 12 instructions with the most stall samples.
    path = os.path.join(out, name + ".sass.csv")
    try:
        rows = list(csv.reader(open(path, errors="replace")))
        head = next(i for i, r in enumerate(rows) if "Source" in r)
        h = rows[head]
        si, wi = h.index("Source"), next(i for i, c in enumerate(h) if c.startswith("Warp Stall Sampling (All"))
        body = [r for r in rows[head + 1:] if len(r) > wi and r[wi].replace(".", "").isdigit()]
        tot = sum(float(r[wi]) for r in body) or 1
        for r in sorted(body, key=lambda r: -float(r[wi]))[:12]:
            print(f"  {100 * float(r[wi]) / tot:5.1f}%  {r[si][:110]}")
    except Exception as exc:  # noqa
        print("  (no SASS page:", exc, ")")
PY
