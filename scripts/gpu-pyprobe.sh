# Scratch probe for the GPU machine (issue 12's crash under pytest): pytest with and without its
# assertion rewriting, and the shared-queue and event tests in checked mode on every device.
export PYTHONPATH=$PWD/build-gpu/python
for mode in rewrite plain; do
  echo "=== pytest --assert=$mode"
  (cd /tmp && DUET_BACKEND=cuda timeout 60 python3 -m pytest -x -q -p no:cacheprovider --assert=$mode \
     /work/main/python/tests/test_array.py 2>&1 | grep -E "passed|failed|Fatal|line [0-9]+ in test" | head -5)
done
unset PYTHONPATH
for be in cuda opencl; do
  for check in 0 1; do
    echo "=== $be DUET_CHECK=$check: $(DUET_TEST_BACKEND=$be DUET_CHECK=$check timeout 200 build-gpu/tests/duet_tests \
      -tc="*shared*,*event*,*map*,*duration*,*thread*" 2>&1 | grep -E "^\[doctest\] (test cases|assertions)" | tr -s ' ' | tr '\n' ' ')"
  done
done
