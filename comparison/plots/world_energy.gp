# Energy drift of a replayed .bullet world, one line per solver. Run by
# `propimpact-compare world FILE --plot OUT.png` as:
#   gnuplot -e "data='OUT.csv'; out='OUT.png'; solvers='bullet-si propagative'; name='FILE'; scriptdir='...'" world_energy.gp
load sprintf("%s/common.gp", scriptdir)
set logscale y
set format y "%.0e"
set xlabel "time (s)"
set ylabel "|E - E0| / |E0|"
set title sprintf("Energy drift: %s", name) noenhanced
set key noenhanced
set terminal pngcairo size 1000,620
set output out
plot for [i=1:words(solvers)] data using "time":((strcol("solver") eq word(solvers, i) && column("drift") != 0) ? abs(column("drift")) : NaN) \
     with lines lw 2 lc i title word(solvers, i)
