# Worst energy error (% of the initial energy, against the propagative ideal) at COR 1 vs step rate.
load sprintf("%s/common.gp", scriptdir)
set logscale xy
set format y "10^{%L}"
set xlabel "step rate (Hz)"
set ylabel "max |v - v_{propagative}| / v0 at COR 1"
set title "Three-ball cradle: velocity error vs step rate (1e-16 = exact)"
data = sprintf("%s/cradle_vs_hz.csv", dir)
solvers = "bullet-si bullet-si-split bullet-nncg bullet-mlcp-dantzig bullet-mlcp-lemke propagative"
do for [t in "png svg"] {
  if (t eq "png") { set terminal pngcairo size 1000,620; set output ext_png("cradle_error_vs_hz") } \
  else { set terminal svg size 1000,620; set output ext_svg("cradle_error_vs_hz") }
  plot for [i=1:words(solvers)] data using "hz":(strcol("solver") eq word(solvers, i) ? column("max_err_vs_propagative") : NaN) \
       with linespoints lw 2 pt i ps (1 + 0.4 * i) title word(solvers, i)
}
