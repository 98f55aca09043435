#!/usr/bin/env bash
# The CPU model of the wgmma + TMA example (model.py): layout, pipeline, raster and epilogue.
exec python3 "$CASE/model.py" "$ROOT"
