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

if (plots eq 'cost') {
	np = words(panels)
	set terminal pngcairo noenhanced size 1500, 480 * np font ',9'
	set output png
	set multiplot layout np, 3 title 'cost per operation against N pending (QEMU TCG guest; lower is better)'
	set logscale xy
	set xrange [500:2000000]
	set format x '1e%T'
	set xlabel 'N pending timers'
	set ylabel unit
	set key outside right top vertical font ',8'
	set grid
	do for [c = 1:np] {
		pn = word(panels, c)
		do for [o = 1:3] {
			op = word(ops, o)
			set title sprintf('%s — %s', op, pn)
			plot for [s = 1:words(impls)] \
				sprintf('%s/%s-%s-%s-%s.dat', dir, prefix, pn, op, word(impls, s)) \
				using 1:2:3:4 with yerrorlines lw 1.5 lt s pt s \
				title word(impls, s)
		}
	}
	unset multiplot
}

if (plots eq 'lateness') {
	ncg = words(cgs)
	limpls = 'twheel-1ms twheel-1us timerfd heap'
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
			using 1:2 with lines lw 2 lt i title word(limpls, i)
	}
	unset multiplot
}

if (plots eq 'idle') {
	imodes = 'table modify b64 timerfd uring heap-lazy heap-eager wheel-lazy wheel-eager'
	set linetype 9 lc rgb '#8b4513' lw 1.5 pt 9
	set terminal pngcairo noenhanced size 1500, 900 font ',9'
	set output png
	set multiplot layout 2, 3 title 'idle timeouts on the real clock: CPU per activity, net of the store-only loop (clamped at 10), against N (lower is better)'
	set logscale xy
	set xrange [500:2000000]
	set format x '1e%T'
	set xlabel 'N timers'
	set ylabel unit
	set key outside right top vertical font ',8'
	set grid
	do for [sh in 'edge half'] {
		do for [k in '1 10 100'] {
			set title sprintf('K = %s activities per period, %s', k, sh)
			plot for [m = 1:words(imodes)] \
				sprintf('%s/idle-%s-%s-%s.dat', dir, k, sh, word(imodes, m)) \
				using 1:2 with linespoints lw 1.5 lt m pt m \
				title word(imodes, m)
		}
	}
	unset multiplot
}
