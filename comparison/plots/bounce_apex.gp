# Apex height per bounce, each solver at each COR; dashed: h * COR^(2k).
load sprintf("%s/common.gp", scriptdir)
set logscale y
set format y "%g"
set xlabel "bounce k"
set ylabel "apex height (m)"
set title "Bouncing ball: apex per bounce"
data = sprintf("%s/bounce.csv", dir)
solvers = "bullet-si bullet-si-split propagative"
cors = "1 0.8 0.5"
do for [t in "png svg"] {
  if (t eq "png") { set terminal pngcairo size 1000,620; set output ext_png("bounce_apex") } \
  else { set terminal svg size 1000,620; set output ext_svg("bounce_apex") }
  plot for [c=1:words(cors)] data using "bounce":((strcol("solver") eq "propagative" && column("cor") == real(word(cors, c))) ? column("expected") : NaN) \
         with lines dt 2 lc rgb "gray" notitle, \
       for [i=1:words(solvers)] for [c=1:words(cors)] data using "bounce":((strcol("solver") eq word(solvers, i) && column("cor") == real(word(cors, c))) ? column("apex") : NaN) \
         with linespoints pt i+4 lc i title sprintf("%s, COR %s", word(solvers, i), word(cors, c))
}
