#!/usr/bin/env bash
# The CPU model of the interface examples of gemm_bf16_nt (model.py): struct offsets, the
# persistent schedule and pipeline, the TMA-store staging layout, the rank-3 views, the setup-built
# tile table.
exec python3 "$CASE/model.py" "$ROOT"
