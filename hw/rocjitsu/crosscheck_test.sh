#!/bin/bash
# Every cross-check case with the rocjitsu build $KIRC_ROCJITSU (pass it with
# --test_env=KIRC_ROCJITSU=DIR); prints "skipped: ..." and passes without one.
set -u
exec "$1" --json="${TEST_UNDECLARED_OUTPUTS_DIR:-.}/crosscheck.json"
