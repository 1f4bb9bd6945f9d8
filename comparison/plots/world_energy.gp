# Energy drift of a replayed .bullet world, one line per solver. Run by
# `propimpact-compare world FILE --plot OUT.png` as:
#   gnuplot -e "data='OUT.csv'; out='OUT.png'; solvers='bullet-si propagative'; name='FILE'; scriptdir='...'" world_energy.gp
load sprintf("%s/common.gp", scriptdir)
set logscale y
set format y "%.0e"
set xlabel "time (s)"
set ylabel "|E - E0| / |E0|  (exact 0 drawn at 1e-17)"
floor = 1e-17
set yrange [floor:*]
set title sprintf("Energy drift: %s", name) noenhanced
set key noenhanced
set terminal pngcairo size 1000,620
set output out
plot for [i=1:words(solvers)] data using "time":((strcol("solver") eq word(solvers, i)) ? (abs(column("drift")) > floor ? abs(column("drift")) : floor) : NaN) \
     with lines lw 2 lc i title word(solvers, i)
