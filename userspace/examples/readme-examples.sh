#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# userspace/examples/readme-examples.sh README OUTDIR - write each complete
# C program of README (a ```c block with a main function) to
# OUTDIR/readme-N.c, N = 1, 2, ... in the page's order, and print how many
# there are. A block without main (a fragment) is left out.
set -eu
readme=${1:?usage: readme-examples.sh README OUTDIR}
out=${2:?usage: readme-examples.sh README OUTDIR}
mkdir -p "$out"
rm -f "$out"/readme-*.c
awk -v out="$out" '
	/^```c$/ { inb = 1; body = ""; next }
	inb && /^```$/ {
		inb = 0
		if (body ~ /\nint main[^a-zA-Z0-9_]/) {
			n++
			printf "%s", body > (out "/readme-" n ".c")
			close(out "/readme-" n ".c")
		}
		next
	}
	inb { body = body "\n" $0 }
	END { print n + 0 }
' "$readme"
