# Issue 18, landing on a rough incline: post-landing velocities against the
# friction coefficient mu at one incline angle and restitution (the slice the
# report picks, in landing_slice.csv). Dashed: Routh's closed form for the sphere.
load sprintf("%s/common.gp", scriptdir)
data = sprintf("%s/landing_slice.csv", dir)
stats data using "angle_deg" nooutput
angle = STATS_min
stats data using "cor" nooutput
cor = STATS_min
solvers = "bullet-si propagative propagative-friction"
pick(s, shape, col) = (strcol("solver") eq s && strcol("shape") eq shape) ? column(col) : NaN
closed(col) = (strcol("solver") eq "propagative-friction" && strcol("shape") eq "sphere") ? column(col) : NaN
set key outside bottom center horizontal font ",9"
set xlabel "combined friction mu"
do for [t in "png svg"] {
  if (t eq "png") { set terminal pngcairo size 1300,900; set output ext_png("landing") } \
  else { set terminal svg size 1300,900; set output ext_svg("landing") }
  set multiplot layout 2,2 title sprintf("Landing on a %g degree incline, restitution %g", angle, cor)
  set ylabel "downhill speed after (m/s)"
  set title "sphere: v_t after the landing"
  plot data using "mu":(closed("vt_closed")) with lines dt 2 lw 2 lc rgb "gray" title "Routh's closed form", \
       for [i=1:words(solvers)] data using "mu":(pick(word(solvers, i), "sphere", "vt_after")) with linespoints lw 2 pt i+4 lc i title word(solvers, i)
  set ylabel "omega r after (m/s)"
  set title "sphere: spin after the landing (omega r; rolling: omega r = v_t)"
  plot data using "mu":(closed("omega_r_closed")) with lines dt 2 lw 2 lc rgb "gray" title "Routh's closed form", \
       for [i=1:words(solvers)] data using "mu":(pick(word(solvers, i), "sphere", "omega_r_after")) with linespoints lw 2 pt i+4 lc i title word(solvers, i)
  set ylabel "downhill speed after (m/s)"
  set title "cube: v_t after the landing"
  plot for [i=1:words(solvers)] data using "mu":(pick(word(solvers, i), "box", "vt_after")) with linespoints lw 2 pt i+4 lc i title word(solvers, i)
  set ylabel "kinetic energy after / before"
  set title "energy ratio of the landing (solid: sphere, dashed: cube)"
  plot for [i=1:words(solvers)] data using "mu":(pick(word(solvers, i), "sphere", "energy_ratio")) with linespoints lw 2 pt i+4 lc i title sprintf("%s, sphere", word(solvers, i)), \
       for [i=1:words(solvers)] data using "mu":(pick(word(solvers, i), "box", "energy_ratio")) with linespoints dt 2 lw 2 pt i+4 lc i title sprintf("%s, cube", word(solvers, i))
  unset multiplot
}
