# shellcheck shell=bash disable=SC2154  # build, python, out, summary, repo, start: set by scripts/gpu.sh
# variants: the opt-in kernels and tiles that wait for a GPU to choose their defaults, each beside
# the default and its peer, in one call:
#   sort     duet bench -k sort,argsort,unique_values,nonzero for each of SORT_VARIANTS (default:
#            the default (the one sweep), DUET_SORT_ONESWEEP=0 (three launches a pass), and the one
#            sweep with DUET_SORT_RANK=counting and with DUET_SORT_ITEMS 12 and 14), on cuda:0 (the default also on NVIDIA's OpenCL), then CuPy's
#            figures (bench/compare_cupy.py) and bench/report.py's rows;
#   gemm     the suite's half, bfloat16 and TF32 shapes on cuda:0, cuBLAS through CuPy and PyTorch
#            (TF32 on: bench/gemm/torch_tf32.py) beside them, the half and bfloat16 ones on NVIDIA's
#            OpenCL too, and bench/gemm/gemm_report.py's table (gemm-report.md) and plot
#            ($OUT/tensor-gemm.png);
#   tensor   NVIDIA's OpenCL tensor kernel at h8192 and b8192 for each of TC_TILES
#            (DUET_GEMM_TC_TILE, ":1" swizzled; "default" is the rule's);
#   ptx      the warpgroup kernel on NVIDIA's OpenCL through NVRTC's PTX (the default there): the
#            GEMM and rect-transfer tests, then the large shapes beside DUET_PTX_PROGRAMS=0 (the
#            OpenCL C tensor kernel).
# VARIANTS picks the parts ("sort gemm tensor ptx"). A variant's settings are VAR=VALUE words joined by
# '+', e.g. DUET_SORT_RANK=counting+DUET_SORT_ITEMS=12.
phase_variants() {
  local dir=$1 part v label t settings=() on=()
  for part in ${VARIANTS:-sort gemm tensor ptx}; do
    case $part in
      sort)
        has cuda || continue
        for v in ${SORT_VARIANTS:-default DUET_SORT_ONESWEEP=0 DUET_SORT_RANK=counting DUET_SORT_ITEMS=12 \
                 DUET_SORT_ITEMS=14}; do
          label=${v//[=+]/-} settings=(X=1) on=(--device cuda:0)
          [ "$v" = default ] && has nvidia && on+=(--device opencl:NVIDIA)
          [ "$v" != default ] && read -r -a settings <<< "${v//+/ }"
          { echo; echo "sort, $v:"; } >> "$summary"
          env "${settings[@]}" "$build/duet" bench "${on[@]}" -k sort,argsort,unique_values,nonzero \
            --json "$dir/sort-$label.json" > "$dir/sort-$label.log" 2>&1 || fail "duet bench, sort, $v"
          grep -E "sort|unique|nonzero" "$dir/sort-$label.log" | tee -a "$summary"
        done
        logged "$dir/sort-cupy.log" "$python" bench/compare_cupy.py --kernels sort,argsort,unique_values,nonzero \
          --json "$dir/sort-cupy.json" || fail "CuPy's sort figures (sort-cupy.log)"
        "$python" bench/report.py "$dir/sort-default.json" "$dir/sort-cupy.json" 2>&1 |
          grep -E "sort|unique|nonzero" | tee -a "$summary" ;;
      gemm)
        has cuda || continue
        local shapes=h4096,h4096-nt,h4096-tn,h8192,h8192-nt,b4096,b4096-nt,b4096-tn,b8192,b8192-nt
        logged "$dir/gemm-duet.log" "$build/duet-gemm-bench" --device cuda:0 --only "$shapes,tf8192,tf8192-nt" \
          --no-clblast --json "$dir/gemm-duet.json" || fail "duet-gemm-bench (gemm-duet.log)"
        grep -E "^(h|b|tf)[0-9]" "$dir/gemm-duet.log" | tee -a "$summary"
        CUPY_TF32=0 "$python" bench/gemm/gemm_cublas.py --only "$shapes" --json "$dir/gemm-cublas.json" 2>&1 |
          tee "$dir/gemm-cublas.log" | grep -E "cublas" | tee -a "$summary"
        "$python" bench/gemm/torch_tf32.py --json "$dir/gemm-torch-tf32.json" 2>&1 | tee "$dir/gemm-torch-tf32.log" |
          tee -a "$summary"
        # The same shapes on NVIDIA's OpenCL (its tensor kernel through inline PTX), then the plot of
        # both against cuBLAS that bench/RESULTS.md shows.
        local reports=("$dir/gemm-duet.json" "$dir/gemm-cublas.json")
        [ -s "$dir/gemm-torch-tf32.json" ] && reports+=("$dir/gemm-torch-tf32.json")
        if has nvidia; then
          logged "$dir/gemm-duet-opencl.log" "$build/duet-gemm-bench" --device opencl:NVIDIA --only "$shapes" \
            --no-clblast --json "$dir/gemm-duet-opencl.json" || fail "duet-gemm-bench on NVIDIA's OpenCL"
          reports+=("$dir/gemm-duet-opencl.json")
        fi
        "$python" bench/gemm/gemm_report.py "${reports[@]}" --out "$dir/gemm-report.md" \
          --plot "$out/tensor-gemm.png" > "$dir/gemm-report.log" 2>&1 ;;
      tensor)
        has nvidia || continue
        for t in ${TC_TILES:-default 128x128x32:64x32:3:1 128x128x32:64x64:3:1 128x128x16:64x32:6:1 \
                 128x128x16:64x64:4}; do
          settings=(X=1)
          [ "$t" != default ] && settings=("DUET_GEMM_TC_TILE=$t")
          { echo; echo "NVIDIA OpenCL tensor tiles $t:"; } >> "$summary"
          env "${settings[@]}" "$build/duet-gemm-bench" --device opencl:NVIDIA --only h8192,b8192 --no-clblast \
            --runs 5 2>&1 | grep -E "^(h|b)8192|rror" | tee -a "$summary"
        done ;;
      ptx)
        # The warpgroup kernel on NVIDIA's OpenCL through NVRTC's PTX: its tests first (every op pair,
        # batch and view against the double reference), then the large shapes beside the OpenCL C
        # tensor kernel (DUET_PTX_PROGRAMS=0), cuBLAS in the gemm part's call.
        has nvidia || continue
        DUET_TEST_BACKEND=opencl DUET_TEST_DEVICE_KIND=gpu "$build/tests/duet_tests" \
          -tc='*gemm*,*wgmma*,*rect*' > "$dir/ptx-tests.log" 2>&1 || fail "gemm tests on NVIDIA's OpenCL"
        { echo; echo "GEMM tests on NVIDIA's OpenCL:"; tail -3 "$dir/ptx-tests.log"; } >> "$summary"
        for v in default DUET_PTX_PROGRAMS=0; do
          settings=(X=1)
          [ "$v" != default ] && settings=("$v")
          { echo; echo "NVIDIA OpenCL, $v:"; } >> "$summary"
          env "${settings[@]}" "$build/duet-gemm-bench" --device opencl:NVIDIA --only h8192,h8192-nt,b8192,b8192-nt,h4096 \
            --no-clblast --runs 5 2>&1 | grep -E "^(h|b)[0-9]|rror" | tee -a "$summary"
        done ;;
      *) fail "variants: unknown part '$part' (sort, gemm, tensor, ptx)" ;;
    esac
  done
}
