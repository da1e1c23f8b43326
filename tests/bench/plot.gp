# SPDX-License-Identifier: GPL-2.0
#
# tests/bench/plot.gp - the plots of `make bench`, from the data files
# tests/bench/report.py writes (it calls gnuplot once per plot):
#   plots='cost': png, the median cost per operation against N (log-log),
#     min..max as error bars, from DIR/PREFIX-PANEL-OP-IMPL.dat; one row
#     per panel (cgroup setting and deadline mode, e.g. root-span), one
#     column per operation; unit: the y axis (µs or instructions).
#   plots='lateness': png, CDF of lateness (the per-quantile median over
#     reps) from DIR/late-CG-IMPL.dat, one panel per cgroup setting.
#   plots='idle': png, the idle-timeout phase's CPU per activity (net of
#     the store-only loop, clamped at 10) against N, from
#     DIR/idle-K-SHAPE-MODE.dat; one panel per K and loop shape.
# e.g. gnuplot -e "dir='build/bench/plot'; png='x.png'; prefix='wall-cost';
#   unit='µs'; panels='root-span root-spread'; plots='cost'" tests/bench/plot.gp

if (!exists("dir")) dir = 'build/bench/plot'
if (!exists("plots")) plots = 'cost'
if (!exists("prefix")) prefix = 'wall-cost'
if (!exists("unit")) unit = 'µs per operation'
if (!exists("panels")) panels = 'root-span'
if (!exists("cgs")) cgs = 'root'

impls = 'twheel-ioctl twheel-b1 twheel-b8 twheel-b64 twheel-b256 timerfd heap'
ops = 'schedule modify cancel'

# One style per implementation, the same in every panel: twheel's
# batch sizes share a colour and differ by dashes and markers.
set linetype 1 lc rgb '#1f4e9c' dt 1 pt 7 lw 1.8	# twheel-ioctl
set linetype 2 lc rgb '#2e8b57' dt 1 pt 4 lw 1.5	# twheel-b1
set linetype 3 lc rgb '#2e8b57' dt 2 pt 6 lw 1.5	# twheel-b8
set linetype 4 lc rgb '#2e8b57' dt 3 pt 8 lw 1.5	# twheel-b64
set linetype 5 lc rgb '#2e8b57' dt 4 pt 12 lw 1.5	# twheel-b256
set linetype 6 lc rgb '#c0392b' dt 1 pt 5 lw 1.8	# timerfd
set linetype 7 lc rgb '#222222' dt 1 pt 9 lw 1.8	# heap

if (plots eq 'cost') {
	np = words(panels)
	set terminal pngcairo noenhanced size 1500, 440 * np + 60 font ',9'
	set output png
	# One legend for the figure, right of the panels (the first panel's).
	set multiplot layout np, 3 margins 0.05, 0.86, 0.08, 0.92 \
		spacing 0.05, 0.1 \
		title 'cost per operation against N pending (QEMU TCG guest; lower is better)'
	set logscale xy
	set xrange [500:2000000]
	set format x '1e%T'
	set xlabel 'N pending timers'
	set ylabel unit
	set grid
	do for [c = 1:np] {
		pn = word(panels, c)
		do for [o = 1:3] {
			op = word(ops, o)
			if (c == 1 && o == 1) {
				set key at screen 0.995, 0.9 right top vertical \
					font ',9' title 'median; bars: min..max' \
					box opaque
			} else {
				unset key
			}
			set title sprintf('%s — %s', op, pn)
			plot for [s = 1:words(impls)] \
				sprintf('%s/%s-%s-%s-%s.dat', dir, prefix, pn, op, word(impls, s)) \
				using 1:2:3:4 with yerrorlines lt s \
				title word(impls, s)
		}
	}
	unset multiplot
}

if (plots eq 'lateness') {
	ncg = words(cgs)
	limpls = 'twheel-1ms twheel-1us timerfd heap'
	llts = '1 2 6 7'
	set terminal pngcairo noenhanced size 1100, 450 * ncg font ',9'
	set output png
	set multiplot layout ncg, 1 title 'lateness CDF: 1e4 timers over 2 s, one blocking reader (QEMU TCG guest, wall clock)'
	set logscale x
	set format x '%g'
	set xlabel 'lateness, µs (from the deadline to user space holding the expiry; clamped at 1 µs)'
	set ylabel 'fraction of timers'
	set yrange [0:1]
	set key inside right bottom
	do for [c = 1:ncg] {
		cg = word(cgs, c)
		set title cg
		plot for [i = 1:words(limpls)] \
			sprintf('%s/late-%s-%s.dat', dir, cg, word(limpls, i)) \
			using 1:2 with lines lw 2 lt word(llts, i) \
			title word(limpls, i)
	}
	unset multiplot
}

if (plots eq 'idle') {
	# timerfd and io_uring have no all-of-CPU-0 figure (see report.py).
	imodes = 'table table-read modify b64 heap-lazy heap-eager wheel-lazy wheel-eager'
	# twheel's modes in blue (the table without the ring lighter), the
	# userspace heap black and wheel brown (lazy solid, eager dashed).
	set linetype 1 lc rgb '#1f4e9c' dt 1 pt 7 lw 2.2	# table
	set linetype 2 lc rgb '#6f96d6' dt 1 pt 5 lw 1.5	# table-read
	set linetype 3 lc rgb '#1f4e9c' dt 2 pt 4 lw 1.5	# modify
	set linetype 4 lc rgb '#1f4e9c' dt 3 pt 8 lw 1.5	# b64
	set linetype 5 lc rgb '#222222' dt 1 pt 9 lw 1.8	# heap-lazy
	set linetype 6 lc rgb '#222222' dt 2 pt 11 lw 1.5	# heap-eager
	set linetype 7 lc rgb '#8b4513' dt 1 pt 6 lw 1.8	# wheel-lazy
	set linetype 8 lc rgb '#8b4513' dt 2 pt 12 lw 1.5	# wheel-eager
	set terminal pngcairo noenhanced size 1500, 900 font ',9'
	set output png
	set multiplot layout 2, 3 margins 0.05, 0.86, 0.08, 0.9 \
		spacing 0.05, 0.12 \
		title "idle timeouts on the real clock: all of CPU 0 per activity (user, kernel, interrupts), net of the store-only loop (clamped at 10), against N (lower is better)\ntimerfd and io_uring not shown: their CPU 0 busy time is not read (an hrtimer per timer makes /proc/timer_list O(N^2))"
	set logscale xy
	set xrange [500:2000000]
	set format x '1e%T'
	set xlabel 'N timers'
	set ylabel unit
	set grid
	first = 1
	do for [sh in 'edge half'] {
		do for [k in '1 10 100'] {
			if (first) {
				set key at screen 0.995, 0.88 right top vertical \
					font ',9' box opaque
				first = 0
			} else {
				unset key
			}
			set title sprintf('K = %s activities per period, %s', k, sh)
			plot for [m = 1:words(imodes)] \
				sprintf('%s/idle-%s-%s-%s.dat', dir, k, sh, word(imodes, m)) \
				using 1:2 with linespoints lt m \
				title word(imodes, m)
		}
	}
	unset multiplot
}
