# Fig. 5: indeterminacy xi(theta), analytic (core) and simulated in Bullet.
load sprintf("%s/common.gp", scriptdir)
set xlabel "theta (degrees)"
set ylabel "xi"
set title "Billiard break: indeterminacy xi(theta)"
data = sprintf("%s/billiards.csv", dir)
solvers = "bullet-si bullet-nncg bullet-mlcp-dantzig propagative"
do for [t in "png svg"] {
  if (t eq "png") { set terminal pngcairo size 1000,620; set output ext_png("billiards_xi") } \
  else { set terminal svg size 1000,620; set output ext_svg("billiards_xi") }
  plot data using "theta_deg":(strcol("solver") eq "propagative" ? column("xi_analytic") : NaN) with lines lw 2 lc rgb "black" title "analytic (core, touching)", \
       for [i=1:words(solvers)] data using "theta_deg":(strcol("solver") eq word(solvers, i) ? column("xi_sim") : NaN) \
       with points pt i+4 ps 1 title sprintf("%s in Bullet", word(solvers, i))
}
