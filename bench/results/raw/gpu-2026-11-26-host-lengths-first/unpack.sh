#!/usr/bin/env bash
# .devbuild-base: leanattn of 6ec3812 (main before planned steps); .devbuild-new: leanattn, libleanattn.so, test_cuda of the planned-step build
mkdir -p .devbuild-base .devbuild-new
xz -dc .devbuild-xz-p1/base-leanattn.xz > .devbuild-base/leanattn
for f in leanattn libleanattn.so test_cuda; do xz -dc .devbuild-xz-p1/new-$f.xz > .devbuild-new/$f; done
chmod +x .devbuild-base/* .devbuild-new/*
