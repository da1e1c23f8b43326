# SPDX-License-Identifier: GPL-2.0
#
# tests/bench/plot.gp - the plots of `make bench`, from the data files
# tests/bench/report.py writes:
#   gnuplot -e "dir='build/bench/plot'; out='build/bench'; cgs='root memcg'" \
#           tests/bench/plot.gp
# cost-vs-n.png: median µs per operation against N (log-log), min..max as
#   error bars; one row per cgroup setting, one column per operation.
# lateness.png: CDF of lateness (the per-quantile median over reps), one
#   panel per cgroup setting.

if (!exists("dir")) dir = 'build/bench/plot'
if (!exists("out")) out = 'build/bench'
if (!exists("cgs")) cgs = 'root memcg'
# which plots to draw: those whose phases ran
if (!exists("plots")) plots = 'cost lateness'

impls = 'twheel-ioctl twheel-b1 twheel-b8 twheel-b64 twheel-b256 timerfd timerfd-epoll_ctl heap'
ops = 'schedule modify cancel'
ncg = words(cgs)

if (strstrt(plots, 'cost') > 0) {
	set terminal pngcairo noenhanced size 1500, 520 * ncg font ',9'
	set output out . '/cost-vs-n.png'
	set multiplot layout ncg, 3 title 'cost per operation against N pending (QEMU TCG guest; lower is better)'
	set logscale xy
	set xrange [500:2000000]
	set format x '1e%T'
	set xlabel 'N pending timers'
	set ylabel 'µs per operation'
	set key outside right top vertical font ',8'
	set grid
	do for [c = 1:ncg] {
		cg = word(cgs, c)
		do for [o = 1:3] {
			op = word(ops, o)
			set title sprintf('%s — %s', op, cg)
			# timerfd-epoll_ctl (7) exists for schedule only
			idx = (op eq 'schedule') ? '1 2 3 4 5 6 7 8' : '1 2 3 4 5 6 8'
			plot for [s in idx] \
				sprintf('%s/cost-%s-%s-%s.dat', dir, cg, op, word(impls, s + 0)) \
				using 1:2:3:4 with yerrorlines lw 1.5 lt (s + 0) pt (s + 0) \
				title word(impls, s + 0)
		}
	}
	unset multiplot
}

if (strstrt(plots, 'lateness') > 0) {
	limpls = 'twheel-1ms twheel-1us timerfd heap'
	set terminal pngcairo noenhanced size 1100, 450 * ncg font ',9'
	set output out . '/lateness.png'
	set multiplot layout ncg, 1 title 'lateness CDF: 1e4 timers over 2 s, one blocking reader (QEMU TCG guest)'
	set logscale x
	unset logscale y
	set autoscale x
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
