#!/bin/sh
# A slow ptxas or nvcc: answers --version, otherwise leaves a tmpxft_* file in $TMPDIR as nvcc
# does, starts a grandchild (as nvcc starts cicc) and hangs, recording "<own pid> <grandchild
# pid> <the tmpxft file>" in "$FAKE_TOOL_MARK" once all is in place (tests/cases/kill_cleanup).
case "$1" in
  --version) echo "Cuda compilation tools, release 13.0, V13.0.88"; exit 0 ;;
esac
tmpxft="${TMPDIR:-/tmp}/tmpxft_0000$$_00000000-1_fake.cpp"
echo "fake" > "$tmpxft"
sleep 300 &
echo "$$ $! $tmpxft" > "$FAKE_TOOL_MARK.tmp" && mv "$FAKE_TOOL_MARK.tmp" "$FAKE_TOOL_MARK"
wait
