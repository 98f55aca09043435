#!/bin/sh
# A ptxas that answers --version and otherwise hangs with a grandchild, recording both pids in
# "$FAKE_PTXAS_MARK" (tests/cases/interrupt_cleanup).
case "$1" in
  --version) echo "Cuda compilation tools, release 13.0, V13.0.88"; exit 0 ;;
esac
sleep 300 &
echo "$$ $!" > "$FAKE_PTXAS_MARK.tmp" && mv "$FAKE_PTXAS_MARK.tmp" "$FAKE_PTXAS_MARK"
wait
