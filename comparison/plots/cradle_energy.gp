# Fig. 2b layout: energy change (%) vs impact speed per COR; stock Bullet
# (bullet-si, every step rate and detection depth) as points, propagative as lines.
load sprintf("%s/common.gp", scriptdir)
set logscale x
set xlabel "impact speed v0 (m/s)"
set ylabel "energy change (%)"
set title "Three-ball cradle: stock Bullet (points) vs propagative (lines)"
corval(c) = (column("cor") == c)
si(c) = (strcol("solver") eq "bullet-si" && corval(c)) ? 100 * (column("energy_ratio") - 1) : NaN
plot_all = sprintf("%s/cradle.csv", dir)
lines = sprintf("%s/cradle_lines.csv", dir)
do for [t in "png svg"] {
  if (t eq "png") { set terminal pngcairo size 1000,620; set output ext_png("cradle_energy") } \
  else { set terminal svg size 1000,620; set output ext_svg("cradle_energy") }
  plot plot_all using "v0":(si(1)) with points pt 7 ps 0.6 lc rgb "#d62728" title "bullet-si, COR 1", \
       plot_all using "v0":(si(0.7)) with points pt 5 ps 0.6 lc rgb "#1f77b4" title "bullet-si, COR 0.7", \
       plot_all using "v0":(si(0)) with points pt 9 ps 0.6 lc rgb "#2ca02c" title "bullet-si, COR 0", \
       lines using "v0":(column("cor") == 1 ? column("propagative_pct") : NaN) with lines lw 2 lc rgb "#d62728" title "propagative, COR 1", \
       lines using "v0":(column("cor") == 0.7 ? column("propagative_pct") : NaN) with lines lw 2 lc rgb "#1f77b4" title "propagative, COR 0.7", \
       lines using "v0":(column("cor") == 0 ? column("propagative_pct") : NaN) with lines lw 2 lc rgb "#2ca02c" title "propagative, COR 0"
}
