# Seed 000, Sec. VII-B / Fig. 8: the tailed biped's double impact before and
# after the design optimisation: |<u,v>_g| (unit normals), xi over every order,
# and the spread of the post-impact velocities over the ordering policies.
# Exact zeros are drawn at the floor 1e-17 (below double round-off).
load sprintf("%s/common.gp", scriptdir)
data = sprintf("%s/design.csv", dir)
clamp(x) = abs(x) > 1e-17 ? abs(x) : 1e-17
set logscale y
set format y "10^{%L}"
set yrange [1e-18:1]
set xrange [-0.5:1.5]
set xtics ("initial" 0, "optimised" 1)
set ylabel "order dependence"
set title "Tailed biped: double impact of foot and tail before and after optimisation"
set key inside top right
do for [t in "png svg"] {
  if (t eq "png") { set terminal pngcairo size 900,560; set output ext_png("design") } \
  else { set terminal svg size 900,560; set output ext_svg("design") }
  plot data using (strcol("stage") eq "optimised" ? 1 : 0):(clamp(column("gram_uv"))) with linespoints lw 2 pt 7 ps 1.5 title "|<u,v>_g|", \
       data using (strcol("stage") eq "optimised" ? 1 : 0):(clamp(column("xi"))) with linespoints lw 2 pt 5 ps 1.5 title "xi (every order)", \
       data using (strcol("stage") eq "optimised" ? 1 : 0):(clamp(column("spread"))) with linespoints lw 2 pt 9 ps 1.5 title "spread (4 policies)"
}
