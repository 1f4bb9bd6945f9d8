# Shared settings; every script is run as: gnuplot -e "dir='out'" <script>
set datafile separator comma
set datafile columnheaders
set grid
set key outside right top
ext_png(name) = sprintf("%s/%s.png", dir, name)
ext_svg(name) = sprintf("%s/%s.svg", dir, name)
