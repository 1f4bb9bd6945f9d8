# Seed 004, Figs. 2-5: heel strike of the compass walker. Top: pre-impact
# energy split against the inter-leg angle theta (mu = 1, q5 = 0; dashed where
# the old stance foot does not lift off) and against the torso angle q5
# (theta = 40, rho = 0.25). Bottom: the foot impulses |lambda_n|, |lambda_t|.
load sprintf("%s/common.gp", scriptdir)
data = sprintf("%s/walker.csv", dir)
fig2(r, col, walks) = (column("mu") == 1 && column("q5_deg") == 0 && column("rho") == r && \
                       (column("liftoff") == walks || walks < 0)) ? abs(column(col)) : NaN
# Figs. 4-5 rows (theta = 40, rho = 0.25), contiguous per mu: q5 mu Tc Ta lambda_n lambda_t.
set table $torso separator comma
plot data using "q5_deg":"mu":"Tc_J":"Ta_J":"lambda_n":"lambda_t" with table \
     if (column("theta_deg") == 40 && column("rho") == 0.25)
unset table
fig4(m, col) = (column(2) == m) ? abs(column(col)) : NaN
rhos = "0 0.25 0.5"
mus = "0.1 1 10"
set key outside bottom center horizontal maxrows 3 font ",9"
do for [t in "png svg"] {
  if (t eq "png") { set terminal pngcairo size 1300,900; set output ext_png("walker") } \
  else { set terminal svg size 1300,900; set output ext_svg("walker") }
  set multiplot layout 2,2
  set xlabel "inter-leg angle theta (degrees)"
  set ylabel "pre-impact energy (J)"
  set title "Fig. 2: T_c^- (solid) and T_a^- (open) vs theta, mu = 1, q5 = 0"
  plot for [i=1:3] data using "theta_deg":(fig2(word(rhos,i)+0, "Tc_J", 1)) with linespoints lw 2 pt 7 ps 0.5 lc i title sprintf("T_c, rho = %s", word(rhos,i)), \
       for [i=1:3] data using "theta_deg":(fig2(word(rhos,i)+0, "Ta_J", 1)) with linespoints lw 2 pt 6 ps 0.5 lc i title sprintf("T_a, rho = %s", word(rhos,i)), \
       for [i=1:1] data using "theta_deg":(fig2(0, "Tc_J", 0)) with lines dt 2 lc 1 title "rho = 0, no lift-off"
  set xlabel "torso angle q5 (degrees, forward positive)"
  set title "Fig. 4: T_c^- (solid) and T_a^- (open) vs q5, theta = 40, rho = 0.25"
  set datafile nocolumnheaders
  plot for [i=1:3] $torso using 1:(fig4(word(mus,i)+0, 3)) with linespoints lw 2 pt 7 lc i title sprintf("T_c, mu = %s", word(mus,i)), \
       for [i=1:3] $torso using 1:(fig4(word(mus,i)+0, 4)) with linespoints lw 2 pt 6 lc i title sprintf("T_a, mu = %s", word(mus,i))
  set datafile columnheaders
  set xlabel "inter-leg angle theta (degrees)"
  set ylabel "impulse magnitude (N s)"
  set title "Fig. 3: |lambda_n| (solid) and |lambda_t| (open) vs theta, mu = 1, q5 = 0"
  plot for [i=1:3] data using "theta_deg":(fig2(word(rhos,i)+0, "lambda_n", 1)) with linespoints lw 2 pt 7 ps 0.5 lc i title sprintf("lambda_n, rho = %s", word(rhos,i)), \
       for [i=1:3] data using "theta_deg":(fig2(word(rhos,i)+0, "lambda_t", 1)) with linespoints lw 2 pt 6 ps 0.5 lc i title sprintf("lambda_t, rho = %s", word(rhos,i))
  set xlabel "torso angle q5 (degrees, forward positive)"
  set title "Fig. 5: |lambda_n| (solid) and |lambda_t| (open) vs q5, theta = 40, rho = 0.25"
  set datafile nocolumnheaders
  plot for [i=1:3] $torso using 1:(fig4(word(mus,i)+0, 5)) with linespoints lw 2 pt 7 lc i title sprintf("lambda_n, mu = %s", word(mus,i)), \
       for [i=1:3] $torso using 1:(fig4(word(mus,i)+0, 6)) with linespoints lw 2 pt 6 lc i title sprintf("lambda_t, mu = %s", word(mus,i))
  unset multiplot
  set datafile columnheaders
}
