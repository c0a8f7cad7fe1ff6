#!/bin/bash -eu
# ClusterFuzzLite build: exactly the OSS-Fuzz build script.
exec bash -eu "$SRC/weft/tools/oss-fuzz/build.sh"
