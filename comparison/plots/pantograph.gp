# Seed 004, Figs. 9-10 / Tables III and V: pre-impact energy split T_c (lost)
# and T_a (kept) against the angle gamma of v_EE, T- = 10 mJ; lines: core
# (resolveInert), points: the paper's printed values.
load sprintf("%s/common.gp", scriptdir)
data = sprintf("%s/pantograph.csv", dir)
sweep(cfg, col) = (strcol("table") eq "sweep" && strcol("config") eq cfg) ? column(col) : NaN
paper(cfg, col) = (strcol("table") ne "sweep" && strcol("config") eq cfg) ? column(col) : NaN
set xlabel "gamma (degrees, clockwise from the plate normal)"
set ylabel "pre-impact kinetic energy (mJ)"
set xrange [-90:90]
set key inside bottom center
do for [t in "png svg"] {
  if (t eq "png") { set terminal pngcairo size 1200,520; set output ext_png("pantograph") } \
  else { set terminal svg size 1200,520; set output ext_svg("pantograph") }
  set multiplot layout 1,2
  do for [cfg in "symmetric asymmetric"] {
    set title sprintf("Pantograph, %s configuration (Fig. 8%s)", cfg, cfg eq "symmetric" ? "a" : "b")
    plot data using "gamma_deg":(sweep(cfg, "Tc_mJ")) with lines lw 2 lc rgb "#d62728" title "T_c^- (core)", \
         data using "gamma_deg":(sweep(cfg, "Ta_mJ")) with lines lw 2 lc rgb "#1f77b4" title "T_a^- (core)", \
         data using "paper_gamma_deg":(paper(cfg, "paper_Tc_mJ")) with points pt 7 ps 1.2 lc rgb "#d62728" title "T_c^- (paper)", \
         data using "paper_gamma_deg":(paper(cfg, "paper_Ta_mJ")) with points pt 5 ps 1.2 lc rgb "#1f77b4" title "T_a^- (paper)"
  }
  unset multiplot
}
